"""The plugin for a new user's suite: scaled clock by default, marker checked at collection, a
failing test's trace in its report and kept as artifacts."""

from __future__ import annotations

import json
import time

import pytest

from simherdr.pytest_plugin import DEFAULT_TIME_SCALE
from tests import herdr_reference as ref
from tests.core.socketclient import raw, request


def test_a_failing_test_shows_its_trace_and_keeps_it(pytester):
    trace_dir = pytester.path / "traces"
    pytester.makepyfile("""
        def test_fails(simherdr_herdr):
            p = simherdr_herdr.run("workspace", "create", "--label", "demo")
            assert p.returncode == 0
            p = simherdr_herdr.run("pane", "get", "w9:p9")
            assert p.returncode == 0, "the pane should exist"
    """)
    result = pytester.runpytest_inprocess(
        "-p", "no:xdist", "-p", "no:cacheprovider", f"--simherdr-trace-dir={trace_dir}"
    )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "simherdr trace (simherdr_server)" in out
    assert "-> workspace.create id='cli:workspace:create'" in out
    assert "event workspace_created" in out
    assert "<- error pane_not_found id='cli:pane:get'" in out
    jsonl = list(trace_dir.glob("*.jsonl"))
    assert len(jsonl) == 1 and str(jsonl[0]) in out
    entries = [json.loads(line) for line in jsonl[0].read_text().splitlines()]
    kinds = {e["kind"] for e in entries}
    assert {"request", "reply", "event"} <= kinds
    reply = next(e for e in entries if e["kind"] == "reply" and e["method"] == "pane.get")
    assert reply["code"] == "pane_not_found" and reply["conn"].startswith("c")
    html = jsonl[0].with_suffix(".html")
    assert 'class="lane pane" data-pane="w1:p1"' in html.read_text()
    chrome = jsonl[0].with_suffix(".trace.json")  # the Trace Event Format export beside it
    assert str(chrome) in out
    events = json.loads(chrome.read_text())["traceEvents"]
    assert any(e["ph"] == "X" and e["name"] == "pane.get" for e in events)


def test_a_passing_test_keeps_no_trace(pytester):
    trace_dir = pytester.path / "traces"
    pytester.makepyfile("""
        def test_ok(simherdr_harness):
            simherdr_harness.ok("workspace.create")
    """)
    result = pytester.runpytest_inprocess("-p", "no:xdist", f"--simherdr-trace-dir={trace_dir}")
    result.assert_outcomes(passed=1)
    assert "simherdr trace" not in result.stdout.str()
    assert not trace_dir.exists() or not list(trace_dir.iterdir())


@pytest.mark.parametrize(
    "marker, message",
    [
        ('"0.8.2"', "positional arguments ('0.8.2',) are not accepted"),
        ("time_scael=5", "unknown keyword(s) time_scael"),
        ('version="0.7"', "version: unknown herdr version '0.7'"),
        ('time_scale=float("nan")', "time_scale: must be a finite number > 0"),
        ("time_scale=0", "time_scale: must be a finite number > 0"),
        ('scenario="no-such-thing"', "scenario: no scenario 'no-such-thing'"),
        ('seed="x"', "seed: must be an integer"),
    ],
)
def test_marker_mistakes_stop_pytest_at_collection(pytester, marker, message):
    pytester.makepyfile(f"""
        import pytest
        @pytest.mark.simherdr({marker})
        def test_one(simherdr_harness):
            pass
        def test_two():
            pass
    """)
    result = pytester.runpytest_inprocess("-p", "no:xdist", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert message in err and "test_one" in err
    assert "Traceback" not in err + result.stdout.str()
    result.assert_outcomes()  # nothing ran


@pytest.mark.parametrize(
    "option, message",
    [
        ("--simherdr-version=0.7", "--simherdr-version: unknown herdr version '0.7'"),
        ("--simherdr-time-scale=inf", "--simherdr-time-scale: must be a finite number > 0"),
    ],
)
def test_bad_options_stop_pytest_at_start(pytester, option, message):
    pytester.makepyfile("def test_x(simherdr_harness): pass")
    result = pytester.runpytest_inprocess("-p", "no:xdist", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
    assert "Traceback" not in result.stderr.str()


def test_fixtures_are_documented(pytester):
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest_inprocess("-p", "no:xdist", "--fixtures")
    out = result.stdout.str()
    for name in ("simherdr_harness", "simherdr_server", "simherdr_herdr"):
        assert name in out
    assert "no docstring available" not in out.split("simherdr_harness")[1][:600]
    assert "time_scale" in out


def test_the_default_clock_runs_herdrs_agent_start_on_simulated_time(simherdr_server):
    """agent start (with herdr's 3 s settle) confirmed over the socket, on the fixtures' default
    clock: herdr's seconds pass on the simulated clock (what a whole agent turn costs in wall
    time is the `agents` row of `make bench`, never a unit test's assertion). No prompt here:
    its 5 s stall window is 5 ms of wall time at this scale, which four workers on two cores
    can miss (a known limit of the 1000x default, README: long timeouts). The replies are
    schema-checked after the starts."""
    path = simherdr_server.path
    assert simherdr_server.time_scale == DEFAULT_TIME_SCALE
    replies = []

    def call(method, **params):
        line = json.dumps({"id": "t", "method": method, "params": params}).encode() + b"\n"
        reply = json.loads(raw(path, line))
        replies.append(reply)
        return reply

    def now() -> float:
        return simherdr_server.run(lambda sim: sim.clock.now())

    def turn(n: int) -> float:
        pane = call("workspace.create", cwd="/tmp")["result"]["root_pane"]["pane_id"]
        name = f"w{n}"
        t0, w0 = now(), time.monotonic()
        # herdr's 30 s default start timeout is 30 ms of wall time at this scale: a loaded
        # machine can stall that long, so the start gets herdr's maximum (300 ms of wall time)
        call("agent.start", name=name, kind="pi", pane_id=pane, timeout_ms=300_000)
        while True:  # what the CLI does after agent.start: poll until the start is confirmed
            a = call("agent.get", target=name)["result"]["agent"]
            # a safety net, not a speed check: the start's own timeout decides
            if a.get("interactive_ready") or time.monotonic() - w0 > 30:
                break
            time.sleep(0.001)
        assert a.get("interactive_ready"), a
        return now() - t0

    simulated = [turn(n) for n in range(3)]
    for reply in replies:
        ref.validate_reply(reply, simherdr_server.sim.version.name)
    # the start's settle alone is 3 simulated seconds (herdr's agent start)
    assert min(simulated) >= 3.0, simulated


@pytest.mark.simherdr(time_scale=1)
def test_time_scale_one_is_real_time(simherdr_server, simherdr_herdr):
    assert simherdr_server.run(lambda sim: type(sim.clock).__name__) == "RealClock"
    assert simherdr_herdr.env["SIMHERDR_TIME_SCALE"] == "1.0"


@pytest.mark.simherdr(time_scale=250)
def test_the_stand_in_follows_the_server_clock(simherdr_server, simherdr_herdr):
    assert simherdr_herdr.env["SIMHERDR_TIME_SCALE"] == "250.0"
    assert simherdr_server.run(lambda sim: sim.clock.scale) == 250


@pytest.mark.simherdr(scenario="busy-shell", time_scale=1)  # 5 s busy: real seconds
def test_marker_loads_a_scenario(simherdr_server):
    path = simherdr_server.path
    request(path, "workspace.create", {"cwd": "/tmp"})
    r = request(path, "agent.start", {"name": "w", "kind": "pi", "pane_id": "w1:p1"})
    assert r["error"]["code"] == "agent_pane_busy"
    steps = [e["name"] for e in simherdr_server.trace() if e["kind"] == "step"]
    assert steps == ["scenario.load", "busy_shell"]
