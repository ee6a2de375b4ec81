"""The seams between the state and what drives a pane, as ``typing.Protocol``s.

A pane's screen (:class:`PaneScreen`: the simulated :class:`~simherdr.model.screen.Screen` or
the real-terminal :class:`~simherdr.panes.vt.PtyScreen`) and the pane backend
(:class:`PaneBackend`: simulated shells, or real PTYs in :mod:`simherdr.panes.pty`). What only
some backends can do is a separate small protocol, checked with ``isinstance`` (as toxiproxy
splits a toxic's optional abilities into their own interfaces): a misspelt capability is then
a type error or a failed check, never a silently taken default.

Typing only: nothing here runs, and the model stays free of I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

# Below the state (a Pane holds one), named here with its peers.
from .panescreen import PaneScreen as PaneScreen
from .panescreen import ScreenFrame as ScreenFrame

if TYPE_CHECKING:
    from .state import Pane


@runtime_checkable
class PaneBackend(Protocol):
    """What every backend does for every pane (attach on create, detach on close)."""

    def attach(self, pane: Pane) -> None: ...

    def detach(self, pane: Pane) -> None: ...

    def write(self, pane: Pane, data: bytes) -> None: ...

    def show_prompt(self, pane: Pane) -> None: ...

    def shell_pid(self, pane: Pane) -> int: ...

    def process_info(self, pane: Pane) -> dict: ...

    def shell_in_foreground(self, pane: Pane) -> bool:
        """available_pane_shell: the shell itself is the foreground job (SOCKET.md §6.5)."""
        ...

    def refresh_cwds(self) -> None:
        """Bring every pane's ``cwd`` / ``foreground_cwd`` up to date (herdr reads them when
        it answers; the simulator calls this before each request)."""
        ...

    def follow_cwd(self, pane: Pane) -> str | None:
        """PaneRuntime::follow_cwd (src/pane.rs:2972-2985): where a terminal created from
        this pane starts."""
        ...

    def renamed(self, pane: Pane, old_id: str) -> None:
        """pane.move across workspaces gave the pane a new id (it was ``old_id``)."""
        ...


# --- optional capabilities ------------------------------------------------------------------


@runtime_checkable
class OwnsProcesses(Protocol):
    """A backend with real processes to kill and reap when the server stops."""

    def close(self) -> None: ...


class ForegroundJob(Protocol):
    """A real pane's foreground agent job, as RealForeground reports it."""

    kind: str
    pid: int
    argv: list


@runtime_checkable
class RealForeground(Protocol):
    """A backend that reads the real foreground job (herdr's live_runtime_agent,
    src/app/agents.rs:432-441): the agent layer asks it when no simulated agent runs."""

    def foreground_process(self, pane: Pane) -> ForegroundJob | None: ...


@runtime_checkable
class MixedPanes(Protocol):
    """A backend where some panes are real and the rest are simulated by ``simulated``."""

    simulated: PaneBackend

    def is_real(self, pane: Pane) -> bool: ...


@runtime_checkable
class ForegroundCommands(Protocol):
    """The simulated shell's scenario seam: it runs a command in the foreground
    (simherdr.scenarios.agents.busy_shell) until the command is done."""

    def run_foreground(self, pane: Pane, argv: list[str]) -> None: ...

    def foreground_done(self, pane: Pane) -> None: ...

    def foreground_command(self, pane: Pane) -> list[str] | None: ...


@runtime_checkable
class ForegroundCwd(Protocol):
    """The simulated shell's scenario seam: its foreground process runs in another directory
    (simherdr.scenarios.cwd.foreground_cwd)."""

    def set_foreground_cwd(self, pane: Pane, path: str | None) -> None: ...


@runtime_checkable
class ResizesTerminals(Protocol):
    """A backend whose panes' terminals change size for a terminal-plane owner (herdr's
    runtime.resize on attach, src/server/headless.rs:2892-2898): the PTY's window size and
    its screen. Without it, only the pane's screen is resized."""

    def resize_terminal(self, pane: Pane, cols: int, rows: int) -> None: ...


@runtime_checkable
class ReportsModes(Protocol):
    """A screen that answers whether a DEC private mode is set (libghostty's ``mode_get``:
    panes/engine.py): the terminal plane reads the mouse-tracking modes through it."""

    def mode(self, mode: int) -> bool: ...
