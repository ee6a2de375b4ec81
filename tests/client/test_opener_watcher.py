"""The finish watcher (CLIENTS.md §2.10): outcomes, grace window, foreign sessions, delivery.
Unit cases drive it with a scripted ``agent get`` and injected time; the sim cases run it
against a Pi the simulator starts, moved through its states by scenario helpers."""

from __future__ import annotations

import asyncio
import time

import pytest
from simherdr_client.opener import (
    FinishWatcher,
    OpenRequest,
    WatchConfig,
    WatcherRegistry,
    open_session,
)
from simherdr_client.runner import RunResult

from simherdr.scenarios import agents as SC
from tests.client import scripted as S
from tests.client.helpers import FakeTime, run

SID = "44444444-2222-4333-8444-555555555555"
OURS = {
    "agent": "pi",
    "kind": "path",
    "source": "herdr:pi",
    "value": f"/h/.pi/agent/sessions/2026-10-03T01-02-03-000Z_{SID}.jsonl",
}


def info(status, session=OURS, kind="pi"):
    agent = {
        "agent": kind,
        "agent_status": status,
        "pane_id": "w2:p1",
        "terminal_id": "t",
        "workspace_id": "w2",
        "tab_id": "w2:t1",
        "focused": False,
        "revision": 0,
    }
    if session is not None:
        agent["agent_session"] = session
    return S.ok("cli:agent:get", {"agent": agent, "type": "agent_info"})


NOT_FOUND = S.err("cli:agent:get", "agent_not_found")


def watch(
    *replies,
    config=WatchConfig(interval_ms=1000, grace_ms=3000, max_wait_ms=60_000),
    deliver=None,
    session=SID,
):
    t = FakeTime()
    sent = []
    script = S.Script(*replies)
    w = FinishWatcher(
        pane_id="w2:p1",
        session_id=session,
        agent_name="plain",
        details={"path": "/p"},
        run=script,
        deliver=deliver or sent.append,
        sleep=t.sleep,
        clock=t.clock,
        config=config,
    )
    out = run(w.run_to_end())
    return out, sent, script, t


def test_finished_after_working_then_idle_past_grace():
    out, sent, script, t = watch(
        info("idle"), info("working"), info("blocked"), info("working"), info("idle")
    )
    assert out == {"outcome": "finished", "delivered": True, "attempts": 1, "polls": 5}
    assert script.calls == [["agent", "get", "w2:p1"]] * 5  # the pane id, never the name
    (msg,) = sent
    assert {k: msg[k] for k in ("customType", "display", "deliverAs", "triggerTurn")} == {
        "customType": "herdr-agent-sessions.finished",
        "display": True,
        "deliverAs": "followUp",
        "triggerTurn": True,
    }
    assert msg["details"]["outcome"] == "finished" and msg["details"]["paneId"] == "w2:p1"
    assert msg["details"]["sessionId"] == SID and msg["content"].startswith("finished")


def test_idle_inside_the_grace_window_is_not_conclusive():
    # idle at 0, 1000, 2000 ms (grace 3000): no never-started; working at 3000, idle at 4000: finished
    out, *_ = watch(info("idle"), info("idle"), info("idle"), info("working"), info("idle"))
    assert out["outcome"] == "finished" and out["polls"] == 5


def test_never_started_and_done_counts_as_idle():
    out, sent, *_ = watch(
        info("idle"), info("unknown"), info("blocked"), info("done"), info("done")
    )
    assert out["outcome"] == "never-started" and out["polls"] == 4
    assert "finish" not in sent[0]["content"].split(":")[0]


def test_blocked_never_counts_as_working():
    out, *_ = watch(*[info("blocked")] * 4, info("idle"))
    assert out["outcome"] == "never-started"


def test_vanished_on_agent_not_found_but_other_errors_keep_polling():
    other = S.err("cli:agent:get", "server_unavailable")
    killed = RunResult(
        1, "", "herdr agent get w2:p1: no exit status (timeout 30000ms or signal null)"
    )
    out, *_ = watch(other, killed, RunResult(0, "junk", ""), info("working"), NOT_FOUND)
    assert out["outcome"] == "vanished" and out["polls"] == 5


@pytest.mark.parametrize(
    "foreign",
    [
        info(
            "idle",
            session={
                "agent": "pi",
                "kind": "path",
                "value": "/s/2026_99999999-0000-4000-8000-000000000000.jsonl",
            },
        ),
        info("idle", session=None, kind="claude"),
    ],
)
def test_a_pane_bound_to_another_session_is_never_ours(foreign):
    out, sent, *_ = watch(info("working"), foreign)
    assert out["outcome"] == "foreign-session"
    assert (
        sent[0]["details"]["outcome"] == "foreign-session" and "finished" not in sent[0]["content"]
    )


def test_resumed_session_given_as_a_path_compares_by_uuid():
    out, *_ = watch(
        info("working"), info("idle"), info("idle"), info("idle"), session=OURS["value"]
    )
    assert out["outcome"] == "finished"


def test_timed_out_at_the_max_wait():
    cfg = WatchConfig(interval_ms=1000, grace_ms=0, max_wait_ms=5000)
    out, sent, script, t = watch(*[info("working")] * 10, config=cfg)
    assert out["outcome"] == "timed-out" and out["polls"] == 5 and out["delivered"] is True
    assert sent[0]["content"].startswith("timed out")


def test_a_send_that_throws_is_retried():
    attempts = []

    def flaky(msg):
        attempts.append(msg)
        if len(attempts) < 3:
            raise RuntimeError("host busy")

    out, *_ = watch(
        info("working"), info("idle"), info("idle"), info("idle"), info("idle"), deliver=flaky
    )
    assert out["delivered"] is True and out["attempts"] == 3 and len(attempts) == 3


def test_an_async_send_that_rejects_is_retried_and_one_that_never_settles_stops_the_watcher():
    calls = []

    async def rejects_once(msg):
        calls.append(msg)
        if len(calls) == 1:
            raise ConnectionError("gone")

    out, *_ = watch(info("idle"), info("idle"), info("idle"), info("idle"), deliver=rejects_once)
    assert out["delivered"] is True and out["attempts"] == 2

    async def never(msg):
        await asyncio.Future()

    cfg = WatchConfig(interval_ms=10, grace_ms=0, max_wait_ms=50)
    t0 = time.monotonic()
    w = FinishWatcher(
        pane_id="w2:p1",
        session_id=SID,
        agent_name="a",
        details={},
        run=S.Script(info("idle")),
        deliver=never,
        sleep=lambda ms: asyncio.sleep(ms / 1000),
        clock=lambda: time.monotonic() * 1000,
        config=cfg,
    )
    out = run(w.run_to_end())
    assert out["outcome"] == "never-started" and out["delivered"] is False and out["attempts"] == 1
    assert time.monotonic() - t0 < 10  # it gives up (max_wait 50 ms) instead of hanging


def test_registry_keeps_exactly_one_watcher_per_pane():
    async def main():
        reg = WatcherRegistry()
        gate = asyncio.Event()

        async def slow(args):
            await gate.wait()
            return NOT_FOUND

        def make():
            return FinishWatcher(
                pane_id="w2:p1",
                session_id=SID,
                agent_name="a",
                details={},
                run=slow,
                deliver=lambda m: None,
                sleep=lambda ms: asyncio.sleep(0),
                clock=lambda: 0.0,
            )

        first = reg.start("w2:p1", make())
        second = reg.start("w2:p1", make())
        await asyncio.sleep(0)
        assert reg.active() == ["w2:p1"] and reg.get("w2:p1") is second
        gate.set()
        assert (await second)["outcome"] == "vanished"
        assert first.cancelled()

    run(main())


# --- against the simulator -------------------------------------------------------------------------


FAST = WatchConfig(interval_ms=5, grace_ms=30, max_wait_ms=20_000)


class CapturingRegistry(WatcherRegistry):
    def __init__(self):
        super().__init__()
        self.watchers = {}

    def start(self, pane_id, watcher):
        self.watchers[pane_id] = watcher
        return super().start(pane_id, watcher)


class HeldTime:
    """The watcher's clock (ms), held still until the test lets it run: its polls keep their
    real pacing (``sleep`` waits the interval), but no grace window passes while the test is
    still moving the agent (a wall-clock grace had to cover the test's own steps: 500 ms of
    polling for one finish, or 30 ms a loaded machine could overrun)."""

    def __init__(self):
        self.now = 0.0
        self.running = False

    async def sleep(self, ms: float) -> None:
        await asyncio.sleep(ms / 1000)
        if self.running:
            self.now += ms

    def clock(self) -> float:
        return self.now


async def until(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.005)


def opened_with_watcher(
    herdr_sim, path, pane="w1:p1", session_value=True, config=FAST, held=None, process=False, **kw
):
    """Open ``path`` with notify on. The simulated Pi reports the session named by the
    `--session-id` the opener passes (a path ending in _<SID>.jsonl); with
    ``session_value=False`` it is made to report somebody else's session instead. ``held``: a
    :class:`HeldTime` for the watcher's clock (else the wall clock). ``process``: the opener
    runs the stand-in binary (``herdr_bin``), else the stand-in in this process."""
    timing = {} if held is None else {"sleep": held.sleep, "clock": held.clock}
    if not session_value:
        other = OURS["value"].replace(SID, "99999999-2222-4333-8444-555555555555")
        herdr_sim.run(lambda s: s.agents.configure_pane(pane, session_value=other))
    sent = []
    reg = CapturingRegistry()

    async def main(drive):
        result = await open_session(
            OpenRequest(str(path), **kw),
            cwd=str(path),
            env=herdr_sim.env,
            herdr_bin=herdr_sim.stub,
            runner=None if process else herdr_sim.runner(),
            new_session_id=lambda: SID,
            deliver=sent.append,
            watchers=reg,
            watch=config,
            **timing,
        )
        task = reg.get(pane)
        await drive(reg.watchers.get(pane))
        return result, await asyncio.wait_for(task, 20)

    return main, sent


def test_sim_finished(herdr_sim, tmp_path):
    # the watcher's clock stands still until the agent is idle again: the idle seen before the
    # test drives "working" is inside the grace window, the final idle is past it once the
    # clock runs (six polls)
    held = HeldTime()
    # through the binary (the other watcher cases run the stand-in in process)
    main, sent = opened_with_watcher(herdr_sim, tmp_path, held=held, process=True)

    async def drive(watcher):
        await asyncio.to_thread(herdr_sim.run, lambda s: SC.agent_state(s, "w1:p1", "working"))
        await until(lambda: watcher.seen_working)
        await asyncio.to_thread(herdr_sim.run, lambda s: SC.agent_state(s, "w1:p1", "idle"))
        held.running = True

    result, out = run(main(drive))
    assert result["ok"] is True and result["details"]["notify"] is True
    assert out["outcome"] == "finished" and out["delivered"] is True
    assert sent[0]["details"]["sessionId"] == SID and sent[0]["details"]["path"] == str(tmp_path)


def test_sim_never_started(herdr_sim, tmp_path):
    main, sent = opened_with_watcher(herdr_sim, tmp_path)

    async def drive(watcher):
        pass

    result, out = run(main(drive))
    assert out["outcome"] == "never-started"


def test_sim_vanished_when_the_agent_exits(herdr_sim, tmp_path):
    # the clock stands still: the idle seen before "working" never ends the grace window
    main, sent = opened_with_watcher(herdr_sim, tmp_path, held=HeldTime())

    async def drive(watcher):
        await asyncio.to_thread(herdr_sim.run, lambda s: SC.agent_state(s, "w1:p1", "working"))
        await until(lambda: watcher.seen_working)

        def gone(s):
            SC.agent_exits(s, "w1:p1")
            # the shell's re-detect now, not SHELL_REDETECT_DELAY later: a poll in between
            # sees the exited agent idle (finished, past the grace window)
            s.agents.shell_returned(s.session.panes["w1:p1"])

        await asyncio.to_thread(herdr_sim.run, gone)

    result, out = run(main(drive))
    assert out["outcome"] == "vanished"


def test_sim_pi_with_another_session_is_foreign(herdr_sim, tmp_path):
    main, sent = opened_with_watcher(herdr_sim, tmp_path, session_value=False)

    async def drive(watcher):
        pass

    result, out = run(main(drive))
    assert out["outcome"] == "foreign-session"


def test_notify_false_or_no_channel_starts_no_watcher(herdr_sim, tmp_path):
    reg = WatcherRegistry()
    for kw, deliver in (
        ({"notify": False, "name": "quiet"}, [].append),
        ({"name": "nochan"}, None),
    ):
        result = run(
            open_session(
                OpenRequest(str(tmp_path), **kw),
                cwd="/",
                env=herdr_sim.env,
                runner=herdr_sim.runner(),
                deliver=deliver,
                watchers=reg,
            )
        )
        assert result["ok"] is True
    assert reg.active() == [] and reg.get("w1:p1") is None and reg.get("w2:p1") is None
    assert result["details"]["notify"] is True
