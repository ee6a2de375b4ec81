"""0.8.2 vs 0.9.3 grammar (VERSIONS.md §1, §3) and `herdr server stop` (CLI.md §4.9)."""

from __future__ import annotations

import os

import pytest
from stub_fake import ThenShutdown, error, ok

V9 = {"version": "0.9.3"}


@pytest.fixture
def fake9(fake):
    fake.version, fake.protocol = "0.9.3", 22
    fake.default_reply = ok()
    return fake


# -- workspace close --group ---------------------------------------------------------------------


def test_workspace_close_group_on_0_9_3(cli, fake9):
    assert cli("workspace", "close", "w1", "--group", **V9).rc == 0
    assert cli("workspace", "close", "w1", **V9).rc == 0
    assert [line for line in fake9.lines if b'"ping"' not in line] == [
        b'{"id":"cli:workspace:close","method":"workspace.close","params":{"workspace_id":"w1","close_group":true}}',
        b'{"id":"cli:workspace:close","method":"workspace.close","params":{"workspace_id":"w1"}}',
    ]


@pytest.mark.parametrize("argv", [["w1", "--bogus"], ["--group", "w1"], [], ["w1", "--group", "x"]])
def test_workspace_close_usage_on_0_9_3(cli, fake9, argv):
    res = cli("workspace", "close", *argv, **V9)
    assert (res.rc, res.stderr) == (2, "usage: herdr workspace close <workspace_id> [--group]\n")
    assert fake9.lines == []


def test_workspace_close_extra_argument_on_0_8_2(cli, fake):
    res = cli("workspace", "close", "w1", "--group")
    assert (res.rc, res.stderr) == (2, "usage: herdr workspace close <workspace_id>\n")


def test_group_lists_differ(cli):
    assert (
        cli("workspace", **V9).stderr.splitlines()[-1]
        == "  herdr workspace close <workspace_id> [--group]"
    )
    assert cli("workspace").stderr.splitlines()[-1] == "  herdr workspace close <workspace_id>"
    assert (
        cli("worktree", **V9).stderr.splitlines()[-1]
        == "  herdr worktree remove --workspace ID [--force] [--trust-repository]"
    )
    assert (
        cli("worktree").stderr.splitlines()[-1]
        == "  herdr worktree remove --workspace ID [--force]"
    )


# -- worktree --trust-repository -----------------------------------------------------------------


@pytest.mark.parametrize(
    "argv,params",
    [
        (
            ["list", "--trust-repository", "--workspace", "w1"],
            {"workspace_id": "w1", "trust_repository": True},
        ),
        (
            ["create", "--branch", "b", "--trust-repository"],
            {"branch": "b", "focus": False, "trust_repository": True},
        ),
        (
            ["open", "--trust-repository", "--branch", "b"],
            {"branch": "b", "focus": False, "trust_repository": True},
        ),
        (
            ["remove", "--workspace", "w2", "--trust-repository"],
            {"workspace_id": "w2", "force": False, "trust_repository": True},
        ),
        (["remove", "--workspace", "w2"], {"workspace_id": "w2", "force": False}),
    ],
)
def test_trust_repository_on_0_9_3(cli, fake9, argv, params):
    res = cli("worktree", *argv, **V9)
    assert res.rc == 0
    op = fake9.ops()[0]
    assert op["params"] == params and list(op["params"]) == list(params)  # trust_repository last


@pytest.mark.parametrize("verb", ["list", "create", "open", "remove"])
def test_trust_repository_unknown_on_0_8_2(cli, fake, verb):
    res = cli("worktree", verb, "--trust-repository")
    assert (res.rc, res.stderr) == (2, "unknown option: --trust-repository\n")
    assert fake.lines == []


def test_worktree_usage_lines_on_0_9_3(cli):
    assert (
        cli("worktree", "remove", **V9).stderr
        == "usage: herdr worktree remove --workspace ID [--force] [--trust-repository]\n"
    )
    assert cli("worktree", "list", "--cwd", "/a", "--workspace", "w", **V9).stderr == (
        "usage: herdr worktree list [--workspace ID | --cwd PATH] [--trust-repository]\n"
    )


# -- pane report-agent / report-agent-session ---------------------------------------------------


def test_report_agent_options_first_and_equals_on_0_9_3(cli, fake9):
    res = cli(
        "pane",
        "report-agent",
        "--source=hook",
        "--agent",
        "pi",
        "--state=working",
        "w1:p1",
        "--seq=4",
        **V9,
    )
    assert (res.rc, res.out, res.err) == (0, b"", b"")
    assert fake9.lines[-1] == (
        b'{"id":"cli:request","method":"pane.report_agent","params":{"pane_id":"w1:p1",'
        b'"source":"hook","agent":"pi","state":"working","seq":4}}'
    )
    res = cli(
        "pane",
        "report-agent-session",
        "--agent=pi",
        "--source",
        "s",
        "w1:p2",
        "--agent-session-id=x",
        **V9,
    )
    assert res.rc == 0
    assert fake9.ops()[-1]["params"] == {
        "pane_id": "w1:p2",
        "source": "s",
        "agent": "pi",
        "agent_session_id": "x",
    }


@pytest.mark.parametrize(
    "argv,message",
    [
        (["report-agent", "w1:p1", "w1:p2"], "unexpected argument: w1:p2"),
        (
            ["report-agent", "--source", "s", "--agent", "a", "--state", "idle"],
            "usage: herdr pane report-agent <pane_id> --source ID --agent LABEL --state idle|working|blocked|unknown "
            "[--message TEXT] [--seq N] [--agent-session-id ID] [--agent-session-path PATH] [-- <resume-command...>]",
        ),
        (
            ["report-agent-session", "--agent", "a"],
            "usage: herdr pane report-agent-session <pane_id> --source ID --agent LABEL [--seq N] [--agent-session-id ID] "
            "[--agent-session-path PATH] [--session-start-source SOURCE] [-- <resume-command...>]",
        ),
        (["report-agent", "w1:p1", "--bogus=1"], "unknown option: --bogus=1"),
        (["report-agent", "w1:p1", "--agent", "a", "--state", "idle"], "missing required --source"),
    ],
)
def test_report_agent_errors_on_0_9_3(cli, fake9, argv, message):
    res = cli("pane", *argv, **V9)
    assert (res.rc, res.stderr) == (2, message + "\n")


def test_report_agent_0_8_2_needs_pane_first(cli, fake):
    res = cli("pane", "report-agent", "--source=hook", "w1:p1")
    assert (res.rc, res.stderr) == (
        2,
        "unknown option: w1:p1\n",
    )  # `--source=hook` was taken as the pane id
    res = cli("pane", "report-agent", "w1:p1", "--source=hook")
    assert (res.rc, res.stderr) == (2, "unknown option: --source=hook\n")


# -- launcher differences ---------------------------------------------------------------------


def test_no_session_flag(cli):
    assert cli("--no-session").stderr == "simherdr: 'herdr' is not supported by this stand-in\n"
    res = cli("--no-session", **V9)
    assert (res.rc, res.stderr) == (
        2,
        "unknown option: --no-session\nrun 'herdr --help' for usage\n",
    )


def test_machine_is_a_0_9_command(cli):
    assert cli("--machine", "mac", "pane", "list", **V9).rc == 2
    assert (
        cli("machine", "list").stderr == "unknown command: machine\nrun 'herdr --help' for usage\n"
    )


def test_remote_api_bridge_is_a_0_9_launcher_word(cli):
    """[H093] src/main.rs: 0.9.x runs the hidden `remote-api-bridge` (the --machine SSH side)
    before the launcher checks; 0.8.2 calls it an unknown command."""
    res = cli("remote-api-bridge", **V9)
    assert (res.rc, res.stderr) == (
        2,
        "simherdr: 'herdr remote-api-bridge' is not supported by this stand-in\n",
    )
    res = cli("remote-api-bridge")
    assert (res.rc, res.stderr) == (
        2,
        "unknown command: remote-api-bridge\nrun 'herdr --help' for usage\n",
    )


def test_0_9_3_pings_expect_protocol_22(herdr, fake9):
    res = herdr("pane", "list", **V9)
    assert res.rc == 0
    fake9.protocol = 20
    res = herdr("pane", "list", **V9)
    assert res.err_json()["error"]["message"].startswith(
        "client protocol 22 is newer than server protocol 20; restart"
    )


# -- server stop ------------------------------------------------------------------------------


def test_server_stop_success(herdr, fake):
    fake.on("server.stop", ThenShutdown(ok()))
    res = herdr("server", "stop")
    assert (res.rc, res.out, res.err) == (0, b"", b"")
    assert fake.lines == [
        b'{"id":"cli:session:stop","method":"server.stop","params":{}}'
    ]  # no ping
    assert not os.path.exists(fake.path)


def test_server_stop_not_running(herdr, sockdir):
    path = os.path.join(sockdir, "missing.sock")
    res = herdr("server", "stop", socket=path)
    assert (res.rc, res.out) == (1, b"")
    assert (
        res.stderr
        == f"server is not running or cannot be reached at {path}: No such file or directory (os error 2)\n"
    )


def test_server_stop_error_reply_prints_inner_error(herdr, fake):
    fake.on("server.stop", error("server_unavailable", "server is shutting down"))
    res = herdr("server", "stop")
    assert (res.rc, res.stderr) == (
        1,
        '{"code":"server_unavailable","message":"server is shutting down"}\n',
    )


def test_server_stop_still_reachable(herdr, fake):
    fake.on("server.stop", ok())
    res = herdr("server", "stop", env={"SIMHERDR_TIME_SCALE": "1000"})  # 15 s -> 15 ms
    assert (res.rc, res.out) == (1, b"")
    assert (
        res.stderr
        == f"server did not stop within 15000ms; sockets are still reachable at {fake.path}\n"
    )


def test_server_stop_waits_for_client_socket_too(herdr, make_fake, sockdir):
    api = make_fake("api.sock")
    client = make_fake("api-client.sock")
    api.on("server.stop", ThenShutdown(ok()))
    res = herdr(
        "server", "stop", socket=api.path, env={"SIMHERDR_TIME_SCALE": "50"}
    )  # 15 s -> 300 ms
    assert res.rc == 1
    assert (
        res.stderr
        == f"server did not stop within 15000ms; sockets are still reachable at {client.path}\n"
    )
    client.shutdown()
    api2 = make_fake("api2.sock")
    api2.on("server.stop", ThenShutdown(ok()))
    assert herdr("server", "stop", socket=api2.path).rc == 0
