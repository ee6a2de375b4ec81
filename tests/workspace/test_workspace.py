"""workspace.* in-process, on every release: creation, ids and refs, cwd and label, env,
close, rename (SOCKET.md §2, §8.3; handlers/workspace.py)."""

from __future__ import annotations

from tests.hubevents import kinds


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


def test_workspace_close_emits_one_event_and_refocuses(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("workspace.create", cwd=str(tmp_path), focus=True)
    h.ok("tab.create", workspace_id="w2")
    mark = h.sim.hub.seq
    h.ok("workspace.close", workspace_id="w2")
    assert kinds(h, mark)[0] == "workspace_closed"
    assert "tab_closed" not in kinds(h, mark) and "pane_closed" not in kinds(h, mark)
    assert h.ok("workspace.get", workspace_id="w1")["workspace"]["focused"] is True


def test_rename(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    assert h.ok("workspace.rename", workspace_id="w1", label="")["workspace"]["label"] == ""
    assert h.ok("tab.rename", tab_id="w1:t1", label="main")["tab"]["label"] == "main"
    mark = h.sim.hub.seq
    assert h.ok("pane.rename", pane_id="w1:p1", label="  editor ")["pane"]["label"] == "editor"
    assert "label" not in h.ok("pane.rename", pane_id="w1:p1")["pane"]
    assert kinds(h, mark) == []  # pane.rename emits no event


def test_unknown_params_are_ignored(h, tmp_path):
    r = h.ok("workspace.create", cwd=str(tmp_path), surprise={"x": 1})
    assert r["workspace"]["workspace_id"] == "w1"
