"""What a request entry of the trace holds (trace.record_request), field by field and in
order: id, method, params, then the peer's pid and command line when known."""

from __future__ import annotations

import os

from simherdr import trace


def entry(obj, pid, monkeypatch, cmd="herdr pane get"):
    monkeypatch.setattr(trace, "_peer_commands", {})
    monkeypatch.setattr(trace, "_read_peer_command", lambda p: cmd)
    t = trace.Trace(lambda: 0.0, wall=lambda: 1.0)
    trace.record_request(t, obj, "c7", pid)
    (e,) = t.entries()
    return list(e.items())


HEAD = [("seq", 1), ("kind", "request"), ("t", 0.0), ("wall", 1.0), ("conn", "c7")]
PING = {"id": "a", "method": "ping", "params": {"x": 1}}
FIELDS = [("id", "a"), ("method", "ping"), ("params", {"x": 1})]


def test_without_a_peer(monkeypatch):
    assert entry(PING, None, monkeypatch) == HEAD + FIELDS


def test_with_a_peer_and_its_command(monkeypatch):
    me = os.getpid()
    assert entry(PING, me, monkeypatch) == HEAD + FIELDS + [("pid", me), ("cmd", "herdr pane get")]


def test_with_a_peer_whose_command_is_unknown(monkeypatch):
    assert entry(PING, 42, monkeypatch, cmd=None) == HEAD + FIELDS + [("pid", 42)]


def test_missing_fields_and_a_line_that_is_no_object(monkeypatch):
    assert entry({"id": 3}, None, monkeypatch) == HEAD + [
        ("id", 3),
        ("method", None),
        ("params", None),
    ]
    assert entry("text", 5, monkeypatch) == HEAD + [
        ("id", None),
        ("method", None),
        ("params", "text"),
    ]
