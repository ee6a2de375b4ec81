"""Geometry and layouts over the socket, both profiles, every reply schema-checked
(src/app/api/panes.rs:251-620,1086-1138; src/app/api/layouts.rs; src/layout.rs)."""

from __future__ import annotations

import pytest

from simherdr.facts.versions import resolve
from tests import herdr_reference as ref
from tests.core.socketclient import request


def ok(srv, method, **params):
    reply = request(srv.path, method, params)
    assert "result" in reply, reply
    return reply["result"]


def err(srv, method, **params):
    reply = request(srv.path, method, params)
    assert "error" in reply, reply
    return reply["error"]


@pytest.fixture
def three(server, tmp_path):
    """w1:p1 | (w1:p2 over w1:p3), focus on w1:p1."""
    ok(server, "workspace.create", cwd=str(tmp_path))
    ok(server, "pane.split", target_pane_id="w1:p1", direction="right")
    ok(server, "pane.split", target_pane_id="w1:p2", direction="down")
    return server


def mark(srv) -> int:
    return srv.run(lambda sim: sim.hub.seq)


def kinds(srv, since: int) -> list[tuple[str, dict]]:
    out = srv.run(lambda sim: [(k, d) for _, k, d in sim.hub.after(since)])
    version = srv.run(lambda sim: sim.version.name)
    for kind, data in out:
        ref.validate_reply({"event": kind, "data": data}, version)
    return out


def rects(layout):
    return {p["pane_id"]: p["rect"] for p in layout["panes"]}


def view_area(version: str) -> tuple[int, int, int, int]:
    """herdr's view terminal area in the release's headless frame (model/geometry.py)."""
    from simherdr.model.geometry import terminal_area
    from simherdr.runtime.hooks import chrome_of

    v = resolve(version)
    return terminal_area((v.rows.headless_cols, v.rows.headless_rows), chrome_of(v))


def test_snapshot_geometry_and_split_ids(three, version):
    layout = ok(three, "pane.layout", pane_id="w1:p1")["layout"]
    x, y, w, h = view_area(version)
    assert (x, y, w, h) == {"0.8.0": (26, 1, 54, 23)}.get(version, (26, 1, 94, 39))
    assert layout["area"] == {"x": x, "y": y, "width": w, "height": h}
    left = w // 2 + w % 2  # round(w * 0.5), half away from zero (src/layout.rs split_rect)
    top = h // 2 + h % 2
    assert rects(layout) == {
        "w1:p1": {"x": x, "y": y, "width": left, "height": h},
        "w1:p2": {"x": x + left, "y": y, "width": w - left, "height": top},
        "w1:p3": {"x": x + left, "y": y + top, "width": w - left, "height": h - top},
    }
    # split_<pre-order index>_<path> (src/app/api/panes.rs:1885-1895)
    assert [s["id"] for s in layout["splits"]] == ["split_0_root", "split_1_1"]


def test_neighbor_and_edges(three):
    n = ok(three, "pane.neighbor", pane_id="w1:p1", direction="right")["neighbor"]
    # p2 and p3 tie on edge distance, overlap and centre: layout order wins
    assert (
        n["pane_id"] == "w1:p1" and n["direction"] == "right" and n["neighbor_pane_id"] == "w1:p2"
    )
    n = ok(three, "pane.neighbor", pane_id="w1:p3", direction="left")["neighbor"]
    assert n["neighbor_pane_id"] == "w1:p1"
    assert "neighbor_pane_id" not in ok(three, "pane.neighbor", direction="left")["neighbor"]
    e = ok(three, "pane.edges", pane_id="w1:p3")["edges"]
    assert (e["left"], e["right"], e["up"], e["down"]) == (False, True, False, True)
    e = ok(three, "pane.edges")["edges"]  # the focused pane
    assert e["pane_id"] == "w1:p1" and (e["left"], e["right"], e["up"], e["down"]) == (
        True,
        False,
        True,
        True,
    )
    assert err(three, "pane.edges", pane_id="w1:p9") == {
        "code": "pane_not_found",
        "message": "pane not found",
    }


def test_focus_direction_moves_focus_without_a_layout_event(three):
    since = mark(three)
    f = ok(three, "pane.focus_direction", direction="right")["focus"]
    assert f["changed"] is True and "reason" not in f
    assert f["source_pane_id"] == "w1:p1" and f["focused_pane_id"] == "w1:p2"
    assert [k for k, _ in kinds(three, since)] == [
        "workspace_focused",
        "tab_focused",
        "pane_focused",
    ]
    f = ok(three, "pane.focus_direction", direction="up")["focus"]
    assert f["changed"] is False and f["reason"] == "no_neighbor"
    assert f["focused_pane_id"] == "w1:p2"


def test_resize_moves_the_nearest_split(three):
    r = ok(three, "pane.resize", pane_id="w1:p1", direction="right", amount=0.1)["resize"]
    assert r["changed"] is True and r["layout"]["splits"][0]["ratio"] == 0.6
    assert r["pane_id"] == "w1:p1" and r["focused_pane_id"] == "w1:p1"
    # the outer left edge has no split: the right-edge split shrinks the pane (src/layout.rs)
    r = ok(three, "pane.resize", pane_id="w1:p1", direction="left")["resize"]
    assert r["layout"]["splits"][0]["ratio"] == 0.55
    r = ok(three, "pane.resize", pane_id="w1:p3", direction="up", amount=9)["resize"]
    assert r["layout"]["splits"][1]["ratio"] == 0.1  # amount capped at 0.5, ratio at 0.1
    r = ok(three, "pane.resize", pane_id="w1:p3", direction="up")["resize"]
    assert r["changed"] is False and r["reason"] == "unchanged"


def test_swap_explicit_and_directional(three, version):
    s = ok(three, "pane.swap", source_pane_id="w1:p3", target_pane_id="w1:p1")["swap"]
    assert s["changed"] is True and s["focused_pane_id"] == "w1:p3"
    x, y, w, h = view_area(version)
    assert rects(s["layout"])["w1:p3"] == {"x": x, "y": y, "width": w // 2 + w % 2, "height": h}
    s = ok(three, "pane.swap", direction="right")["swap"]  # w1:p3 with its right neighbour
    assert s["source_pane_id"] == "w1:p3" and s["target_pane_id"] == "w1:p2"
    assert ok(three, "pane.swap", direction="left", pane_id="w1:p2")["swap"]["reason"] == (
        "no_neighbor"
    )
    assert ok(three, "pane.swap", source_pane_id="w1:p1", target_pane_id="w1:p1")["swap"][
        "reason"
    ] == ("same_pane")
    s = ok(three, "pane.swap", source_pane_id="w1:p1", target_pane_id="w1:p9")["swap"]
    assert s["reason"] == "not_found" and s["target_pane_id"] == "w1:p9"
    ok(three, "tab.create", workspace_id="w1")
    assert ok(three, "pane.swap", source_pane_id="w1:p1", target_pane_id="w1:p4")["swap"][
        "reason"
    ] == ("cross_tab")
    for params in ({}, {"direction": "left", "source_pane_id": "w1:p1"}):
        assert err(three, "pane.swap", **params)["code"] == "invalid_pane_swap"


def test_zoom_modes(three):
    z = ok(three, "pane.zoom", pane_id="w1:p2")["zoom"]
    assert (z["changed"], z["zoom_changed"], z["focus_changed"], z["zoomed"]) == (
        True,
        True,
        True,
        True,
    )
    assert z["focused_pane_id"] == "w1:p2" and z["layout"]["zoomed"] is True
    z = ok(three, "pane.zoom", pane_id="w1:p2", mode="on")["zoom"]
    assert z["changed"] is False and z["reason"] == "already_zoomed"
    assert ok(three, "pane.zoom", mode="off")["zoom"]["zoomed"] is False
    assert ok(three, "pane.zoom", mode="off")["zoom"]["reason"] == "already_unzoomed"
    ok(three, "pane.zoom")
    ok(three, "pane.split", target_pane_id="w1:p1", direction="down")  # a split unzooms
    assert ok(three, "pane.layout")["layout"]["zoomed"] is False
    ok(three, "tab.create", workspace_id="w1")
    z = ok(three, "pane.zoom", pane_id="w1:p5")["zoom"]
    assert z["reason"] == "single_pane" and z["focus_changed"] is True and z["zoomed"] is False


def _shape(node):
    if node["type"] == "pane":
        return ("pane", node.get("label"), node.get("command"))
    return (node["direction"], node["ratio"], _shape(node["first"]), _shape(node["second"]))


TREE = {
    "type": "split",
    "direction": "right",
    "ratio": 0.7,
    "first": {"type": "pane", "label": "editor"},
    "second": {
        "type": "split",
        "direction": "down",
        "ratio": 0.25,
        "first": {"type": "pane", "label": "tests", "env": {"HERDR_ROLE": "tests"}},
        "second": {"type": "pane", "command": ["sh", "-c", "true"]},
    },
}


def test_layout_apply_then_export_round_trip(server, tmp_path):
    ok(server, "workspace.create", cwd=str(tmp_path))
    applied = ok(server, "layout.apply", root=TREE, tab_label="dev", focus=True)["layout"]
    assert applied["tab_id"] == "w1:t2" and applied["focused_pane_id"] == "w1:p2"
    exported = ok(server, "layout.export")["layout"]
    assert exported == applied
    assert _shape(exported["root"]) == _shape(
        {**TREE, "second": {**TREE["second"]}}
    )  # labels, ratios, command
    assert [p["pane_id"] for p in ok(server, "pane.list", workspace_id="w1")["panes"]] == [
        "w1:p1",
        "w1:p2",
        "w1:p3",
        "w1:p4",
    ]
    tab = ok(server, "tab.get", tab_id="w1:t2")["tab"]
    assert tab["label"] == "dev" and tab["focused"] is True and tab["pane_count"] == 3
    # what was exported applies again, to an equal tree
    again = ok(server, "layout.apply", root=exported["root"], workspace_id="w1")["layout"]
    assert _shape(again["root"]) == _shape(exported["root"]) and again["tab_id"] == "w1:t3"


def test_layout_apply_replacing_a_tab(server, tmp_path):
    ok(server, "workspace.create", cwd=str(tmp_path))
    ok(server, "tab.create", workspace_id="w1", label="keep")
    since = mark(server)
    out = ok(server, "layout.apply", tab_id="w1:t1", root={"type": "pane", "label": "x"})
    got = [(k, d.get("tab_id") or d.get("tab", {}).get("tab_id")) for k, d in kinds(server, since)]
    assert got[:3] == [("tab_closed", "w1:t1"), ("tab_created", "w1:t3"), ("pane_created", None)]
    assert out["layout"]["tab_id"] == "w1:t3"
    tabs = ok(server, "tab.list", workspace_id="w1")["tabs"]
    assert [t["tab_id"] for t in tabs] == ["w1:t2", "w1:t3"]  # the new tab goes last
    assert tabs[1]["focused"] is True  # the replaced tab was active


@pytest.mark.parametrize(
    "params, code, message",
    [
        ({"tab_id": "w1:t9"}, "tab_not_found", "tab w1:t9 not found"),
        (
            {"tab_id": "w1:t1", "workspace_id": "w1"},
            "invalid_target",
            "use either tab_id or workspace_id, not both",
        ),
        ({"workspace_id": "w7"}, "workspace_not_found", "workspace w7 not found"),
        (
            {"root": {"type": "pane", "command": []}},
            "invalid_layout",
            "pane command must not be empty",
        ),
        (
            {"root": {"type": "pane", "env": {"A=B": "x"}}},
            "invalid_layout",
            "env key A=B must not contain '='",
        ),
    ],
)
def test_layout_apply_refusals(server, tmp_path, params, code, message):
    ok(server, "workspace.create", cwd=str(tmp_path))
    params = {"root": {"type": "pane"}, **params}
    assert err(server, "layout.apply", **params) == {"code": code, "message": message}
    assert len(ok(server, "tab.list")["tabs"]) == 1  # nothing was created


def _chain(n):
    node = {"type": "pane"}
    for _ in range(n):
        node = {
            "type": "split",
            "direction": "right",
            "ratio": 0.5,
            "first": node,
            "second": {"type": "pane"},
        }
    return node


def test_layout_apply_limits(server, tmp_path):
    ok(server, "workspace.create", cwd=str(tmp_path))
    assert err(server, "layout.apply", root=_chain(16))["message"] == (
        "layout depth is 17; maximum is 16"
    )
    wide = {
        "type": "split",
        "direction": "down",
        "ratio": 0.5,
        "first": _chain(12),
        "second": _chain(12),
    }
    assert err(server, "layout.apply", root=wide)["message"] == "layout has more than 24 panes"
    assert ok(server, "layout.apply", root=_chain(15))["layout"]["tab_id"] == "w1:t2"


def test_set_split_ratio(three):
    out = ok(three, "layout.set_split_ratio", path=[True], ratio=0.72)["layout"]
    assert out["root"]["second"]["ratio"] == 0.72
    assert (
        ok(three, "layout.set_split_ratio", tab_id="w1:t1", path=[], ratio=2)["layout"]["root"][
            "ratio"
        ]
        == 0.9
    )
    assert err(three, "layout.set_split_ratio", path=[False], ratio=0.5) == {
        "code": "split_not_found",
        "message": "split path not found",
    }
    assert err(three, "layout.set_split_ratio", path=[], ratio=1e39)["code"] == "invalid_ratio"
    assert err(
        three, "layout.set_split_ratio", tab_id="w1:t1", pane_id="w1:p1", path=[], ratio=0.5
    ) == {"code": "layout_not_found", "message": "layout target not found"}
    assert err(three, "layout.export", tab_id="w1:t1", pane_id="w1:p1")["code"] == (
        "layout_not_found"
    )
