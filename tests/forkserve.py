"""``simherdr serve`` as a real process without a Python start-up per process.

A multiprocessing forkserver imports the serve path once; each :func:`start` forks it and runs
the CLI's own ``main(["serve", ...])`` in the child. The child is a process of its own (its pid,
its sockets, its signal handlers, its exit status, its stderr), as ``python -m simherdr serve``
is; only the interpreter's start-up and the imports (~0.2 s of CPU each) are paid once.

For tests that start many servers to race them against each other: the race is in the start,
not in the interpreter's start-up (forked starters even start closer together, a tighter
race). Each such race keeps one test that spawns the real ``python -m simherdr serve``
(tests/hostile/test_socket_lifecycle.py).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import tempfile
from multiprocessing.context import BaseContext

# what `simherdr serve` imports on its way to listening: imported once, in the forkserver
PRELOAD = [
    "simherdr.cli",
    "simherdr.serving",
    "simherdr.server",
    "simherdr.simulator",
    "simherdr.plugins.runtime",
]
_ctx: BaseContext | None = None


def _context() -> BaseContext:
    global _ctx
    if _ctx is None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([*PRELOAD, __name__])
        _ctx = ctx
    return _ctx


def _serve(argv: list[str], err_path: str) -> None:
    """The child: stderr to ``err_path``, then the CLI's main, its status as the exit status."""
    fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # the process's own stderr
    from simherdr.cli import main

    sys.exit(main(argv))


class ForkedServe:
    """The subset of :class:`subprocess.Popen` the lifecycle tests use (``poll``,
    ``returncode``, ``stderr.read()``, ``send_signal``, ``wait``)."""

    def __init__(self, argv: list[str]):
        fd, self._err_path = tempfile.mkstemp(prefix="forkserve-", suffix=".err")
        os.close(fd)
        self._proc = _context().Process(target=_serve, args=(argv, self._err_path), daemon=True)
        self._proc.start()
        self.pid = self._proc.pid
        self.stderr = _Stderr(self._err_path)

    @property
    def returncode(self) -> int | None:
        return self._proc.exitcode

    def poll(self) -> int | None:
        return self._proc.exitcode

    def send_signal(self, sig: int) -> None:
        if self._proc.exitcode is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def wait(self, timeout: float | None = None) -> int:
        self._proc.join(timeout)
        if self._proc.exitcode is None:
            raise TimeoutError(f"forked serve {self.pid} still running after {timeout} s")
        return self._proc.exitcode

    def __del__(self) -> None:
        try:
            os.unlink(self._err_path)
        except OSError:
            pass


class _Stderr:
    """The child's stderr as a file the parent reads once it has exited."""

    def __init__(self, path: str):
        self.path = path

    def read(self) -> str:
        with open(self.path, encoding="utf-8", errors="replace") as f:
            return f.read()


def start(argv: list[str]) -> ForkedServe:
    """``simherdr <argv>`` (``["serve", "--socket", path, ...]``) in a forked child."""
    return ForkedServe(argv)


def stop() -> None:
    """Stop the forkserver if one was started, and reap it (its CPU, and its children's, then
    counts in this process's children: the suite's CPU time stays honest)."""
    if _ctx is None:
        return
    from multiprocessing import forkserver

    forkserver._forkserver._stop()  # the stdlib's own stop (used by its tests): closes, reaps
