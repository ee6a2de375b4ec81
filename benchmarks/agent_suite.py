"""A new user's agent suite through the pytest fixtures: wall time of N tests at the fixtures'
default time scale next to the same tests at time scale 1 (real time).

Each generated test uses ``simherdr_herdr`` like a user's suite: ``workspace create``,
``agent start`` (herdr's 3 s settle), ``agent prompt --wait --until working``, ``agent wait
--until idle``. At scale 1 a test sleeps through the simulated agent's real stages (~9 s), so by
default only ``real_tests`` of them run and the figure for N is extrapolated from their mean
(said in the detail). Informational: both wall times side by side, no target.

The fixtures' clock is paced (simherdr.clock CHOICE): on a loaded machine a starved server
serves what fell due one wake-up at a time instead of skipping it, so herdr's 5 s prompt stall
window (5 ms of wall time here) no longer fails the suite; the row says which pacing ran.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time

from .common import ROOT, Result

TEST = """
@pytest.mark.simherdr(time_scale={scale})
def test_agent_{i}(simherdr_herdr):
    run = simherdr_herdr.run
    assert run("workspace", "create", "--cwd", "/tmp").returncode == 0
    p = run("agent", "start", "a{i}", "--kind", "pi", "--pane", "w1:p1")
    assert p.returncode == 0, p.stderr
    p = run("agent", "prompt", "a{i}", "go", "--wait", "--until", "working", "--timeout", "60000")
    assert p.returncode == 0, p.stderr
    p = run("agent", "wait", "a{i}", "--until", "idle", "--timeout", "60000")
    assert p.returncode == 0, p.stderr
"""


def _suite(n: int, scale: float) -> float:
    """Wall seconds of pytest over ``n`` generated tests at ``scale`` (one worker)."""
    d = tempfile.mkdtemp(prefix="simherdr-bench-suite-")
    body = "import pytest\n" + "".join(TEST.format(i=i, scale=scale) for i in range(n))
    with open(os.path.join(d, "test_agents.py"), "w") as f:
        f.write(textwrap.dedent(body))
    python = os.path.join(ROOT, ".venv", "bin", "python")
    python = python if os.path.exists(python) else sys.executable
    t0 = time.perf_counter()
    p = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", d],
        cwd=d,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    wall = time.perf_counter() - t0
    if p.returncode != 0 or not re.search(rf"\b{n} passed", p.stdout):
        raise RuntimeError(f"the generated suite failed: {p.stdout[-1500:]}")
    return wall


def run(tests: int = 100, real_tests: int = 3) -> Result:
    from simherdr.clock import DEFAULT_PACING
    from simherdr.pytest_plugin import DEFAULT_TIME_SCALE

    fast = _suite(tests, DEFAULT_TIME_SCALE)
    real_n = min(real_tests, tests)
    real = _suite(real_n, 1.0)
    startup = _suite(1, DEFAULT_TIME_SCALE) if real_n < tests else 0.0  # pytest's own start
    per_test = (real - startup) / real_n if real_n < tests else None
    real_full = real if per_test is None else startup + per_test * tests
    ratio = fast / real_full
    how = (
        f"measured {real_n} at scale 1 ({real:.1f} s) and extrapolated to {tests}"
        if per_test is not None
        else "measured"
    )
    return Result(
        f"agent suite: {tests} tests through the fixtures (default clock)",
        round(fast, 1),
        "s",
        detail=f"scale {DEFAULT_TIME_SCALE:g} ({DEFAULT_PACING}): {fast:.1f} s; the same suite "
        "at scale 1: "
        f"{real_full:.0f} s ({how}); {real_full / fast:.0f}x faster ({ratio * 100:.1f}%)",
        data={
            "fast_s": round(fast, 2),
            "real_s": round(real_full, 1),
            "real_measured": real_n,
            "pacing": DEFAULT_PACING,
        },
    )


if __name__ == "__main__":
    r = run()
    print(f"{r.name}: {r.value} {r.unit} ({r.detail})")
