"""plugin.* over the socket on both profiles (src/app/api/plugins/): link/list/enable/disable/
unlink, actions and [[events]] hooks as real processes, logs, plugin panes, herdr's errors.
Every reply is validated against herdr's schema (tests/core/socketclient.request)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests import gitrepos as G
from tests.releases import rows

from .helpers import err, finished_logs, ok, script, wait_for, write_plugin

ACTIONS = """
[[actions]]
id = "hello"
title = "  Say hello  "
contexts = ["workspace"]
command = ["./hello.sh", "arg one"]

[[actions]]
id = "alpha"
title = "Alpha"
description = "first by id"
command = ["true"]

[[panes]]
id = "board"
title = "Board"
placement = "split"
command = ["./board.sh"]
"""


@pytest.fixture
def plugin_root(tmp_path) -> Path:
    root = write_plugin(tmp_path / "plug", ACTIONS)
    script(
        root,
        "hello.sh",
        """\
        echo "out:$1"
        echo "err" >&2
        env | grep '^HERDR_' | sort > "$HERDR_PLUGIN_STATE_DIR/env.txt"
        """,
    )
    return root


def test_link_list_enable_disable_unlink(server, plugin_root, home):
    sock = server.path
    linked = ok(sock, "plugin.link", path=str(plugin_root))
    plugin = linked["plugin"]
    assert linked["type"] == "plugin_linked"
    assert plugin["plugin_id"] == "test.plug" and plugin["enabled"] is True
    assert plugin["manifest_path"] == str((plugin_root / "herdr-plugin.toml").resolve())
    assert plugin["plugin_root"] == str(plugin_root.resolve())
    assert [a["id"] for a in plugin["actions"]] == ["alpha", "hello"]  # sorted by id
    assert plugin["actions"][1]["title"] == "Say hello"  # trimmed
    assert plugin["source"] == {"kind": "local"}
    assert "warnings" not in plugin  # platforms declared, known events only
    # herdr makes the plugin's config and state dirs at link time
    assert os.path.isdir(os.path.join(home, ".config/herdr/plugins/config/test.plug"))
    assert os.path.isdir(os.path.join(home, ".local/state/herdr/plugins/test.plug"))

    assert ok(sock, "plugin.list")["plugins"] == [plugin]
    assert ok(sock, "plugin.list", plugin_id="other")["plugins"] == []
    actions = ok(sock, "plugin.action.list")["actions"]
    assert [(a["plugin_id"], a["action_id"]) for a in actions] == [
        ("test.plug", "alpha"),
        ("test.plug", "hello"),
    ]
    assert actions[0]["platforms"] == ["linux", "macos"]  # inherited from the plugin

    off = ok(sock, "plugin.disable", plugin_id="test.plug")
    assert off["type"] == "plugin_disabled" and off["plugin"]["enabled"] is False
    assert err(sock, "plugin.action.invoke", action_id="hello") == {
        "code": "plugin_disabled",
        "message": "plugin test.plug is disabled",
    }
    on = ok(sock, "plugin.enable", plugin_id="test.plug")
    assert on["type"] == "plugin_enabled" and on["plugin"]["enabled"] is True

    gone = ok(sock, "plugin.unlink", plugin_id="test.plug")
    assert gone == {"type": "plugin_unlinked", "plugin_id": "test.plug", "removed": True}
    again = ok(sock, "plugin.unlink", plugin_id="test.plug")
    assert again["removed"] is False
    assert ok(sock, "plugin.list")["plugins"] == []


def test_unknown_plugins_and_actions(server, plugin_root):
    sock = server.path
    not_found = {"code": "plugin_not_found", "message": "plugin not found"}
    assert err(sock, "plugin.enable", plugin_id="nope") == not_found
    assert err(sock, "plugin.disable", plugin_id="nope") == not_found
    assert err(sock, "plugin.pane.open", plugin_id="nope", entrypoint="x") == not_found
    assert err(sock, "plugin.action.invoke", action_id="x", plugin_id="nope") == not_found
    assert err(sock, "plugin.list", plugin_id="bad id")["code"] == "invalid_plugin_id"
    ok(sock, "plugin.link", path=str(plugin_root))
    missing = {"code": "plugin_action_not_found", "message": "plugin action not found"}
    assert err(sock, "plugin.action.invoke", action_id="nope") == missing
    assert err(sock, "plugin.action.invoke", action_id="nope", plugin_id="test.plug") == missing
    assert err(sock, "plugin.pane.open", plugin_id="test.plug", entrypoint="nope") == {
        "code": "plugin_pane_not_found",
        "message": "plugin pane entrypoint 'nope' not found",
    }
    assert err(sock, "plugin.pane.focus", pane_id="w9:p1") == {
        "code": "plugin_pane_not_found",
        "message": "plugin pane not found",
    }
    assert err(sock, "plugin.link", path=str(plugin_root / "missing"))["code"] == (
        "plugin_manifest_not_found"
    )
    # a second plugin with the same action id makes the bare id ambiguous
    other = write_plugin(plugin_root.parent / "other", ACTIONS, plugin_id="other.plug")
    ok(sock, "plugin.link", path=str(other))
    assert err(sock, "plugin.action.invoke", action_id="alpha")["code"] == (
        "ambiguous_plugin_action"
    )


def test_action_invoke_runs_a_real_process_with_herdrs_environment(server, plugin_root, home):
    sock = server.path
    ok(sock, "workspace.create", cwd=str(plugin_root))
    ok(sock, "plugin.link", path=str(plugin_root))
    r = ok(sock, "plugin.action.invoke", action_id="test.plug.hello")
    assert r["type"] == "plugin_action_invoked"
    assert r["action"]["action_id"] == "hello" and r["log"]["status"] == "running"
    assert r["context"]["workspace_id"] == "w1" and r["context"]["focused_pane_id"] == "w1:p1"
    assert r["context"]["invocation_source"] == "api"
    assert r["context"]["correlation_id"] == "t"  # the request id
    (log,) = wait_for(lambda: finished_logs(sock, "test.plug"), what="the action's log")
    assert log["log_id"] == r["log"]["log_id"] and log["action_id"] == "hello"
    assert log["status"] == "succeeded" and log["exit_code"] == 0
    assert log["stdout"] == "out:arg one\n" and log["stderr"] == "err\n"
    assert log["finished_unix_ms"] >= log["started_unix_ms"]
    state = Path(home, ".local/state/herdr/plugins/test.plug")
    env = dict(line.split("=", 1) for line in (state / "env.txt").read_text().splitlines())
    assert env["HERDR_SOCKET_PATH"] == server.path and env["HERDR_ENV"] == "1"
    assert env["HERDR_PLUGIN_ID"] == "test.plug" and env["HERDR_PLUGIN_ACTION_ID"] == "hello"
    assert env["HERDR_PLUGIN_ROOT"] == str(plugin_root.resolve())
    assert env["HERDR_PLUGIN_STATE_DIR"] == str(state)
    assert env["HERDR_WORKSPACE_ID"] == "w1" and env["HERDR_PANE_ID"] == "w1:p1"
    assert json.loads(env["HERDR_PLUGIN_CONTEXT_JSON"]) == r["context"]
    assert "HERDR_PLUGIN_EVENT" not in env


def test_a_failing_command_is_logged_failed(server, tmp_path):
    sock = server.path
    root = write_plugin(
        tmp_path / "p",
        """
        [[actions]]
        id = "boom"
        title = "Boom"
        command = ["sh", "-c", "echo bad >&2; exit 3"]

        [[actions]]
        id = "absent"
        title = "Absent"
        command = ["./no-such-program"]
        """,
    )
    ok(sock, "plugin.link", path=str(root))
    ok(sock, "plugin.action.invoke", action_id="boom")
    ok(sock, "plugin.action.invoke", action_id="absent")
    logs = wait_for(lambda: finished_logs(sock, "test.plug"), what="logs")
    boom, absent = logs
    assert boom["status"] == "failed" and boom["exit_code"] == 3 and boom["stderr"] == "bad\n"
    assert absent["status"] == "failed" and "exit_code" not in absent and absent["error"]
    assert [x["log_id"] for x in ok(sock, "plugin.log.list", limit=1)["logs"]] == [absent["log_id"]]


HOOK = """
[[events]]
on = "worktree.created"
command = ["./on-worktree.sh"]

[[events]]
on = "worktree.exploded"
command = ["true"]
"""


def test_worktree_created_hook_calls_back_over_the_socket(server, tmp_path, home, monkeypatch):
    """A hook fires on its event as a real process with the event's context and payload, and
    its call back over the socket is served while it runs (the server never blocks on it)."""
    G.isolate(monkeypatch, Path(home))
    base = G.make_base(tmp_path)
    repo = G.make_repo(base)
    sock = server.path
    root = write_plugin(tmp_path / "hooks", HOOK)
    script(
        root,
        "on-worktree.sh",
        """\
        echo "$HERDR_PLUGIN_EVENT" > "$HERDR_PLUGIN_STATE_DIR/event.txt"
        printf '%s' "$HERDR_PLUGIN_EVENT_JSON" > "$HERDR_PLUGIN_STATE_DIR/event.json"
        "$PY" ./callback.py pane.split '{"target_pane_id": "$HERDR_PANE_ID", "direction": "down"}'
        """,
    )
    linked = ok(sock, "plugin.link", path=str(root))["plugin"]
    assert linked["warnings"] == ["unknown event 'worktree.exploded'"]
    ok(sock, "workspace.create", cwd=str(repo))
    created = ok(sock, "worktree.create", workspace_id="w1", branch="topic", path=str(base / "wt"))
    wid = created["workspace"]["workspace_id"]

    def split_done():
        panes = ok(sock, "pane.list", workspace_id=wid)["panes"]
        return panes if len(panes) == 2 else None

    panes = wait_for(split_done, what="the hook's pane.split")
    assert [p["pane_id"] for p in panes] == [f"{wid}:p1", f"{wid}:p2"]
    (log,) = wait_for(lambda: finished_logs(sock, "test.plug"), what="the hook's log")
    assert log["event"] == "worktree.created" and "action_id" not in log
    assert log["status"] == "succeeded"
    reply = json.loads(log["stdout"])
    assert reply["id"] == "hook" and reply["result"]["pane"]["pane_id"] == f"{wid}:p2"
    state = Path(home, ".local/state/herdr/plugins/test.plug")
    assert (state / "event.txt").read_text() == "worktree.created\n"
    event = json.loads((state / "event.json").read_text())
    assert event["event"] == "worktree_created"
    assert event["data"]["type"] == "worktree_created"
    assert event["data"]["workspace"]["workspace_id"] == wid


def test_disabled_plugins_run_no_hooks(server, tmp_path):
    sock = server.path
    root = write_plugin(
        tmp_path / "p",
        """
        [[events]]
        on = "tab.created"
        command = ["true"]
        """,
    )
    ok(sock, "plugin.link", path=str(root), enabled=False)
    ok(sock, "workspace.create", cwd=str(tmp_path))
    ok(sock, "tab.create")
    assert ok(sock, "plugin.log.list")["logs"] == []
    ok(sock, "plugin.enable", plugin_id="test.plug")
    ok(sock, "tab.create")
    (log,) = wait_for(lambda: finished_logs(sock, "test.plug"), what="the hook")
    assert log["event"] == "tab.created" and log["status"] == "succeeded"


def test_plugin_panes_open_focus_close(server, plugin_root):
    sock = server.path
    ok(sock, "workspace.create", cwd=str(plugin_root))
    ok(sock, "plugin.link", path=str(plugin_root))
    opened = ok(sock, "plugin.pane.open", plugin_id="test.plug", entrypoint="board")
    pp = opened["plugin_pane"]
    assert opened["type"] == "plugin_pane_opened"
    assert pp["plugin_id"] == "test.plug" and pp["entrypoint"] == "board"
    assert pp["pane"]["pane_id"] == "w1:p2" and pp["pane"]["label"] == "Board"
    assert pp["pane"]["cwd"] == str(plugin_root.resolve())  # the plugin root by default
    assert pp["pane"]["focused"] is False  # split placement, focus not asked
    read = ok(sock, "pane.read", pane_id="w1:p2", source="visible")["read"]["text"]
    assert "./board.sh" in read  # the entrypoint runs in the pane's shell
    tab = ok(sock, "plugin.pane.open", plugin_id="test.plug", entrypoint="board", placement="tab")[
        "plugin_pane"
    ]["pane"]
    assert tab["tab_id"] == "w1:t2" and tab["pane_id"] == "w1:p3"
    assert err(
        sock, "plugin.pane.open", plugin_id="test.plug", entrypoint="board", workspace_id="w1"
    ) == {
        "code": "invalid_params",
        "message": "split and zoomed plugin panes target an existing pane; use target_pane_id",
    }
    focused = ok(sock, "plugin.pane.focus", pane_id="w1:p2")
    assert focused["type"] == "plugin_pane_focused"
    assert focused["plugin_pane"]["pane"]["focused"] is True
    assert err(sock, "plugin.pane.focus", pane_id="w1:p1")["code"] == "plugin_pane_not_found"
    zoomed = ok(
        sock, "plugin.pane.open", plugin_id="test.plug", entrypoint="board", placement="zoomed"
    )["plugin_pane"]["pane"]
    assert zoomed["focused"] is True  # a zoomed plugin pane takes focus
    (layout,) = [
        lay
        for lay in ok(sock, "session.snapshot")["snapshot"]["layouts"]
        if lay["tab_id"] == zoomed["tab_id"]
    ]
    assert layout["zoomed"] is True
    closed = ok(sock, "plugin.pane.close", pane_id="w1:p2")
    assert closed == {"type": "plugin_pane_closed", "pane_id": "w1:p2"}
    assert [p["pane_id"] for p in ok(sock, "pane.list")["panes"]] == ["w1:p1", "w1:p4", "w1:p3"]
    assert err(sock, "plugin.pane.close", pane_id="w1:p2")["code"] == "plugin_pane_not_found"


def test_a_closed_plugin_pane_is_no_plugin_pane(server, plugin_root):
    sock = server.path
    ok(sock, "workspace.create", cwd=str(plugin_root))
    ok(sock, "plugin.link", path=str(plugin_root))
    pane = ok(sock, "plugin.pane.open", plugin_id="test.plug", entrypoint="board")
    pid = pane["plugin_pane"]["pane"]["pane_id"]
    ok(sock, "pane.close", pane_id=pid)
    assert err(sock, "plugin.pane.focus", pane_id=pid)["code"] == "plugin_pane_not_found"


def test_with_persistence_the_registry_is_plugins_json_and_startup_hooks_run(
    version, config, tmp_path, home
):
    import dataclasses

    from simherdr.testing import ThreadServer

    root = write_plugin(
        tmp_path / "p",
        """
        [[startup]]
        command = ["sh", "-c", "echo started $HERDR_PLUGIN_EVENT"]
        """,
    )
    config = dataclasses.replace(config, persist=True)
    with ThreadServer(version, config=config) as srv:
        ok(srv.path, "plugin.link", path=str(root))
        assert ok(srv.path, "plugin.log.list")["logs"] == []  # startup hooks run at start only
    registry = json.loads(Path(home, ".config/herdr/plugins.json").read_text())
    assert [p["plugin_id"] for p in registry] == ["test.plug"]
    with ThreadServer(version, config=config) as srv:
        assert [p["plugin_id"] for p in ok(srv.path, "plugin.list")["plugins"]] == ["test.plug"]
        (log,) = wait_for(lambda: finished_logs(srv.path, "test.plug"), what="the startup hook")
        assert log["event"] == "startup" and log["stdout"] == "started startup\n"
        # the manifest is re-read from disk before each use; a vanished one is listed, not run
        (root / "herdr-plugin.toml").unlink()
        (plugin,) = ok(srv.path, "plugin.list")["plugins"]
        assert plugin["warnings"][0].startswith("manifest unavailable: ")
        assert err(srv.path, "plugin.action.invoke", action_id="x", plugin_id="test.plug") == {
            "code": "plugin_manifest_unavailable",
            "message": "plugin test.plug manifest is unavailable",
        }


def test_a_worktree_hook_builds_its_layout_with_layout_apply(server, tmp_path, home, monkeypatch):
    """The orchestrator's flow: link a plugin, create a worktree, wait for the tab its
    worktree.created hook lays out through layout.apply."""
    G.isolate(monkeypatch, Path(home))
    base = G.make_base(tmp_path)
    repo = G.make_repo(base)
    sock = server.path
    root = write_plugin(tmp_path / "orchestrator", HOOK)
    tree = {
        "type": "split",
        "direction": "right",
        "ratio": 0.6,
        "first": {"type": "pane", "label": "agent"},
        "second": {"type": "pane", "label": "logs"},
    }
    params = {"workspace_id": "$HERDR_WORKSPACE_ID", "tab_label": "work", "root": tree}
    script(
        root,
        "on-worktree.sh",
        f"""\
        "$PY" ./callback.py layout.apply '{json.dumps(params)}'
        """,
    )
    ok(sock, "plugin.link", path=str(root))
    ok(sock, "workspace.create", cwd=str(repo))
    wid = ok(sock, "worktree.create", workspace_id="w1", branch="b1", path=str(base / "wt"))[
        "workspace"
    ]["workspace_id"]

    def laid_out():
        tabs = ok(sock, "tab.list", workspace_id=wid)["tabs"]
        return [t for t in tabs if t["label"] == "work" and t["pane_count"] == 2]

    (tab,) = wait_for(laid_out, what="the hook's layout")
    labels = [
        p.get("label")
        for p in ok(sock, "pane.list", workspace_id=wid)["panes"]
        if p["tab_id"] == tab["tab_id"]
    ]
    assert labels == ["agent", "logs"]
    (log,) = wait_for(lambda: finished_logs(sock, "test.plug"), what="the hook's log")
    assert log["status"] == "succeeded" and '"result"' in log["stdout"], log


def test_a_moved_plugin_pane_stays_a_plugin_pane(server, plugin_root):
    sock = server.path
    ok(sock, "workspace.create", cwd=str(plugin_root))
    ok(sock, "plugin.link", path=str(plugin_root))
    pid = ok(sock, "plugin.pane.open", plugin_id="test.plug", entrypoint="board")["plugin_pane"][
        "pane"
    ]["pane_id"]
    moved = ok(sock, "pane.move", pane_id=pid, destination={"type": "new_workspace"})
    new_id = moved["move_result"]["pane"]["pane_id"]
    assert new_id != pid
    focused = ok(sock, "plugin.pane.focus", pane_id=new_id)["plugin_pane"]
    assert (focused["entrypoint"], focused["pane"]["pane_id"]) == ("board", new_id)


def test_a_relative_link_path_is_the_servers_cwd(h, config, tmp_path):
    write_plugin(Path(config.server_cwd) / "rel", ACTIONS)
    plugin = h.ok("plugin.link", path="rel")["plugin"]
    assert plugin["plugin_root"] == str((Path(config.server_cwd) / "rel").resolve())


def test_one_popup_at_a_time(server, plugin_root, version):
    """0.9.3 handle_plugin_pane_open: a second popup while one is open is ui_busy "a popup pane
    is already open" until popup.close closes it (Profile.plugin_popup_tracked). 0.8.2 keeps
    no popup here: every popup open answers ok and popup.close finds none."""
    sock = server.path
    ok(sock, "workspace.create", cwd=str(plugin_root))
    ok(sock, "plugin.link", path=str(plugin_root))
    popup = dict(plugin_id="test.plug", entrypoint="board", placement="popup")
    assert ok(sock, "plugin.pane.open", **popup) == {"type": "ok"}
    if not rows(version).plugin_popup_tracked:
        assert ok(sock, "plugin.pane.open", **popup) == {"type": "ok"}
        assert err(sock, "popup.close")["code"] == "popup_not_open"
        return
    assert err(sock, "plugin.pane.open", **popup) == {
        "code": "ui_busy",
        "message": "a popup pane is already open",
    }
    # Other placements are not affected by the open popup.
    assert ok(sock, "plugin.pane.open", plugin_id="test.plug", entrypoint="board")["type"] == (
        "plugin_pane_opened"
    )
    assert ok(sock, "popup.close") == {"type": "ok"}
    assert err(sock, "popup.close") == {"code": "popup_not_open", "message": "no popup is open"}
    assert ok(sock, "plugin.pane.open", **popup) == {"type": "ok"}
