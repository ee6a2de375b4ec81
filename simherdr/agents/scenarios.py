"""A scenario seam for tests: make simulated agents do things at a moment the test picks.

Each helper acts through the agent layer's public API (``sim.agents``) and the occupant's
public methods, exactly as the simulated process itself would; none writes state directly.
Call them on the simulator's own thread (in-process: anywhere; ThreadServer: ``srv.run``).
"""

from __future__ import annotations


def _pane(sim, pane_id: str):
    pane = sim.session.find_pane(pane_id)
    if pane is None:
        raise KeyError(f"no pane {pane_id}")
    return pane


def _occupant(sim, pane_id: str):
    occ = sim.agents.occupant(_pane(sim, pane_id))
    if occ is None:
        raise LookupError(f"no simulated agent runs in {pane_id}")
    return occ


def _done(sim) -> None:
    sim.commit()


def agent_exits(sim, pane_id: str) -> None:
    """The agent process in ``pane_id`` exits now (the shell comes back)."""
    _occupant(sim, pane_id).exit()
    _done(sim)


def agent_blocks(sim, pane_id: str) -> None:
    """The agent shows a blocking dialog now (detection: blocked)."""
    _occupant(sim, pane_id).force("blocked")
    _done(sim)


def agent_state(sim, pane_id: str, state: str) -> None:
    """Detection now sees the agent ``state`` (idle, working, blocked)."""
    _occupant(sim, pane_id).force(state)
    _done(sim)


def session_reported(sim, pane_id: str, value: str | None = None, start_source: str = "startup") -> None:
    """The agent's integration reports its agent_session now (late, or again)."""
    _occupant(sim, pane_id).report_session(value, start_source)
    _done(sim)


def takeover(sim, pane_id: str, kind: str, **overrides):
    """A different agent process replaces the current foreground job of ``pane_id`` (e.g. the
    user quit one agent and started another without herdr seeing a prompt in between)."""
    pane = _pane(sim, pane_id)
    old = sim.agents.occupant(pane)
    if old is not None:
        old.kill()
    occ = sim.agents.spawn(pane, kind, **overrides)
    _done(sim)
    return occ


def quiet_next_start(sim, pane_id: str, **overrides) -> None:
    """The next agent started in ``pane_id`` reports no session by itself (so a test can report
    it late with :func:`session_reported`); other behaviour overrides may be added."""
    sim.agents.configure_pane(pane_id, session_at="never", **overrides)
