"""The runner (CLIENTS.md §3.6): non-blocking, no shell, explicit env, per-verb kill bounds,
bounded output, settles exactly once with the documented failure texts."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time

import pytest
from simherdr_client import runner as R
from simherdr_client.runner import HerdrRunner, RunResult, run_herdr

from tests.client.helpers import run, write_exe

ECHO = """import json, os, sys
sys.stdout.write(json.dumps({"argv": sys.argv[1:], "env": dict(os.environ)}))
sys.stderr.write("err-bytes")
sys.exit(int(os.environ.get("EXIT", "0")))
"""


def test_constants_are_the_documented_ones():
    assert R.HERDR_START_TIMEOUT_MS == 300000
    assert R.HERDR_CLI_TIMEOUT_MS == 30000
    assert R.HERDR_MAX_OUTPUT_BYTES == 8 * 1024 * 1024
    r = HerdrRunner("herdr", {})
    assert r.kill_bound_ms(["agent", "start", "x"]) == 300000
    assert r.kill_bound_ms(["agent", "get", "x"]) == 30000
    assert r.kill_bound_ms(["tab", "create"]) == 30000
    assert (
        HerdrRunner("herdr", {}, verb_timeouts={("tab", "create"): 5}).kill_bound_ms(
            ["tab", "create"]
        )
        == 5
    )


def test_argv_reaches_the_child_verbatim_with_exactly_the_given_env(tmp_path):
    exe = write_exe(tmp_path / "herdr", ECHO)
    weird = ["pane", "get", "w1:p1; rm -rf / $(x) `y` 'q' \"d\" \n*"]
    res = run(HerdrRunner(exe, {"ONLY": "this", "EXIT": "3"})(weird))
    assert isinstance(res, RunResult)
    assert res.status == 3 and res.stderr == "err-bytes"
    seen = json.loads(res.stdout)
    assert seen["argv"] == weird  # no shell: metacharacters are literal
    assert {k: v for k, v in seen["env"].items() if k != "LC_CTYPE"} == {
        "ONLY": "this",
        "EXIT": "3",
    }


def test_default_env_is_an_explicit_snapshot(tmp_path, monkeypatch):
    exe = write_exe(tmp_path / "herdr", ECHO)
    monkeypatch.setenv("SNAPSHOT_ME", "1")
    runner = HerdrRunner(exe)
    monkeypatch.setenv("SNAPSHOT_ME", "2")  # later changes do not leak in
    seen = json.loads(run(runner(["x"])).stdout)
    assert seen["env"]["SNAPSHOT_ME"] == "1"


def test_nonblocking_the_loop_keeps_serving_while_the_child_runs(tmp_path):
    # the child runs until the loop's timer has run (at most 10 s): a runner that blocked the
    # loop while its child ran would see the child end first, 10 s late
    gate = tmp_path / "gate"
    exe = write_exe(
        tmp_path / "herdr",
        f"import os, time\nend = time.monotonic() + 10\n"
        f"while not os.path.exists({str(gate)!r}) and time.monotonic() < end:\n"
        "    time.sleep(0.005)\nprint('{}')\n",
    )

    async def main():
        order = []
        start = time.monotonic()

        async def timer():
            await asyncio.sleep(0.02)
            order.append(("timer", time.monotonic() - start))
            gate.touch()

        async def child():
            r = await HerdrRunner(exe, {})(["agent", "start", "x"])
            order.append(("child", time.monotonic() - start))
            return r

        r, _ = await asyncio.gather(child(), timer())
        return r, order

    r, order = run(main())
    assert r.status == 0
    assert [o[0] for o in order] == ["timer", "child"]
    assert order[0][1] < 1.0  # while the child runs: the loop was never blocked


def test_timeout_kills_the_child_and_reports_no_exit_status(tmp_path):
    pidfile = tmp_path / "pid"
    # a shell child (~1 ms of CPU to its "partial"; a Python one needed ~20 ms, 1000 ms of
    # timeout on a loaded machine): 400 ms is still a wide margin for it
    exe = tmp_path / "herdr"
    exe.write_text(
        f"#!/bin/sh\necho $$ > {str(pidfile)!r}\necho partial\nexec {shutil.which('sleep')} 30\n"
    )
    exe.chmod(0o755)
    t = time.monotonic()
    res = run(run_herdr(str(exe), ["tab", "create", "--no-focus"], env={}, timeout_ms=400))
    assert time.monotonic() - t < 10
    assert res.status == 1
    assert (
        res.stderr == "herdr tab create --no-focus: no exit status (timeout 400ms or signal null)"
    )
    assert res.stdout == "partial\n"  # CHOICE: stdout kept after a timeout
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_per_verb_bound_applies(tmp_path):
    exe = write_exe(tmp_path / "herdr", "import time; time.sleep(30)\n")
    runner = HerdrRunner(exe, {}, start_timeout_ms=120, cli_timeout_ms=60000)
    res = run(runner(["agent", "start", "n"]))
    assert res.stderr == "herdr agent start n: no exit status (timeout 120ms or signal null)"


def test_a_child_killed_by_a_signal_settles_with_the_signal_name(tmp_path):
    exe = write_exe(tmp_path / "herdr", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)\n")
    res = run(HerdrRunner(exe, {})(["pane", "get", "w1:p1"]))
    assert res == RunResult(
        1, "", "herdr pane get w1:p1: no exit status (timeout 30000ms or signal SIGTERM)"
    )


def test_output_over_the_cap_kills_and_empties_stdout(tmp_path):
    exe = write_exe(
        tmp_path / "herdr",
        "import sys, time\nsys.stdout.write('x' * (4 * 1024 * 1024)); "
        "sys.stdout.flush(); time.sleep(30)\n",
    )
    t = time.monotonic()
    res = run(
        run_herdr(exe, ["agent", "get", "a"], env={}, timeout_ms=20000, max_output_bytes=65536)
    )
    # the cap ended it, not the 20 s timeout (nor the child's 30 s sleep): a bound of the
    # behaviour, not of the machine's speed (was < 5 s: missed by a loaded two-core CI box)
    assert time.monotonic() - t < 20
    assert res == RunResult(1, "", "herdr agent get a: output exceeded 65536 bytes")


def test_over_the_cap_settles_at_once_when_the_loop_ran_behind_the_child(tmp_path, monkeypatch):
    # The loop reads the child's stdout before the runner reads the stream (a loaded machine:
    # the child wrote while the caller's loop was late): asyncio pauses a stream's reading
    # over 2 x its limit. The cap still ends the call at once, not at the kill bound: what is
    # over the cap is read to the pipe's end and dropped (a pipe never read to its EOF kept
    # proc.wait() waiting; make test under load: 20.1 s of a 20 s bound).
    exe = write_exe(
        tmp_path / "herdr",
        "import sys, time\nsys.stdout.write('x' * (4 * 1024 * 1024)); "
        "sys.stdout.flush(); time.sleep(30)\n",
    )
    spawn = asyncio.create_subprocess_exec
    paused = []

    async def behind(*args, **kw):
        proc = await spawn(*args, **kw)
        deadline = time.monotonic() + 10  # hang guard: the child fills the buffer in ms
        while not proc.stdout._paused and time.monotonic() < deadline:
            await asyncio.sleep(0.001)  # the loop runs (and reads the pipe), the runner not
        paused.append(proc.stdout._paused)
        return proc

    monkeypatch.setattr(asyncio, "create_subprocess_exec", behind)
    t = time.monotonic()
    res = run(
        run_herdr(exe, ["agent", "get", "a"], env={}, timeout_ms=20000, max_output_bytes=4096)
    )
    assert paused == [True]
    # its first read (64 KiB) went over the cap with more than the limit still buffered: the
    # stream stayed paused. The cap ended it, not the 20 s kill bound (nor the child's sleep)
    assert time.monotonic() - t < 20
    assert res == RunResult(1, "", "herdr agent get a: output exceeded 4096 bytes")


def test_the_cap_counts_stdout_and_stderr_together(tmp_path):
    exe = write_exe(
        tmp_path / "herdr",
        "import sys\nsys.stdout.write('o' * 600); sys.stdout.flush()\n"
        "sys.stderr.write('e' * 600)\n",
    )
    assert (
        run(run_herdr(exe, ["x"], env={}, timeout_ms=5000, max_output_bytes=1000)).stderr
        == "herdr x: output exceeded 1000 bytes"
    )
    ok = run(run_herdr(exe, ["x"], env={}, timeout_ms=5000, max_output_bytes=1200))
    assert ok == RunResult(0, "o" * 600, "e" * 600)


def test_spawn_failure_is_a_status_1_result_not_an_exception(tmp_path):
    res = run(HerdrRunner(str(tmp_path / "missing-herdr"), {})(["pane", "get", "w1:p1"]))
    assert res == RunResult(
        1, "", "herdr pane get w1:p1: spawn %s ENOENT" % (tmp_path / "missing-herdr")
    )
    plain = tmp_path / "not-exec"
    plain.write_text("x")
    assert run(HerdrRunner(str(plain), {})(["x"])).stderr == "herdr x: spawn %s EACCES" % plain


def test_bare_name_is_looked_up_on_the_explicit_env_path(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    write_exe(bindir / "herdr", "print('found')\n")
    assert run(HerdrRunner("herdr", {"PATH": str(bindir)})(["x"])) == RunResult(0, "found\n", "")
    assert run(HerdrRunner("herdr", {"PATH": str(tmp_path / "nowhere")})(["x"])).status == 1


def test_cancelling_the_caller_kills_the_child(tmp_path):
    pidfile = tmp_path / "pid"
    exe = write_exe(
        tmp_path / "herdr",
        f"import os, time\nopen({str(pidfile)!r}, 'w').write(str(os.getpid()))\ntime.sleep(30)\n",
    )

    async def main():
        task = asyncio.ensure_future(HerdrRunner(exe, {})(["agent", "start", "x"]))
        for _ in range(200):
            await asyncio.sleep(0.01)
            if pidfile.exists() and pidfile.read_text():
                break
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())
    with pytest.raises(ProcessLookupError):
        os.kill(int(pidfile.read_text()), 0)


def test_run_sync_is_usable_from_threads(tmp_path):
    import concurrent.futures

    exe = write_exe(tmp_path / "herdr", "import sys; print(sys.argv[1])\n")
    runner = HerdrRunner(exe, {})
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda i: runner.run_sync([str(i)]), range(8)))
    assert [o.stdout for o in outs] == ["%d\n" % i for i in range(8)]
