"""Helpers shared by the handler modules (resolution rules that several areas use)."""

from __future__ import annotations

import os

from ..facts import errors as E
from ..facts.keys import InvalidKey, encode_keys
from ..model import groups
from ..model.paneread import DEFAULT_RECENT_LINES, MAX_READ_LINES  # herdr's read limits
from ..model.panescreen import EncodesKeys
from ..model.state import Pane, Session, Workspace


def close_with_group(sim, w: Workspace) -> list[Workspace]:
    """Close ``w`` and the group it roots (herdr's close_selected_workspace, model/groups.py),
    its panes' processes stopped first; no event."""
    s = sim.session
    targets = groups.close_set(s, w, sim.version.rows.duplicate_parents_close_alone)
    return groups.close_workspaces(s, w, targets, sim.before_workspace_close)


def resolve_new_cwd(sim, requested: str | None, follow: str | None) -> str:
    """A new terminal's cwd.

    requested given: used if it is a directory; a directory that does not exist silently falls
    back to the server's own cwd (CLIENTS.md §1, measured on real herdr). Omitted: herdr's
    ``[terminal] new_cwd`` policy (src/app/creation.rs:13-31): "follow" (the default) takes
    ``follow`` (the source pane's launch cwd), else $HOME, else the server's cwd; "home" $HOME;
    "current" the server's cwd; any other value is a path (``~`` expanded).
    """
    if requested is not None:
        if os.path.isdir(requested):
            return requested
        return sim.config.server_cwd
    policy = (sim.config.new_cwd or "").strip()
    home = sim.config.home if sim.config.home and os.path.isdir(sim.config.home) else None
    if policy in ("", "follow"):
        return follow or home or sim.config.server_cwd
    if policy == "home":
        return home or sim.config.server_cwd
    if policy == "current":
        return sim.config.server_cwd
    path = sim.config.new_cwd
    if path == "~" or path.startswith("~/"):
        path = sim.config.home + path[1:]
    # CHOICE (NEW_CWD_PATH_MISSING): a configured path that is not a directory falls back to
    # the server's cwd, as a requested one does.
    return path if os.path.isdir(path) else sim.config.server_cwd


def launch_cwd(sim, pane) -> str | None:
    """launch_cwd_for_terminal (src/app/creation.rs:33-47): where a terminal created from
    ``pane`` starts — the foreground leader's cwd, else the shell's."""
    return sim.backend.follow_cwd(pane) or pane.cwd


def focused_launch_cwd(sim, w) -> str | None:
    """focused_pane_cwd_in_workspace, else seed_cwd_from_workspace (the workspace's cwd)."""
    t = w.active()
    pane = sim.session.panes.get(t.focused_pane) if t is not None else None
    cwd = launch_cwd(sim, pane) if pane is not None else None
    return cwd or w.cwd


def auto_label(sim, cwd: str) -> str:
    """Workspace label: git repo root's basename, else the cwd's basename; ``~`` for $HOME."""
    try:
        from ..git import label_for_cwd
    except ImportError:  # git layer not present
        if os.path.realpath(cwd) == os.path.realpath(sim.config.home):
            return "~"
        return os.path.basename(os.path.normpath(cwd)) or cwd
    return label_for_cwd(cwd, sim.config.home)


def optional_pane(s: Session, ref: str | None) -> Pane:
    """Optional pane ids default to the focused pane of the active workspace; generic message."""
    p = s.find_pane(ref) if ref is not None else s.focused_pane()
    if p is None:
        raise E.pane_not_found()
    return p


def read_pane(sim, p: Pane, source: str, lines: int | None, fmt: str) -> dict:
    """PaneReadResult (SOCKET.md §3.5, §4.3): revision always 0 in 0.8.2."""
    if source in ("recent", "recent_unwrapped"):
        lines = min(lines if lines is not None else DEFAULT_RECENT_LINES, MAX_READ_LINES)
    # detection is always plain text, but the reply echoes the requested format
    # (src/app/api/panes.rs:1221).
    text, truncated = p.screen.read(
        source,
        lines,
        "text" if source == "detection" else fmt,
        recent_includes_viewport=sim.version.rows.recent_includes_viewport,
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


# --- a pane's input (pane.send_keys / send_input, agent.send_keys / prompt / start) ------------

BRACKETED_PASTE = (b"\x1b[200~", b"\x1b[201~")


def key_bytes(sim, keys: list[str], pane=None) -> bytes:
    """herdr's key names as the bytes a pane's terminal reads (invalid_key on the first bad one;
    all keys are validated before any byte is written)."""
    screen = pane.screen if pane is not None else None
    app_cursor = screen.application_cursor if screen is not None else False
    # herdr encodes named keys with libghostty against the pane's keyboard state
    keyed = screen if isinstance(screen, EncodesKeys) else None
    try:
        return encode_keys(
            keys,
            application_cursor=app_cursor,
            backtab_shift=sim.version.rows.backtab_keeps_shift,
            engine=keyed.encode_key if keyed is not None else None,
            kitty_flags=keyed.kitty_keyboard_flags if keyed is not None else 0,
        )
    except InvalidKey as e:
        raise E.invalid_key(e.key) from None


def paste_bytes(pane, text: str) -> bytes:
    """Text as typed into ``pane``: wrapped in bracketed paste when its screen asked for it."""
    data = text.encode()
    if text and pane.screen.bracketed_paste:
        data = BRACKETED_PASTE[0] + data + BRACKETED_PASTE[1]
    return data
