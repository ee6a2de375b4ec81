"""A connection's first read (simherdr.server Server._first_read, issue 26): a request line
complete in it is answered before any transport exists; everything else goes on through a
protocol with what that read got. Each path is reached deterministically by holding the
server's loop while the client connects and sends, so the first read finds exactly what was
sent (or, waiting for the protocol first, finds nothing)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time

import pytest

import simherdr.server as server_mod

from .conftest import baseline, conn_count, connect, ensure_workspace, exchange, server, settle

pytestmark = pytest.mark.hostile

VERSION = "0.9.3"
PING = b'{"id":"p","method":"ping","params":{}}\n'


@pytest.fixture
def srv(tmp_path):
    s = server(VERSION, tmp_path)
    ensure_workspace(s, str(tmp_path))
    yield s
    s.stop()


@contextlib.contextmanager
def loop_held(srv):
    """The server's loop stopped inside a callback until the block ends: what a client sends
    meanwhile is all there when the server accepts it."""
    started, go = threading.Event(), threading.Event()

    def hold():
        started.set()
        go.wait(10)

    srv.loop.call_soon_threadsafe(hold)
    assert started.wait(10)
    try:
        yield
    finally:
        go.set()


def read_all(s: socket.socket) -> bytes:
    out = b""
    while True:
        b = s.recv(1 << 16)
        if not b:
            return out
        out += b


def until(cond, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def wait_line(pane="w1:p1", value="never"):
    return (
        json.dumps(
            {
                "id": "w",
                "method": "pane.wait_for_output",
                "params": {
                    "pane_id": pane,
                    "source": "recent",
                    "match": {"type": "substring", "value": value},
                    "timeout_ms": 5000,
                },
            }
        ).encode()
        + b"\n"
    )


def test_a_line_complete_in_the_first_read_is_answered_and_closed(srv):
    with loop_held(srv):
        s = connect(srv.path)
        s.sendall(PING)
    out = read_all(s)  # the reply, then EOF: the server closed its end
    s.close()
    assert json.loads(out)["result"]["type"] == "pong"
    assert out.count(b"\n") == 1
    assert conn_count(srv) == 0


def test_bytes_after_the_line_in_the_first_read_are_ignored_by_a_call(srv):
    with loop_held(srv):
        s = connect(srv.path)
        s.sendall(PING + b'{"id":"q","method":"ping","params":{}}\n')
    out = read_all(s)
    s.close()
    assert [json.loads(x)["id"] for x in out.splitlines()] == ["p"]


def test_a_line_begun_in_the_first_read_is_finished_by_the_protocol(srv):
    with loop_held(srv):
        s = connect(srv.path)
        s.sendall(PING[:10])
    until(lambda: conn_count(srv) == 1)  # the first read is done: a protocol holds the rest
    s.sendall(PING[10:])
    out = read_all(s)
    s.close()
    assert json.loads(out) == json.loads(exchange(srv.path, PING))


def test_a_connection_that_sends_later_is_read_by_the_protocol(srv):
    s = connect(srv.path)
    until(lambda: conn_count(srv) == 1)  # accepted with nothing to read
    s.sendall(PING)
    out = read_all(s)
    s.close()
    assert json.loads(out)["result"]["type"] == "pong"


def test_a_wait_in_the_first_read_runs_as_a_task(srv):
    with loop_held(srv):
        s = connect(srv.path)
        s.sendall(wait_line(value="hello"))
    until(lambda: conn_count(srv) == 1)  # the wait is running
    exchange(
        srv.path,
        json.dumps(
            {"id": "t", "method": "pane.send_text", "params": {"pane_id": "w1:p1", "text": "hello"}}
        ).encode()
        + b"\n",
    )
    out = read_all(s)
    s.close()
    assert json.loads(out)["result"]["type"] == "output_matched"


def test_a_wait_with_a_byte_after_its_line_in_the_first_read_is_cancelled(srv):
    fds, tasks = baseline(srv)
    with loop_held(srv):
        s = connect(srv.path)
        s.sendall(wait_line() + b"\n")  # the further byte: the client went away
    s.settimeout(5)
    assert read_all(s) == b""
    s.close()
    assert settle(srv, fds, tasks) == (fds, tasks)


def _big_label(srv, size):
    label = "x" * size
    line = json.dumps(
        {"id": "r", "method": "workspace.rename", "params": {"workspace_id": "w1", "label": label}}
    ).encode()
    assert json.loads(exchange(srv.path, line + b"\n"))["result"]["type"] == "workspace_info"


LIST = b'{"id":"l","method":"workspace.list","params":{}}\n'


def test_a_reply_the_client_does_not_take_at_once_is_flushed_whole(srv):
    """A short request whose reply (900 KB) is larger than the socket takes in one send (a
    Unix socket's send buffer is ~200 KB): the rest goes out through a transport, in order."""
    _big_label(srv, 900_000)
    with loop_held(srv):
        s = connect(srv.path)
        s.sendall(LIST)
    until(lambda: conn_count(srv) == 1)  # sent what the socket takes, the rest buffered
    out = read_all(s)
    s.close()
    reply = json.loads(out)
    assert out.count(b"\n") == 1
    assert reply["result"]["workspaces"][0]["label"] == "x" * 900_000


def test_a_reply_never_taken_is_dropped_after_the_write_timeout(srv, monkeypatch):
    monkeypatch.setattr(server_mod, "WRITE_TIMEOUT", 0.25)  # herdr's is 5 s; same code path
    # the write timeout's watch (server.flush) starts once the poll below has seen the
    # protocol: a busy machine's poll can come later than any short timeout
    seen = asyncio.Event()
    watch = server_mod.flush

    async def flush_once_seen(proto):
        await seen.wait()
        return await watch(proto)

    _big_label(srv, 900_000)
    fds, tasks = baseline(srv)
    monkeypatch.setattr(server_mod, "flush", flush_once_seen)
    with loop_held(srv):
        s = connect(srv.path)
        s.sendall(LIST)
    until(lambda: conn_count(srv) == 1)  # the rest of the reply waits in a transport
    srv.loop.call_soon_threadsafe(seen.set)
    until(lambda: conn_count(srv) == 0)  # no progress for WRITE_TIMEOUT: dropped
    s.close()
    assert settle(srv, fds, tasks) == (fds, tasks)
    assert json.loads(exchange(srv.path, PING))["result"]["type"] == "pong"


def test_connection_labels_follow_the_order_of_accepts(srv):
    """The trace's c<N>: one per accepted connection, whichever path serves it (one that
    sends nothing takes its number too)."""
    seq = srv.run(lambda sim: sim.trace.seq)
    exchange(srv.path, PING)  # answered from the first read
    connect(srv.path).close()  # EOF, nothing recorded
    with loop_held(srv):
        s = connect(srv.path)
        s.sendall(PING[:10])
    until(lambda: conn_count(srv) == 1)
    s.sendall(PING[10:])
    read_all(s)
    s.close()
    exchange(srv.path, PING)
    entries = srv.run(lambda sim: sim.trace.entries(seq))
    labels = [int(e["conn"][1:]) for e in entries if e["kind"] == "request"]
    assert labels == [labels[0], labels[0] + 2, labels[0] + 3]


def test_a_first_read_that_fails_is_reported_and_the_server_goes_on(srv, monkeypatch):
    crashes = []
    srv.run(
        lambda sim: srv.loop.set_exception_handler(
            lambda loop, ctx: crashes.append((ctx["message"], repr(ctx.get("exception"))))
        )
    )

    def broken(*a):
        raise RuntimeError("boom")

    with monkeypatch.context() as m:
        m.setattr(srv.server, "_respond", broken)
        with loop_held(srv):
            s = connect(srv.path)
            s.sendall(PING)
        s.settimeout(5)
        assert read_all(s) == b""  # closed, no reply
        s.close()
    assert crashes == [("Fatal error on a first read", "RuntimeError('boom')")]
    assert json.loads(exchange(srv.path, PING))["result"]["type"] == "pong"


def test_an_accepted_socket_is_the_one_socket_accept_makes(tmp_path):
    """Listening accepts without socket.accept's wrapper: the connection's socket is still a
    socket.socket of the listening one's family and type, close-on-exec, made non-blocking."""
    import asyncio
    import os

    from simherdr.unixsocket import listen_protocol

    seen = []

    def first_read(conn):
        seen.append(
            (
                type(conn),
                conn.family,
                conn.type,
                conn.gettimeout(),
                os.get_inheritable(conn.fileno()),
            )
        )
        reference, _ = ref_listener.accept()  # what socket.accept() makes of the same kind
        seen.append((type(reference), reference.family, reference.type))
        reference.close()
        conn.close()

    ref_listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ref_listener.bind(str(tmp_path / "ref.sock"))
    ref_listener.listen()

    async def go():
        listening = await listen_protocol(
            str(tmp_path / "s.sock"), lambda: None, busy_message="busy", first_read=first_read
        )
        ref_client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ref_client.connect(str(tmp_path / "ref.sock"))
        r, w = await asyncio.open_unix_connection(str(tmp_path / "s.sock"))
        assert await r.read() == b""  # closed by first_read
        w.close()
        ref_client.close()
        listening.close()

    asyncio.run(go())
    ref_listener.close()
    made, reference = seen
    assert made == (socket.socket, socket.AF_UNIX, socket.SOCK_STREAM, 0.0, False)
    assert made[:3] == reference


def test_a_failure_on_the_first_reads_bytes_in_the_protocol_closes_the_connection(srv, monkeypatch):
    """A wait read by the first read goes to a protocol, which reads the line again; if that
    fails (a simulator bug), the loop hears of it and the client sees the connection close."""
    crashes = []
    srv.run(
        lambda sim: srv.loop.set_exception_handler(
            lambda loop, ctx: crashes.append((ctx["message"], repr(ctx.get("exception"))))
        )
    )
    real = srv.server._respond
    calls = []

    def second_fails(*a):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("boom")
        return real(*a)

    fds, tasks = baseline(srv)
    with monkeypatch.context() as m:
        m.setattr(srv.server, "_respond", second_fails)
        with loop_held(srv):
            s = connect(srv.path)
            s.sendall(wait_line())
        s.settimeout(5)
        assert read_all(s) == b""
        s.close()
    assert crashes == [("Fatal error on a first read's bytes", "RuntimeError('boom')")]
    assert settle(srv, fds, tasks) == (fds, tasks)
    assert conn_count(srv) == 0
