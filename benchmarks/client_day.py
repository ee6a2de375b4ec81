"""A client's day: what a CLI-heavy suite pays per stand-in call (informational).

200 stand-in calls of a typical client flow (workspace create, pane split, send-text, read,
agent start / prompt --wait / wait / get, list), against ``simherdr serve --time-scale 1000``
(the fixtures' default clock) with SIMHERDR_TIME_SCALE set as the fixtures set it. The
figure is the wall time per call; beside it the floor, a bare ``python -I -S -c pass`` start,
timed in the same rounds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from .common import Result, median, python_module, stop, wait_for_socket

CALLS = 200
FLOW_LEN = 10  # calls per turn (below)


def _turn(call, n: int) -> None:
    """One turn of the flow: ten calls, each reading the ids the one before printed."""
    w = call(["workspace", "create", "--cwd", "/tmp", "--no-focus"])
    ws = w["result"]["workspace"]["workspace_id"]
    root = w["result"]["root_pane"]["pane_id"]
    s = call(["pane", "split", root, "--direction", "right", "--no-focus"])
    pane = s["result"]["pane"]["pane_id"]
    call(["pane", "send-text", pane, "echo hi"])
    call(["pane", "read", pane, "--source", "recent"])
    call(["agent", "start", f"a{n}", "--kind", "claude", "--pane", root])
    call(["agent", "prompt", f"a{n}", "fix the bug", "--wait"])
    call(["agent", "wait", f"a{n}", "--until", "idle", "--until", "done"])
    call(["agent", "get", f"a{n}"])
    call(["pane", "list", "--workspace", ws])
    call(["agent", "list"])


def run(calls: int = CALLS, native: bool = False) -> Result:
    """``native``: through the native launcher (issue 34; the Python stand-in where it cannot
    be built), else the Python stand-in."""
    from simherdr.stub.install import write_stub

    tmp = tempfile.mkdtemp(prefix="simherdr-bench-")
    os.chmod(tmp, 0o700)
    path = os.path.join(tmp, "herdr.sock")
    server = python_module("simherdr", "serve", "--socket", path, "--time-scale", "1000")
    per_call: list[float] = []
    bare: list[float] = []
    failed: list[str] = []
    try:
        wait_for_socket(path, server)
        herdr = write_stub(os.path.join(tmp, "bin"), herdr_version="0.9.3", native=native)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HERDR_SOCKET_PATH": path,
            "SIMHERDR_TIME_SCALE": "1000",
            "HOME": tmp,
            "LANG": "C.UTF-8",
        }
        bare_argv = [sys.executable, "-I", "-S", "-c", "pass"]

        def call(argv: list[str]) -> dict:
            t0 = time.perf_counter()
            p = subprocess.run([herdr, *argv], env=env, capture_output=True)
            per_call.append(time.perf_counter() - t0)
            if p.returncode != 0:
                failed.append(f"{' '.join(argv)}: {p.stderr.decode()[-200:]}")
            t0 = time.perf_counter()
            subprocess.run(bare_argv, capture_output=True)
            bare.append(time.perf_counter() - t0)
            try:
                return json.loads(p.stdout or b"{}")
            except ValueError:
                return {}

        for turn in range(1, calls // FLOW_LEN + 1):
            try:
                _turn(call, turn)
            except KeyError:
                pass  # a call the flow needed failed (counted in ``failed``): next turn
    finally:
        stop(server)
        shutil.rmtree(tmp, ignore_errors=True)
    call_ms, bare_ms = median(per_call) * 1000, median(bare) * 1000
    slow = sorted(per_call)[int(len(per_call) * 0.95)] * 1000
    return Result(
        "a client's day: stand-in call" + (" (native launcher)" if native else " (Python)"),
        round(call_ms, 1),
        "ms",
        detail=f"{len(per_call)} calls of a CLI client's flow at time scale 1000: median "
        f"{call_ms:.1f} ms, p95 {slow:.1f} ms, total {sum(per_call):.2f} s; floor (python -I -S "
        f"-c pass) {bare_ms:.1f} ms, {call_ms / bare_ms:.2f}x"
        + (
            f"; {len(failed)} calls refused (a loaded machine at 1000x), first: {failed[0]}"
            if failed
            else ""
        ),
        ok=None,  # informational: the number a user's suite pays
        data={"per_call_ms": [x * 1000 for x in per_call], "bare_ms": [x * 1000 for x in bare]},
    )


if __name__ == "__main__":
    r = run()
    print(f"{r.name}: {r.value} {r.unit} ({r.detail})")
