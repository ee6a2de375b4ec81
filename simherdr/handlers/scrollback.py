"""0.9.x pane scrollback methods: pane.scroll, pane.clear, pane.edit_scrollback
([H093] src/app/api/panes.rs handle_pane_scroll, handle_pane_clear,
handle_pane_edit_scrollback). 0.8.2 does not know these names (facts/methods.py)."""

from __future__ import annotations

from .. import params as P
from .. import views as V
from ..facts import errors as E
from .registry import method

# CHOICE: a headless simulator has no client to open $EDITOR for: the focused pane's
# pane.edit_scrollback answers herdr's scrollback_editor_failed with E.EDITOR_UNAVAILABLE (herdr's
# own message is the editor launch's I/O error, which no source here shows).


def _pane(sim, ref: str):
    pane = sim.session.find_pane(ref)
    if pane is None:
        raise E.pane_not_found(ref)
    return pane


@method("pane.scroll", pane_id=P.req(P.STR), offset_from_bottom=P.req(P.U64))
def scroll(sim, p):
    """Sets the viewport's offset from the bottom (clamped to the scrollback) and answers the
    PaneInfo, scroll metrics included. No event: pane.scroll_changed subscribers see it."""
    pane = _pane(sim, p["pane_id"])
    pane.scroll_offset = min(p["offset_from_bottom"], pane.screen.scroll_max())
    return {"type": "pane_info", "pane": V.pane_info(sim.session, pane)}


@method("pane.clear", pane_id=P.req(P.STR))
def clear(sim, p):
    """The terminal's clear_screen: history and grid wiped, cursor home. CHOICE: the shell is
    not told (no new prompt is drawn), as a terminal-side clear does not reach the program."""
    pane = _pane(sim, p["pane_id"])
    # CHOICE: a full-screen app's alternate screen is not cleared (pane_clear_failed), as a
    # herdr-derived terminal core's ClearScreenOutcome::AlternateScreenActive shows; 0.9.3's own
    # terminal code and its message are not readable here.
    if pane.screen.alternate_screen:
        raise E.pane_clear_alternate_screen()
    pane.screen.clear()
    if pane.scroll_offset is not None:
        pane.scroll_offset = 0
    return {"type": "ok"}


@method("pane.edit_scrollback", pane_id=P.req(P.STR))
def edit_scrollback(sim, p):
    pane = _pane(sim, p["pane_id"])
    if sim.session.focused_pane() is not pane:
        raise E.pane_not_focused()
    raise E.scrollback_editor_unavailable()
