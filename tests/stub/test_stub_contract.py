"""Output/exit-code contract, socket resolution, guard and transport failures (CLI.md §2, §3, §10)."""

from __future__ import annotations

import json
import os
import stat

import pytest
from stub_fake import Hangup, Raw, error, ok, result

from simherdr.stub.cli import core as herdr_cli
from simherdr.stub.install import write_stub
from tests.releases import VERSIONS

PANE = {
    "pane_id": "w1:p1",
    "terminal_id": "term_1",
    "workspace_id": "w1",
    "tab_id": "w1:t1",
    "focused": True,
    "agent_status": "unknown",
    "revision": 0,
}


# -- install / launcher -------------------------------------------------------------------------


def test_write_stub_writes_executable_launcher(tmp_path):
    path = write_stub(str(tmp_path / "a" / "b"), "0.8.2", native=False)  # (the Python form)
    assert path == str(tmp_path / "a" / "b" / "herdr")
    assert os.stat(path).st_mode & stat.S_IXUSR
    text = open(path).read()
    first = text.splitlines()[0]
    assert first.startswith("#!/") and first.endswith(" -IS")
    assert "version=('0.8.2', (0, 8, 2), 20, " in text  # the resolved release, protocol 20
    assert "import json" not in text and "import socket" not in text


def test_write_stub_falls_back_to_sh_for_unusable_interpreter_paths(tmp_path, monkeypatch):
    import subprocess
    import sys

    odd = tmp_path / "py dir" / "python"
    odd.parent.mkdir()
    odd.symlink_to(sys.executable)
    monkeypatch.setattr(sys, "executable", str(odd))
    path = write_stub(str(tmp_path / "bin"), "0.9.3", native=False)  # (the Python form)
    assert open(path).readline() == "#!/bin/sh\n"
    proc = subprocess.run([path, "-V"], capture_output=True, env={"PATH": "/usr/bin:/bin"})
    assert (proc.returncode, proc.stdout) == (0, b"herdr 0.9.3\n")


def test_write_stub_rejects_unknown_version(tmp_path):
    with pytest.raises(ValueError):
        write_stub(str(tmp_path), "1.0.0")


@pytest.mark.parametrize("flag", ["--version", "-V"])
@pytest.mark.parametrize("version", VERSIONS)
def test_version(herdr, fake, flag, version):
    res = herdr(flag, version=version)
    assert (res.rc, res.out, res.err) == (0, f"herdr {version}\n".encode(), b"")
    assert fake.lines == []


def test_version_anywhere_on_launcher_path(cli):
    # src/main.rs checks --version anywhere once no CLI group matched (before the unknown scan).
    assert cli("bogus", "--version").out == b"herdr 0.8.2\n"


# -- unknown words, group lists, unsupported ----------------------------------------------------


def test_unknown_command(herdr, fake):
    res = herdr("wait", "output", "w1:p1", "--match", "ready")
    assert res.rc == 2 and res.out == b""
    assert res.err == b"unknown command: wait\nrun 'herdr --help' for usage\n"
    assert fake.lines == []


def test_unknown_option_at_top_level(cli):
    res = cli("--bogus")
    assert res.rc == 2
    assert res.err == b"unknown option: --bogus\nrun 'herdr --help' for usage\n"


@pytest.mark.parametrize(
    "group,first_line",
    [
        ("workspace", "herdr workspace commands:"),
        ("tab", "herdr tab commands:"),
        ("pane", "herdr pane commands:"),
        ("agent", "herdr agent commands:"),
        ("worktree", "herdr worktree commands:"),
        ("api", "herdr api commands:"),
    ],
)
def test_group_without_verb_prints_list_exit_2(cli, fake, group, first_line):
    res = cli(group)
    assert res.rc == 2 and res.out == b""
    lines = res.stderr.splitlines()
    assert lines[0] == first_line
    assert all(line.startswith("  ") for line in lines[1:]) and len(lines) > 2
    assert fake.lines == []
    # unknown verb: same list, exit 2; `help`: same list, exit 0
    assert cli(group, "bogus").err == res.err and cli(group, "bogus").rc == 2
    again = cli(group, "help")
    assert (again.rc, again.err) == (0, res.err)


_KINDS_0_8_2 = (
    "pi|claude|codex|gemini|cursor|devin|agy|cline|omp|mastracode|opencode|"
    "copilot|kimi|kiro|droid|amp|grok|hermes|kilo|qodercli|qwen|maki"
)


@pytest.mark.parametrize(
    "version,kinds",
    [
        ("0.8.2", _KINDS_0_8_2),
        # Agent::ALL of 0.9.3 (src/detect/mod.rs): letta after qwen, muse last
        ("0.9.3", _KINDS_0_8_2.replace("qwen|maki", "qwen|letta|maki|muse")),
    ],
)
def test_agent_group_list_ends_with_targets_and_kinds(cli, version, kinds):
    lines = cli("agent", version=version).stderr.splitlines()
    assert (
        lines[-2] == "  targets accept unique agent names and pane ids that currently host agents"
    )
    assert lines[-1] == "  kinds: " + kinds


@pytest.mark.parametrize(
    "argv,command",
    [
        (["plugin", "install", "o/r", "--yes"], "herdr plugin install"),
        (["channel", "set", "preview"], "herdr channel set"),
    ],
)
def test_out_of_scope_commands(cli, fake, argv, command):
    res = cli(*argv)
    assert res.rc == herdr_cli.UNSUPPORTED_EXIT_CODE == 2
    assert res.stderr == herdr_cli.UNSUPPORTED_MESSAGE.format(command=command) + "\n"
    assert res.stderr.startswith("simherdr: '") and fake.lines == []


def test_help_after_a_non_subcommand_word_reaches_the_parser(cli, fake):
    res = cli("pane", "get", "w1:p1", "--help")
    assert (res.rc, res.stderr) == (2, "usage: herdr pane get <pane_id>\n")
    assert fake.lines == []


# -- socket path resolution, server_not_running ------------------------------------------------


def test_server_not_running_missing_socket(herdr, sockdir):
    path = os.path.join(sockdir, "gone.sock")
    res = herdr("workspace", "create", socket=path)
    assert res.rc == 1 and res.out == b""
    assert res.err == (
        b'{"id":"cli:workspace:create","error":{"code":"server_not_running","message":"no herdr server is running at '
        + path.encode()
        + b'; run `herdr` to start or attach it"}}\n'
    )


def test_server_not_running_stale_socket_file(herdr, sockdir):
    import socket as socketmod

    path = os.path.join(sockdir, "stale.sock")
    s = socketmod.socket(socketmod.AF_UNIX)
    s.bind(path)
    s.close()  # file stays, nobody listens -> ECONNREFUSED
    res = herdr("pane", "list", socket=path)
    assert res.rc == 1
    assert res.err_json()["error"]["code"] == "server_not_running"
    assert res.err.startswith(b'{"id":"cli:pane:list","error":')


def test_default_socket_under_xdg_config_home(herdr, tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    res = herdr("tab", "list", env=env, unset=["HERDR_SOCKET_PATH"])
    assert res.err_json()["error"]["message"] == (
        f"no herdr server is running at {tmp_path}/xdg/herdr/herdr.sock; run `herdr` to start or attach it"
    )


def test_default_socket_under_home(cli, base_env):
    res = cli("tab", "list", unset=["HERDR_SOCKET_PATH"])
    assert f"at {base_env['HOME']}/.config/herdr/herdr.sock;" in res.stderr


def test_session_flag_beats_socket_path_and_is_stripped_anywhere(herdr, tmp_path, fake):
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    res = herdr("tab", "--session", "work", "list", env=env)
    assert res.rc == 1 and fake.lines == []
    assert res.err_json()["error"]["message"] == (
        f"no herdr server is running at {tmp_path}/herdr/sessions/work/herdr.sock; "
        "run `herdr session attach work` to start or attach it"
    )


def test_session_default_means_default_socket(cli, tmp_path):
    res = cli("--session=default", "tab", "list", env={"XDG_CONFIG_HOME": str(tmp_path)})
    assert f"at {tmp_path}/herdr/herdr.sock; run `herdr` to" in res.stderr


def test_herdr_session_env_used_without_socket_override(cli, tmp_path):
    res = cli(
        "tab",
        "list",
        env={"XDG_CONFIG_HOME": str(tmp_path), "HERDR_SESSION": "s1"},
        unset=["HERDR_SOCKET_PATH"],
    )
    assert (
        f"at {tmp_path}/herdr/sessions/s1/herdr.sock; run `herdr session attach s1`" in res.stderr
    )


def test_socket_override_points_elsewhere_hint_is_herdr(cli, sockdir):
    res = cli("tab", "list", env={"HERDR_SESSION": "s1"}, socket=os.path.join(sockdir, "x.sock"))
    assert "; run `herdr` to start or attach it" in res.stderr


@pytest.mark.parametrize(
    "value,message",
    [
        ("", "session name cannot be empty"),
        ("a" * 65, "session name cannot be longer than 64 bytes"),
        ("..", "session name cannot be . or .."),
        ("bad name", "session name may only contain ASCII letters, numbers, '.', '_' and '-'"),
    ],
)
def test_session_name_validation(cli, fake, value, message):
    res = cli("--session", value, "pane", "list")
    assert (res.rc, res.stderr) == (2, f"error: {message}\nrun 'herdr --help' for usage\n")
    env_res = cli("pane", "list", env={"HERDR_SESSION": value}, unset=["HERDR_SOCKET_PATH"])
    assert (env_res.rc, env_res.stderr) == (2, f"error: {message}\nrun 'herdr --help' for usage\n")
    assert fake.lines == []


def test_missing_session_value(cli):
    res = cli("pane", "list", "--session")
    assert (res.rc, res.stderr) == (
        2,
        "error: missing value for --session\nrun 'herdr --help' for usage\n",
    )


def test_invalid_herdr_session_ignored_when_socket_path_set(cli, fake):
    fake.on("pane.list", result("pane_list", panes=[]))
    res = cli("pane", "list", env={"HERDR_SESSION": "bad name"})
    assert res.rc == 0


def test_session_after_double_dash_is_kept(herdr, fake):
    fake.on("pane.get", result("pane_info", pane=PANE))
    fake.on("agent.start", error("invalid_agent_name", "nope"))
    res = herdr("agent", "start", "a", "--kind", "pi", "--pane", "w1:p1", "--", "--session", "x")
    assert res.rc == 1
    assert fake.ops()[1]["params"]["args"] == ["--session", "x"]


def test_remote_flag_rejected_for_commands(cli, fake):
    res = cli("pane", "list", "--remote", "host")
    assert (res.rc, res.stderr) == (
        2,
        "error: --remote can only be used with the default launch command\nrun 'herdr --help' for usage\n",
    )


def test_handoff_flag_moves_to_the_end(herdr, fake):
    # src/remote/attach.rs re-appends a bare --handoff after everything else.
    fake.on("pane.send_text", ok())
    res = herdr("pane", "send-text", "w1:p1", "--handoff", "hi")
    assert (res.rc, res.out, res.err) == (0, b"", b"")
    assert fake.ops()[0]["params"] == {"pane_id": "w1:p1", "text": "hi --handoff"}


# -- output contract --------------------------------------------------------------------------


def test_success_is_whole_envelope_sorted_compact_raw_utf8(herdr, fake):
    fake.on(
        "pane.get",
        Raw(
            '{"result":{"type":"pane_info","pane":{"z":1,"label":"caf\u00e9 \u2603","a":{"y":[1,{"b":2,"a":1}],"x":null}}},'
            '"id":"cli:pane:get","extra":true}\n'.encode()
        ),
    )
    res = herdr("pane", "get", "w1:p1")
    assert res.rc == 0 and res.err == b""
    assert (
        res.out
        == (
            '{"extra":true,"id":"cli:pane:get","result":{"pane":{"a":{"x":null,"y":[1,{"a":1,"b":2}]},'
            '"label":"caf\u00e9 \u2603","z":1},"type":"pane_info"}}\n'
        ).encode()
    )


def test_floats_and_big_integers_print_like_serde_json(herdr, fake):
    fake.on(
        "pane.layout",
        Raw(
            b'{"id":"cli:pane:layout","result":{"type":"pane_layout","a":0.5,"b":1e16,"c":0.00001,'
            b'"d":1.5e-7,"e":100.0,"f":18446744073709551616,"g":-3,"h":1E2}}\n'
        ),
    )
    res = herdr("pane", "layout")
    assert res.rc == 0
    assert res.out == (
        b'{"id":"cli:pane:layout","result":{"a":0.5,"b":1e16,"c":0.00001,"d":1.5e-7,"e":100.0,'
        b'"f":1.8446744073709552e19,"g":-3,"h":100.0,"type":"pane_layout"}}\n'
    )


def test_control_characters_are_escaped(cli, fake):
    fake.on("pane.get", Raw(b'{"id":"cli:pane:get","result":{"t":"a\\u0001b\\n\\"","type":"x"}}\n'))
    assert (
        cli("pane", "get", "w1:p1").out
        == b'{"id":"cli:pane:get","result":{"t":"a\\u0001b\\n\\"","type":"x"}}\n'
    )


def test_server_error_envelope_goes_to_stderr_sorted(herdr, fake):
    fake.on("pane.get", error("pane_not_found", "pane w1:p9 not found"))
    res = herdr("pane", "get", "w1:p9")
    assert (res.rc, res.out) == (1, b"")
    assert (
        res.err
        == b'{"error":{"code":"pane_not_found","message":"pane w1:p9 not found"},"id":"cli:pane:get"}\n'
    )


def test_reply_without_trailing_newline_is_accepted(cli, fake):
    fake.on(
        "workspace.list",
        Raw(b'{"id":"cli:workspace:list","result":{"type":"workspace_list","workspaces":[]}}'),
    )
    res = cli("workspace", "list")
    assert (
        res.out
        == b'{"id":"cli:workspace:list","result":{"type":"workspace_list","workspaces":[]}}\n'
    )


def test_error_key_with_null_value_is_still_an_error(cli, fake):
    fake.on("tab.get", Raw(b'{"id":"cli:tab:get","error":null}\n'))
    res = cli("tab", "get", "w1:t1")
    assert (res.rc, res.out, res.err) == (1, b"", b'{"error":null,"id":"cli:tab:get"}\n')


# -- transport failures ------------------------------------------------------------------------


def test_hangup_without_reply_is_empty_response(herdr, fake):
    fake.on("tab.list", Hangup())
    res = herdr("tab", "list")
    assert (res.rc, res.out, res.stderr) == (
        1,
        b"",
        "Error: Custom { kind: Other, error: EmptyResponse }\n",
    )


def test_non_json_reply(herdr, fake):
    fake.on("tab.list", Raw(b"hello\n"))
    res = herdr("tab", "list")
    assert res.rc == 1
    assert (
        res.stderr
        == 'Error: Custom { kind: Other, error: Json(Error("expected value", line: 1, column: 1)) }\n'
    )


def test_invalid_utf8_reply(cli, fake):
    fake.on("tab.list", Raw(b'{"id":"\xff"}\n'))
    res = cli("tab", "list")
    assert (
        res.stderr
        == 'Error: Error { kind: InvalidData, message: "stream did not contain valid UTF-8" }\n'
    )


def test_ping_answered_with_error_envelope(herdr, fake):
    fake.ping_reply = error("server_unavailable", "server is shutting down")
    res = herdr("tab", "list")
    assert res.rc == 1
    assert res.stderr == (
        'Error: Custom { kind: Other, error: ErrorResponse(ErrorResponse { id: "api-client:status", '
        'error: ErrorBody { code: "server_unavailable", message: "server is shutting down" } }) }\n'
    )
    assert fake.calls() == [("ping", "api-client:status")]


def test_malformed_pong(cli, fake):
    fake.ping_reply = result("pong", version="0.8.2")
    res = cli("tab", "list")
    assert res.stderr == (
        'Error: Custom { kind: Other, error: Json(Error("data did not match any variant of '
        'untagged enum WireResponse", line: 0, column: 0)) }\n'
    )


# -- protocol guard ---------------------------------------------------------------------------


def test_two_connections_ping_then_operation(herdr, fake):
    fake.on("workspace.list", result("workspace_list", workspaces=[]))
    herdr("workspace", "list")
    assert fake.lines == [
        b'{"id":"api-client:status","method":"ping","params":{}}',
        b'{"id":"cli:workspace:list","method":"workspace.list","params":{}}',
    ]


def test_same_protocol_different_version_proceeds(cli, fake):
    fake.version = "0.8.1"
    fake.on("workspace.list", result("workspace_list", workspaces=[]))
    assert cli("workspace", "list").rc == 0


def test_guard_server_older(herdr, fake):
    fake.protocol = 19
    res = herdr("agent", "wait", "a")
    assert (res.rc, res.out) == (1, b"")
    expected = {
        "id": "cli:agent:wait",
        "error": {
            "code": "protocol_mismatch",
            "message": (
                "client protocol 20 is newer than server protocol 19; restart the Herdr server before using this command. "
                "Stop the old server to use the new version.\nStopping exits pane processes.\n"
                f"Run `HERDR_SOCKET_PATH={fake.path} herdr server stop`, then restart Herdr with the same socket override."
            ),
        },
    }
    assert res.err == json.dumps(expected, separators=(",", ":")).encode() + b"\n"
    assert res.err.startswith(b'{"id":')  # id-first
    assert fake.calls() == [("ping", "api-client:status")]  # no operation connection


def test_guard_server_newer(cli, fake):
    fake.protocol = 22
    res = cli("pane", "list")
    assert res.err == (
        b'{"id":"cli:pane:list","error":{"code":"protocol_mismatch","message":"client protocol 20 is '
        b'older than server protocol 22; upgrade the Herdr client before using this command"}}\n'
    )


def test_guard_restart_guidance_for_named_session(make_fake, cli, tmp_path, sockdir):
    env = {"XDG_CONFIG_HOME": sockdir}
    os.makedirs(os.path.join(sockdir, "herdr", "sessions", "s2"))
    server = make_fake(name="herdr/sessions/s2/herdr.sock")
    server.protocol = 17
    res = cli("--session", "s2", "tab", "list", env=env)
    message = res.err_json()["error"]["message"]
    assert message.endswith(
        "Run `herdr session stop s2`, then run `herdr session attach s2` again."
    )


def test_guard_for_0_9_3_client_against_0_8_2_server(cli, fake):
    res = cli("tab", "list", version="0.9.3")
    assert res.err_json()["error"]["message"].startswith(
        "client protocol 22 is newer than server protocol 20;"
    )


def test_status_server_not_running_is_not_an_error(herdr, sockdir):
    path = os.path.join(sockdir, "none.sock")
    res = herdr("status", socket=path)
    assert res.rc == 0
    assert res.stdout == (
        "client:\n  version: 0.8.2\n  channel: stable\n  protocol: 20\n\n"
        f"server:\n  status: not running\n  socket: {path}\n\nupdate:\n  restart_needed: no\n"
    )


def test_status_running_text_and_json(herdr, fake):
    fake.version = "0.8.1"
    res = herdr("status")
    assert res.stdout == (
        "client:\n  version: 0.8.2\n  channel: stable\n  protocol: 20\n\n"
        f"server:\n  status: running\n  version: 0.8.1\n  protocol: 20\n  compatible: yes\n  socket: {fake.path}\n\n"
        "update:\n  restart_needed: yes\n"
    )
    assert fake.calls() == [("ping", "api-client:status")]
    body = herdr("status", "server", "--json").stdout
    assert body == (
        '{"status":"running","running":true,"version":"0.8.1","protocol":20,"capabilities":{"live_handoff":true,'
        f'"detached_server_daemon":true}},"compatible":true,"socket":"{fake.path}","session":null,'
        '"restart_needed":true}\n'
    )
    full = json.loads(herdr("status", "--json").stdout)
    assert list(full) == ["client", "server", "update"]
    assert list(full["client"]) == ["version", "channel", "protocol", "binary", "session"]
    assert full["update"] == {"restart_needed": True}


def test_status_usage(cli):
    assert cli("status", "server", "x").stderr == "usage: herdr status server [--json]\n"
    res = cli("status", "bogus")
    assert res.rc == 2 and res.stderr.startswith("herdr status commands:\n")
    assert cli("status", "help").rc == 0


def test_a_call_loads_core_table_wire_only(fake, tmp_path):
    """One `pane get` imports the core, the command table, the context, the path rules, the
    table index with the pane rows and the wire (no other group's rows, no group module) and none of the pure-Python stdlib
    packages that make start-up slow."""
    import subprocess
    import sys

    fake.on("pane.get", ok())
    launcher = write_stub(str(tmp_path / "bin"), "0.8.2", native=False)  # (the Python form)
    # The launcher itself (its bundle, simherdr/stub/boot.py), run under the same flags; at
    # its exit (core.launch's posix._exit) the modules and their loaders go to stderr.
    code = (
        "import posix, sys\n"
        "def report(code, exit=posix._exit):\n"
        "    ours = sorted(m for m in sys.modules if m.startswith('simherdr'))\n"
        "    heavy = [m for m in ('json', 'socket', 're', 'enum', 'typing', 'os', 'collections') if m in sys.modules]\n"
        "    loaders = {type(sys.modules[m].__spec__.loader).__name__ for m in ours}\n"
        "    posix.write(2, ('\\n'.join([' '.join(ours), ' '.join(heavy), ' '.join(sorted(loaders))]) + '\\n').encode())\n"
        "    exit(code)\n"
        "posix._exit = report\n"
        f"sys.argv = [{launcher!r}, 'pane', 'get', 'w1:p1']\n"
        f"exec(compile(open({launcher!r}).read(), {launcher!r}, 'exec'))\n"
    )
    env = {"HERDR_SOCKET_PATH": fake.path}
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    ours, heavy, loaders = (proc.stderr.splitlines() + ["", ""])[:3]
    assert ours.split() == [
        "simherdr",  # (no simherdr.facts: PathBuf::join loads on first use, and this call
        # joins no path: HERDR_SOCKET_PATH is set)
        "simherdr.stub",
        "simherdr.stub.cli",
        "simherdr.stub.cli.base",  # path rules and exits (below every helper), one place
        "simherdr.stub.cli.commands",  # the command table the core dispatches through
        "simherdr.stub.cli.core",
        "simherdr.stub.cli.ctx",  # the per-call context
        "simherdr.stub.cli.rows_pane",  # only the called group's rows
        "simherdr.stub.cli.table",
        "simherdr.stub.cli.wire",
    ]
    assert heavy == ""
    assert loaders == "Bundle"  # every one from the compact form install-stub wrote


def test_launcher_exit_flushes_and_keeps_the_status(fake, stubs):
    """The launcher leaves without the interpreter's teardown (core.launch): every byte is
    still out and the status is the CLI's (1 here: an error envelope on stderr)."""
    import subprocess

    fake.on("pane.get", error("pane_not_found", "x" * 70000))
    env = {"HERDR_SOCKET_PATH": fake.path, "PATH": os.environ.get("PATH", "")}
    proc = subprocess.run([stubs["0.8.2"], "pane", "get", "w1:p1"], env=env, capture_output=True)
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert proc.stderr.endswith(b'"' + b"x" * 70000 + b'"},"id":"cli:pane:get"}\n'), proc.stderr[
        -99:
    ]


@pytest.mark.parametrize(
    "version,argv",
    [
        ("0.8.2", ["pane", "get", "w1:p1"]),  # a short reply: the final flush fails
        ("0.9.3", ["api", "schema", "--json"]),  # a long one: a write fails on the way
    ],
)
def test_a_reader_that_went_away_ends_the_stand_in_by_sigpipe(fake, stubs, version, argv):
    """herdr prints with SIGPIPE at its default action (src/platform/unix_common.rs
    begin_cli_output): killed by the signal, nothing on stderr, no traceback."""
    import signal
    import subprocess

    fake.on("pane.get", result("pane_info", pane=PANE))
    env = {"HERDR_SOCKET_PATH": fake.path, "PATH": os.environ.get("PATH", "")}
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([stubs[version], *argv], env=env, stdout=write_end, stderr=-1)
    finally:
        os.close(write_end)
    assert proc.returncode == -signal.SIGPIPE, proc.stderr
    assert proc.stderr == b""
