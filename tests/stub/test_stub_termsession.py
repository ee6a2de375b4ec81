"""``herdr terminal session observe|control`` through the installed stand-in, against a scripted
client socket (termfake): the handshake each release sends, herdr's envelopes on stdout, the
control's stdin commands as client messages, herdr's usage, errors and exit codes
(herdr 0.8.2 src/cli.rs:540-677, src/client/mod.rs:949-1180)."""

from __future__ import annotations

import base64
import json
import os
import subprocess

import pytest
from termfake import FakeTerminalServer, standin_processes

from simherdr.facts.versions import resolve
from simherdr.protocol import PROTOCOLS
from tests.releases import BASE, distinguishing

RELEASES = [
    pytest.param(
        version,
        marks=pytest.mark.skipif(
            resolve(version).protocol not in PROTOCOLS,
            reason="simherdr.protocol has no table for this release's protocol yet",
        ),
    )
    for version in distinguishing("protocol", "cli_terminal_hello")
]
OBSERVE_USAGE = "usage: herdr terminal session observe <target> [--cols N] [--rows N]\n"
CONTROL_USAGE = (
    "usage: herdr terminal session control <target> [--takeover] [--cols N] [--rows N]\n"
)


@pytest.fixture
def term(sockdir):
    made = []

    def factory(version=BASE, **kwargs):
        server = FakeTerminalServer(
            os.path.join(sockdir, "herdr-client.sock"),
            resolve(version).protocol,
            api_path=os.path.join(sockdir, "herdr.sock"),
            **kwargs,
        )
        made.append(server)
        return server

    yield factory
    for server in made:
        server.shutdown()


@pytest.fixture
def spawn(stubs, sockdir, base_env):
    with standin_processes(stubs, base_env) as start:

        def run(*argv, version=BASE, stdin=subprocess.DEVNULL):
            return start(os.path.join(sockdir, "herdr.sock"), *argv, version=version, stdin=stdin)

        yield run


def _hello(version, cols=120, rows=40):
    v = resolve(version)
    if v.rows.cli_terminal_hello == "TerminalHello":
        return {
            "TerminalHello": {
                "version": v.protocol,
                "cols": cols,
                "rows": rows,
                "cell_width_px": 0,
                "cell_height_px": 0,
                "pixel_mouse": False,
            }
        }
    return {
        "Hello": {
            "version": v.protocol,
            "cols": cols,
            "rows": rows,
            "cell_width_px": 0,
            "cell_height_px": 0,
            "requested_encoding": "TerminalAnsi",
            "keybindings": "Server",
            "launch_mode": "TerminalAttach",
        }
    }


@pytest.mark.parametrize("version", RELEASES)
def test_observe_prints_one_envelope_per_frame_then_closed(term, spawn, version):
    server = term(version)
    proc = spawn("terminal", "session", "observe", "w1:p1", "--rows", "30", version=version)
    assert server.next_message() == _hello(version, rows=30)
    assert server.next_message() == {"ObserveTerminal": {"target": "w1:p1"}}
    server.frame(1, b"\x1b[2J\x1b[Hhello", full=True, width=120, height=30)
    # streaming: the line is out before the next frame exists (flushed per line)
    line = proc.stdout.readline()
    assert line == (
        b'{"bytes":"' + base64.b64encode(b"\x1b[2J\x1b[Hhello") + b'","encoding":"ansi",'
        b'"full":true,"height":30,"seq":1,"type":"terminal.frame","width":120}\n'
    )
    server.send({"Graphics": {"bytes": b"ignored"}})
    server.frame(2, b"!", full=False, width=120, height=30)
    server.send({"ServerShutdown": {"reason": "pane closed"}})
    out, err = proc.communicate(timeout=20)
    lines = [json.loads(text) for text in out.splitlines()]
    assert [entry["seq"] for entry in lines[:-1]] == [2]
    assert lines[-1] == {"type": "terminal.closed", "reason": "pane closed"}
    assert (proc.returncode, err) == (0, b"")


def test_observe_closed_without_reason_is_null_and_eof_is_quiet(term, spawn):
    server = term()
    proc = spawn("terminal", "session", "observe", "t1")
    server.next_message()
    server.send({"ServerShutdown": {"reason": None}})
    assert proc.communicate(timeout=20) == (b'{"reason":null,"type":"terminal.closed"}\n', b"")


def test_observe_end_of_stream_exits_zero_silently(term, spawn):
    server = term()
    proc = spawn("terminal", "session", "observe", "t1")
    server.next_message()
    server.next_message()
    server.close_client()
    assert proc.communicate(timeout=20) == (b"", b"")
    assert proc.returncode == 0


@pytest.mark.parametrize("version", RELEASES)
def test_observe_refused_handshake_prints_herdrs_line(term, spawn, version):
    refusal = "client version 19 is older than server version 20; please upgrade your herdr client"
    term(version, refuse=refusal)
    proc = spawn("terminal", "session", "observe", "t1", version=version)
    out, err = proc.communicate(timeout=20)
    protocol = resolve(version).protocol
    assert (proc.returncode, out) == (1, b"")
    assert err.decode() == "herdr: server rejected handshake (version %d): %s\n" % (
        protocol,
        refusal,
    )


def test_observe_without_a_server_prints_the_connect_failure(spawn, sockdir):
    proc = spawn("terminal", "session", "observe", "t1")
    out, err = proc.communicate(timeout=20)
    assert (proc.returncode, out) == (1, b"")
    assert err.decode() == (
        "herdr: failed to connect to server: No such file or directory (os error 2)\n"
        "Is herdr server running? Start it with `herdr server`.\n"
        "Socket path: %s\n" % os.path.join(sockdir, "herdr-client.sock")
    )


def test_observe_a_non_ansi_welcome_is_refused(term, spawn):
    server = term()
    server.welcome_encoding = "SemanticFrame"
    proc = spawn("terminal", "session", "observe", "t1")
    out, err = proc.communicate(timeout=20)
    assert (proc.returncode, out) == (1, b"")
    assert err == b"herdr: terminal session observe negotiated unsupported encoding SemanticFrame\n"


def test_observe_server_gone_before_welcome(term, spawn):
    server = term()
    server.silent = True
    proc = spawn("terminal", "session", "observe", "t1")
    server.next_message()
    server.close_client()
    out, err = proc.communicate(timeout=20)
    assert (proc.returncode, out, err) == (
        1,
        b"",
        b"herdr: lost connection to server: server closed connection\n",
    )


def test_observe_reader_gone_is_a_broken_pipe_error(term, spawn):
    """herdr writes with io::stdout() and SIGPIPE ignored: the failed write is an io::Error
    that main prints (src/client/mod.rs:1057 `?`), exit 1."""
    server = term()
    proc = spawn("terminal", "session", "observe", "t1")
    server.next_message()
    server.next_message()
    proc.stdout.close()
    server.frame(1, b"x")
    proc.wait(timeout=20)
    assert proc.returncode == 1
    assert proc.stderr.read() == (
        b'Error: Os { code: 32, kind: BrokenPipe, message: "Broken pipe" }\n'
    )


@pytest.mark.parametrize(
    "argv,rc,err",
    [
        (["observe"], 2, OBSERVE_USAGE),
        (["observe", "help"], 0, OBSERVE_USAGE),
        (["observe", "t1", "-h"], 0, OBSERVE_USAGE),
        (
            ["observe", "t1", "--takeover"],
            2,
            "unknown terminal session observe option: --takeover\n" + OBSERVE_USAGE,
        ),
        (
            ["control", "t1", "--bogus"],
            2,
            "unknown terminal session control option: --bogus\n" + CONTROL_USAGE,
        ),
        (["control"], 2, CONTROL_USAGE),
        (["observe", "t1", "--cols"], 2, OBSERVE_USAGE),
        (
            ["observe", "t1", "--cols", "0"],
            1,
            'Error: Custom { kind: InvalidInput, error: "--cols must be greater than 0" }\n',
        ),
        (
            ["control", "t1", "--rows", "70000"],
            1,
            'Error: Custom { kind: InvalidInput, error: "--rows must be an integer between 1 and 65535" }\n',
        ),
        (["bogus"], 2, CONTROL_USAGE + OBSERVE_USAGE),
        (["help"], 0, CONTROL_USAGE + OBSERVE_USAGE),
    ],
)
def test_session_usage_and_option_errors(cli, fake, argv, rc, err):
    res = cli("terminal", "session", *argv)
    assert (res.rc, res.stdout, res.stderr) == (rc, "", err)
    assert fake.lines == []


@pytest.mark.parametrize("version", RELEASES)
def test_control_sends_stdin_commands_and_detaches_at_eof(term, spawn, version):
    server = term(version)
    proc = spawn(
        "terminal",
        "session",
        "control",
        "w1:p1",
        "--takeover",
        version=version,
        stdin=subprocess.PIPE,
    )
    assert server.next_message() == _hello(version)
    assert server.next_message() == {"ControlTerminal": {"target": "w1:p1", "takeover": True}}
    lines = [
        '{"type":"terminal.input","text":"echo hi\\r"}',
        "",
        '{"type":"terminal.input","bytes":"%s"}' % base64.b64encode(b"\x03").decode(),
        '{"type":"terminal.resize","cols":100,"rows":30}',
        '{"type":"terminal.scroll","direction":"up","lines":5,"source":"page_key"}',
    ]
    proc.stdin.write(("\n".join(lines) + "\n").encode())
    proc.stdin.close()
    proc.stdin = None  # communicate() must not flush it again
    resize = {"cols": 100, "rows": 30, "cell_width_px": 0, "cell_height_px": 0}
    if resolve(version).rows.cli_terminal_pixel_mouse:
        resize["pixel_mouse"] = False
    assert [server.next_message() for _ in range(5)] == [
        {"Input": {"data": b"echo hi\r"}},
        {"Input": {"data": b"\x03"}},
        {"Resize": resize},
        {
            "AttachScroll": {
                "source": {"PageKey": {"input": b"\x1b[5~"}},
                "direction": "Up",
                "lines": 5,
                "column": None,
                "row": None,
                "modifiers": 0,
            }
        },
        "Detach",
    ]
    server.frame(1, b"hi")
    server.send({"ServerShutdown": {"reason": "detached"}})
    out, err = proc.communicate(timeout=20)
    assert out.splitlines()[-1] == b'{"reason":"detached","type":"terminal.closed"}'
    assert (proc.returncode, err) == (0, b"")


def test_control_bad_lines_are_reported_and_ignored(term, spawn):
    server = term()
    proc = spawn("terminal", "session", "control", "t1", stdin=subprocess.PIPE)
    server.next_message()
    server.next_message()
    proc.stdin.write(
        b'not json\n{"type":"terminal.resize","cols":0,"rows":5}\n'
        b'{"type":"terminal.input","text":"ok"}\n{"type":"terminal.release"}\n'
    )
    proc.stdin.flush()
    assert server.next_message() == {"Input": {"data": b"ok"}}
    proc.stdin.close()
    proc.stdin = None
    assert server.next_message() == "Detach"
    server.close_client()
    out, err = proc.communicate(timeout=20)
    assert (proc.returncode, out) == (0, b"")
    assert err.decode() == (
        "herdr: terminal session control input ignored: invalid json command: expected ident "
        "at line 1 column 2\n"
        "herdr: terminal session control input ignored: terminal.resize cols and rows must be "
        "greater than 0\n"
    )


def test_a_protocol_without_a_table_is_one_clear_line():
    from simherdr.stub.cli.base import Exit
    from simherdr.stub.cli.termclient import codec_for

    with pytest.raises(Exit) as caught:
        codec_for(99)
    assert (caught.value.code, caught.value.message) == (
        2,
        "simherdr: herdr's client socket protocol 99 is not modelled by this stand-in",
    )


def test_control_input_that_is_not_utf8_ends_the_input(term, spawn):
    """`stdin.lock().lines()` yields an error for a non-UTF-8 line and herdr's loop breaks:
    Detach is sent and nothing after it is read (src/client/mod.rs:977-980, 997)."""
    server = term()
    proc = spawn("terminal", "session", "control", "t1", stdin=subprocess.PIPE)
    server.next_message()
    server.next_message()
    proc.stdin.write(
        b'{"type":"terminal.input","text":"a"}\r\n\xff\xfe\n{"type":"terminal.input","text":"b"}\n'
    )
    proc.stdin.flush()
    assert server.next_message() == {"Input": {"data": b"a"}}
    assert server.next_message() == "Detach"
    server.close_client()
    proc.stdin.close()
    proc.stdin = None
    assert proc.communicate(timeout=30) == (b"", b"")
    later = []
    while not server.messages.empty():
        later.append(server.messages.get_nowait())
    assert later in ([], ["EOF"])  # nothing was sent after the Detach
