"""Per-pane pane.agent_status_changed streams read herdr's event hub
(src/api/subscriptions.rs:389-440): the label of an exiting agent is kept
(src/app/actions.rs:3009-3019) and no transition between two polls is lost."""

from __future__ import annotations

import pytest

from simherdr.scenarios import agents as sc
from tests.surface.streams import close, subscribe


@pytest.fixture
def running(h, tmp_path):
    """w1:p1 runs a simulated claude that is working on a prompt."""
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    h.advance(5)
    h.ok("agent.prompt", target="rev", text="fix it")
    h.advance(0.6)
    assert h.ok("pane.get", pane_id="w1:p1")["pane"]["agent_status"] == "working"
    return h


def _data(conn):
    return [line["data"] for line in conn.lines if "data" in line]


def test_idle_after_exit_keeps_the_label(running):
    h = running
    conn, task = subscribe(h, [{"type": "pane.agent_status_changed", "pane_id": "w1:p1"}])
    try:
        sc.agent_exits(h.sim, "w1:p1")  # idle (released) then unknown, in one tick
        h.advance(1)
        got = [(d["agent_status"], d.get("agent")) for d in _data(conn)]
        assert got == [("idle", "claude"), ("unknown", None)]
        assert conn.lines[0] == {"id": "sub", "result": {"type": "subscription_started"}}
    finally:
        close(h, conn, task)


def test_finish_watcher_filtered_on_idle_sees_the_exit(running):
    h = running
    conn, task = subscribe(
        h, [{"type": "pane.agent_status_changed", "pane_id": "w1:p1", "agent_status": "idle"}]
    )
    try:
        sc.agent_exits(h.sim, "w1:p1")
        h.advance(1)
        got = _data(conn)
        assert [(d["agent_status"], d.get("agent")) for d in got] == [("idle", "claude")]
        assert got[0]["pane_id"] == "w1:p1" and got[0]["workspace_id"] == "w1"
        assert "type" not in got[0]  # the subscription envelope's data has no tag
    finally:
        close(h, conn, task)


def test_initial_event_when_already_in_the_wanted_state(running):
    h = running
    conn, task = subscribe(
        h, [{"type": "pane.agent_status_changed", "pane_id": "w1:p1", "agent_status": "working"}]
    )
    try:
        h.advance(0.2)
        assert [d["agent_status"] for d in _data(conn)] == ["working"]
    finally:
        close(h, conn, task)


def test_over_the_socket_the_exit_keeps_the_label(version, config):
    """The same stream over the real transport, on a fast scaled clock."""
    from simherdr.clock import ScaledClock
    from simherdr.testing import SocketClient, ThreadServer
    from tests import herdr_reference as ref

    with ThreadServer(version, clock=ScaledClock(50), config=config) as srv:
        client = SocketClient(srv.path, 10, ref.validator(version))
        client.ok("workspace.create", {"cwd": config.server_cwd})
        # a hook-reported agent: working, then its process "exits" by releasing the label
        client.ok(
            "pane.report_agent",
            {"pane_id": "w1:p1", "source": "custom:x", "agent": "pi", "state": "working"},
        )
        sub = [{"type": "pane.agent_status_changed", "pane_id": "w1:p1", "agent_status": "idle"}]
        stream = client.stream("events.subscribe", {"subscriptions": sub}, "sub")
        try:
            assert next(stream) == {"id": "sub", "result": {"type": "subscription_started"}}
            srv.run(
                lambda sim: (
                    sim.agents.report_agent(
                        sim.session.find_pane("w1:p1"), "custom:x", "pi", "idle"
                    ),
                    sim.agents.release_agent(sim.session.find_pane("w1:p1"), "custom:x", "pi"),
                    sim.commit(),
                )
            )
            line = next(stream)
            assert line["event"] == "pane.agent_status_changed"
            assert (line["data"]["agent_status"], line["data"].get("agent")) == ("idle", "pi")
        finally:
            stream.close()
