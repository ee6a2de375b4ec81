"""ping, server.stop, session.snapshot and the request envelope in-process, on every release
(SOCKET.md §1, §5; handlers/server.py)."""

from __future__ import annotations

import pytest

from tests.releases import BASE, resolve


def test_snapshot_order_and_focus(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("pane.split", direction="right")
    h.ok("tab.create")
    snap = h.ok("session.snapshot")["snapshot"]
    assert snap["focused_workspace_id"] == "w1" and snap["focused_pane_id"] == "w1:p1"
    assert [p["pane_id"] for p in snap["panes"]] == ["w1:p1", "w1:p2", "w1:p3"]
    assert len(snap["layouts"]) == 2 and snap["agents"] == []
    assert (snap["version"], snap["protocol"]) == (h.sim.version.name, h.sim.version.protocol)


def test_ping_per_profile(h):
    pong = h.ok("ping")
    assert pong["protocol"] == resolve(pong["version"]).protocol
    assert pong["capabilities"] == h.sim.version.rows.capabilities
    if pong["capabilities"] == resolve(BASE).rows.capabilities:
        assert set(pong["capabilities"]) == {"live_handoff", "detached_server_daemon"}
    else:  # [H093] src/api/server.rs default_capabilities()
        assert pong["capabilities"] == {
            "live_handoff": True,
            "detached_server_daemon": True,
            "endpoint_protocol_generation": 1,
            "surface_interest": True,
            "health_check": True,
            "ssh_agent_registration": True,
        }


def test_parse_failures_have_empty_id(h):
    """0.8.2: always ""; 0.9.2+: the line's own string id when it has one (#4344)."""
    for bad in (
        {"id": 1, "method": "ping", "params": {}},
        {"id": "x", "method": "ping"},
        {"id": "x", "method": "nope", "params": {}},
        {"id": "x", "method": "pane.get", "params": {}},
        {"id": "x", "method": "pane.get", "params": {"pane_id": 5}},
        {"id": "x", "method": "pane.get", "params": None},
        {"id": "x", "method": "pane.read", "params": {"pane_id": "w1:p1", "source": "bogus"}},
        ["not", "an", "object"],
    ):
        reply = h.request(bad)
        keeps = (
            h.sim.version.rows.invalid_request_keeps_id
            and isinstance(bad, dict)
            and bad["id"] == "x"
        )
        assert reply["id"] == ("x" if keeps else ""), bad
        assert reply["error"]["code"] == "invalid_request", bad
        assert reply["error"]["message"].startswith("invalid request: ")


def test_server_stop_then_unavailable_but_ping_answers(h):
    assert h.ok("server.stop") == {"type": "ok"}
    assert h.err("workspace.list") == {
        "code": "server_unavailable",
        "message": "server is shutting down",
    }
    assert h.ok("ping")["type"] == "pong"
    assert h.ok("server.stop") == {"type": "ok"}


def test_known_but_unmodelled_method_is_not_implemented(h):
    from simherdr.facts.methods import ALL_METHODS

    missing = sorted(ALL_METHODS - set(h.sim.methods))
    if not missing:
        pytest.skip("every herdr method has a handler")
    assert h.err(missing[0]) == {
        "code": "not_implemented",
        "message": "method not implemented yet",
    }
