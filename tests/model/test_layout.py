"""The split tree against herdr's own layout facts (src/layout.rs and its tests): rects with
f32 rounding, swaps, inserts, resize rules, direction search, and trees far deeper than
Python's recursion limit."""

from __future__ import annotations

import sys

from simherdr.model import layout as L

AREA = (0, 0, 100, 40)  # the area herdr's layout tests use


def H(ratio, a, b):
    return L.Split("right", ratio, a, b)


def V(ratio, a, b):
    return L.Split("down", ratio, a, b)


def P(n):
    return L.Leaf(f"p{n}")


def sample():
    """src/layout.rs tests sample_layout."""
    return H(0.3, P(1), V(0.6, P(2), H(0.4, P(3), P(4))))


def rects(node):
    return dict(L.pane_rects(node, AREA))


def ratios(node):
    """(direction, ratio) per split, ratios rounded within f32 epsilon like herdr's asserts."""
    return [(s["direction"], round(s["ratio"], 6)) for s in L._splits(node, AREA)]


def test_rects_round_half_away_from_zero_in_f32():
    (_, a), (_, b) = L.pane_rects(H(0.5, P(1), P(2)), (0, 0, 41, 10))
    assert (a[2], b[2]) == (21, 20)  # 20.5 rounds up; truncation would give 20
    assert rects(sample())["p1"] == (0, 0, 30, 40)


def test_swap_keeps_cells_and_splits():
    tree = sample()
    before, shape = rects(tree), ratios(tree)
    assert L.swap_leaves(tree, "p2", "p4")
    after = rects(tree)
    assert after["p4"] == before["p2"] and after["p2"] == before["p4"]
    assert ratios(tree) == shape
    assert not L.swap_leaves(tree, "p2", "p2") and not L.swap_leaves(tree, "p2", "p99")


def test_insert_near_target_as_second_child():
    tree = L.split_leaf(P(1), "p1", "p99", "right", 0.25)
    assert L.panes_in_order(tree) == ["p1", "p99"]
    assert rects(tree) == {"p1": (0, 0, 25, 40), "p99": (25, 0, 75, 40)}


def test_resize_rules():
    tree = sample()
    assert L.resize_pane(tree, "p1", "right", 0.05, AREA)
    assert ratios(tree)[0] == ("right", 0.35)
    right = H(0.5, P(1), P(2))
    assert L.resize_pane(right, "p2", "left", 0.05, AREA) and ratios(right) == [("right", 0.45)]
    # outer edges shrink the pane through the split on its other side
    for tree, pane, nav, want in (
        (H(0.5, P(1), P(2)), "p1", "left", 0.45),
        (H(0.5, P(1), P(2)), "p2", "right", 0.55),
        (V(0.5, P(1), P(2)), "p1", "up", 0.45),
        (V(0.5, P(1), P(2)), "p2", "down", 0.55),
    ):
        assert L.resize_pane(tree, pane, nav, 0.05, AREA)
        assert ratios(tree)[0][1] == want
    # an outer edge falls back to the ancestor split in the requested axis
    tree = H(0.6, V(0.5, P(1), P(2)), P(3))
    assert L.resize_pane(tree, "p1", "left", 0.05, AREA)
    assert ratios(tree) == [("right", 0.55), ("down", 0.5)]
    tree = V(0.6, H(0.5, P(1), P(2)), P(3))
    assert L.resize_pane(tree, "p1", "up", 0.05, AREA)
    assert ratios(tree) == [("down", 0.55), ("right", 0.5)]
    # borders on one coordinate: the split in the pane's own branch moves
    tree = V(0.5, H(0.5, P(1), P(2)), H(0.5, P(3), P(4)))
    assert L.resize_pane(tree, "p3", "right", 0.05, AREA)
    assert ratios(tree) == [("down", 0.5), ("right", 0.5), ("right", 0.55)]
    # clamped at 0.9: no change, no report
    tree = H(0.9, P(1), P(2))
    assert not L.resize_pane(tree, "p1", "right", 0.05, AREA)


def test_direction_tiebreak_prefers_larger_overlap_before_layout_order():
    rects = [
        ("p1", (10, 10, 10, 10)),
        ("p2", (0, 10, 10, 2)),
        ("p3", (0, 10, 10, 8)),
    ]
    assert L.nearest_in_direction(rects, "p1", "left") == "p3"
    assert L.nearest_in_direction(rects, "p1", "right") is None


def test_split_ids_are_preorder_positions_and_paths():
    _, splits = L.snapshot(sample(), AREA)
    assert [s["id"] for s in splits] == ["split_0_root", "split_1_1", "split_2_11"]


def test_the_snapshot_walk_gives_the_layouts_own_order_rects_and_focus():
    """snapshot() walks its own way (first children in a loop): the same panes in the same
    order with the same rects as _layout's walk, every split's id its pre-order position and
    path, and with ``focused`` the view's entry; first_pane_rect is the first of them."""
    trees = [
        sample(),
        P(1),
        V(0.5, H(0.3, P(1), P(2)), H(0.7, V(0.2, P(3), P(4)), P(5))),
        H(0.5, V(0.5, V(0.5, P(1), P(2)), P(3)), P(4)),
    ]
    for tree in trees:
        panes, splits = L.snapshot(tree, AREA)
        want = L.pane_rects(tree, AREA)
        assert [(p["pane_id"], tuple(p["rect"].values())) for p in panes] == want
        assert [s["id"] for s in splits] == [
            L.split_id(i, s["path"]) for i, s in enumerate(L._splits(tree, AREA))
        ]
        assert [tuple(s["rect"].values()) for s in splits] == [
            s["rect"] for s in L._splits(tree, AREA)
        ]
        focused, _ = L.snapshot(tree, AREA, focused="p2")
        assert focused == [
            {"pane_id": p["pane_id"], "focused": p["pane_id"] == "p2", "rect": p["rect"]}
            for p in panes
        ]
        assert L.first_pane_rect(tree, AREA) == want[0][1]


def test_saved_form_round_trips():
    tree = sample()
    saved = L.to_saved(tree, lambda pane: int(pane[1:]))
    assert saved["Split"]["direction"] == "Horizontal" and saved["Split"]["first"] == {"Pane": 1}
    back = L.from_saved(saved, lambda key: f"p{key}")
    assert back == tree


def test_trees_deeper_than_the_recursion_limit():
    depth = sys.getrecursionlimit() + 500
    tree: L.Node = P(0)
    target = "p0"
    # The chain's setup passes split_leaf the target's path, kept here (a path_to walk at each
    # of its depths made the setup quadratic: ~1.1M steps, most of the test's CPU); path_to
    # runs at the full depth below: checked against that path, then in the last split's walk
    path: list[tuple[L.Split, bool]] = []
    for i in range(1, depth):
        tree = L.split_leaf(tree, target, f"p{i}", "right" if i % 2 else "down", 0.5, path=path)
        path.append((path[-1][0].second if path else tree, True))  # the split just made
        target = f"p{i}"
    found = L.path_to(tree, target)
    assert found is not None and len(found) == len(path) == depth - 1
    assert all(a is b and x == y for (a, x), (b, y) in zip(found, path, strict=True))
    tree = L.split_leaf(tree, target, f"p{depth}", "right" if depth % 2 else "down", 0.5)
    target = f"p{depth}"
    assert L.pane_count(tree) == depth + 1
    panes, splits = L.snapshot(tree, AREA)
    assert len(panes) == depth + 1 and len(splits) == depth
    saved = L.to_saved(tree, str)
    back = L.from_saved(saved, str)  # (== on the dataclasses would itself recurse)
    assert L.panes_in_order(back) == L.panes_in_order(tree)
    assert [s["ratio"] for s in L._splits(back, AREA)] == [
        s["ratio"] for s in L._splits(tree, AREA)
    ]
    assert L.edges(tree, target, AREA) is not None
    L.resize_pane(tree, target, "left", 0.05, AREA)
    tree = L.remove_leaf(tree, target)
    assert tree is not None and L.pane_count(tree) == depth
