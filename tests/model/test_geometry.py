"""Pane geometry (simherdr/model/geometry.py), pure: herdr's view math per release."""

from __future__ import annotations

import pytest

from simherdr.facts.versions import resolve
from simherdr.model import geometry as G
from simherdr.model import layout as L
from simherdr.runtime.hooks import chrome_of


def _area(version: str) -> tuple[tuple[int, int, int, int], G.Chrome]:
    v = resolve(version)
    chrome = chrome_of(v)
    return G.terminal_area((v.rows.headless_cols, v.rows.headless_rows), chrome), chrome


def test_the_terminal_area_is_the_frame_less_sidebar_and_tab_bar():
    """src/ui.rs:227-244: sidebar 26 columns, tab bar 1 row (a lone tab keeps it)."""
    assert _area("0.8.2")[0] == (26, 1, 94, 39)
    assert _area("0.8.0")[0] == (26, 1, 54, 23)


@pytest.mark.parametrize(("version", "size"), [("0.8.0", (53, 23)), ("0.8.2", (93, 39))])
def test_a_lone_pane_loses_the_gutter_column_only(version, size):
    """No borders on a lone pane (apply_pane_chrome: multi_pane false); one gutter column."""
    area, chrome = _area(version)
    assert G.pane_sizes(L.Leaf("a"), area, chrome) == {"a": size}


def test_split_panes_get_borders_and_the_gutter():
    """0.8.2 defaults (borders, gaps, outer borders): every side bordered, then the gutter:
    the 94-wide area splits 47/47, each 45x37 inside its border, 44x37 with the gutter."""
    area, chrome = _area("0.8.2")
    root = L.Split("right", 0.5, L.Leaf("a"), L.Leaf("b"))
    assert G.pane_sizes(root, area, chrome) == {"a": (44, 37), "b": (44, 37)}
    down = L.Split("down", 0.5, L.Leaf("a"), L.Leaf("b"))
    # 39 rows at 0.5: round(19.5) = 20 for the first (f32, half away from zero), 19 left
    assert G.pane_sizes(down, area, chrome) == {"a": (91, 18), "b": (91, 17)}


def test_without_borders_gaps_take_a_cell_and_inner_edges_lose_outer_borders():
    """src/ui/panes.rs:117-151: gaps without borders shrink the pane before a neighbour;
    borders without gaps drop the shared right/bottom edges; no outer borders drop the frame's."""
    area, chrome = _area("0.8.2")
    root = L.Split("right", 0.5, L.Leaf("a"), L.Leaf("b"))
    gaps = G.Chrome(**{**_fields(chrome), "pane_borders": False})
    assert G.pane_sizes(root, area, gaps) == {"a": (45, 39), "b": (46, 39)}
    flush = G.Chrome(**{**_fields(chrome), "pane_gaps": False, "pane_outer_borders": False})
    # a: no border at all (the frame's left/top/bottom and the shared edge); b keeps its left
    assert G.pane_sizes(root, area, flush) == {"a": (46, 39), "b": (45, 39)}


def _fields(chrome: G.Chrome) -> dict:
    return {name: getattr(chrome, name) for name in G.Chrome.__dataclass_fields__}


def test_the_alternate_screen_takes_the_gutter_from_082():
    """0.8.2 terminal_inner_rect skips the gutter on the alternate screen; 0.8.0 keeps it."""
    for version, width in (("0.8.2", 94), ("0.8.0", 53)):
        area, chrome = _area(version)
        sizes = G.pane_sizes(L.Leaf("a"), area, chrome, alternate=lambda _p: True)
        assert sizes["a"][0] == width


def test_a_zoomed_tab_sizes_its_focused_pane_on_the_whole_area():
    area, chrome = _area("0.8.2")
    root = L.Split("right", 0.5, L.Leaf("a"), L.Leaf("b"))
    assert G.pane_sizes(root, area, chrome, zoomed_pane="b") == {"b": (91, 37)}


def test_a_narrow_frame_gets_the_mobile_view():
    """src/ui/mobile.rs:50-52 (width <= 64), src/ui.rs:333-340: a two-row header, no sidebar."""
    chrome = chrome_of(resolve("0.8.2"))
    assert G.terminal_area((64, 30), chrome) == (0, 2, 64, 28)
    assert G.terminal_area((65, 30), chrome) == (26, 1, 39, 29)


def test_the_first_draw_resizes_and_later_panes_spawn_at_the_first_rect():
    """headless.rs:4433 resize_panes = view.pane_infos.is_empty(); state.rs:1661-1667."""
    from simherdr.model.screen import Screen
    from simherdr.model.state import Session

    s = Session(
        lambda cols, rows: Screen(cols=cols, rows=rows),
        agent_kinds="0.8.2",
        close_focus_to_opener=True,
    )
    s.frame, s.chrome = (120, 40), chrome_of(resolve("0.8.2"))
    w, _t, p = s.create_workspace("/", "x", None, {}, True, 0)
    assert (p.screen.cols, p.screen.rows) == (120, 40)  # the headless size: the view is empty
    assert G.draw(s) == {p.pane_id: (93, 39)}
    p.screen.resize(93, 39)
    assert G.draw(s) == {}  # a later draw resizes nothing
    q = s.split_pane(p, "right", None, "/", {}, False, 0)
    assert (q.screen.cols, q.screen.rows) == (94, 39)  # the first pane rect, gutter kept
    assert G.draw(s) == {}
    s.close_workspace(w)
    assert G.draw(s) == {} and s.view_empty
