"""Scenario helpers for tests: make simulated agents and shells do things at a moment the test
picks, including the races real clients face (CLIENTS.md §2.10, §3, §4): a pane reused by a new
agent, an agent that vanishes, a late session id, a busy shell.

Each helper acts through public seams only: the agent layer (``sim.agents``), the occupant's
public methods (exactly as the simulated process itself would), the simulated shell's
foreground-command seam (``run_foreground`` / ``foreground_done``) and the simulator's own
``pane_exited`` / ``commit``; none writes state directly. Call them on the simulator's own
thread (in-process: anywhere; ThreadServer: ``srv.run``; a ``simherdr serve`` process: the
control plane, :mod:`simherdr.scenarios.control`).
"""

from __future__ import annotations

import shlex

from ..model.seams import ForegroundCommands, MixedPanes
from .steps import step


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


# --- the agent does something --------------------------------------------------------------------


@step
def agent_exits(sim, pane_id: str) -> None:
    """The agent process in ``pane_id`` exits now (the shell comes back)."""
    _occupant(sim, pane_id).exit()
    _done(sim)


@step
def agent_blocks(sim, pane_id: str) -> None:
    """The agent shows a blocking dialog now (detection: blocked)."""
    _occupant(sim, pane_id).force("blocked")
    _done(sim)


@step
def agent_state(sim, pane_id: str, state: str) -> None:
    """Detection now sees the agent ``state`` (idle, working, blocked)."""
    if state not in ("idle", "working", "blocked"):
        raise ValueError(f"state must be idle, working or blocked, not {state!r}")
    _occupant(sim, pane_id).force(state)
    _done(sim)


@step
def session_reported(
    sim, pane_id: str, value: str | None = None, start_source: str = "startup"
) -> None:
    """The agent's integration reports its agent_session now (late, or again)."""
    _occupant(sim, pane_id).report_session(value, start_source)
    _done(sim)


@step
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


@step
def quiet_next_start(sim, pane_id: str, **overrides) -> None:
    """The next agent started in ``pane_id`` reports no session by itself (so a test can report
    it late with :func:`session_reported`); other behaviour overrides may be added."""
    sim.agents.configure_pane(pane_id, session_at="never", **overrides)


# --- races ------------------------------------------------------------------------------------------


@step
def pane_reused(sim, pane_id: str, kind: str, *, exit_seen: bool = False, **overrides):
    """The pane's occupant leaves and a new agent of ``kind`` takes the same pane: same pane id,
    same terminal id, a new process (its own session, its own stages). Returns the new occupant.

    ``exit_seen=False`` (default): the swap happens between two of herdr's detection polls, so
    herdr never sees the shell in between; the new process is simply detected (a different
    kind takes over the label and releases the name). ``exit_seen=True``: herdr sees the old
    process exit first (``pane_agent_detected{released, final_status}``, name and label
    cleared), then the new one start.

    What a client pinned to the old occupant sees (SOCKET.md §7.1): ``agent.wait`` ends with
    ``agent_not_running`` — on the new label, on the name going away, or on the release (unless
    the awaited statuses include the release's ``final_status``, herdr's own rule). A same-kind
    swap with ``exit_seen=False`` is invisible to herdr, which tells agents apart by process
    name: the new occupant inherits the name, label and anchored session, and can satisfy the
    wait (the hazard this helper lets a client test).
    """
    pane = _pane(sim, pane_id)
    old = sim.agents.occupant(pane)
    if old is None:
        raise LookupError(f"no simulated agent runs in {pane_id}")
    if exit_seen:
        old.exit()
        _done(sim)  # the release is its own batch, before the new process appears
    else:
        old.kill()
    occ = sim.agents.spawn(pane, kind, **overrides)
    _done(sim)
    return occ


VANISH_CLOSE = (None, "exited", "closed")


@step
def agent_vanishes(sim, pane_id: str, close: str | None = None) -> None:
    """The agent goes away under the client's feet.

    ``close=None``: the process exits and the shell comes back (the pane stays: ``agent.get``
    by name answers ``agent_not_found``, a wait ``agent_not_running``). ``close="exited"``: the
    pane's process ends and takes the pane with it (``pane_exited``, as when the agent was
    exec'd by the shell). ``close="closed"``: the pane is closed as by ``pane.close``
    (``pane_closed``; refused like ``pane.close`` for the last pane of a worktree group root).
    """
    if close not in VANISH_CLOSE:
        raise ValueError(f"close must be one of {VANISH_CLOSE}, not {close!r}")
    pane = _pane(sim, pane_id)
    if close is None:
        _occupant(sim, pane_id).exit()
        _done(sim)
    elif close == "exited":
        sim.pane_exited(pane)
    else:
        mdef = sim.methods["pane.close"]
        sim.call(mdef, {"pane_id": pane.pane_id}, "scenario")


def _shell(sim, pane):
    backend = sim.backend
    if isinstance(backend, MixedPanes):  # pty / mixed mode
        if backend.is_real(pane):
            raise NotImplementedError(
                f"{pane.pane_id} runs a real shell: make it busy with a real command "
                "(pane.send_text + Enter)"
            )
        backend = backend.simulated
    if not isinstance(backend, ForegroundCommands):
        raise NotImplementedError("this pane backend has no foreground-command seam")
    return backend


@step
def busy_shell(
    sim, pane_id: str, command: str | list[str] = "sleep 30", duration: float | None = None
) -> None:
    """The pane's shell runs ``command`` in the foreground: it is not an available shell, so
    ``agent.start`` answers ``agent_pane_busy`` and ``pane.process_info`` shows the command as
    the foreground process, until :func:`shell_idle` (or ``duration`` simulated seconds:
    CLIENTS.md §4.2's "shell not ready for N ms")."""
    pane = _pane(sim, pane_id)
    if sim.agents.foreground(pane) is not None:
        raise LookupError(f"{pane_id} runs an agent, not a shell at its prompt")
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    if not argv:
        raise ValueError("command must not be empty")
    shell = _shell(sim, pane)
    shell.run_foreground(pane, argv)
    if duration is not None:
        terminal_id = pane.terminal_id

        def finish():
            p = sim.session.panes.get(pane.pane_id)
            if (
                p is not None
                and p.terminal_id == terminal_id
                and shell.foreground_command(p) == argv
            ):
                shell.foreground_done(p)

        sim.schedule(sim.now() + max(duration, 0.0), finish)
    _done(sim)


@step
def shell_idle(sim, pane_id: str) -> None:
    """The foreground command started by :func:`busy_shell` ends: the prompt is back."""
    pane = _pane(sim, pane_id)
    _shell(sim, pane).foreground_done(pane)
    _done(sim)


# --- detection that is wrong about the process -------------------------------------------------

MISREAD_STATES = ("idle", "working", "blocked", "unknown")


@step
def detection_misreads(sim, pane_id: str, state: str, agent: str | None = None) -> None:
    """herdr's screen detection reads ``state`` for the pane now, whatever the process really
    does (herdrdev/herdr#2354: agy reported idle while a subagent generates; #2765: grok left
    `working` at its prompt). The simulated process keeps its own schedule: its next real state
    change is read correctly again. ``agent``: the label detection reports (default: the one it
    already sees). Acts through the agent layer's detection input (``detection_update``)."""
    if state not in MISREAD_STATES:
        raise ValueError(f"state must be one of {MISREAD_STATES}, not {state!r}")
    pane = _pane(sim, pane_id)
    label = agent if agent is not None else pane.agent.detected
    if label is None:
        raise LookupError(f"detection sees no agent in {pane_id}")
    sim.agents.detection_update(pane, label, state, blocker=(state == "blocked"))
    _done(sim)


@step
def agent_suspended(sim, pane_id: str) -> None:
    """The user suspends the agent (Ctrl+Z): its process stops and the shell is the pane's
    foreground job again, so herdr's detection reports the agent gone (an exit, as it cannot
    tell a stopped job from an ended one: it follows the foreground process). The process is
    kept (herdrdev/herdr#4127: "the same Pi process is still running"); :func:`agent_resumed`
    brings it back. CHOICE: the stopped process runs none of its pending stages until then."""
    pane = _pane(sim, pane_id)
    occ = _occupant(sim, pane_id)
    occ.stop()
    sim.agents.detection_update(pane, None, "idle", exited=True)
    sim.backend.show_prompt(pane)
    _done(sim)


@step
def agent_resumed(sim, pane_id: str) -> None:
    """``fg``: the suspended agent is the foreground job again and detection sees it anew. Its
    integration does not report its session again (the same process: no new SessionStart), which
    is what herdrdev/herdr#4127 observes."""
    pane = _pane(sim, pane_id)
    occ = _occupant(sim, pane_id)
    sim.agents.detection_update(pane, occ.kind, occ.cont())
    _done(sim)
