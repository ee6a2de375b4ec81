"""plugin.* over the socket on both profiles (src/app/api/plugins/): link/list/enable/disable/
unlink, actions and [[events]] hooks as real processes, logs, plugin panes, herdr's errors.
Every reply is validated against herdr's schema (tests/core/socketclient.request)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests import gitrepos as G

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
    closed = ok(sock, "plugin.pane.close", pane_id="w1:p2")
    assert closed == {"type": "plugin_pane_closed", "pane_id": "w1:p2"}
    assert [p["pane_id"] for p in ok(sock, "pane.list")["panes"]] == ["w1:p1", "w1:p3"]
    assert err(sock, "plugin.pane.close", pane_id="w1:p2")["code"] == "plugin_pane_not_found"
