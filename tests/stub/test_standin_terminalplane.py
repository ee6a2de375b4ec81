"""The stand-in's terminal client against simherdr's own terminal plane (end to end), and the
shipped terminal-plane field scenarios through it: what `herdr terminal session control` types
is what `pane.read` reads; a client one protocol off gets herdr's refusal; a second controller
without takeover is refused; a pane closed under an observer ends its stream; a slow observer
gets consistent frames, the current screen and the close."""

from __future__ import annotations

import base64
import json
import os
import select
import signal
import subprocess
import time

import pytest

pyte = pytest.importorskip("pyte")
pytest.importorskip("simherdr.terminalplane")

from termfake import standin_processes  # noqa: E402

from simherdr.clock import ScaledClock  # noqa: E402
from simherdr.stub.cli.attach import SETUP  # noqa: E402
from simherdr.testing import ThreadServer  # noqa: E402
from tests.core.socketclient import request  # noqa: E402
from tests.releases import BASE, distinguishing  # noqa: E402

RELEASES = distinguishing("protocol", "cli_terminal_hello")


@pytest.fixture
def standin(stubs, base_env):
    with standin_processes(stubs, base_env) as start:

        def spawn(srv, *argv, version=BASE, stdin=subprocess.DEVNULL):
            return start(srv.path, *argv, version=version, stdin=stdin)

        yield spawn


@pytest.fixture
def server(tmp_path):
    made = []

    def start(version=BASE, scenario=None, scale=None):
        srv = ThreadServer(version, clock=None if scale is None else ScaledClock(scale))
        made.append(srv)
        api(srv, "workspace.create", cwd=str(tmp_path))
        if scenario is not None:
            srv.load_scenario(scenario)
        return srv

    yield start
    for srv in made:
        srv.stop()


def api(srv, method, **params):
    reply = request(srv.path, method, params)
    assert "error" not in reply, reply
    return reply["result"]


def visible(srv, pane_id="w1:p1"):
    return api(srv, "pane.read", pane_id=pane_id, source="visible")["read"]["text"]


def until(check, timeout=30.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.02)


_pending: dict[int, bytes] = {}


def read_line(proc, timeout=30.0) -> dict:
    """The next envelope on the process's stdout (its own buffer: select sees the fd only)."""
    fd = proc.stdout.fileno()
    buf = _pending.get(fd, b"")
    deadline = time.monotonic() + timeout
    while b"\n" not in buf:
        ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
        assert ready, "no envelope in time"
        chunk = os.read(fd, 65536)
        assert chunk, proc.stderr.read()
        buf += chunk
    line, _pending[fd] = buf.split(b"\n", 1)
    return json.loads(line)


def arrived(proc) -> bool:
    """Whether the process's next envelope is already there: in its buffer, or its stdout
    readable now (what :func:`read_line` would then read without waiting)."""
    fd = proc.stdout.fileno()
    return b"\n" in _pending.get(fd, b"") or bool(select.select([fd], [], [], 0)[0])


@pytest.mark.parametrize("version", RELEASES)
def test_what_control_types_is_what_pane_read_reads(server, standin, version):
    srv = server(version)
    observer = standin(srv, "terminal", "session", "observe", "w1:p1", version=version)
    control = standin(
        srv, "terminal", "session", "control", "w1:p1", version=version, stdin=subprocess.PIPE
    )
    first = read_line(observer)
    assert (first["type"], first["encoding"], first["seq"], first["full"]) == (
        "terminal.frame",
        "ansi",
        1,
        True,
    )
    control.stdin.write(b'{"type":"terminal.input","text":"echo typed-by-control"}\n')
    control.stdin.flush()
    until(lambda: "echo typed-by-control" in visible(srv))
    # the observer sees it too: its frames, replayed, draw the same line
    screen = pyte.Screen(first["width"], first["height"])
    stream = pyte.ByteStream(screen)
    stream.feed(base64.b64decode(first["bytes"]))
    while not any("typed-by-control" in row for row in screen.display):
        stream.feed(base64.b64decode(read_line(observer)["bytes"]))
    control.stdin.write(b'{"type":"terminal.release"}\n')
    control.stdin.close()
    control.stdin = None
    out, err = control.communicate(timeout=20)
    assert (control.returncode, err) == (0, b"")
    assert json.loads(out.splitlines()[-1])["type"] == "terminal.closed"


def test_protocol_skew_behind_and_ahead(server, standin):
    """terminal-client-protocol-skew: herdr's check_client_version texts, then the JSON guard."""
    srv = server("0.8.2", scenario="terminal-client-protocol-skew")
    behind = standin(srv, "terminal", "session", "observe", "w1:p1", version="0.8.0")
    out, err = behind.communicate(timeout=20)
    assert (behind.returncode, out) == (1, b"")
    assert err.decode() == (
        "herdr: server rejected handshake (version 20): client version 19 is older than server "
        "version 20; please upgrade your herdr client\n"
    )
    attach = standin(srv, "agent", "attach", "w1:p1", version="0.8.0")
    out, err = attach.communicate(timeout=20)
    assert (attach.returncode, out) == (1, b"")
    assert err.decode() == (
        '{"id":"cli:agent:attach:resolve","error":{"code":"protocol_mismatch","message":"client '
        "protocol 19 is older than server protocol 20; upgrade the Herdr client before using "
        'this command"}}\n'
    )
    older = server("0.8.0", scenario="terminal-client-protocol-skew")
    ahead = standin(older, "terminal", "session", "observe", "w1:p1", version="0.8.2")
    out, err = ahead.communicate(timeout=20)
    assert (ahead.returncode, out) == (1, b"")
    # 0.8.2's Hello names launch mode 2 (TerminalAttach after AppDirectGraphics), which 0.8.0's
    # ClientLaunchMode (App, TerminalAttach) cannot decode: 0.8.0 hangs up without a Welcome
    # (src/server/client_transport.rs:504-507 "failed to read client hello")
    assert err.decode() == "herdr: lost connection to server: server closed connection\n"


def test_second_controller_without_takeover(server, standin):
    srv = server(scenario="second-controller-without-takeover")
    terminal_id = api(srv, "pane.get", pane_id="w1:p1")["pane"]["terminal_id"]
    first = standin(srv, "terminal", "session", "control", "w1:p1", stdin=subprocess.PIPE)
    read_line(first)  # attached: its first frame
    second = standin(srv, "terminal", "session", "control", "w1:p1")
    out, err = second.communicate(timeout=20)
    assert (second.returncode, err) == (0, b"")
    assert json.loads(out) == {
        "type": "terminal.closed",
        "reason": "terminal attach failed: terminal %s already has an attached client; retry "
        "with --takeover" % terminal_id,
    }
    third = standin(
        srv, "terminal", "session", "control", "w1:p1", "--takeover", stdin=subprocess.PIPE
    )
    read_line(third)
    bumped = None
    while bumped is None or bumped["type"] != "terminal.closed":
        bumped = read_line(first)
    assert bumped["reason"] == "terminal attach taken over"


def test_pane_closed_under_observer(server, standin):
    srv = server(scale=20)  # the scenario's 2 s pass in 0.1 s
    api(srv, "pane.split", target_pane_id="w1:p1", direction="right")
    terminal_id = api(srv, "pane.get", pane_id="w1:p2")["pane"]["terminal_id"]
    observer = standin(srv, "terminal", "session", "observe", "w1:p2")
    assert read_line(observer)["type"] == "terminal.frame"
    srv.load_scenario("pane-closed-under-observer")  # closes w1:p2 2 s (simulated) later
    last = read_line(observer)
    while last["type"] != "terminal.closed":
        last = read_line(observer)
    assert last["reason"] in (
        "terminal %s exited" % terminal_id,
        "terminal attach ended: terminal %s not found" % terminal_id,
    )
    assert observer.wait(timeout=20) == 0


def test_slow_observer_gets_consistent_frames_the_current_screen_and_the_close(server, standin):
    srv = server(scenario="slow-observer")
    observer = standin(srv, "terminal", "session", "observe", "w1:p1")
    first = read_line(observer)
    observer.send_signal(signal.SIGSTOP)  # it stops reading
    try:
        for n in range(300):
            request(srv.path, "pane.send_text", {"pane_id": "w1:p1", "text": "update %d\r" % n})
        until(lambda: "update 299" in visible(srv))
    finally:
        observer.send_signal(signal.SIGCONT)
    screen = pyte.Screen(first["width"], first["height"])
    stream = pyte.ByteStream(screen)
    stream.feed(base64.b64decode(first["bytes"]))
    seqs = [first["seq"]]
    expected = [row.rstrip() for row in visible(srv).split("\n") if row.strip()]
    # the screen is compared once the frames already there are fed (pyte's display renders
    # every cell: after each of a few hundred frames, under load, it was most of the test's CPU)
    while arrived(observer) or [row.rstrip() for row in screen.display if row.strip()] != expected:
        frame = read_line(observer)
        seqs.append(frame["seq"])
        stream.feed(base64.b64decode(frame["bytes"]))
    assert seqs == list(range(1, len(seqs) + 1))  # frames sent are numbered without gaps
    api(srv, "pane.close", pane_id="w1:p1")
    last = read_line(observer)
    while last["type"] != "terminal.closed":
        last = read_line(observer)
    assert observer.wait(timeout=20) == 0


def test_attach_under_a_pty_types_into_the_pane(server, stubs, base_env):
    """`herdr terminal attach` in a real terminal: keys reach the pane (pane.read reads them),
    the pane's screen reaches the caller's terminal, ctrl+b q detaches with exit 0."""
    pexpect = pytest.importorskip("pexpect")
    srv = server()
    terminal_id = api(srv, "pane.get", pane_id="w1:p1")["pane"]["terminal_id"]
    child = pexpect.spawn(
        stubs[BASE],
        ["terminal", "attach", terminal_id],
        env=dict(base_env, HERDR_SOCKET_PATH=srv.path),
        dimensions=(24, 80),
        timeout=30,
    )
    try:
        child.expect_exact(SETUP)  # attached: the alternate screen is up
        child.send(b"echo from-the-pty")
        until(lambda: "echo from-the-pty" in visible(srv))
        child.expect_exact(b"from-the-pty")  # the frame that shows it, on the caller's terminal
        child.send(b"\x02q")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
    finally:
        if child.isalive():
            child.terminate(force=True)
