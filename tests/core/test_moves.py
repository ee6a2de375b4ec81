"""pane.move, tab.move, workspace.move, workspace.move_block: ids, cascades and events as herdr
(src/app/api/panes.rs:624-1044, src/workspace.rs:985-1063, src/app/actions.rs:1370-1460).
In-process on both profiles (replies schema-checked), plus each method over the socket."""

from __future__ import annotations

import pytest

from tests import herdr_reference as ref
from tests.core.socketclient import request


def events(h, since=0):
    """The hub's events since ``since``, each checked against herdr's event schema."""
    out = [(k, d) for _, k, d in h.sim.hub.after(since)]
    for kind, data in out:
        ref.validate_reply({"event": kind, "data": data}, h.sim.version.name)
    return out


def kinds(h, since=0):
    return [k for k, _ in events(h, since) if not k.endswith("_focused")]


@pytest.fixture
def two(h, tmp_path):
    """w1: t1 = p1 | p2 (focus p1); w2: t1 = p1."""
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("pane.split", target_pane_id="w1:p1", direction="right")
    h.ok("workspace.create", cwd=str(tmp_path))
    return h


def test_to_a_new_workspace_renumbers_and_aliases(two):
    term = two.ok("pane.get", pane_id="w1:p2")["pane"]["terminal_id"]
    since = two.sim.hub.seq
    m = two.ok(
        "pane.move",
        pane_id="w1:p2",
        destination={"type": "new_workspace", "label": "moved", "tab_label": "solo"},
    )["move_result"]
    assert m["changed"] is True and "reason" not in m
    assert (m["previous_pane_id"], m["previous_workspace_id"], m["previous_tab_id"]) == (
        "w1:p2",
        "w1",
        "w1:t1",
    )
    assert m["pane"]["pane_id"] == "w3:p1" and m["pane"]["terminal_id"] == term
    assert m["created_workspace"]["workspace_id"] == "w3"
    assert m["created_workspace"]["label"] == "moved" and m["created_tab"]["label"] == "solo"
    assert "closed_tab_id" not in m and "closed_workspace_id" not in m
    assert m["source_layout"]["tab_id"] == "w1:t1" and len(m["source_layout"]["panes"]) == 1
    assert m["target_layout"]["tab_id"] == "w3:t1" and m["focused_pane_id"] == "w3:p1"
    assert kinds(two, since) == [
        "workspace_created",
        "tab_created",
        "pane_moved",
        "layout_updated",
        "layout_updated",
    ]
    # the old id still resolves (lenient parser) to the moved pane, not for agent targets
    assert two.ok("pane.get", pane_id="w1:p2")["pane"]["pane_id"] == "w3:p1"
    assert two.ok("workspace.get", workspace_id="w1")["workspace"]["focused"] is True  # focus kept


def test_the_last_pane_of_a_workspace_closes_it(two, tmp_path):
    since = two.sim.hub.seq
    m = two.ok(
        "pane.move",
        pane_id="w2:p1",
        destination={"type": "tab", "tab_id": "w1:t1", "target_pane_id": "w1:p2", "split": "down"},
    )["move_result"]
    assert m["closed_tab_id"] == "w2:t1" and m["closed_workspace_id"] == "w2"
    assert "source_layout" not in m and m["pane"]["pane_id"] == "w1:p3"
    got = events(two, since)
    assert [k for k, _ in got if not k.endswith("_focused")] == [
        "tab_closed",
        "workspace_closed",
        "pane_moved",
        "layout_updated",
    ]
    closed = dict(got)["workspace_closed"]
    assert closed == {"type": "workspace_closed", "workspace_id": "w2"}  # no final snapshot
    assert [w["workspace_id"] for w in two.ok("workspace.list")["workspaces"]] == ["w1"]
    layout = two.ok("pane.layout", pane_id="w1:p3")["layout"]
    assert [p["pane_id"] for p in layout["panes"]] == ["w1:p1", "w1:p2", "w1:p3"]
    assert layout["splits"][1]["direction"] == "down"


def test_the_last_pane_of_a_tab_closes_the_tab_only(two):
    two.ok("tab.create", workspace_id="w1")  # w1:t2 with w1:p3
    since = two.sim.hub.seq
    m = two.ok("pane.move", pane_id="w1:p3", destination={"type": "new_tab", "workspace_id": "w2"})[
        "move_result"
    ]
    assert m["closed_tab_id"] == "w1:t2" and "closed_workspace_id" not in m
    assert m["pane"]["pane_id"] == "w2:p2" and m["created_tab"]["tab_id"] == "w2:t2"
    assert kinds(two, since) == ["tab_closed", "tab_created", "pane_moved", "layout_updated"]
    assert two.ok("workspace.get", workspace_id="w1")["workspace"]["tab_count"] == 1


def test_same_workspace_keeps_the_id_and_refills_an_emptied_workspace(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    m = h.ok("pane.move", pane_id="w1:p1", destination={"type": "new_tab", "label": "again"})[
        "move_result"
    ]
    # the only tab closes, the workspace survives with the new tab (same workspace: no close)
    assert m["pane"]["pane_id"] == "w1:p1" and m["closed_tab_id"] == "w1:t1"
    assert "closed_workspace_id" not in m and m["created_tab"]["tab_id"] == "w1:t2"
    w = h.ok("workspace.get", workspace_id="w1")["workspace"]
    assert w["tab_count"] == 1 and w["active_tab_id"] == "w1:t2"
    h.ok("pane.split", target_pane_id="w1:p1", direction="right")
    m = h.ok(
        "pane.move",
        pane_id="w1:p2",
        destination={"type": "tab", "tab_id": "w1:t2", "split": "right"},
    )["move_result"]
    assert m["changed"] is False and m["reason"] == "same_tab"
    h.ok("tab.create", workspace_id="w1")
    m = h.ok(
        "pane.move",
        pane_id="w1:p2",
        destination={"type": "tab", "tab_id": "w1:t3", "split": "down", "ratio": 0.3},
        focus=True,
    )["move_result"]
    assert m["pane"]["pane_id"] == "w1:p2" and m["pane"]["tab_id"] == "w1:t3"
    assert m["pane"]["focused"] is True and m["target_layout"]["splits"][0]["ratio"] == 0.3


def test_zoomed_tabs_refuse(two):
    two.ok("pane.zoom", pane_id="w1:p1")
    m = two.ok("pane.move", pane_id="w1:p1", destination={"type": "new_workspace"})["move_result"]
    assert m["changed"] is False and m["reason"] == "zoomed_tab"
    assert m["source_layout"] == m["target_layout"] and m["pane"]["pane_id"] == "w1:p1"
    m = two.ok(
        "pane.move",
        pane_id="w2:p1",
        destination={"type": "tab", "tab_id": "w1:t1", "split": "down"},
    )["move_result"]
    assert m["reason"] == "zoomed_tab" and m["target_layout"]["tab_id"] == "w1:t1"
    assert m["source_layout"]["tab_id"] == "w2:t1"


@pytest.mark.parametrize(
    "pane, dest, code, message",
    [
        ("w9:p1", {"type": "new_workspace"}, "pane_not_found", "source pane not found"),
        ("w1:p1", {"type": "tab", "tab_id": "w1:t9", "split": "down"}, "tab_not_found", None),
        (
            "w1:p1",
            {"type": "tab", "tab_id": "w2:t1", "split": "down", "target_pane_id": "w2:p7"},
            "target_pane_not_found",
            "target pane w2:p7 not found",
        ),
        (
            "w1:p1",
            {"type": "tab", "tab_id": "w2:t1", "split": "down", "target_pane_id": "w1:p2"},
            "target_pane_not_found",
            "target pane w1:p2 is not in tab w2:t1",
        ),
        ("w1:p1", {"type": "new_tab", "workspace_id": "w5"}, "workspace_not_found", None),
    ],
)
def test_refusals_change_nothing(two, pane, dest, code, message):
    before = two.ok("session.snapshot")
    e = two.err("pane.move", pane_id=pane, destination=dest)
    assert e["code"] == code and (message is None or e["message"] == message)
    assert two.ok("session.snapshot") == before


def test_bad_destination_is_invalid_request(two):
    e = two.err("pane.move", pane_id="w1:p1", destination={"type": "elsewhere"})
    assert e["code"] == "invalid_request"


def test_a_pending_agent_start_follows_its_terminal(two):
    two.ok("agent.start", name="rev", kind="claude", pane_id="w1:p2")
    m = two.ok("pane.move", pane_id="w1:p2", destination={"type": "new_workspace"})["move_result"]
    assert m["pane"]["pane_id"] == "w3:p1"
    two.advance(3.1)
    a = two.ok("agent.get", target="rev")["agent"]
    assert a["pane_id"] == "w3:p1" and a["interactive_ready"] is True and a["agent"] == "claude"
    assert two.err("agent.get", target="w1:p2")["code"] == "agent_not_found"  # canonical only


def test_tab_move(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("tab.create", workspace_id="w1", focus=True)
    h.ok("tab.create", workspace_id="w1")
    since = h.sim.hub.seq
    tabs = h.ok("tab.move", tab_id="w1:t3", insert_index=0)["tabs"]
    assert [t["tab_id"] for t in tabs] == ["w1:t3", "w1:t1", "w1:t2"]
    assert [t["label"] for t in tabs] == ["1", "2", "3"]  # default labels follow the position
    assert tabs[2]["focused"] is True  # the active tab stays the same tab
    (moved,) = [d for k, d in events(h, since)]
    assert moved["type"] == "tab_moved" and moved["insert_index"] == 0 and moved["tabs"] == tabs
    # insert_index counts positions before the move: 3 is "at the end"
    assert [t["tab_id"] for t in h.ok("tab.move", tab_id="w1:t3", insert_index=3)["tabs"]] == [
        "w1:t1",
        "w1:t2",
        "w1:t3",
    ]
    since = h.sim.hub.seq
    h.ok("tab.move", tab_id="w1:t3", insert_index=3)  # no change: no event
    assert events(h, since) == []
    assert h.err("tab.move", tab_id="w1:t1", insert_index=4) == {
        "code": "tab_move_failed",
        "message": "insert_index 4 is out of bounds",
    }


def test_workspace_move_and_move_block(h, tmp_path):
    for _ in range(4):
        h.ok("workspace.create", cwd=str(tmp_path))
    since = h.sim.hub.seq
    ws = h.ok("workspace.move", workspace_id="w1", insert_index=4)["workspaces"]
    assert [w["workspace_id"] for w in ws] == ["w2", "w3", "w4", "w1"]
    assert ws[3]["focused"] is True and ws[3]["number"] == 4
    # the focused workspace's index changed: the focus trio again (SOCKET.md §8.4)
    assert [k for k, _ in events(h, since)] == [
        "workspace_moved",
        "workspace_focused",
        "tab_focused",
        "pane_focused",
    ]
    since = h.sim.hub.seq
    ws = h.ok("workspace.move_block", workspace_ids=["w4", "w2"], before_workspace_id="w3")[
        "workspaces"
    ]
    assert [w["workspace_id"] for w in ws] == ["w4", "w2", "w3", "w1"]
    ((kind, data),) = events(h, since)
    assert kind == "workspace_reordered" and data["workspace_ids"] == ["w4", "w2"]
    assert data["before_workspace_id"] == "w3"
    ws = h.ok("workspace.move_block", workspace_ids=["2"])["workspaces"]  # positional, to the end
    assert [w["workspace_id"] for w in ws] == ["w4", "w3", "w1", "w2"]
    for params, message in [
        ({"workspace_ids": []}, "workspace_ids must not be empty"),
        ({"workspace_ids": ["w1", "w1"]}, "workspace w1 appears more than once"),
        (
            {"workspace_ids": ["w1"], "before_workspace_id": "w1"},
            "before_workspace_id must not be part of workspace_ids",
        ),
    ]:
        assert h.err("workspace.move_block", **params) == {
            "code": "workspace_move_block_failed",
            "message": message,
        }
    assert h.err("workspace.move_block", workspace_ids=["w9"])["code"] == "workspace_not_found"
    assert h.err("workspace.move", workspace_id="w1", insert_index=5)["code"] == (
        "workspace_move_failed"
    )


def test_moves_over_the_socket(server, tmp_path):
    def ok(method, **params):
        reply = request(server.path, method, params)
        assert "result" in reply, reply
        return reply["result"]

    ok("workspace.create", cwd=str(tmp_path))
    ok("pane.split", direction="right")
    ok("workspace.create", cwd=str(tmp_path))
    m = ok(
        "pane.move",
        pane_id="w1:p2",
        destination={"type": "tab", "tab_id": "w2:t1", "split": "right"},
    )
    assert m["move_result"]["pane"]["pane_id"] == "w2:p2"
    assert ok("tab.create", workspace_id="w2")["tab"]["tab_id"] == "w2:t2"
    assert ok("tab.move", tab_id="w2:t2", insert_index=0)["tabs"][0]["tab_id"] == "w2:t2"
    assert ok("workspace.move", workspace_id="w2", insert_index=0)["workspaces"][0]["number"] == 1
    ws = ok("workspace.move_block", workspace_ids=["w1"], before_workspace_id="w2")["workspaces"]
    assert [w["workspace_id"] for w in ws] == ["w1", "w2"]
    snap = ok("session.snapshot")["snapshot"]
    assert sorted(p["pane_id"] for p in snap["panes"]) == ["w1:p1", "w2:p1", "w2:p2", "w2:p3"]


def test_a_running_agent_wait_ends_when_its_pane_moves(two):
    """SOCKET.md §7 (src/api/wait.rs): pane_moved naming the waited pane ends the wait."""
    two.ok("agent.start", name="rev", kind="claude", pane_id="w1:p2")
    two.advance(3.1)
    task = two.spawn("agent.wait", target="rev", until=["blocked"])
    assert not task.done()
    two.ok("pane.move", pane_id="w1:p2", destination={"type": "new_workspace"})
    two.settle()
    assert two.result(task)["error"]["code"] == "agent_not_running"
    # the agent itself lives on under its new id
    assert two.ok("agent.get", target="rev")["agent"]["pane_id"] == "w3:p1"
