"""Hostile connections: 200 concurrent clients, connections cut mid-request and mid-wait, a
subscriber that never reads, a client that never reads its reply. No crash, valid envelopes,
no state change from refused requests, and no leaked file descriptors or asyncio tasks."""

from __future__ import annotations

import json
import socket
import struct
import threading
import time

import pytest

import simherdr.server as server_mod

from . import strategies as S
from .conftest import (
    baseline,
    conn_count,
    connect,
    ensure_workspace,
    exchange,
    fd_count,
    lines,
    server,
    settle,
    state,
    task_count,
)

pytestmark = pytest.mark.hostile

VERSION = "0.9.3"
PING = b'{"id":"p","method":"ping","params":{}}\n'


@pytest.fixture
def srv(tmp_path):
    s = server(VERSION, tmp_path)
    ensure_workspace(s, str(tmp_path))
    assert json.loads(exchange(s.path, PING))["result"]["type"] == "pong"
    yield s
    s.stop()
    assert not s.crashes, s.crashes


def assert_no_leaks(srv, fds, tasks, what):
    after = settle(srv, fds, tasks)
    print(
        f"\n{what}: fds {fds} -> {after[0]}, server tasks {tasks} -> {after[1]}, "
        f"open connections {conn_count(srv)}, change waiters {len(srv.sim.changes)}"
    )
    assert after == (fds, tasks), f"{what}: leaked (fds, tasks) {(fds, tasks)} -> {after}"
    assert conn_count(srv) == 0
    assert len(srv.sim.changes) == 0


def rst_close(s: socket.socket) -> None:
    """Close with a reset: SO_LINGER 0 (the rudest way a client can go)."""
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


CLIENT_MIX = [
    (PING, "pong"),
    (b'{"id":"g","method":"pane.get","params":{"pane_id":"w1:p1"}}\n', "ok"),
    (b'{"id":"s","method":"session.snapshot","params":{}}\n', "ok"),
    (b'{"id":"m","method":"pane.get","params":{"pane_id":"w9:p9"}}\n', "error"),
    (b'{"id":"t","method":"pane.close","params":{"pane_id":7}}\n', "invalid"),
    (b'{"id":"u","method":"no.such","params":{}}\n', "invalid"),
    (b"\xde\xad\xbe\xef" * 50 + b"\n", "none"),
    (b"{not json}\n", "invalid"),
    (b'{"id":"x","method":"workspace.close","params":{}}\n', "invalid"),
    (b'{"id":"half","method":"pane.ge', "none"),  # no newline: dropped
    (b'{"id":"n","method":"plugin.list","params":{}}\n', "ok"),
]


def test_200_concurrent_clients(srv):
    fds, tasks = baseline(srv)
    before = state(srv)
    n = 200
    barrier = threading.Barrier(n)
    errors: list = []

    def client(i):
        data, want = CLIENT_MIX[i % len(CLIENT_MIX)]
        try:
            barrier.wait(10)
            replies = lines(exchange(srv.path, data, timeout=20), srv.sim.version.name)
            if want == "none":
                assert replies == []
            else:
                assert len(replies) == 1, replies
                r = replies[0]
                if want == "invalid":
                    assert r["error"]["code"] == "invalid_request"
                    assert r["id"] == S.expect_line(srv.sim, data).rid, (data, r)
                elif want == "not_implemented":
                    assert r["error"]["code"] == "not_implemented"
                elif want == "error":
                    assert "error" in r
                else:
                    assert "result" in r
        except Exception as e:  # reported below
            errors.append((i, repr(e)))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors[:5]
    assert state(srv) == before
    assert_no_leaks(srv, fds, tasks, "200 concurrent clients")


def test_connections_cut_mid_request(srv):
    fds, tasks = baseline(srv)
    before = state(srv)
    socks = []
    for i in range(60):
        s = connect(srv.path)
        if i % 3:
            s.sendall(b'{"id":"cut","method":"workspace.create","params":{"cwd":"/tm'[: 10 + i])
        socks.append(s)
    deadline = time.monotonic() + 5
    while conn_count(srv) < len(socks) and time.monotonic() < deadline:
        time.sleep(0.01)  # every connection accepted, its partial line read
    for i, s in enumerate(socks):
        (rst_close if i % 2 else socket.socket.close)(s)
    assert json.loads(exchange(srv.path, PING))["result"]["type"] == "pong"
    assert state(srv) == before
    assert_no_leaks(srv, fds, tasks, "60 connections cut mid-request")


WAITS = [
    {
        "id": "w1",
        "method": "pane.wait_for_output",
        "params": {
            "pane_id": "w1:p1",
            "source": "recent",
            "match": {"type": "substring", "value": "never"},
        },
    },
    {
        "id": "w2",
        "method": "events.wait",
        "params": {
            "match_event": {
                "event": "pane_agent_status_changed",
                "pane_id": "w1:p1",
                "agent_status": "working",
            }
        },
    },
    {
        "id": "w3",
        "method": "events.subscribe",
        "params": {
            "subscriptions": [
                {"type": "pane.created"},
                {"type": "pane.agent_status_changed", "pane_id": "w1:p1"},
            ]
        },
    },
]


def test_connections_cut_mid_wait(srv):
    fds, tasks = baseline(srv)
    socks = []
    for i in range(60):
        s = connect(srv.path, 5)
        s.sendall(S.encode_line(WAITS[i % len(WAITS)]))
        socks.append(s)
    deadline = time.monotonic() + 5
    while conn_count(srv) < len(socks) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert conn_count(srv) == len(socks), "every wait is in progress"
    waiting_tasks = task_count(srv)
    for i, s in enumerate(socks):
        if i % 3 == 0:
            rst_close(s)
        elif i % 3 == 1:
            s.close()
        else:
            s.shutdown(socket.SHUT_WR)  # half-close: cancels, no reply for waits
    for i, s in enumerate(socks):
        if i % 3 == 2:
            out = b""
            while True:
                b = s.recv(65536)
                if not b:
                    break
                out += b
            replies = lines(out, srv.sim.version.name)
            if WAITS[i % len(WAITS)]["method"] != "events.subscribe":
                assert replies == [], replies
            else:
                assert replies[0]["result"]["type"] == "subscription_started"
            s.close()
    print(f"\n60 waits in progress: server tasks {tasks} -> {waiting_tasks}")
    assert json.loads(exchange(srv.path, PING))["result"]["type"] == "pong"
    assert_no_leaks(srv, fds, tasks, "60 connections cut mid-wait")


def server_side_closed(fds: int, timeout: float = 2.0) -> bool:
    """Only the client's own socket is left open in this process (the server's end of the
    connection is closed, not lingering until the client reads)."""
    deadline = time.monotonic() + timeout
    while fd_count() != fds + 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    return fd_count() == fds + 1


def _loop_buffered(srv) -> int:
    """Bytes the server's transports hold unsent (asyncio's selector loop keeps them by fd)."""

    def total(sim):
        loop = srv.loop
        return sum(
            t.get_write_buffer_size()
            for t in list(loop._transports.values())
            if t is not None and not t.is_closing()
        )

    return srv.run(total)


def test_subscriber_that_never_reads_is_dropped(srv, monkeypatch):
    monkeypatch.setattr(server_mod, "WRITE_TIMEOUT", 0.25)  # herdr's is 5 s; same code path
    fds, tasks = baseline(srv)
    stuck = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.settimeout(5)
    stuck.connect(srv.path)
    items = [{"type": "workspace.renamed"}] * 3000  # each item emits one line per tick
    stuck.sendall(
        S.encode_line(
            {"id": "stuck", "method": "events.subscribe", "params": {"subscriptions": items}}
        )
    )
    ack = b""
    while not ack.endswith(b"\n"):
        ack += stuck.recv(1)
    assert json.loads(ack)["result"]["type"] == "subscription_started"
    # From here the subscriber never reads. Each rename makes 3000 lines (~0.5 MB).
    rename = {
        "id": "r",
        "method": "workspace.rename",
        "params": {"workspace_id": "w1", "label": "L" * 100},
    }
    t_stall = time.monotonic()
    for _ in range(3):
        assert "result" in json.loads(exchange(srv.path, S.encode_line(rename)))
        srv.run(lambda sim: sim.clock.advance(0.1))  # the subscription's 100 ms tick
    buffered = _loop_buffered(srv)
    t0 = time.monotonic()
    pong = json.loads(exchange(srv.path, PING))
    ping_s = time.monotonic() - t0
    print(
        f"\nstuck subscriber: server-side unsent bytes {buffered}, ping while stuck {ping_s * 1e3:.1f} ms"
    )
    assert pong["result"]["type"] == "pong" and ping_s < 2.0, (
        "a stuck subscriber blocks nobody"
    )  # (vs its 5 s write timeout)
    assert buffered <= 4096, (
        f"the server buffers at most one line for a stuck client, not {buffered} bytes"
    )
    deadline = time.monotonic() + 5
    while conn_count(srv) and time.monotonic() < deadline:
        time.sleep(0.02)
    dropped_after = time.monotonic() - t_stall
    assert conn_count(srv) == 0, "the stuck subscriber was dropped after the write timeout"
    print(f"stuck subscriber dropped {dropped_after:.2f} s after it stopped reading")
    assert server_side_closed(fds), (
        "the server's end is closed while the client still holds its socket"
    )
    # what the client still finds in its socket is whole lines, then the end (or a reset)
    got = b""
    try:
        while True:
            b = stuck.recv(1 << 16)
            if not b:
                break
            got += b
    except (TimeoutError, ConnectionResetError):
        pass
    stuck.close()
    assert got.count(b"\n") > 0
    assert_no_leaks(srv, fds, tasks, "stuck subscriber")


def test_client_that_never_reads_its_reply_is_dropped(srv, monkeypatch):
    monkeypatch.setattr(server_mod, "WRITE_TIMEOUT", 0.25)
    fds, tasks = baseline(srv)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(srv.path)
    s.sendall(
        S.encode_line({"id": "i" * 900_000, "method": "ping", "params": {}})
    )  # a 900 KB reply
    deadline = time.monotonic() + 5
    time.sleep(0.1)
    assert json.loads(exchange(srv.path, PING))["result"]["type"] == "pong"
    while conn_count(srv) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert conn_count(srv) == 0
    assert server_side_closed(fds), (
        "the server's end is closed while the client still holds its socket"
    )
    s.close()
    assert_no_leaks(srv, fds, tasks, "client that never reads its reply")


def test_slow_reader_still_gets_its_whole_reply(srv, monkeypatch):
    """The write timeout is about no progress, not total time: a client that reads slowly
    but steadily gets the whole reply."""
    monkeypatch.setattr(server_mod, "WRITE_TIMEOUT", 0.15)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(5)
    s.connect(srv.path)
    s.sendall(S.encode_line({"id": "i" * 600_000, "method": "ping", "params": {}}))
    out = b""
    t0 = time.monotonic()
    while True:
        b = s.recv(100_000)
        if not b:
            break
        out += b
        time.sleep(0.05)  # the whole reply takes longer than the write timeout
    s.close()
    assert time.monotonic() - t0 > 0.15
    assert json.loads(out)["result"]["type"] == "pong"


def test_a_request_line_not_complete_in_time_is_dropped_without_a_reply(srv, monkeypatch):
    """herdr's 5 s limit on the first request line (src/api/server.rs:503-553): a client that
    sends part of a line and stalls gets no reply and its connection closes; one that finishes
    its line in time is answered."""
    monkeypatch.setattr(server_mod, "REQUEST_TIMEOUT", 0.3)  # herdr's is 5 s; same code path
    fds, tasks = baseline(srv)
    stalled = connect(srv.path)
    stalled.settimeout(5)
    stalled.sendall(b'{"id":"slow","method":"pi')
    slow_but_in_time = connect(srv.path)
    slow_but_in_time.settimeout(5)
    slow_but_in_time.sendall(b'{"id":"ok","method":"pi')
    time.sleep(0.1)
    slow_but_in_time.sendall(b'ng","params":{}}\n')
    assert json.loads(slow_but_in_time.recv(4096))["result"]["type"] == "pong"
    t0 = time.monotonic()
    assert stalled.recv(4096) == b""  # closed by the server, no reply
    assert time.monotonic() - t0 < 2
    stalled.close()
    slow_but_in_time.close()
    assert json.loads(exchange(srv.path, PING))["result"]["type"] == "pong"
    assert_no_leaks(srv, fds, tasks, "a stalled request line")
