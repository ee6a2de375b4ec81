"""Pane geometry (pure): how big each pane's terminal is, as herdr's view computes it.

herdr's headless server draws a virtual frame of the headless size (rows headless_cols /
headless_rows) when no client is attached (src/server/headless.rs:4426-4447; v0.8.0
:4035-4050). The view (src/ui.rs compute_view_internal, :215-300) gives the sidebar its width
and the tab bar its row, lays the active tab's split tree out on what is left (the terminal
area), then takes each pane's chrome off its rect (src/ui/panes.rs apply_pane_chrome: borders
when more than one pane shows; terminal_inner_rect: the scrollbar gutter). A frame no wider
than the mobile threshold gets the mobile view instead: a header of up to two rows, no sidebar,
no tab bar (src/ui.rs:326-340, src/ui/mobile.rs:50-52).

Only the draw that finds the view empty (no pane infos: no active workspace) resizes the panes
(``resize_panes = view.pane_infos.is_empty()``, headless.rs:4433): every pane of every tab
then gets its laid-out size (src/ui.rs resize_background_tab_panes_for_desktop). A pane made
later spawns at the size of the view's first pane rect, border and gutter included
(src/app/state.rs:1661-1667 estimate_pane_size; the headless size while the view is empty) and
keeps it until a client's size resizes the view again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ..facts.record import record
from . import layout as L

if TYPE_CHECKING:  # annotations only
    from .state import Session, Tab

Rect = L.Rect
Size = tuple[int, int]  # (cols, rows)


@record(frozen=True)
class Chrome:
    """What herdr's view takes off a frame before the panes (release rows; the defaults of
    src/config/model.rs UiConfig, :1104-1124 at 0.8.2, :1010-1029 at 0.8.0)."""

    sidebar_width: int  # ui.sidebar_width (26), within [sidebar_min_width, sidebar_max_width]
    tab_bar_rows: int  # the tab bar's Constraint::Length(1) (src/ui.rs:200-201)
    mobile_width_threshold: int  # ui.mobile_width_threshold (64)
    pane_borders: bool  # ui.pane_borders
    pane_gaps: bool  # ui.pane_gaps
    pane_outer_borders: bool  # ui.pane_outer_borders (0.8.2); 0.8.0 always keeps them
    scrollbar_gutter: bool  # ui.pane_scrollbars: one column kept for the scrollbar
    gutter_on_alt_screen: bool  # the gutter stays while the alternate screen is on (0.8.0)


def terminal_area(frame: Size, chrome: Chrome) -> Rect:
    """The view's terminal area in a ``frame`` of (cols, rows): the frame less the sidebar
    and the tab bar (src/ui.rs:227-244, desktop_tab_bar_and_terminal_area :191-213;
    ui.hide_tab_bar_when_single_tab is off by default, so a lone tab keeps its bar too), or
    less the mobile header."""
    cols, rows = frame
    if 0 < cols <= chrome.mobile_width_threshold:
        header = min(rows, 2)
        if rows > header:
            return (0, header, cols, rows - header)
        return (0, 0, 0, 0)
    side = min(chrome.sidebar_width, max(cols - 1, 0))  # Constraint::Min(1) for the main area
    bar = chrome.tab_bar_rows if rows > 1 else 0
    return (side, bar, cols - side, rows - bar)


def _right_of(rect: Rect, rects: list[Rect]) -> bool:
    """src/ui/panes.rs pane_to_right: a pane starts where this one ends, rows overlapping."""
    x, y, w, h = rect
    return any(o[0] == x + w and o[1] < y + h and y < o[1] + o[3] for o in rects if o != rect)


def _below(rect: Rect, rects: list[Rect]) -> bool:
    x, y, w, h = rect
    return any(o[1] == y + h and o[0] < x + w and x < o[0] + o[2] for o in rects if o != rect)


def inner_size(rect: Rect, borders: tuple[bool, bool, bool, bool], gutter: bool) -> Size:
    """A pane's terminal size from its rect: ratatui's Block::inner for the borders (left,
    top, right, bottom), then one column for the scrollbar gutter when the inner width is
    over 4 (src/ui/panes.rs:36-47 terminal_inner_rect)."""
    _x, _y, w, h = rect
    left, top, right, bottom = borders
    w = max(0, w - int(left) - int(right))
    h = max(0, h - int(top) - int(bottom))
    if gutter and w > 4:
        w -= 1
    return (w, h)


def pane_sizes(
    root: L.Node,
    area: Rect,
    chrome: Chrome,
    *,
    zoomed_pane: str | None = None,
    alternate: Callable[[str], bool] = lambda _pane: False,
) -> dict[str, Size]:
    """Each pane's terminal size in a tab laid out on ``area`` (src/ui/panes.rs
    resize_tab_panes :199-260 / compute_pane_infos: apply_pane_chrome, pane_inner_rect,
    terminal_inner_rect). ``zoomed_pane``: the tab is zoomed on it (only it is sized, on the
    whole area). ``alternate(pane)``: its alternate screen is on (no gutter from 0.8.2)."""
    rects = L.pane_rects(root, area)
    multi = len(rects) > 1

    def gutter(pane: str) -> bool:
        return chrome.scrollbar_gutter and (chrome.gutter_on_alt_screen or not alternate(pane))

    if zoomed_pane is not None:
        edge = multi and chrome.pane_borders and chrome.pane_outer_borders
        return {zoomed_pane: inner_size(area, (edge, edge, edge, edge), gutter(zoomed_pane))}
    all_rects = [r for _p, r in rects]
    left = min((r[0] for r in all_rects), default=0)
    top = min((r[1] for r in all_rects), default=0)
    right = max((r[0] + r[2] for r in all_rects), default=0)
    bottom = max((r[1] + r[3] for r in all_rects), default=0)
    out: dict[str, Size] = {}
    for pane, rect in rects:
        x, y, w, h = rect
        has_right = multi and _right_of(rect, all_rects)
        has_below = multi and _below(rect, all_rects)
        if multi and chrome.pane_gaps and not chrome.pane_borders:  # a one-cell gap
            w = w - 1 if has_right and w > 1 else w
            h = h - 1 if has_below and h > 1 else h
        if not multi or not chrome.pane_borders:
            borders = (False, False, False, False)
        else:
            b_left = b_top = True
            b_right = not (not chrome.pane_gaps and has_right)
            b_bottom = not (not chrome.pane_gaps and has_below)
            if not chrome.pane_outer_borders:
                b_left = b_left and x != left
                b_top = b_top and y != top
                b_right = b_right and x + w != right
                b_bottom = b_bottom and y + h != bottom
            borders = (b_left, b_top, b_right, b_bottom)
        out[pane] = inner_size((x, y, w, h), borders, gutter(pane))
    return out


def first_pane_rect_size(root: L.Node, area: Rect, zoomed: bool) -> Size:
    """The (cols, rows) of the view's first pane rect (its chrome not taken off): what
    estimate_pane_size gives a pane made while the view shows this tab (a zoomed tab's one
    pane info has the whole area, src/ui/panes.rs compute_pane_infos)."""
    if zoomed:
        return (area[2], area[3])
    _, _, w, h = L.first_pane_rect(root, area)
    return (w, h)


def changed(sizes: dict[str, Size], current: Iterable[tuple[str, Size]]) -> dict[str, Size]:
    """The entries of ``sizes`` that differ from the panes' ``current`` sizes."""
    now = dict(current)
    return {p: s for p, s in sizes.items() if p in now and now[p] != s and s[0] > 0 and s[1] > 0}


# --- the session's view (Session.frame / chrome / view_empty / spawn_estimate) ---------------


def _tab_sizes(session: Session, tab: Tab, area: Rect, chrome: Chrome) -> dict[str, Size]:
    panes = session.panes
    return pane_sizes(
        tab.root,
        area,
        chrome,
        zoomed_pane=tab.focused_pane if tab.zoomed else None,
        alternate=lambda pid: pid in panes and panes[pid].screen.alternate_screen,
    )


def view_sizes(session: Session) -> dict[str, Size]:
    """Every pane's laid-out terminal size in the session's frame: what a draw that resizes
    panes gives them (the active tab's and every background tab's, src/ui.rs:282-285)."""
    chrome = session.chrome
    if chrome is None:
        return {}
    area = terminal_area(session.frame, chrome)
    out: dict[str, Size] = {}
    for w in session.workspaces:
        for t in w.tabs:
            out.update(_tab_sizes(session, t, area, chrome))
    return out


def spawn_size(session: Session) -> Size:
    """The (cols, rows) a new pane's terminal starts at (src/app/state.rs:1661-1667
    estimate_pane_size): the frame while the view is empty, else the first pane rect of the
    view the last draw computed. CHOICE: that view is the state when the request's first pane
    is made (herdr draws between requests; every pane one request makes takes the same size)."""
    if session.spawn_estimate is not None:
        return session.spawn_estimate
    size = session.frame
    chrome = session.chrome
    w = session.active_ws()
    t = w.active() if w is not None else None
    if chrome is not None and not session.view_empty and t is not None:
        size = first_pane_rect_size(t.root, terminal_area(session.frame, chrome), t.zoomed)
    session.spawn_estimate = size
    return size


def draw(session: Session) -> dict[str, Size]:
    """herdr's virtual draw after a batch (src/server/headless.rs:4426-4447): when the last
    draw found the view empty and a pane now shows, every pane is resized to its laid-out size
    (returned for the caller to apply). The view's pane infos are computed either way, so the
    next spawn estimate reads this batch's state."""
    sizes: dict[str, Size] = {}
    if session.view_empty and session.active is not None:
        sizes = view_sizes(session)
    session.view_empty = session.active is None
    session.spawn_estimate = None
    return sizes
