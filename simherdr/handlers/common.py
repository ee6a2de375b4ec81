"""Helpers shared by the handler modules (resolution rules that several areas use)."""

from __future__ import annotations

import os

from ..facts import errors as E
from ..model.state import Pane, Session

READ_SOURCES = ("visible", "recent", "recent_unwrapped", "detection")
READ_FORMATS = ("text", "ansi")
DEFAULT_READ_LINES = 80  # src/app/api_helpers.rs:117-118
MAX_READ_LINES = 1000


def resolve_new_cwd(sim, requested: str | None, follow: str | None) -> str:
    """A new terminal's cwd.

    requested given: used if it is a directory; a directory that does not exist silently falls
    back to the server's own cwd (CLIENTS.md §1, measured on real herdr). Omitted: the "follow"
    policy (the focused pane's cwd), else $HOME, else the server's cwd (src/app/creation.rs:13-31).
    """
    if requested is not None:
        if os.path.isdir(requested):
            return requested
        return sim.config.server_cwd
    if follow:
        return follow
    if sim.config.home and os.path.isdir(sim.config.home):
        return sim.config.home
    return sim.config.server_cwd


def auto_label(sim, cwd: str) -> str:
    """Workspace label: git repo root's basename, else the cwd's basename; ``~`` for $HOME."""
    try:
        from ..git import label_for_cwd
    except ImportError:  # git layer not present
        label_for_cwd = None
    if label_for_cwd is not None:
        return label_for_cwd(cwd, sim.config.home)
    if os.path.realpath(cwd) == os.path.realpath(sim.config.home):
        return "~"
    return os.path.basename(os.path.normpath(cwd)) or cwd


def optional_pane(s: Session, ref: str | None) -> Pane:
    """Optional pane ids default to the focused pane of the active workspace; generic message."""
    p = s.find_pane(ref) if ref is not None else s.focused_pane()
    if p is None:
        raise E.pane_not_found()
    return p


def read_pane(sim, p: Pane, source: str, lines: int | None, fmt: str) -> dict:
    """PaneReadResult (SOCKET.md §3.5, §4.3): revision always 0 in 0.8.2."""
    if source in ("recent", "recent_unwrapped"):
        lines = min(lines if lines is not None else DEFAULT_READ_LINES, MAX_READ_LINES)
    # detection is always plain text, but the reply echoes the requested format
    # (src/app/api/panes.rs:1221).
    text, truncated = p.screen.read(
        source,
        lines,
        "text" if source == "detection" else fmt,
        recent_includes_viewport=sim.profile.recent_includes_viewport,
    )
    return {
        "pane_id": p.pane_id,
        "workspace_id": p.workspace_id,
        "tab_id": p.tab_id,
        "source": source,
        "format": fmt,
        "text": text,
        "revision": 0,
        "truncated": truncated,
    }
