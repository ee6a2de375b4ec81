"""``simherdr serve`` from exec to its first pong (target <= 50 ms), next to a bare interpreter.

The client connects in a tight loop (1 ms apart) and sends ``ping`` until a reply line comes
back; the figure is the median over rounds. ``python -m benchmarks.serve_start`` prints it alone.
"""

from __future__ import annotations

import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from .common import Result, median

TARGET_MS = 50.0
_PING = b'{"id":"b","method":"ping","params":{}}\n'


def _pong(path: str) -> bool:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(1.0)
    try:
        s.connect(path)
        s.sendall(_PING)
        return b"pong" in s.recv(4096)
    except OSError:
        return False
    finally:
        s.close()


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def once(argv_prefix: list[str], tmp: str, cpu: list[float] | None = None) -> float:
    """Wall seconds from exec to the first pong (``cpu``: gets the process's CPU seconds)."""
    path = os.path.join(tmp, "herdr.sock")
    c0 = _cpu()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [*argv_prefix, "serve", "--socket", path],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while not (os.path.exists(path) and _pong(path)):
            if proc.poll() is not None:
                raise RuntimeError(f"serve exited {proc.returncode}")
            time.sleep(0.001)
        return time.perf_counter() - t0
    finally:
        proc.kill()  # SIGKILL: no shutdown work in the CPU figure
        proc.wait(5)
        if cpu is not None:
            cpu.append(_cpu() - c0)


def _bare(cpu: list[float]) -> float:
    c0 = _cpu()
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    dt = time.perf_counter() - t0
    cpu.append(_cpu() - c0)
    return dt


def run(rounds: int = 11) -> Result:
    """Median over ``rounds``; on a loaded machine read the CPU figures in the detail."""
    tmp = tempfile.mkdtemp(prefix="simherdr-bench-")
    os.chmod(tmp, 0o700)
    exe = shutil.which("simherdr", path=os.path.dirname(sys.executable))
    prefix = [exe] if exe else [sys.executable, "-m", "simherdr"]
    try:
        once(prefix, tmp)  # warm: page cache, .pyc files
        serve_cpu: list[float] = []
        bare_cpu: list[float] = []
        serve = [once(prefix, tmp, serve_cpu) for _ in range(rounds)]
        bare = [_bare(bare_cpu) for _ in range(rounds)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ms = median(serve) * 1000
    return Result(
        "serve: exec to first pong",
        round(ms, 1),
        "ms",
        target=f"<= {TARGET_MS:g}",
        ok=ms <= TARGET_MS,
        detail=f"bare python -c pass: {median(bare) * 1000:.1f} ms; CPU time: serve "
        f"{median(serve_cpu) * 1000:.1f} ms, bare {median(bare_cpu) * 1000:.1f} ms",
        data={
            "serve_ms": [round(x * 1000, 1) for x in serve],
            "bare_ms": [round(x * 1000, 1) for x in bare],
            "serve_cpu_ms": [round(x * 1000, 1) for x in serve_cpu],
            "bare_cpu_ms": [round(x * 1000, 1) for x in bare_cpu],
        },
    )


if __name__ == "__main__":
    r = run()
    print(f"{r.name}: {r.value} {r.unit} ({r.detail})")
