"""Which screen a pane gets: the one place the terminal engine is chosen.

CHOICE: every pane, real (PTY) or simulated, renders through libghostty-vt, herdr's own
engine (:class:`.engine.GhosttyScreen`, from the pinned ``pyghostty`` wheel: Linux x86_64 and
aarch64 with glibc >= 2.27, macOS 13+ arm64 and x86_64). Where that wheel cannot be installed
(musl, other machines) or the library does not load, panes fall back to the approximations
simherdr had before the engine: the pure-Python :class:`~simherdr.model.screen.Screen` for
simulated panes and pyte (:class:`.vt.PtyScreen`, the ``pty`` extra) for PTY panes, and one
line says so on stderr, once per process. ``SIMHERDR_SCREEN_ENGINE=python`` asks for the
fallback on purpose (the bench's old path; a platform where the library misbehaves).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from . import ghostty

if TYPE_CHECKING:  # typing only: detection's module is heavy and a PTY pane loads it anyway
    from collections.abc import Callable
    from typing import Protocol

    from ..model.panescreen import PaneScreen
    from .detection import DetectionScreen

    class RealScreen(PaneScreen, DetectionScreen, Protocol):
        """A PTY pane's screen: detection reads it, and it answers the process's queries."""

        respond: Callable[[str], None] | None


__all__ = ["ENGINE", "new_real_screen", "new_screen"]


def _engine() -> str:
    if os.environ.get("SIMHERDR_SCREEN_ENGINE", "") == "python":
        return "python"
    return "ghostty" if ghostty.AVAILABLE else "python"


ENGINE = _engine()
_noticed = False


def _notice() -> None:
    global _noticed
    if not _noticed and ENGINE == "python" and os.environ.get("SIMHERDR_SCREEN_ENGINE") is None:
        _noticed = True
        print(
            "simherdr: libghostty-vt is not available (" + ghostty.UNAVAILABLE_REASON + "); "
            "pane screens use the pure-Python approximation",
            file=sys.stderr,
        )


def new_real_screen(cols: int, rows: int) -> RealScreen:
    """A PTY pane's screen (its process's bytes are fed to it)."""
    if ENGINE == "ghostty":
        from .engine import GhosttyScreen

        return GhosttyScreen(cols, rows)
    _notice()
    from .vt import PtyScreen

    return PtyScreen(cols, rows)


def new_screen(cols: int, rows: int) -> PaneScreen:
    """A simulated pane's screen."""
    if ENGINE == "ghostty":
        from .engine import GhosttyScreen

        return GhosttyScreen(cols, rows)
    _notice()
    from ..model.screen import Screen

    return Screen(cols=cols, rows=rows)
