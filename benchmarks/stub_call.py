"""One stand-in binary call vs a bare interpreter start (target <= 1.2x, issue 26).

``herdr pane get w1:p1`` (the stand-in written by ``simherdr install-stub``, against a running
``simherdr serve``) vs ``python -I -S -c pass`` on the same interpreter, alternating in rounds;
the figure is the median of the per-round ratios, with their p10-p90 spread (stable under
load: a round is one stand-in call and one bare start back to back).  Beside it, the same
statistic over the processes' own CPU time (user + system, from the kernel's accounting of each
child): what the stand-in costs its machine, without the waits for a CPU a loaded machine adds
to the wall time (the stand-in waits twice for the server, the bare start never).
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from .common import Result, fmt_time, median, ok, python_module, stop, wait_for_socket

TARGET = 1.2  # issue 26 (was 1.3, issue 9): a stand-in call within 1.2x a bare interpreter


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(argv, env) -> tuple[float, float]:
    """(wall seconds, the child's CPU seconds) of one run."""
    c0 = _cpu()
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, capture_output=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{argv} exited {p.returncode}: {p.stderr.decode()[-500:]}")
    return dt, _cpu() - c0


def _spread(ratios: list[float]) -> tuple[float, float]:
    ordered = sorted(ratios)
    return ordered[len(ordered) // 10], ordered[(len(ordered) * 9) // 10]


def run(rounds: int = 61, version: str = "0.9.3") -> Result:
    from simherdr.stub.install import write_stub

    tmp = tempfile.mkdtemp(prefix="simherdr-bench-")
    os.chmod(tmp, 0o700)
    path = os.path.join(tmp, "herdr.sock")
    server = python_module("simherdr", "serve", "--socket", path, "--herdr-version", version)
    try:
        wait_for_socket(path, server)
        ok(path, "workspace.create", {"cwd": tmp})
        herdr = write_stub(os.path.join(tmp, "bin"), herdr_version=version, native=False)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HERDR_SOCKET_PATH": path,
            "HOME": tmp,
            "LANG": "C.UTF-8",
        }
        stub_argv = [herdr, "pane", "get", "w1:p1"]
        bare_argv = [sys.executable, "-I", "-S", "-c", "pass"]
        for _ in range(3):  # warm up: page cache, .pyc files
            _timed(stub_argv, env)
            _timed(bare_argv, env)
        s_times, b_times, ratios, cpu_ratios = [], [], [], []
        for i in range(rounds):
            if i % 2:
                s, s_cpu = _timed(stub_argv, env)
                b, b_cpu = _timed(bare_argv, env)
            else:
                b, b_cpu = _timed(bare_argv, env)
                s, s_cpu = _timed(stub_argv, env)
            s_times.append(s)
            b_times.append(b)
            ratios.append(s / b)
            if b_cpu > 0:
                cpu_ratios.append(s_cpu / b_cpu)
    finally:
        stop(server)
        shutil.rmtree(tmp, ignore_errors=True)
    ratio = median(ratios)
    p10, p90 = _spread(ratios)
    cpu_ratio = median(cpu_ratios) if cpu_ratios else None
    cpu_p10, cpu_p90 = _spread(cpu_ratios) if cpu_ratios else (0.0, 0.0)
    return Result(
        "stub `herdr pane get` / `python -I -S -c pass`",
        round(ratio, 3),
        "x",
        f"<= {TARGET}",
        ratio <= TARGET,
        f"stub {fmt_time(median(s_times))}, bare interpreter {fmt_time(median(b_times))} "
        f"(median of {rounds} rounds; per-round ratios p10-p90 {p10:.3f}-{p90:.3f}, "
        f"load {os.getloadavg()[0]:.1f}); CPU time ratio {cpu_ratio or 0:.3f} "
        f"(p10-p90 {cpu_p10:.3f}-{cpu_p90:.3f})",
        {
            "ratio": ratio,
            "ratios": ratios,
            "cpu_ratio": cpu_ratio,
            "cpu_ratios": cpu_ratios,
            "stub_s": median(s_times),
            "bare_s": median(b_times),
            "rounds": rounds,
        },
    )
