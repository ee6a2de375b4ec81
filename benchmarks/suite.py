"""The whole ``make test`` (``.venv/bin/python -m pytest -n auto -q``) as a subprocess: its
wall time on this machine (target < 60 s on 2 cores)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from .common import ROOT, Result

TARGET = 60.0


def run(timeout: float = 900.0) -> Result:
    venv_python = os.path.join(ROOT, ".venv", "bin", "python")
    python = venv_python if os.path.exists(venv_python) else sys.executable
    argv = [python, "-m", "pytest", "-n", "auto", "-q"]  # exactly `make test`
    t0 = time.perf_counter()
    try:
        p = subprocess.run(
            argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout
        )
        out, rc = p.stdout.decode(errors="replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode(errors="replace"), None
    wall = time.perf_counter() - t0
    summary = next(
        (
            ln
            for ln in reversed(out.strip().splitlines())
            if " in " in ln and ("passed" in ln or "failed" in ln or "error" in ln)
        ),
        out.strip()[-200:],
    )
    ok = rc == 0 and wall < TARGET
    detail = f"{os.cpu_count()} cores; pytest: {summary.strip('= ')}"
    if rc is None:
        detail += f" (killed after {timeout:.0f} s)"
    elif rc != 0:
        detail += f" (exit status {rc}: the suite did not pass)"
    return Result(
        "make test wall time",
        round(wall, 1),
        "s",
        f"< {TARGET:g}",
        ok,
        detail,
        {"wall_s": wall, "returncode": rc, "cores": os.cpu_count(), "summary": summary},
    )
