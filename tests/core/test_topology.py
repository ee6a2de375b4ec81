"""Workspaces, tabs and panes in-process, on both profiles (SOCKET.md §2-§4, §8.3)."""

from __future__ import annotations

import pytest

from tests.releases import BASE, resolve


def events(h, since=0):
    return [(k, d) for _, k, d in h.sim.hub.after(since)]


def kinds(h, since=0):
    return [k for k, _ in events(h, since)]


def test_first_workspace_is_focused_and_ids_are_canonical(h, tmp_path):
    r = h.ok("workspace.create", cwd=str(tmp_path))
    assert r["type"] == "workspace_created"
    w, t, p = r["workspace"], r["tab"], r["root_pane"]
    assert (w["workspace_id"], t["tab_id"], p["pane_id"]) == ("w1", "w1:t1", "w1:p1")
    assert w["focused"] and t["focused"] and p["focused"]
    assert w["tab_count"] == 1 and w["pane_count"] == 1 and w["active_tab_id"] == "w1:t1"
    assert p["terminal_id"].startswith("term_")
    assert p["agent_status"] == "unknown" and "agent" not in p
    assert kinds(h) == [
        "workspace_created",
        "tab_created",
        "pane_created",
        "layout_updated",
        "workspace_focused",
        "tab_focused",
        "pane_focused",
    ]


def test_later_workspace_without_focus_stays_in_background(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    r = h.ok("workspace.create", cwd=str(tmp_path), focus=False)
    assert r["workspace"]["workspace_id"] == "w2"
    assert r["workspace"]["focused"] is False and r["root_pane"]["focused"] is False
    assert r["workspace"]["number"] == 2
    r = h.ok("workspace.create", cwd=str(tmp_path), focus=True)
    assert r["workspace"]["focused"] is True


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


def test_lenient_inputs(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("workspace.create", cwd=str(tmp_path))
    assert h.ok("workspace.get", workspace_id="2")["workspace"]["workspace_id"] == "w2"
    assert h.ok("workspace.get", workspace_id="w_1")["workspace"]["workspace_id"] == "w1"
    h.ok("tab.create", workspace_id="w2", label="second")
    assert h.ok("tab.get", tab_id="w2:2")["tab"]["tab_id"] == "w2:t2"
    assert h.ok("tab.get", tab_id="t_w2_1")["tab"]["tab_id"] == "w2:t1"
    assert h.ok("pane.get", pane_id="w2-1")["pane"]["pane_id"] == "w2:p1"
    assert h.err("workspace.get", workspace_id="9")["code"] == "workspace_not_found"
    # positional out of range on tab.create: the tab_create_failed quirk
    assert h.err("tab.create", workspace_id="9") == {
        "code": "tab_create_failed",
        "message": "workspace disappeared",
    }
    assert h.err("tab.create", workspace_id="w9") == {
        "code": "workspace_not_found",
        "message": "workspace w9 not found",
    }


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


def test_missing_cwd_follows_focused_pane_then_home(h, tmp_path, home):
    assert h.ok("workspace.create")["root_pane"]["cwd"] == home
    assert h.ok("workspace.create", cwd=str(tmp_path), focus=True)["root_pane"]["cwd"] == str(
        tmp_path
    )
    assert h.ok("workspace.create")["root_pane"]["cwd"] == str(tmp_path)
    # a cwd that does not exist silently becomes the server's own cwd (CLIENTS.md §1)
    assert (
        h.ok("workspace.create", cwd=str(tmp_path / "nope"))["root_pane"]["cwd"]
        == h.sim.config.server_cwd
    )


def test_home_workspace_label_is_tilde(h, home):
    assert h.ok("workspace.create", cwd=home)["workspace"]["label"] == "~"


def test_invalid_env_in_check_order(h, tmp_path):
    assert h.err("workspace.create", env={"": "x"}) == {
        "code": "invalid_env",
        "message": "env key must not be empty",
    }
    assert (
        h.err("workspace.create", env={"A=B": "x"})["message"] == "env key A=B must not contain '='"
    )
    assert (
        h.err("workspace.create", env={"A": "x\0"})["message"]
        == "env value for A must not contain NUL bytes"
    )
    assert h.ok("workspace.list")["workspaces"] == []


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


def test_tab_close_last_tab_closes_workspace(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    mark = h.sim.hub.seq
    h.ok("tab.close", tab_id="w1:t1")
    assert kinds(h, mark) == ["tab_closed", "workspace_closed"]


def test_workspace_close_emits_one_event_and_refocuses(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("workspace.create", cwd=str(tmp_path), focus=True)
    h.ok("tab.create", workspace_id="w2")
    mark = h.sim.hub.seq
    h.ok("workspace.close", workspace_id="w2")
    assert kinds(h, mark)[0] == "workspace_closed"
    assert "tab_closed" not in kinds(h, mark) and "pane_closed" not in kinds(h, mark)
    assert h.ok("workspace.get", workspace_id="w1")["workspace"]["focused"] is True


def test_focus_trio_after_each_request(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("pane.split", direction="right")
    mark = h.sim.hub.seq
    h.ok("pane.focus", pane_id="w1:p2")
    assert kinds(h, mark) == ["workspace_focused", "tab_focused", "pane_focused"]
    mark = h.sim.hub.seq
    h.ok("pane.focus", pane_id="w1:p2")
    assert kinds(h, mark) == []


def test_rename(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    assert h.ok("workspace.rename", workspace_id="w1", label="")["workspace"]["label"] == ""
    assert h.ok("tab.rename", tab_id="w1:t1", label="main")["tab"]["label"] == "main"
    mark = h.sim.hub.seq
    assert h.ok("pane.rename", pane_id="w1:p1", label="  editor ")["pane"]["label"] == "editor"
    assert "label" not in h.ok("pane.rename", pane_id="w1:p1")["pane"]
    assert kinds(h, mark) == []  # pane.rename emits no event


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


def test_snapshot_order_and_focus(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("pane.split", direction="right")
    h.ok("tab.create")
    snap = h.ok("session.snapshot")["snapshot"]
    assert snap["focused_workspace_id"] == "w1" and snap["focused_pane_id"] == "w1:p1"
    assert [p["pane_id"] for p in snap["panes"]] == ["w1:p1", "w1:p2", "w1:p3"]
    assert len(snap["layouts"]) == 2 and snap["agents"] == []
    assert (snap["version"], snap["protocol"]) == (h.sim.version.name, h.sim.version.protocol)


def test_ping_per_profile(h):
    pong = h.ok("ping")
    assert pong["protocol"] == resolve(pong["version"]).protocol
    assert pong["capabilities"] == h.sim.version.rows.capabilities
    if pong["capabilities"] == resolve(BASE).rows.capabilities:
        assert set(pong["capabilities"]) == {"live_handoff", "detached_server_daemon"}
    else:  # [H093] src/api/server.rs default_capabilities()
        assert pong["capabilities"] == {
            "live_handoff": True,
            "detached_server_daemon": True,
            "endpoint_protocol_generation": 1,
            "surface_interest": True,
            "health_check": True,
            "ssh_agent_registration": True,
        }


def test_parse_failures_have_empty_id(h):
    """0.8.2: always ""; 0.9.2+: the line's own string id when it has one (#4344)."""
    for bad in (
        {"id": 1, "method": "ping", "params": {}},
        {"id": "x", "method": "ping"},
        {"id": "x", "method": "nope", "params": {}},
        {"id": "x", "method": "pane.get", "params": {}},
        {"id": "x", "method": "pane.get", "params": {"pane_id": 5}},
        {"id": "x", "method": "pane.get", "params": None},
        {"id": "x", "method": "pane.read", "params": {"pane_id": "w1:p1", "source": "bogus"}},
        ["not", "an", "object"],
    ):
        reply = h.request(bad)
        keeps = (
            h.sim.version.rows.invalid_request_keeps_id
            and isinstance(bad, dict)
            and bad["id"] == "x"
        )
        assert reply["id"] == ("x" if keeps else ""), bad
        assert reply["error"]["code"] == "invalid_request", bad
        assert reply["error"]["message"].startswith("invalid request: ")


def test_unknown_params_are_ignored(h, tmp_path):
    r = h.ok("workspace.create", cwd=str(tmp_path), surprise={"x": 1})
    assert r["workspace"]["workspace_id"] == "w1"


def test_server_stop_then_unavailable_but_ping_answers(h):
    assert h.ok("server.stop") == {"type": "ok"}
    assert h.err("workspace.list") == {
        "code": "server_unavailable",
        "message": "server is shutting down",
    }
    assert h.ok("ping")["type"] == "pong"
    assert h.ok("server.stop") == {"type": "ok"}


def test_known_but_unmodelled_method_is_not_implemented(h):
    from simherdr.facts.methods import ALL_METHODS

    missing = sorted(ALL_METHODS - set(h.sim.methods))
    if not missing:
        pytest.skip("every herdr method has a handler")
    assert h.err(missing[0]) == {
        "code": "not_implemented",
        "message": "method not implemented yet",
    }


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
    import pytest

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
