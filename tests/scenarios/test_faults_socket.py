"""Faults over the real socket transport (ThreadServer, real clock, short real delays)."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from simherdr.scenarios.faults import Drop, ErrorReply, Hang, Latency, WrongPane
from tests.core.socketclient import raw, request


def line(method, params=None, rid="t"):
    return (json.dumps({"id": rid, "method": method, "params": params or {}}) + "\n").encode()


@pytest.fixture
def srv(server):
    request(server.path, "workspace.create", {"cwd": "/"})
    return server


def add(srv, fault):
    return srv.run(lambda sim: sim.faults.add(fault))


def held(srv, fault, n=1):
    """Wait until ``fault`` has taken ``n`` requests (a hang holds each from then on)."""
    deadline = time.monotonic() + 10  # generous under load; returns as soon as it is held
    while srv.run(lambda sim: fault.hits) < n:
        assert time.monotonic() < deadline, "the request never reached the fault"
        time.sleep(0.002)


def test_latency_over_the_socket(srv):
    add(srv, Latency(method="pane.get", ms=120))
    t0 = time.monotonic()
    assert (
        request(srv.path, "pane.get", {"pane_id": "w1:p1"})["result"]["pane"]["pane_id"] == "w1:p1"
    )
    slow = time.monotonic() - t0
    t0 = time.monotonic()
    request(srv.path, "ping")
    fast = time.monotonic() - t0
    assert slow >= 0.12 and fast < 0.12  # only the matching method is slow


def test_hang_then_removal_answers(srv):
    hang = Hang(name="stuck", method="pane.get")
    add(srv, hang)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(srv.path)
    try:
        s.sendall(line("pane.get", {"pane_id": "w1:p1"}, rid="held"))
        held(srv, hang)
        s.settimeout(0.02)
        with pytest.raises(socket.timeout):
            s.recv(1)  # nothing while the fault is active
        srv.run(lambda sim: sim.faults.remove("stuck"))
        s.settimeout(5)
        reply = json.loads(s.makefile("rb").readline())
        assert reply["id"] == "held" and reply["result"]["pane"]["pane_id"] == "w1:p1"
    finally:
        s.close()


def test_hang_ends_when_the_client_disconnects(srv):
    hang = Hang(name="stuck", method="workspace.create")
    add(srv, hang)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(srv.path)
    try:
        s.sendall(line("workspace.create", {"cwd": "/"}))
        held(srv, hang)
        s.settimeout(0.02)
        with pytest.raises(socket.timeout):
            s.recv(1)  # held: no reply
    finally:
        s.close()  # the client goes away
    deadline = time.monotonic() + 10  # generous under load; returns as soon as it is gone
    while srv.run(lambda sim: srv.server.connections) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert srv.run(lambda sim: srv.server.connections) == 0  # the held request is gone
    srv.run(lambda sim: sim.faults.remove("stuck"))
    ws = request(srv.path, "workspace.list")["result"]["workspaces"]
    assert [w["workspace_id"] for w in ws] == ["w1"]  # ...and it never ran


def test_hang_holds_a_wait(srv):
    hang = Hang(name="stuck", method="pane.wait_for_output")
    add(srv, hang)
    out = {}

    def client():
        out["reply"] = request(
            srv.path,
            "pane.wait_for_output",
            {
                "pane_id": "w1:p1",
                "source": "recent",
                "timeout_ms": 50,
                "match": {"type": "substring", "value": "never"},
            },
        )

    th = threading.Thread(target=client)
    th.start()
    held(srv, hang)
    time.sleep(0.06)  # past the wait's own 50 ms
    assert th.is_alive()  # its own 50 ms timeout has not even started
    srv.run(lambda sim: sim.faults.remove("stuck"))
    th.join(5)
    assert out["reply"]["error"] == {
        "code": "timeout",
        "message": "timed out waiting for output match",
    }


def test_drop_closes_with_no_reply(srv):
    add(srv, Drop(method="workspace.create"))
    assert raw(srv.path, line("workspace.create", {"cwd": "/"})) == b""
    assert raw(srv.path, line("ping")) != b""


def test_wrong_pane_over_the_socket(srv):
    request(srv.path, "pane.split", {"pane_id": "w1:p1", "direction": "right"})
    other = request(srv.path, "pane.get", {"pane_id": "w1:p2"})["result"]["pane"]
    add(srv, WrongPane(method="pane.get", params={"pane_id": "w1:p1"}, to_pane="w1:p2"))
    got = request(srv.path, "pane.get", {"pane_id": "w1:p1"})["result"]["pane"]
    assert (got["pane_id"], got["terminal_id"]) == ("w1:p2", other["terminal_id"])


def test_error_over_the_socket(srv):
    add(srv, ErrorReply(method="tab.create", code="tab_create_failed", message="boom"))
    assert request(srv.path, "tab.create", {"workspace_id": "w1"}, rid="x") == {
        "id": "x",
        "error": {"code": "tab_create_failed", "message": "boom"},
    }
