"""The native stand-in's call vs a native one-request client (target <= 2.5x, issue 34).

``herdr pane get w1:p1`` through the native launcher (``install-stub`` with a C compiler: the
launcher hands the call to the server's warm fork server) vs ``benchmarks/floor_client.c``
(built here with the same compiler: connect, send herdr's ``pane.get`` line, print the reply),
on the same ``simherdr serve`` socket, alternating in rounds; the figure is the median of the
per-round ratios with their p10-p90 spread.  Beside it, the Python stand-in's call in the same
rounds, and the medians of other verbs of a client's day through the native launcher.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time

from .common import Result, fmt_time, median, ok, python_module, stop, wait_for_socket

TARGET = 2.5  # issue 34
HERE = os.path.dirname(os.path.abspath(__file__))
#: read-only verbs of a client's day (each also timed through the native launcher)
DAY_VERBS = (
    ["pane", "list"],
    ["workspace", "get", "w1"],
    ["tab", "get", "w1:t1"],
    ["pane", "read", "w1:p1", "--source", "recent"],
    ["agent", "list"],
)


def _timed(argv, env) -> float:
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, capture_output=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{argv} exited {p.returncode}: {p.stderr.decode()[-500:]}")
    return dt


def _spread(ratios: list[float]) -> tuple[float, float]:
    ordered = sorted(ratios)
    return ordered[len(ordered) // 10], ordered[(len(ordered) * 9) // 10]


def run(rounds: int = 61, version: str = "0.9.3") -> Result:
    from simherdr.stub import native
    from simherdr.stub.install import is_native, write_stub

    name = "native stand-in `herdr pane get` / a C one-request client"
    cc = native.compiler()
    if cc is None:
        return Result(name, None, "x", f"<= {TARGET}", None, "no C compiler: nothing to measure")
    tmp = tempfile.mkdtemp(prefix="simherdr-bench-")
    os.chmod(tmp, 0o700)
    path = os.path.join(tmp, "herdr.sock")
    floor = os.path.join(tmp, "floor")
    subprocess.run([cc, "-O2", "-o", floor, os.path.join(HERE, "floor_client.c")], check=True)
    server = python_module("simherdr", "serve", "--socket", path, "--herdr-version", version)
    try:
        wait_for_socket(path, server)
        ok(path, "workspace.create", {"cwd": tmp})
        herdr = write_stub(os.path.join(tmp, "bin"), herdr_version=version, native=True)
        python_herdr = write_stub(os.path.join(tmp, "pybin"), herdr_version=version, native=False)
        if not is_native(herdr):
            raise RuntimeError("the native launcher did not build")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HERDR_SOCKET_PATH": path,
            "HOME": tmp,
            "LANG": "C.UTF-8",
        }
        stub_argv = [herdr, "pane", "get", "w1:p1"]
        floor_argv = [floor, "w1:p1"]
        python_argv = [python_herdr, "pane", "get", "w1:p1"]
        for _ in range(5):  # warm up: the fork server starts on the first call
            _timed(stub_argv, env)
            _timed(floor_argv, env)
            _timed(python_argv, env)
        s_times, f_times, p_times, ratios = [], [], [], []
        for i in range(rounds):
            if i % 2:
                s = _timed(stub_argv, env)
                f = _timed(floor_argv, env)
            else:
                f = _timed(floor_argv, env)
                s = _timed(stub_argv, env)
            s_times.append(s)
            f_times.append(f)
            ratios.append(s / f)
            if i % 3 == 0:
                p_times.append(_timed(python_argv, env))
        verbs = {}
        for argv in DAY_VERBS:
            verbs[" ".join(argv)] = median([_timed([herdr, *argv], env) for _ in range(9)])
    finally:
        stop(server)
        shutil.rmtree(tmp, ignore_errors=True)
    ratio = median(ratios)
    p10, p90 = _spread(ratios)
    floor_s = median(f_times)
    day = ", ".join(f"{v} {fmt_time(t)} ({t / floor_s:.2f}x)" for v, t in verbs.items())
    return Result(
        name,
        round(ratio, 3),
        "x",
        f"<= {TARGET}",
        ratio <= TARGET,
        f"native {fmt_time(median(s_times))}, floor {fmt_time(floor_s)}, Python stand-in "
        f"{fmt_time(median(p_times))} ({median(p_times) / floor_s:.2f}x) (median of {rounds} "
        f"rounds; per-round ratios p10-p90 {p10:.3f}-{p90:.3f}, load {os.getloadavg()[0]:.1f}); "
        f"other verbs through the native launcher: {day}",
        {
            "ratio": ratio,
            "ratios": ratios,
            "native_s": median(s_times),
            "floor_s": floor_s,
            "python_s": median(p_times),
            "verbs_s": verbs,
            "rounds": rounds,
        },
    )


if __name__ == "__main__":
    r = run()
    print(f"{r.name}: {r.value} {r.unit} ({r.detail})")
