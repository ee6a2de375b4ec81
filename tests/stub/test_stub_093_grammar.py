"""0.9.3 grammar where it differs from 0.8.2 (issue 9 item 5).

Sources: 0.9.3 ``src/cli/pane.rs`` (``parse_pane_split_args`` starts from the caller's pane),
``src/cli/target.rs`` (the ``--machine`` prefix), ``src/cli/machine.rs``, ``src/cli/status.rs``;
VERSIONS.md §5 rows 3 and 12.
"""

from __future__ import annotations

import json

import pytest
from stub_fake import ok

V9 = {"version": "0.9.3"}


@pytest.fixture
def fake9(fake):
    fake.version, fake.protocol = "0.9.3", 22
    fake.capabilities = {
        "live_handoff": True,
        "detached_server_daemon": True,
        "endpoint_protocol_generation": 1,
        "surface_interest": True,
        "health_check": True,
        "ssh_agent_registration": False,
    }
    fake.default_reply = ok()
    return fake


# -- pane split without a target ----------------------------------------------------------------


def test_split_without_target_uses_the_callers_pane_on_0_9(cli, fake9):
    res = cli("pane", "split", "--direction", "right", env={"HERDR_PANE_ID": "w1:p2"}, **V9)
    assert res.rc == 0
    assert fake9.ops()[0]["params"] == {
        "target_pane_id": "w1:p2",
        "direction": "right",
        "focus": False,
        "right_click": "herdr",
    }


def test_split_explicit_target_beats_the_callers_pane(cli, fake9):
    env = {"HERDR_PANE_ID": "w1:p2"}
    cli("pane", "split", "w1:p9", "--direction", "down", env=env, **V9)
    cli("pane", "split", "--pane", "w1:p8", "--direction", "down", env=env, **V9)
    assert [op["params"]["target_pane_id"] for op in fake9.ops()] == ["w1:p9", "w1:p8"]


def test_split_without_target_or_caller_omits_the_target(cli, fake9):
    cli("pane", "split", "--direction", "down", env={"HERDR_PANE_ID": "  "}, **V9)
    assert "target_pane_id" not in fake9.ops()[0]["params"]


def test_split_on_0_8_2_keeps_the_focused_pane_fallback(cli, fake):
    fake.default_reply = ok()
    cli("pane", "split", "--direction", "down", env={"HERDR_PANE_ID": "w1:p2"})
    assert "target_pane_id" not in fake.ops()[0]["params"]


# -- --machine prefix ---------------------------------------------------------------------------

MACHINE_ERRORS = [
    (["--machine"], "missing value for --machine"),
    (["--machine="], "--machine requires a saved machine label or profile ID"),
    (["--machine", "--help"], "--machine requires a saved machine label or profile ID"),
    (["--machine", "mac"], "usage: herdr --machine <label-or-id> <command>"),
    (["--machine", "mac", "--"], "usage: herdr --machine <label-or-id> <command>"),
    (
        ["--machine", "mac", "--machine", "other", "agent", "list"],
        "--machine can only be specified once",
    ),
    (
        ["--machine", "mac", "--session", "other", "agent", "list"],
        "--machine cannot be combined with other launch options; it uses the saved machine's session",
    ),
    (
        ["--session", "other", "--machine", "mac", "agent", "list"],
        "--machine cannot be combined with other launch options; it uses the saved machine's session",
    ),
    (
        ["--machine", "mac", "agent", "attach", "w4:p1"],
        "`agent attach` is not an API-backed machine command; --machine does not run local "
        "management commands or attach a TUI",
    ),
    (
        ["--machine", "mac", "status", "client"],
        "`status client` is not an API-backed machine command; --machine does not run local "
        "management commands or attach a TUI",
    ),
    (
        ["--machine", "mac", "pane", "split", "w4:p1"],
        "unknown machine 'mac'; use `herdr machine list`",
    ),
    (["--machine=mac", "api", "snapshot"], "unknown machine 'mac'; use `herdr machine list`"),
]


@pytest.mark.parametrize(
    "argv,message", MACHINE_ERRORS, ids=[" ".join(a) for a, _ in MACHINE_ERRORS]
)
def test_machine_prefix_usage_errors(cli, fake9, argv, message):
    res = cli(*argv, **V9)
    assert (res.rc, res.out, res.stderr) == (2, b"", "error: " + message + "\n")
    assert fake9.lines == []


def test_machine_prefix_only_among_leading_options(cli, fake9):
    # A `--machine` after the command is the command's own argument (here: unknown option).
    res = cli("pane", "list", "--machine", "mac", **V9)
    assert (res.rc, res.stderr) == (2, "unknown option: --machine\n")


def test_machine_prefix_help_is_the_commands_help(cli, fake9):
    res = cli("--machine", "mac", "pane", "list", "--help", **V9)
    assert res.rc == 0 and res.stdout.startswith("List panes\n\nUsage: herdr pane list")


# -- herdr machine ------------------------------------------------------------------------------


def test_machine_list_with_no_machines(cli):
    assert cli("machine", "list", **V9).stdout == "No saved SSH machines.\n"
    res = cli("machine", "list", "--json", **V9)
    assert (res.rc, json.loads(res.stdout)) == (0, [])
    assert cli("machine", "list", "x", **V9).stderr == "usage: herdr machine list [--json]\n"


def test_machine_status_and_reconnect_with_no_machines(cli):
    assert cli("machine", "status", **V9).stdout == "No saved SSH machines.\n"
    assert json.loads(cli("machine", "status", "--json", **V9).stdout) == []
    res = cli("machine", "status", "mac", **V9)
    assert (res.rc, res.stderr) == (2, "unknown machine 'mac'; use `herdr machine list`\n")
    res = cli("machine", "reconnect", **V9)
    assert (res.rc, res.stderr) == (2, "usage: herdr machine reconnect <label-or-id>\n")


def test_machine_group_help(cli):
    res = cli("machine", **V9)
    assert res.rc == 2 and res.stderr.startswith("Usage:\n  herdr machine list [--json]\n")
    res = cli("machine", "help", **V9)
    assert res.rc == 0 and res.stdout.endswith("remain owned by OpenSSH.\n")
    res = cli("machine", "--help", **V9)  # a known subcommand path: clap's help
    assert res.rc == 0 and "reconnect  Authenticate a saved machine" in res.stdout


# -- status -------------------------------------------------------------------------------------


def test_status_text_0_9(herdr, fake9):
    res = herdr("status", **V9)
    assert res.stdout == (
        "client:\n  version: 0.9.3\n  channel: stable\n  protocol: 22\n"
        "  endpoint_protocol_generation: 1\n\n"
        "server:\n  status: running\n  version: 0.9.3\n  endpoint_compatible: yes\n"
        f"  private_protocol: 22\n  private_protocol_compatible: yes\n  socket: {fake9.path}\n\n"
        "update:\n  restart_needed: no\n  server_binary_stale: no\n"
    )


def test_status_restart_needed_is_keyed_on_the_endpoint_generation(herdr, fake9):
    fake9.version = "0.9.1"  # older binary, same generation: stale, no restart
    res = herdr("status", **V9)
    assert "restart_needed: no\n  server_binary_stale: yes\n" in res.stdout
    fake9.version = "0.9.3"
    del fake9.capabilities["endpoint_protocol_generation"]  # pre-generation server
    res = herdr("status", **V9)
    assert "endpoint_compatible: unknown\n" in res.stdout
    assert "restart_needed: yes\n  server_binary_stale: no\n" in res.stdout


def test_status_json_0_9(herdr, fake9):
    full = json.loads(herdr("status", "--json", **V9).stdout)
    assert list(full["client"]) == [
        "version",
        "channel",
        "protocol",
        "endpoint_protocol_generation",
        "endpoint_capabilities",
        "remote_host_bridge",
        "remote_bridge_idle_timeout",
        "binary",
        "session",
    ]
    assert full["client"]["endpoint_capabilities"] == [
        "surface_interest",
        "presentation_effects_fence",
        "health_check",
    ]
    assert list(full["server"]) == [
        "status",
        "running",
        "version",
        "protocol",
        "capabilities",
        "compatible",
        "endpoint_compatible",
        "socket",
        "session",
        "restart_needed",
        "server_binary_stale",
    ]
    assert full["server"]["capabilities"] == fake9.capabilities
    assert full["update"] == {"restart_needed": False, "server_binary_stale": False}


def test_status_client_and_not_running_0_9(herdr, sockdir):
    import os

    path = os.path.join(sockdir, "none.sock")
    lines = herdr("status", "client", socket=path, **V9).stdout.splitlines()
    assert lines[:4] == [
        "version: 0.9.3",
        "channel: stable",
        "protocol: 22",
        "endpoint_protocol_generation: 1",
    ]
    assert lines[4].startswith("binary: ")
    server = json.loads(herdr("status", "server", "--json", socket=path, **V9).stdout)
    assert server["endpoint_compatible"] is None and server["server_binary_stale"] is False


# -- report-agent resume command ----------------------------------------------------------------


def test_report_agent_resume_argv_after_double_dash(cli, fake9):
    res = cli(
        "pane",
        "report-agent",
        "--source=s",
        "w1:p1",
        "--agent",
        "claude",
        "--state",
        "idle",
        "--",
        "claude",
        "--resume",
        "abc",
        **V9,
    )
    assert res.rc == 0, res.err
    assert [x.decode() for x in fake9.lines[1:]] == [
        '{"id":"cli:request","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"s",'
        '"agent":"claude","state":"idle","resume_argv":["claude","--resume","abc"]}}'
    ]
    cli("pane", "report-agent-session", "w1:p1", "--source", "s", "--agent", "a", "--", **V9)
    assert fake9.ops()[1]["params"]["resume_argv"] == []


def test_report_agent_usage_mentions_the_resume_command_on_0_9(cli, fake9):
    res = cli("pane", "report-agent", "--", "x", **V9)
    assert res.stderr.endswith("[--agent-session-path PATH] [-- <resume-command...>]\n")
    res = cli(
        "pane",
        "report-agent",
        "w1:p1",
        "--source",
        "s",
        "--agent",
        "a",
        "--state",
        "idle",
        "--",
        "x",
    )
    assert res.stderr == "unknown option: --\n"  # 0.8.2 has no resume command
