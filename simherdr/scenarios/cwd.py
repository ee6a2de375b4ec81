"""Scenario helpers for working directories: a shell that changes directory, a foreground
process that runs somewhere else (an agent that moved into a worktree). herdr reads both from
/proc (src/pane.rs:2952-3010); new panes, tabs and workspaces created without ``cwd`` follow
them (``[terminal] new_cwd = "follow"``, src/app/creation.rs:13-31).

Both act through seams: :func:`shell_cd` types ``cd`` into the pane (real shells run it, the
simulated shell has a ``cd`` builtin); :func:`foreground_cwd` uses the simulated shell's
foreground seam. Call them on the simulator's own thread (ThreadServer: ``srv.run``).
"""

from __future__ import annotations

from ..facts.shellquote import posix_quote
from ..model.seams import ForegroundCwd
from .steps import step


def _pane(sim, pane_id: str):
    pane = sim.session.find_pane(pane_id)
    if pane is None:
        raise KeyError(f"no pane {pane_id}")
    return pane


@step
def shell_cd(sim, pane_id: str, path: str) -> None:
    """The pane's shell runs ``cd PATH`` (typed, as a user or ``herdr pane run`` would)."""
    pane = _pane(sim, pane_id)
    if sim.agents.foreground(pane) is not None:
        raise LookupError(f"{pane_id} runs an agent, not a shell at its prompt")
    sim.write_input(pane, f"cd {posix_quote(path)}\r".encode())
    sim.commit()


@step
def foreground_cwd(sim, pane_id: str, path: str | None) -> None:
    """The pane's foreground process now runs in ``path`` (None: back to the shell's cwd).
    Simulated panes only; it lasts until the shell's prompt comes back."""
    backend = sim.backend
    if not isinstance(backend, ForegroundCwd):
        raise NotImplementedError("this pane backend has no foreground-cwd seam")
    backend.set_foreground_cwd(_pane(sim, pane_id), path)
    sim.commit()
