"""``herdr plugin ...`` through the stand-in binary against the simulator, both profiles
(herdr 0.8.2 src/cli/plugin.rs): request ids ``cli:plugin``, herdr's usage texts and exits
(the table of usage errors in-process after its first case: tests/standin_inproc.py)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from simherdr.stub.install import write_stub
from tests import herdr_reference as ref
from tests.standin_inproc import herdr_inproc

from .helpers import finished_logs, script, wait_for, write_plugin

BODY = """
[[actions]]
id = "hello"
title = "Hello"
command = ["./hello.sh"]

[[panes]]
id = "board"
title = "Board"
placement = "split"
command = ["./board.sh"]
"""


@pytest.fixture
def herdr(server, tmp_path, version, home):
    path = write_stub(str(tmp_path / "bin"), version)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": home,
        "HERDR_SOCKET_PATH": server.path,
        "LANG": "C.UTF-8",
    }

    def run(*argv, cwd=None, inproc=False):
        if inproc:  # (in this process: no cwd of its own)
            return herdr_inproc(path, version, argv, env, text=True)
        return subprocess.run(
            [path, *argv], env=env, cwd=cwd, capture_output=True, text=True, timeout=20
        )

    return run


@pytest.fixture
def reply_of(version):
    """print_response: a result on stdout (exit 0), an error on stderr (exit 1), validated
    against the schema of the server's version."""

    def parse(proc) -> dict:
        obj = json.loads(proc.stdout if proc.returncode == 0 else proc.stderr)
        ref.validate_reply(obj, version)
        return obj

    return parse


def test_plugin_verbs_through_the_stand_in(herdr, server, tmp_path, home, reply_of):
    root = write_plugin(tmp_path / "plug", BODY)
    script(root, "hello.sh", "echo hi from cli\n")
    assert herdr("workspace", "create", "--cwd", str(tmp_path)).returncode == 0

    linked = herdr("plugin", "link", "plug", "--disabled", cwd=str(tmp_path))  # relative path
    assert linked.returncode == 0, linked.stderr
    reply = reply_of(linked)
    assert reply["id"] == "cli:plugin" and reply["result"]["type"] == "plugin_linked"
    assert reply["result"]["plugin"]["enabled"] is False

    human = herdr("plugin", "list")
    config = os.path.join(home, ".config/herdr/plugins/config/test.plug")
    assert human.stdout == (
        "1 plugin installed:\n"
        f"- test.plug (Test plugin) disabled [local:{root.resolve()}]\n"
        f"  config: {config}\n"
    )
    assert reply_of(herdr("plugin", "list", "--json"))["result"]["type"] == "plugin_list"
    assert reply_of(herdr("plugin", "enable", "test.plug"))["result"]["type"] == "plugin_enabled"

    actions = reply_of(herdr("plugin", "action", "list", "--plugin", "test.plug"))
    assert [a["action_id"] for a in actions["result"]["actions"]] == ["hello"]
    invoked = reply_of(herdr("plugin", "action", "invoke", "hello"))["result"]
    assert invoked["context"]["invocation_source"] == "cli"
    assert invoked["context"]["correlation_id"] == "cli:plugin"
    (log,) = wait_for(lambda: finished_logs(server.path, "test.plug"), what="the action")
    assert log["stdout"] == "hi from cli\n"
    logs = reply_of(herdr("plugin", "log", "list", "--plugin", "test.plug", "--limit", "5"))
    assert [x["log_id"] for x in logs["result"]["logs"]] == [log["log_id"]]

    opened = reply_of(
        herdr("plugin", "pane", "open", "--plugin", "test.plug", "--entrypoint", "board")
    )
    pane = opened["result"]["plugin_pane"]["pane"]
    assert pane["focused"] is True  # the CLI's --focus default
    assert reply_of(herdr("plugin", "pane", "focus", pane["pane_id"]))["result"]["type"] == (
        "plugin_pane_focused"
    )
    closed = reply_of(herdr("plugin", "pane", "close", pane["pane_id"]))
    assert closed["result"] == {"type": "plugin_pane_closed", "pane_id": pane["pane_id"]}

    unlinked = reply_of(herdr("plugin", "unlink", "test.plug"))
    assert unlinked["result"]["removed"] is True
    assert herdr("plugin", "list").stdout == "No plugins installed.\n"


def test_plugin_errors_and_usage(herdr, reply_of):
    missing = herdr("plugin", "enable", "nope")
    assert missing.returncode == 1
    assert reply_of(missing) == {
        "id": "cli:plugin",
        "error": {"code": "plugin_not_found", "message": "plugin not found"},
    }
    cases = [
        (("plugin", "link"), "usage: herdr plugin link <path> [--disabled]\n"),
        (("plugin", "unlink"), "usage: herdr plugin unlink <plugin_id>\n"),
        (("plugin", "enable", "a", "b"), "usage: herdr plugin enable <plugin_id>\n"),
        (("plugin", "list", "--bogus"), "unknown option: --bogus\n"),
        (("plugin", "log", "--limit", "x"), "invalid --limit value: x\n"),
        (
            ("plugin", "action", "invoke"),
            "usage: herdr plugin action invoke <action_id> [--plugin ID]\n",
        ),
        (("plugin", "pane", "open", "--plugin", "p"), "missing required --entrypoint\n"),
        (("plugin", "pane", "open", "--placement", "side"), "invalid pane placement: side\n"),
        (("plugin", "pane", "focus"), "usage: herdr plugin pane focus <pane_id>\n"),
    ]
    for index, (argv, stderr) in enumerate(cases):
        proc = herdr(*argv, inproc=index > 0)
        assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", stderr), argv
    listing = herdr("plugin", inproc=True)
    assert listing.returncode == 2 and listing.stderr.startswith("herdr plugin commands:\n")
    assert "  herdr plugin pane <open|focus|close>\n" in listing.stderr
    assert herdr("plugin", "help", inproc=True).returncode == 0
    action_help = herdr("plugin", "action", inproc=True)
    assert action_help.returncode == 2
    assert action_help.stderr.startswith("herdr plugin action commands:\n")
