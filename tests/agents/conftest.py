"""Helpers for the agent tests: a workspace with a started agent, event views."""

from __future__ import annotations

from simherdr.scenarios import agents as scenarios  # noqa: F401  (re-exported for the tests)


def events(h, since=0, kinds=None):
    return [(k, d) for _, k, d in h.sim.hub.after(since) if kinds is None or k in kinds]


def statuses(h, since=0, pane_id=None):
    """The agent_status values of pane_agent_status_changed events, in order."""
    return [
        d["agent_status"]
        for k, d in events(h, since, ("pane_agent_status_changed",))
        if pane_id is None or d["pane_id"] == pane_id
    ]


def start_ready(h, name="rev", kind="claude", pane_id="w1:p1", settle=3.0, **overrides):
    """agent.start, then let the simulated agent come up and the 3 s settle pass."""
    if overrides:
        h.sim.agents.configure_pane(pane_id, **overrides)
    r = h.ok("agent.start", name=name, kind=kind, pane_id=pane_id)
    h.advance(
        max(
            settle,
            h.sim.agents.behaviour_for(kind, **overrides).detect_after
            + h.sim.agents.behaviour_for(kind, **overrides).startup,
        )
        + 0.01
    )
    return r
