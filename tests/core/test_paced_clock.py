"""The paced scaled clock (simherdr.clock CHOICE): a stalled event loop holds simulated time at
its next wake-up instead of skipping it, so herdr's short timeouts (agent.prompt's 5 s stall
window is 5 ms of wall time at 1000x) fire only after what was due before them has run.

Each test stalls the loop for real (``time.sleep`` on the loop's thread: STALL, 50 simulated
seconds at 1000x) at a chosen point, so the outcome is the same on a quiet or a loaded
machine; the "wall" pacing (simulated time = scale x wall time, the clock before pacing) is
the control that shows what the stall did without it."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from collections.abc import Callable

import pytest

from simherdr.clock import DEFAULT_PACING, PACINGS, ScaledClock, make_clock
from simherdr.testing import Harness
from tests import forkserve
from tests.core.socketclient import request

SCALE = 1000.0
STALL = 0.05  # wall seconds the loop is blocked: 50 simulated seconds at SCALE
# Where a test chains a reaction after Enter (at 0.3 s), it takes REACT: the chain ends at 4.8 s,
# inside the 5 s window on a paced clock; on the wall-paced control it ends 4.5 simulated
# seconds (4.5 ms of wall time) after the window has closed, so a loaded machine's preemption
# cannot reorder the control either.
REACT = 4.5
# The wall-paced control of such a chain runs slower: at SCALE, the reaction would come
# REACT / SCALE = 4.5 ms of wall time after Enter, and a loaded machine's preemption of the
# loop's thread in between (a time slice is several ms) let the reaction run before the waiter
# saw its deadline (the control answered working under load 11). At WALL_SCALE it comes 225 ms
# of wall time after Enter; the stall (WALL_STALL: 6 simulated seconds) still outlasts the
# 5 s window.
WALL_SCALE = 20.0
WALL_STALL = 0.3


def _stall() -> None:
    time.sleep(STALL)


def _chain_clock(pacing: str) -> tuple[ScaledClock, Callable[[], None]]:
    """The clock and the stall of a test that chains a reaction after Enter (see WALL_SCALE)."""
    if pacing == "wall":
        return ScaledClock(WALL_SCALE, pacing), lambda: time.sleep(WALL_STALL)
    return ScaledClock(SCALE, pacing), _stall


def test_paced_is_the_default_and_names_its_alternative():
    assert DEFAULT_PACING == "paced" and set(PACINGS) == {"paced", "wall"}
    assert ScaledClock(SCALE).pacing == "paced"
    assert make_clock("real", SCALE).pacing == "paced"  # type: ignore[attr-defined]
    assert make_clock("real", SCALE, "wall").pacing == "wall"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="pacing must be one of paced, wall"):
        ScaledClock(SCALE, "lazy")


def _pin(clock: ScaledClock) -> float:
    """Hold a paced clock where it is (a horizon at its present time) until :func:`_release`:
    the test's sleepers register first, so a loaded machine preempting the test between two of
    its steps moves nothing but the stall itself."""
    pin = clock.now()
    clock.follow(lambda: pin)
    return pin


def _release(clock: ScaledClock) -> None:
    clock.follow(None)


def test_a_stall_holds_time_at_each_wakeup_then_catches_up():
    """Two sleepers (0.3 s, 1 s); the loop stalls 50 simulated seconds before either wakes.
    Each wakes at its own time, in order (the second one bounds the first's), and then the
    clock is back at scale x wall time: the stall's backlog was served, not skipped, and no
    lag is left against a client's own scaled waits."""

    async def main():
        clock = ScaledClock(SCALE)
        t0 = _pin(clock)
        woke: dict[str, float] = {}

        async def sleeper(name, at):
            await clock.sleep_until(t0 + at)
            woke[name] = clock.now() - t0

        tasks = [asyncio.ensure_future(sleeper("a", 0.3)), asyncio.ensure_future(sleeper("b", 1))]
        await asyncio.sleep(0)  # both registered
        _release(clock)
        _stall()
        await asyncio.gather(*tasks)
        await asyncio.sleep(0.001)  # past the last barrier
        return woke, clock.now() - t0, clock.late

    woke, after, late = asyncio.run(main())
    assert woke == {"a": 0.3, "b": 1.0} or (0.3 <= woke["a"] < woke["b"] < 2), woke
    assert after >= STALL * SCALE
    assert late == 2


def test_wall_pacing_runs_through_a_stall():
    async def main():
        clock = ScaledClock(SCALE, "wall")
        t0 = clock.now()
        _stall()
        await clock.sleep_until(t0 + 0.3)
        return clock.now() - t0, clock.late

    elapsed, late = asyncio.run(main())
    assert elapsed >= STALL * SCALE and late == 0


def test_a_chain_started_before_a_stall_beats_a_later_deadline():
    """The shape of agent.prompt --wait: Enter at 0.3 s, the agent's reaction 0.2 s after it,
    the stall window's deadline at 5 s, and the loop stalls 50 s before Enter: the reaction
    still comes before the deadline (on a wall-paced clock the deadline comes first: the
    prompt tests below show it through herdr's own prompt)."""

    async def main():
        clock = ScaledClock(SCALE)
        t0 = _pin(clock)
        order: list[str] = []

        async def enter_then_react():
            await clock.sleep_until(t0 + 0.3)
            order.append("enter")
            await clock.sleep_until(clock.now() + 0.2)
            order.append("react")

        async def deadline():
            await clock.sleep_until(t0 + 5)
            order.append("deadline")

        tasks = [asyncio.ensure_future(enter_then_react()), asyncio.ensure_future(deadline())]
        await asyncio.sleep(0)
        _release(clock)
        _stall()
        await asyncio.gather(*tasks)
        return order

    assert asyncio.run(main()) == ["enter", "react", "deadline"]


@pytest.mark.parametrize("pacing", PACINGS)
def test_a_stall_inside_a_timer_holds_time_at_the_next_timer(config, pacing):
    """A timer that stalls the loop (a slow timer callback: the driver is busy, not asleep):
    the simulator's timer heap bounds a paced clock too, so the next timer (Enter at 0.3 s)
    and the one it schedules (REACT later) run before a wait's 5 s deadline."""
    clock, stall = _chain_clock(pacing)
    h = Harness("0.9.3", clock=clock, config=config)
    order: list[str] = []
    try:
        sim = h.sim

        async def scenario():
            t0 = sim.now()
            sim.schedule(t0 + 0.1, stall)
            sim.schedule(
                t0 + 0.3,
                lambda: (
                    order.append("enter"),
                    sim.schedule(sim.now() + REACT, lambda: order.append("react")),
                ),
            )
            while sim.now() < t0 + 5:
                await sim.wait_change(t0 + 5)
            order.append("deadline")
            while "react" not in order:
                await sim.wait_change(None)

        h.loop.run_until_complete(scenario())
    finally:
        h.close()
    expected = (
        ["enter", "react", "deadline"] if pacing == "paced" else ["enter", "deadline", "react"]
    )
    assert order == expected


@pytest.mark.parametrize("pacing", PACINGS)
def test_each_served_wakeup_gets_the_loop_before_time_moves_on(config, pacing):
    """Two timers in a stall's backlog (0.3 s and 0.6 s): a waiter woken by the first sees the
    state and the time of the first, as it would have without the stall (wall pacing: both ran
    in one burst before the waiter got the loop)."""
    h = Harness("0.9.3", clock=ScaledClock(SCALE, pacing), config=config)
    state = {"x": 0}
    try:
        sim = h.sim

        def set_x(v):
            state["x"] = v
            sim.commit()
            sim.notify()

        async def scenario():
            t0 = sim.now()
            sim.schedule(t0 + 0.1, _stall)
            sim.schedule(t0 + 0.3, lambda: set_x(1))
            sim.schedule(t0 + 0.6, lambda: set_x(2))
            while state["x"] == 0:
                await sim.wait_change(None)
            return state["x"], sim.now() - t0

        seen, at = h.loop.run_until_complete(scenario())
    finally:
        h.close()
    if pacing == "paced":
        assert (seen, round(at, 6)) == (1, 0.3)
    else:
        assert seen == 2 and at >= STALL * SCALE


def test_time_never_goes_back_for_a_timer_due_in_the_past(config):
    """The clock is capped at the earliest timer while the driver runs; a timer scheduled at a
    time already passed does not pull now() back."""
    h = Harness("0.9.3", clock=ScaledClock(SCALE), config=config)
    try:

        async def check():
            before = h.sim.now()
            h.sim.schedule(before - 10, lambda: None)
            assert h.sim.now() >= before
            await asyncio.sleep(0.001)
            return before, h.sim.now()

        before, after = h.loop.run_until_complete(check())
        assert after >= before
    finally:
        h.close()


def _stall_after_typed(sim, text: bytes, stall=_stall) -> None:
    """Stall the loop once, right after ``text`` is typed into a pane (agent.prompt's text:
    Enter is then 300 ms away on the timer heap, the stall window 5 s)."""
    write = sim.write_input

    def write_input(pane, data):
        write(pane, data)
        if text in data and sim.write_input is write_input:
            sim.write_input = write
            asyncio.get_running_loop().call_soon(stall)

    sim.write_input = write_input


@pytest.mark.parametrize("pacing", PACINGS)
def test_agent_prompt_stall_window_survives_a_stalled_server(config, pacing):
    """herdr's agent.prompt --wait gives the agent 5 s to show working (PROMPT_EFFECT_TIMEOUT_MS,
    a fact); the server's loop stalls 50 simulated seconds right after the prompt's text is
    typed; the agent reacts to Enter REACT later. Paced: Enter and the agent's reaction run
    first, the prompt answers working; wall:
    agent_prompt_stalled (what the agents bench row hit under load)."""
    clock, stall = _chain_clock(pacing)
    h = Harness("0.9.3", clock=clock, config=config)
    try:
        h.sim.agents.configure_pane("w1:p1", react=REACT)
        h.ok("workspace.create", cwd="/tmp")
        # herdr's longest start: the wall-paced control must get as far as the prompt
        h.ok("agent.start", name="a", kind="pi", pane_id="w1:p1", timeout_ms=300_000)
        h.ok("agent.wait", target="a", until=["idle"], timeout_ms=600_000)
        while h.ok("agent.get", target="a")["agent"].get("launch_pending"):  # herdr's 3 s settle
            h.loop.run_until_complete(asyncio.sleep(0.001))
        _stall_after_typed(h.sim, b"go", stall)
        reply = h.call(
            "agent.prompt", target="a", text="go", wait={"until": ["working"], "timeout_ms": 60000}
        )
    finally:
        h.close()
    if pacing == "paced":
        assert reply.get("result", {}).get("agent", {}).get("agent_status") == "working", reply
    else:
        assert reply["error"]["code"] == "agent_prompt_stalled", reply


@pytest.mark.parametrize("pacing", PACINGS)
def test_a_request_sent_during_a_stall_is_served_before_its_backlog(config, pacing):
    """agent.start with a 4 s timeout (herdr expires the pending name at start + timeout), then
    the server's loop stalls 50 simulated seconds and an agent.get is already waiting when it
    wakes. Paced: the request is read first, at the time of the backlog's first wake-up, and
    finds the agent; wall: the pending name is gone (what `agent start` hit under load as
    agent_name_not_found)."""
    h = Harness("0.9.3", clock=ScaledClock(SCALE, pacing), config=config)
    try:
        h.ok("workspace.create", cwd="/tmp")
        _stall_after_typed(h.sim, b"pi")  # the start's command line: the stall follows its reply
        h.ok("agent.start", name="a", kind="pi", pane_id="w1:p1", timeout_ms=4000)
        reply = h.call("agent.get", target="a")
    finally:
        h.close()
    if pacing == "paced":
        assert reply.get("result", {}).get("agent", {}).get("name") == "a", reply
    else:
        assert reply["error"]["code"] == "agent_not_found", reply


def _call(path: str, method: str, **params) -> dict:
    # the suite's client (replies checked against the release's schema); a wait's long timeout
    return request(path, method, params, timeout=30)


def test_the_fixtures_default_clock_is_paced(simherdr_server):
    """Through the plugin's server at its default 1000x: the same stall right after the
    prompt's text, over the socket, and the prompt still answers working."""
    srv = simherdr_server
    assert srv.sim.clock.pacing == DEFAULT_PACING == "paced"
    srv.run(lambda sim: sim.agents.configure_pane("w1:p1", react=REACT))
    assert "result" in _call(srv.path, "workspace.create", cwd="/tmp")
    started = _call(
        srv.path, "agent.start", name="a", kind="pi", pane_id="w1:p1", timeout_ms=300_000
    )
    assert "result" in started, started
    idle = _call(srv.path, "agent.wait", target="a", until=["idle"], timeout_ms=600_000)
    assert idle["result"]["agent"]["agent_status"] == "idle", idle
    deadline = time.monotonic() + 30  # a bound on a broken run, not a timing assertion
    while _call(srv.path, "agent.get", target="a")["result"]["agent"].get("launch_pending"):
        assert time.monotonic() < deadline, "herdr's 3 s start settle never ended"
        time.sleep(0.001)
    srv.run(lambda sim: _stall_after_typed(sim, b"go"))
    reply = _call(
        srv.path,
        "agent.prompt",
        target="a",
        text="go",
        wait={"until": ["working"], "timeout_ms": 60000},
    )
    assert reply.get("result", {}).get("agent", {}).get("agent_status") == "working", reply


@pytest.mark.simherdr(time_pacing="wall")
def test_the_marker_picks_wall_pacing(simherdr_server):
    assert simherdr_server.sim.clock.pacing == "wall"
    assert simherdr_server.time_scale == SCALE


@pytest.mark.simherdr(time_pacing="paced", time_scale=1)
def test_real_time_stays_on_the_wall_clock(simherdr_server):
    from simherdr.clock import RealClock

    assert isinstance(simherdr_server.sim.clock, RealClock)


def test_a_bad_pacing_stops_pytest_at_collection(pytester):
    pytester.makepyfile("""
        import pytest
        @pytest.mark.simherdr(time_pacing="lazy")
        def test_one(simherdr_server):
            pass
    """)
    result = pytester.runpytest_inprocess("-p", "no:xdist", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "time_pacing: must be one of 'paced', 'wall', not 'lazy'" in result.stderr.str()
    result = pytester.runpytest_inprocess("-p", "no:xdist", "--simherdr-time-pacing=lazy")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--simherdr-time-pacing: must be one of" in result.stderr.str()


def test_serve_takes_the_pacing():
    """``simherdr serve --time-pacing`` (default paced; the CLI names the same choices as the
    clock without importing it), reported by the control op server.info."""
    from simherdr.cli import TIME_PACINGS
    from simherdr.ctl import request as ctl

    assert TIME_PACINGS == PACINGS and TIME_PACINGS[0] == DEFAULT_PACING
    d = tempfile.mkdtemp(prefix="simherdr-pacing-")
    try:
        for extra, pacing in (([], "paced"), (["--time-pacing", "wall"], "wall")):
            sock, control = os.path.join(d, f"{pacing}.sock"), os.path.join(d, f"{pacing}.ctl")
            # forked (tests/forkserve.py): the option reaching the server, not its start
            proc = forkserve.spawn_server(
                sock, time_scale=SCALE, extra=[*extra, "--control", control]
            )
            try:
                info = ctl(control, "server.info")["result"]
            finally:
                proc.terminate()
                proc.wait(timeout=30)
            assert (info["time_scale"], info["time_pacing"]) == (SCALE, pacing)
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("pacing", PACINGS)
def test_a_skip_serves_what_fell_due_in_order_before_caught_up_returns(pacing):
    """SkipsTime (the replayer's recorded gaps, contract/targets.SKIP_GAPS): ten wall seconds
    pass at once; the sleepers due in them wake in their order (one due after them does not),
    and a chain that a wake-up starts has run when caught_up returns."""
    from simherdr.clock import SkipsTime

    clock = ScaledClock(1.0, pacing)
    assert isinstance(clock, SkipsTime)

    async def main():
        t0 = clock.now()
        order: list[str] = []

        async def sleeper(name: str, at: float, then: Callable[[], None] | None = None):
            await clock.sleep_until(t0 + at)
            order.append(name)
            if then is not None:
                then()

        def chained():
            order.append("chained")

        tasks = [
            asyncio.ensure_future(sleeper("c", 9.0)),
            asyncio.ensure_future(sleeper("a", 2.0, chained)),
            asyncio.ensure_future(sleeper("b", 5.0)),
            asyncio.ensure_future(sleeper("late", 60.0)),
        ]
        await asyncio.sleep(0)
        wall = time.monotonic()
        await clock.caught_up(clock.skip(10.0))
        took = time.monotonic() - wall
        done = list(order)
        for t in tasks:
            t.cancel()
        return done, clock.now() - t0, took

    order, now, took = asyncio.run(main())
    assert order == ["a", "chained", "b", "c"]
    assert now >= 10.0
    assert took < 5.0  # not slept through (the skip is ten seconds of wall time)
    assert clock.late == 0  # a skipped-over wake-up is not late


@pytest.mark.parametrize("pacing", PACINGS)
def test_a_hold_stops_time_at_its_ceiling_a_skip_moves_it_and_a_release_runs_on(
    pacing, monkeypatch
):
    """SkipsTime.hold (the replayer between two recorded steps, contract/targets.Target.hold):
    the wall clock's time past the ceiling is none of the server's; a skip still passes; after
    the release time runs on from where it stood, without a jump."""
    import types

    import simherdr.clock as clock_module

    wall = [100.0]
    fake = types.SimpleNamespace(monotonic=lambda: wall[0], time=time.time)
    monkeypatch.setattr(clock_module, "time", fake)
    clock = ScaledClock(50.0, pacing)
    t0 = clock.now()
    wall[0] += 0.1
    assert clock.now() - t0 == pytest.approx(5.0)
    clock.hold()
    wall[0] += 1.0  # 50 simulated seconds of the owner's own time
    assert clock.now() - t0 == pytest.approx(5.0)
    clock.skip(0.02)  # a recorded gap
    assert clock.now() - t0 == pytest.approx(6.0)
    assert clock.seconds() == pytest.approx((clock.now()) / 50.0)
    clock.hold(0.04)  # on to a reply's recorded time: two more simulated seconds, no more
    wall[0] += 0.01
    assert clock.now() - t0 == pytest.approx(6.5)
    wall[0] += 1.0
    assert clock.now() - t0 == pytest.approx(8.0)
    clock.release()
    assert clock.now() - t0 == pytest.approx(8.0)
    wall[0] += 0.1
    assert clock.now() - t0 == pytest.approx(13.0)


@pytest.mark.parametrize("pacing", PACINGS)
def test_a_sleeper_waits_out_a_hold_and_wakes_at_its_own_time_after_the_release(pacing):
    """A timer due while the clock stands still fires only after the release, never early."""
    clock = ScaledClock(1000.0, pacing)

    async def main():
        t0 = clock.now()
        clock.hold()
        fired: list[float] = []

        async def sleeper():
            await clock.sleep_until(t0 + 0.5)
            fired.append(clock.now() - t0)

        task = asyncio.ensure_future(sleeper())
        await asyncio.sleep(0.01)  # ten simulated seconds of wall time: none of the clock's
        held = list(fired)
        clock.release()
        await asyncio.wait_for(task, 5)
        return held, fired

    held, fired = asyncio.run(main())
    assert held == []
    assert fired and fired[0] >= 0.5
    if pacing == "paced":  # served at its own time (the wall pacing: whenever the loop ran)
        assert fired[0] == pytest.approx(0.5, abs=1e-6)
