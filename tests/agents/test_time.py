"""Time: golden status sequences on the virtual clock, hours-long waits in milliseconds,
freezegun, and events.wait / subscriptions with no sleeps."""

from __future__ import annotations

import asyncio
import time

import pytest

from simherdr import params as P
from simherdr.agents import DEFAULT_BLOCK_MARKER
from simherdr.clock import VirtualClock
from simherdr.testing import Harness
from tests import herdr_reference as ref

FOUR_HOURS = 4 * 3600


def _record(h):
    log = []

    def listener(pane, change):
        if change["before"] != change["after"] or change["released"]:
            log.append(
                f"t={change['t']:9.3f} {pane.pane_id} {change['before']}->{change['after']}"
                f" agent={change['label']} seq={change['seq']}"
                + (" released" if change["released"] else "")
            )

    h.sim.agents.listeners.append(listener)
    return log


@pytest.fixture
def g(tmp_path, config):
    harness = Harness("0.9.3", config=config, validator=ref.validator("0.9.3"))
    harness.ok("workspace.create", cwd=str(tmp_path))
    harness.ok("workspace.create", cwd=str(tmp_path), focus=False)  # w2: a background workspace
    yield harness
    harness.close()


@pytest.mark.parametrize("kind", ["claude", "pi", "codex"])
def test_golden_start_prompt_background(g, kind, snapshot):
    log = _record(g)
    g.ok("agent.start", name="fg", kind=kind, pane_id="w1:p1")
    g.ok("agent.start", name="bg", kind=kind, pane_id="w2:p1")
    g.advance(4)
    g.ok("agent.prompt", target="fg", text="one")
    g.ok("agent.prompt", target="bg", text="two")
    g.advance(10)
    g.ok("agent.focus", target="bg")
    g.ok("agent.prompt", target="bg", text="/exit")
    g.advance(2)
    assert log == snapshot


def test_golden_blocked_and_hooks(g, snapshot):
    log = _record(g)
    g.ok("agent.start", name="a", kind="claude", pane_id="w1:p1")
    g.advance(4)
    g.ok("agent.prompt", target="a", text=f"deploy {DEFAULT_BLOCK_MARKER}")
    g.advance(2)
    g.ok("agent.send_keys", target="a", keys=["y", "enter"])
    g.advance(1)
    g.ok("pane.report_agent", pane_id="w1:p1", source="custom:ci", agent="claude", state="blocked")
    g.advance(10)
    g.ok("pane.clear_agent_authority", pane_id="w1:p1")
    g.advance(1)
    assert log == snapshot


def test_four_hour_agent_wait_is_fast(g):
    g.sim.agents.configure_pane("w1:p1", work=FOUR_HOURS)
    g.ok("agent.start", name="long", kind="claude", pane_id="w1:p1")
    g.advance(4)
    g.ok("agent.prompt", target="long", text="refactor everything")
    g.advance(1)
    task = g.spawn("agent.wait", target="long", until=["idle"])
    t0 = time.perf_counter()
    g.advance(FOUR_HOURS - 2)
    assert not task.done()
    g.advance(2)
    wall = time.perf_counter() - t0
    reply = g.result(task)
    assert reply["result"]["agent"]["agent_status"] == "idle"
    assert g.sim.now() >= FOUR_HOURS
    assert wall < 1.0, f"a four-hour agent.wait took {wall:.3f} s of wall time"
    print(f"\nfour-hour agent.wait: {wall * 1000:.1f} ms wall")


def test_four_hour_wait_with_timeout_and_subscription(g):
    """A subscription and a timed wait running alongside do not turn into 100 ms polling."""
    g.sim.agents.configure_pane("w1:p1", work=FOUR_HOURS)
    g.ok("agent.start", name="long", kind="claude", pane_id="w1:p1")
    g.advance(4)
    conn = FakeConn(g.loop, g.sim.version.name)
    sub = subscribe(g, conn, [{"type": "pane.agent_status_changed", "pane_id": "w1:p1"}])
    g.ok("agent.prompt", target="long", text="x")
    task = g.spawn(
        "agent.wait", target="long", until=["blocked"], timeout_ms=FOUR_HOURS * 1000 + 60_000
    )
    t0 = time.perf_counter()
    g.advance(FOUR_HOURS + 120)
    wall = time.perf_counter() - t0
    assert g.result(task)["error"]["code"] == "timeout"
    assert [line["data"]["agent_status"] for line in conn.lines[1:]] == ["working", "idle"]
    assert wall < 1.0
    conn.close()
    g.settle()
    assert sub.done()


def test_freezegun_frozen_time_drives_the_simulator(config):
    import freezegun  # here, not at collection: its import (~40 ms) is this test's alone

    with freezegun.freeze_time("2026-09-14 05:17:03") as frozen:
        h = Harness(
            "0.9.3",
            clock=VirtualClock(source=time.time),
            config=config,
            validator=ref.validator("0.9.3"),
        )
        try:
            h.ok("workspace.create", cwd=config.server_cwd)
            h.ok("agent.start", name="p", kind="pi", pane_id="w1:p1")
            frozen.tick(1.0)
            h.sync()
            a = h.ok("agent.get", target="p")["agent"]
            assert a["agent"] == "pi" and a["launch_pending"] is True
            # the session path carries frozen wall time
            assert "/2026-09-14T05-17-04-000Z_" in a["agent_session"]["value"]
            frozen.tick(2.5)
            h.sync()
            a = h.ok("agent.get", target="p")["agent"]
            assert a["agent_status"] == "idle" and a["interactive_ready"] is True
            task = h.spawn("agent.prompt", target="p", text="go", wait={})
            frozen.tick(0.6)
            h.sync()
            frozen.tick(5)
            h.sync()
            assert h.result(task)["result"]["agent"]["agent_status"] == "idle"
            # terminal ids embed the frozen epoch
            assert h.ok("pane.get", pane_id="w1:p1")["pane"]["terminal_id"].startswith("term_")
        finally:
            h.close()


# --- events.wait and subscriptions in-process -------------------------------------------------


class FakeConn:
    """What a wait or stream sees of its client, for in-process streams."""

    def __init__(self, loop, version: str):
        self.version = version
        self.closed = loop.create_future()
        self.lines = []

    def cancelled(self):
        return self.closed.done()

    async def send(self, obj):
        ref.validate_reply(obj, self.version)
        self.lines.append(obj)

    def close(self):
        if not self.closed.done():
            self.closed.set_result(None)


def subscribe(h, conn, subscriptions):
    mdef = h.sim.methods["events.subscribe"]
    p = P.parse(mdef.spec, {"subscriptions": subscriptions})
    task = h.loop.create_task(mdef.fn(h.sim, p, "sub", conn))
    h.settle()
    return task


def test_events_wait_for_done_and_idle_by_focus(ws, tmp_path):
    ws.sim.agents.configure_pane("w1:p1", session_after=1.0)  # its session before the prompt
    ws.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    ws.advance(3.1)
    ws.ok("workspace.create", cwd=str(tmp_path), focus=True)
    done = ws.spawn(
        "events.wait",
        match_event={
            "event": "pane_agent_status_changed",
            "pane_id": "w1:p1",
            "agent_status": "done",
        },
    )
    ws.ok("agent.prompt", target="rev", text="go")
    ws.advance(4.4)
    assert not done.done()
    ws.advance(0.2)
    ev = ws.result(done)["result"]["event"]
    assert ev["event"] == "pane_agent_status_changed" and ev["data"]["agent_status"] == "done"
    idle = ws.spawn(
        "events.wait",
        match_event={
            "event": "pane_agent_status_changed",
            "pane_id": "w1:p1",
            "agent_status": "idle",
        },
        timeout_ms=60_000,
    )
    ws.advance(30)
    assert not idle.done()
    ws.ok("pane.focus", pane_id="w1:p1")  # done -> idle with no hub event: the probe sees it
    ws.settle()
    assert ws.result(idle)["result"]["event"]["data"]["agent_status"] == "idle"


def test_subscription_sees_each_status_under_the_virtual_clock(ws):
    conn = FakeConn(ws.loop, ws.sim.version.name)
    detected = FakeConn(ws.loop, ws.sim.version.name)
    sub = subscribe(ws, conn, [{"type": "pane.agent_status_changed", "pane_id": "w1:p1"}])
    sub2 = subscribe(ws, detected, [{"type": "pane.agent_detected"}])
    start_ready_and_prompt(ws)
    assert conn.lines[0] == {"id": "sub", "result": {"type": "subscription_started"}}
    # the hub's status events, one per tick (src/api/subscriptions.rs:389-440); the label
    # alone is no presentation change, so its coming and going adds no event
    assert [(x["data"]["agent_status"], x["data"].get("agent")) for x in conn.lines[1:]] == [
        ("idle", "claude"),
        ("working", "claude"),
        ("idle", "claude"),
        ("unknown", None),
    ]
    assert [(x["data"].get("agent"), x["data"].get("released")) for x in detected.lines[1:]] == [
        ("claude", None),
        ("claude", True),
    ]
    conn.close()
    detected.close()
    ws.settle()
    assert sub.done() and sub2.done()


def start_ready_and_prompt(h):
    h.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    h.advance(3.1)
    h.ok("agent.prompt", target="rev", text="go")
    h.advance(5)
    h.ok("agent.prompt", target="rev", text="/exit")
    h.advance(1)


def test_virtual_clock_waits_cost_no_wall_time(ws):
    t0 = time.perf_counter()
    task = ws.spawn(
        "events.wait",
        match_event={
            "event": "pane_agent_status_changed",
            "pane_id": "w1:p1",
            "agent_status": "working",
        },
        timeout_ms=10 * 3600 * 1000,
    )
    ws.advance(10 * 3600 + 1)
    assert ws.result(task)["error"] == {
        "code": "timeout",
        "message": "timed out waiting for event match",
    }
    assert time.perf_counter() - t0 < 1.0
    assert asyncio.iscoroutinefunction(ws.sim.wait_change)
