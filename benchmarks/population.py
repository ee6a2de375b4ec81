"""Build a session of N panes through the API (in-process), optionally with a simulated agent
in every pane (the agent layer's public API, ``sim.agents.spawn``).

Shape: workspaces of two tabs x five panes (N/10 workspaces), so lookups by workspace, tab and
pane are all exercised at scale. Agents are ``pi`` (the quickest to settle: detected after
0.2 s, idle after 1.2 s).
"""

from __future__ import annotations

PANES_PER_TAB = 5
TABS_PER_WS = 2
AGENT_KIND = "pi"
# No session report: a pane whose agent owns a session refuses a custom hook source, and the
# scale benchmark changes one agent's status through pane.report_agent (source "bench").
AGENT_OVERRIDES = {"session_at": "never"}


def has_agent_layer() -> bool:
    from simherdr.handlers.registry import load_all

    return "agent.start" in load_all()


async def _ok(sim, method: str, **params) -> dict:
    reply = await sim.request({"id": "pop", "method": method, "params": params})
    if "result" not in reply:
        raise RuntimeError(f"{method}: {reply}")
    return reply["result"]


async def populate(sim, n: int, cwd: str, agents: bool) -> list[str]:
    """Create ``n`` panes (a multiple of 10); return their ids in creation order."""
    per_ws = PANES_PER_TAB * TABS_PER_WS
    if n % per_ws:
        raise ValueError(f"n must be a multiple of {per_ws}")
    ids: list[str] = []
    for _ in range(n // per_ws):
        r = await _ok(sim, "workspace.create", cwd=cwd)
        wid = r["workspace"]["workspace_id"]
        root = r["root_pane"]["pane_id"]
        for t in range(TABS_PER_WS):
            if t:
                root = (await _ok(sim, "tab.create", workspace_id=wid, cwd=cwd))["root_pane"][
                    "pane_id"
                ]
            ids.append(root)
            target = root
            for k in range(PANES_PER_TAB - 1):
                pane = (
                    await _ok(
                        sim,
                        "pane.split",
                        target_pane_id=target,
                        direction="right" if k % 2 else "down",
                    )
                )["pane"]["pane_id"]
                ids.append(pane)
                target = pane
    if agents:
        for pid in ids:
            sim.agents.spawn(sim.session.panes[pid], AGENT_KIND, **AGENT_OVERRIDES)
    return ids
