"""Shared helpers: statistics, one-request-per-connection clients, subprocess servers."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

from simherdr.testing import SocketClient

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def median(xs):
    return statistics.median(xs)


@dataclass
class Result:
    """One line of the table (and one entry of bench.json)."""

    name: str
    value: float | None  # the figure compared with the target
    unit: str  # "x", "ms", "sim s / wall s", "s"
    target: str | None = None  # e.g. "<= 1.5"
    ok: bool | None = None  # None: informational (no target)
    detail: str = ""
    data: dict = field(default_factory=dict)

    def verdict(self) -> str:
        return "" if self.ok is None else ("PASS" if self.ok else "MISS")

    def as_json(self) -> dict:
        return {
            "name": self.name,
            "value": self.value,
            "unit": self.unit,
            "target": self.target,
            "result": self.verdict() or None,
            "detail": self.detail,
            "data": self.data,
        }


def exchange(path: str, payload: bytes, timeout: float = 30.0) -> bytes:
    """herdr's client pattern: connect, send one line, read to EOF, close."""
    return SocketClient(path, timeout).exchange(payload)


def call(path: str, method: str, params: dict | None = None, rid: str = "bench") -> dict:
    return SocketClient(path, 30.0).request(method, params, rid)


def ok(path: str, method: str, params: dict | None = None) -> dict:
    return SocketClient(path, 30.0).ok(method, params)


def wait_for_socket(path: str, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    from simherdr.server import socket_answers

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path) and socket_answers(path):
            return
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise RuntimeError(f"server exited: {err}")
        time.sleep(0.01)
    proc.kill()
    raise RuntimeError(f"server at {path} did not start in {timeout:.0f}s")


def python_module(module: str, *args: str, **kw) -> subprocess.Popen:
    """``python -m module args`` from the project root (stderr kept for error reports)."""
    return subprocess.Popen(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        stdout=kw.pop("stdout", subprocess.DEVNULL),
        stderr=subprocess.PIPE,
        **kw,
    )


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    for f in (proc.stdout, proc.stderr):
        if f:
            f.close()


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"
