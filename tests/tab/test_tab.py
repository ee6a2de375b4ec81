"""tab.* in-process, on every release: create, labels and numbers, close (SOCKET.md §3, §8.3;
handlers/tab.py)."""

from __future__ import annotations

from tests.hubevents import kinds


def test_tab_create_without_workspace_needs_an_active_one(h, tmp_path):
    assert h.err("tab.create") == {"code": "workspace_not_found", "message": "no active workspace"}
    h.ok("workspace.create", cwd=str(tmp_path))
    r = h.ok("tab.create", label="build")
    assert (
        r["tab"]["workspace_id"] == "w1"
        and r["tab"]["label"] == "build"
        and r["tab"]["focused"] is False
    )


def test_tab_labels_are_positions_numbers_are_stable(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("tab.create")
    h.ok("tab.create")
    h.ok("tab.close", tab_id="w1:t2")
    tabs = h.ok("tab.list", workspace_id="w1")["tabs"]
    assert [(t["tab_id"], t["number"], t["label"]) for t in tabs] == [
        ("w1:t1", 1, "1"),
        ("w1:t3", 3, "2"),
    ]


def test_tab_close_last_tab_closes_workspace(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    mark = h.sim.hub.seq
    h.ok("tab.close", tab_id="w1:t1")
    assert kinds(h, mark) == ["tab_closed", "workspace_closed"]
