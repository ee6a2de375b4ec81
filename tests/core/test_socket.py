"""herdr's framing over a real Unix socket, and hostile input (SOCKET.md §1.2-1.4)."""

from __future__ import annotations

import json
import os
import socket
import stat
import threading

import pytest

from simherdr.server import SocketBusy, socket_answers
from simherdr.terminalplane.listener import client_socket_path
from simherdr.testing import ThreadServer
from tests.core.socketclient import Subscription, raw, request
from tests.releases import rows


def state(server):
    return request(server.path, "session.snapshot")["result"]["snapshot"]


def test_socket_is_private(server):
    assert stat.S_IMODE(os.stat(server.path).st_mode) == 0o600


def test_one_request_per_connection(server):
    two = b'{"id":"a","method":"ping","params":{}}\n{"id":"b","method":"ping","params":{}}\n'
    lines = raw(server.path, two).splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["id"] == "a"


def test_no_newline_no_reply(server):
    assert raw(server.path, b'{"id":"a","method":"ping","params":{}}', shut_write=True) == b""


def test_blank_line_closes_silently(server):
    assert raw(server.path, b"   \n") == b""


def test_invalid_utf8_dropped(server):
    assert raw(server.path, b'{"id":"\xff\xfe","method":"ping","params":{}}\n') == b""


def test_oversized_line_dropped(server):
    big = b'{"id":"' + b"x" * (1024 * 1024 + 10) + b'","method":"ping","params":{}}\n'
    try:
        out = raw(server.path, big)
    except (BrokenPipeError, ConnectionResetError):
        out = b""
    assert out == b""
    assert request(server.path, "ping")["result"]["type"] == "pong"


@pytest.mark.parametrize(
    "line",
    [
        b"{not json}\n",
        b"\x00\x01\x02garbage\n",
        b"[1,2,3]\n",
        b'"str"\n',
        b'{"id":"x","id":"y","method":"ping","params":{}}\n',
    ],
)
def test_malformed_gets_invalid_request_with_empty_id(server, line):
    before = state(server)
    out = raw(server.path, line)
    reply = json.loads(out)
    assert reply["id"] == "" and reply["error"]["code"] == "invalid_request"
    assert state(server) == before


def test_hostile_storm_keeps_serving_and_state_unchanged(server):
    request(server.path, "workspace.create", {"cwd": "/"})
    before = state(server)
    errors = []

    def hit(i):
        try:
            kind = i % 5
            if kind == 0:
                raw(server.path, b"\xde\xad\xbe\xef" * 100 + b"\n")
            elif kind == 1:
                s = socket.socket(socket.AF_UNIX)
                s.connect(server.path)
                s.sendall(b'{"id":"x","method":"pane.ge')  # disconnect mid-request
                s.close()
            elif kind == 2:
                raw(server.path, b'{"id":"x","method":"pane.close","params":{"pane_id":7}}\n')
            elif kind == 3:
                assert request(server.path, "ping")["result"]["type"] == "pong"
            else:
                raw(server.path, b'{"id":"x","method":"workspace.close","params":{}}\n')
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=hit, args=(i,)) for i in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert not errors
    assert state(server) == before


def test_subscription_replay_depends_on_profile(server, version):
    request(server.path, "workspace.create", {"cwd": "/"})
    sub = Subscription(server.path, [{"type": "workspace.created"}, {"type": "pane.created"}])
    try:
        assert sub.next() == {"id": "sub", "result": {"type": "subscription_started"}}
        if rows(version).subscribe_replays_history:  # replays the ring
            first = sub.next()
            assert (
                first["event"] == "workspace_created"
                and first["data"]["type"] == "workspace_created"
            )
        request(server.path, "tab.create", {})
        line = sub.next()
        if rows(version).subscribe_replays_history:
            assert line["event"] == "pane_created" and line["data"]["pane"]["pane_id"] == "w1:p1"
            line = sub.next()
        assert line["event"] == "pane_created" and line["data"]["pane"]["pane_id"] == "w1:p2"
    finally:
        sub.close()


def test_subscription_probe_error_id(server):
    sub = Subscription(
        server.path,
        [{"type": "pane.created"}, {"type": "pane.agent_status_changed", "pane_id": "w9:p1"}],
        rid="s1",
    )
    try:
        reply = sub.next()
        # 0.9.2+ (#4344): set-up errors carry the request id
        keeps = server.sim.version.rows.setup_errors_keep_request_id
        assert reply == {
            "id": "s1" if keeps else "s1:sub:1:probe",
            "error": {"code": "pane_not_found", "message": "pane w9:p1 not found"},
        }
    finally:
        sub.close()


def test_wait_cancelled_by_extra_byte(server):
    request(server.path, "workspace.create", {"cwd": "/"})
    line = json.dumps(
        {
            "id": "w",
            "method": "pane.wait_for_output",
            "params": {
                "pane_id": "w1:p1",
                "source": "recent",
                "match": {"type": "substring", "value": "never"},
            },
        }
    )
    assert raw(server.path, line.encode() + b"\n\n", timeout=5) == b""


def test_wait_answers_when_output_arrives(server):
    request(server.path, "workspace.create", {"cwd": "/"})
    line = json.dumps(
        {
            "id": "w",
            "method": "pane.wait_for_output",
            "params": {
                "pane_id": "w1:p1",
                "source": "recent",
                "match": {"type": "regex", "value": "^\\$ hel+o"},
                "timeout_ms": 5000,
            },
        }
    )
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(server.path)
    s.sendall(line.encode() + b"\n")
    request(server.path, "pane.send_text", {"pane_id": "w1:p1", "text": "hello"})
    reply = json.loads(s.makefile().readline())
    s.close()
    assert reply["result"]["type"] == "output_matched" and reply["result"][
        "matched_line"
    ].startswith("$ hello")


def test_refuses_to_replace_a_live_socket(server):
    with pytest.raises(SocketBusy):
        ThreadServer(path=server.path)
    assert socket_answers(server.path)


def test_stale_socket_file_is_replaced(tmp_path):
    path = str(tmp_path / "stale.sock")
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    s.close()  # file left behind, nobody listening
    with ThreadServer(path=path) as srv:
        assert request(srv.path, "ping")["result"]["type"] == "pong"
    assert not os.path.exists(path)


def test_server_stop_removes_socket(server):
    assert request(server.path, "server.stop")["result"] == {"type": "ok"}
    server._thread.join(5)
    assert not os.path.exists(server.path)


def test_a_stopping_servers_socket_files_go_while_their_listeners_still_accept(
    tmp_path, monkeypatch
):
    """herdr removes each socket file before its listener closes (src/server/headless.rs:4886,
    src/api/server.rs:41-50), so `herdr server stop`, which waits until neither path exists and
    accepts (src/session.rs:388-400), returns with both files gone. Closed first, a file stayed
    behind unreachable: the stop returned with herdr-client.sock still there."""
    path = str(tmp_path / "herdr.sock")
    paths = {path, client_socket_path(path)}
    seen: dict[str, bool] = {}
    real_unlink = os.unlink

    def unlink(p, *args, **kwargs):
        if p in paths:
            seen[p] = socket_answers(p)  # the file's listener, at the moment the file goes
        return real_unlink(p, *args, **kwargs)

    srv = ThreadServer(path=path)
    try:
        monkeypatch.setattr(os, "unlink", unlink)
        assert request(path, "server.stop")["result"] == {"type": "ok"}
        srv._thread.join(5)
    finally:
        monkeypatch.undo()
        srv.stop()
    assert seen == {p: True for p in paths}
    assert not any(os.path.exists(p) for p in paths)
