"""pane.* in-process, on every release: ids, split, close, focus, input and reads, exit,
process info, waits on the virtual clock (SOCKET.md §4, §7.4, §8.3; handlers/pane.py)."""

from __future__ import annotations

import pytest

from tests.hubevents import events, kinds


def test_tenth_pane_is_pA_and_numbers_span_tabs(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    ids = [
        h.ok("pane.split", target_pane_id="w1:p1", direction="down")["pane"]["pane_id"]
        for _ in range(8)
    ]
    assert ids[-1] == "w1:p9"
    tab = h.ok("tab.create", workspace_id="w1")
    assert tab["tab"]["tab_id"] == "w1:t2" and tab["root_pane"]["pane_id"] == "w1:pA"


def test_ids_never_reused_after_close(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    p2 = h.ok("pane.split", direction="right")["pane"]["pane_id"]
    h.ok("pane.close", pane_id=p2)
    assert h.err("pane.get", pane_id=p2) == {
        "code": "pane_not_found",
        "message": f"pane {p2} not found",
    }
    assert h.ok("pane.split", direction="right")["pane"]["pane_id"] == "w1:p3"
    h.ok("tab.create")
    h.ok("tab.close", tab_id="w1:t2")
    assert h.ok("tab.create")["tab"]["tab_id"] == "w1:t3"


def test_split_defaults_and_focus(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    r = h.ok("pane.split", direction="right")["pane"]
    assert r["focused"] is False and r["cwd"] == str(tmp_path)
    assert h.ok("pane.current")["pane"]["pane_id"] == "w1:p1"
    r = h.ok("pane.split", target_pane_id="w1:p1", direction="down", focus=True, ratio=5)
    assert h.ok("pane.current")["pane"]["pane_id"] == r["pane"]["pane_id"]
    layout = h.ok("pane.layout", pane_id="w1:p1")["layout"]
    assert [s["ratio"] for s in layout["splits"]] == [0.5, 0.9]  # clamped to [0.1, 0.9]
    assert [p["pane_id"] for p in layout["panes"]] == ["w1:p1", "w1:p3", "w1:p2"]
    assert h.err("pane.split", target_pane_id="w1:p9", direction="right") == {
        "code": "pane_not_found",
        "message": "pane not found",
    }


def test_pane_close_cascades(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("pane.split", direction="right")
    h.ok("tab.create")  # w1:t2 with w1:p3
    mark = h.sim.hub.seq
    h.ok("pane.close", pane_id="w1:p2")
    assert kinds(h, mark) == ["pane_closed", "layout_updated"]
    mark = h.sim.hub.seq
    h.ok("pane.close", pane_id="w1:p3")  # sole pane of a non-last tab: the tab goes silently
    assert kinds(h, mark) == ["pane_closed"]
    assert h.err("tab.get", tab_id="w1:t2")["code"] == "tab_not_found"
    mark = h.sim.hub.seq
    h.ok("pane.close", pane_id="w1:p1")  # last pane of last tab: the workspace closes
    assert kinds(h, mark) == ["pane_closed", "workspace_closed"]
    closed = events(h, mark)[1][1]
    assert closed["workspace_id"] == "w1" and closed["workspace"]["workspace_id"] == "w1"
    assert h.ok("workspace.list")["workspaces"] == []


def test_focus_trio_after_each_request(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("pane.split", direction="right")
    mark = h.sim.hub.seq
    h.ok("pane.focus", pane_id="w1:p2")
    assert kinds(h, mark) == ["workspace_focused", "tab_focused", "pane_focused"]
    mark = h.sim.hub.seq
    h.ok("pane.focus", pane_id="w1:p2")
    assert kinds(h, mark) == []


def test_send_and_read(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("pane.send_text", pane_id="w1:p1", text="echo hi")
    h.ok("pane.send_keys", pane_id="w1:p1", keys=["Enter"])
    read = h.ok("pane.read", pane_id="w1:p1", source="visible")["read"]
    assert "echo hi" in read["text"] and read["revision"] == 0 and read["source"] == "visible"
    err = h.err("pane.send_keys", pane_id="w1:p1", keys=["x", "home"])
    assert err == {"code": "invalid_key", "message": "unsupported key home"}
    h.ok("pane.send_input", pane_id="w1:p1", text="ls", keys=["Enter"])
    assert "ls" in h.ok("pane.read", pane_id="w1:p1", source="visible")["read"]["text"]


def test_exit_in_the_shell_removes_the_pane_with_pane_exited(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("pane.split", direction="right")
    mark = h.sim.hub.seq
    h.ok("pane.send_input", pane_id="w1:p2", text="exit", keys=["Enter"])
    assert kinds(h, mark)[:2] == ["pane_exited", "layout_updated"]
    assert h.err("pane.get", pane_id="w1:p2")["code"] == "pane_not_found"


def test_process_info_shell_in_foreground(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    info = h.ok("pane.process_info")["process_info"]
    assert info["pane_id"] == "w1:p1"
    assert info["shell_pid"] == info["foreground_process_group_id"]
    assert info["foreground_processes"][0]["name"] in ("bash", "sh", "zsh")


def test_recent_read_of_a_fresh_screen_differs_by_profile(h, tmp_path):
    """0.8.2 counts the blank rows under the cursor, so a short recent read of a fresh pane is
    empty; 0.9.0 (#3444) includes output not yet scrolled off (VERSIONS.md §1.6)."""
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("pane.send_text", pane_id="w1:p1", text="hello")
    read = h.ok("pane.read", pane_id="w1:p1", source="recent", lines=5)["read"]
    if h.sim.version.rows.recent_includes_viewport:
        assert read["text"] == "$ hello\n"
    else:
        assert read["text"] == ""
    assert read["truncated"] is True


def test_virtual_clock_waits_need_time_to_move(version, config, tmp_path):
    from simherdr.testing import Harness, StillWaiting

    match = {"type": "substring", "value": "never"}
    with Harness(version, config=config) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        with pytest.raises(StillWaiting, match=r"h\.advance"):
            h.call(
                "pane.wait_for_output",
                pane_id="w1:p1",
                source="recent",
                match=match,
                timeout_ms=5000,
            )
        assert h.ok("ping")["type"] == "pong"  # the harness is still usable
    with Harness(version, config=config, auto_advance=True) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        before = h.clock.now()
        err = h.err(
            "pane.wait_for_output",
            pane_id="w1:p1",
            source="recent",
            match=match,
            timeout_ms=4 * 3600 * 1000,
        )
        assert err == {"code": "timeout", "message": "timed out waiting for output match"}
        assert h.clock.now() - before >= 4 * 3600
        with pytest.raises(StillWaiting, match="nothing is scheduled"):
            h.call("pane.wait_for_output", pane_id="w1:p1", source="recent", match=match)
