"""0.9.x pane.link.resolve / pane.link.activate ([H093] src/app/api/panes/link.rs
read_checked_pane_link, handle_pane_link_resolve, handle_pane_link_activate)."""

from __future__ import annotations

import re

from .. import params as P
from ..facts import errors as E
from .registry import method_with
from .selection import U16

# CHOICE: what counts as a link: a plain http(s) URL up to the next blank (herdr's
# url_byte_range and OSC 8 hyperlinks are not readable here); one region per viewport row.
URL = re.compile(r"https?://[^\s<>\"']+")

PARAMS = dict(
    pane_id=P.req(P.STR),
    viewport_row=P.req(U16),
    col=P.req(U16),
    content_revision=P.opt(P.U64),
    offset_from_bottom=P.opt(P.U64),
)


def _checked(sim, p, operation: str):
    s = sim.session
    pane = s.find_pane(p["pane_id"])
    if pane is None:
        raise E.pane_not_found()
    if not s.in_active_tab(pane):  # pane_visible_on_active_surface
        raise E.stale_target_not_visible()
    offset = pane.scroll_offset or 0  # herdr always has scroll metrics: 0 until scrolled
    offset = min(offset, pane.screen.scroll_max())
    if p["offset_from_bottom"] is not None and p["offset_from_bottom"] != offset:
        raise E.link_viewport_changed(operation)
    rev = pane.screen.content_revision()
    if rev % 2 or (p["content_revision"] is not None and p["content_revision"] != rev):
        raise E.link_content_changed(operation)
    return pane, offset


def _link_at(pane, offset: int, row: int, col: int):
    """(url, viewport row, start col, end col) of the link under the cell, or None."""
    screen = pane.screen
    rows = screen._all_rows()
    top = len(rows) - screen.rows - offset
    absolute = top + row
    if row >= screen.rows or not 0 <= absolute < len(rows):
        return None
    text = "".join(c if c else " " for c in rows[absolute].cells)
    for m in URL.finditer(text):
        if m.start() <= col < m.end():
            return m.group(0), row, m.start(), m.end() - 1
    return None


@method_with("pane.link.resolve", PARAMS)
def resolve(sim, p):
    pane, offset = _checked(sim, p, "resolution")
    hit = _link_at(pane, offset, p["viewport_row"], p["col"])
    regions = [] if hit is None else [{"row": hit[1], "start_col": hit[2], "end_col": hit[3]}]
    return {"type": "pane_link_resolved", "regions": regions}


@method_with("pane.link.activate", PARAMS)
def activate(sim, p):
    """herdr answers the URL and handled=false: opening it is the client shell's job."""
    pane, offset = _checked(sim, p, "activation")
    hit = _link_at(pane, offset, p["viewport_row"], p["col"])
    out = {"type": "pane_link_activated", "handled": False}
    if hit is not None:
        out["url"] = hit[0]
    return out
