"""Virtual time: simulated seconds per wall second for a four-hour finish watcher
(target >= 10,000).

In-process on a VirtualClock (simherdr.testing.Harness). With the agent layer: a managed
``pi`` agent (agent.start) is prompted with a task that takes four simulated hours, and an
``agent.wait`` watches for it to finish; the test advances the clock one simulated minute at
a time, as a test driving time would. Without the agent layer: a ``pane.wait_for_output``
resolved by output four hours later.
"""

from __future__ import annotations

import time

from .common import Result, fmt_time

TARGET = 10_000
HOURS = 4
STEP = 60.0  # one simulated minute per advance() call


def _has_agents() -> bool:
    from simherdr.handlers.registry import load_all

    return "agent.start" in load_all()


def _agent_scenario(h) -> tuple[float, float, str]:
    h.ok("workspace.create", cwd="/")
    h.sim.agents.configure_pane("w1:p1", work=HOURS * 3600.0)
    h.ok("agent.start", name="worker", kind="pi", pane_id="w1:p1")
    h.advance(5)  # settle: the agent reaches idle
    h.ok("agent.prompt", target="worker", text="do the four-hour task")
    h.advance(1)  # the prompt is submitted and the agent starts working
    assert h.ok("agent.get", target="worker")["agent"]["agent_status"] == "working"
    watcher = h.spawn(
        "agent.wait", target="worker", until=["idle", "done"], timeout_ms=(HOURS + 1) * 3600 * 1000
    )
    return _drive(h, watcher, "agent.wait on a pi agent working 4 h")


def _pane_scenario(h) -> tuple[float, float, str]:
    h.ok("workspace.create", cwd="/")
    watcher = h.spawn(
        "pane.wait_for_output",
        pane_id="w1:p1",
        source="recent",
        match={"type": "substring", "value": "finished"},
        timeout_ms=(HOURS + 1) * 3600 * 1000,
    )
    sim = h.sim
    sim.schedule(
        sim.now() + HOURS * 3600, lambda: sim.write_input(sim.session.panes["w1:p1"], b"finished\r")
    )
    return _drive(h, watcher, "pane.wait_for_output resolved by output after 4 h")


def _drive(h, watcher, what) -> tuple[float, float, str]:
    t_sim0 = h.sim.now()
    t0 = time.perf_counter()
    while not watcher.done():
        h.advance(STEP)
        if h.sim.now() - t_sim0 > (HOURS + 2) * 3600:
            raise RuntimeError("the watcher never resolved")
    wall = time.perf_counter() - t0
    reply = h.result(watcher)
    assert "result" in reply, reply
    return h.sim.now() - t_sim0, wall, what


def run(repeats: int = 5, version: str = "0.9.3") -> Result:
    from simherdr.testing import Harness

    agents = _has_agents()
    runs = []
    for _ in range(repeats):
        with Harness(version) as h:
            runs.append((_agent_scenario if agents else _pane_scenario)(h))
    rates = sorted(sim / wall for sim, wall, _ in runs)
    rate = rates[len(rates) // 2]
    sim_s, wall_s, what = sorted(runs, key=lambda r: r[0] / r[1])[len(runs) // 2]
    return Result(
        "virtual time: 4 h finish watcher",
        round(rate),
        "sim s / wall s",
        f">= {TARGET:,}",
        rate >= TARGET,
        f"{what}; {sim_s / 3600:.2f} simulated h in {fmt_time(wall_s)} wall, advancing "
        f"{STEP:.0f} s per step (median of {repeats})",
        {
            "rate": rate,
            "rates": rates,
            "sim_s": sim_s,
            "wall_s": wall_s,
            "scenario": what,
            "agents": agents,
            "step_s": STEP,
        },
    )
