"""``simherdr run``'s server: ``simherdr serve`` in a child forked from run's own process.

CHOICE ``run-server-fork``: the server is the CLI's ``serve`` (the same parser, the same code,
its own process, pid, session, standard streams and exit status) run in a forked child of
``simherdr run``, not a new interpreter: that start is an interpreter's and the imports run's
process has already made (~35 ms of CPU of ~135 for ``simherdr run -- true``; a run forked from
a process that has loaded the server, tests/forkserve.py's, ~75 ms). What a spawned child got
from ``subprocess.Popen`` the forked child gets itself: a session of its own, SIGTERM when run
dies (PR_SET_PDEATHSIG), stdin ``/dev/null``, stdout and stderr to the server log, no other
descriptor, the default signal dispositions, the server's environment, no exit hook of run's.
Its command line shows ``simherdr serve ...`` as far as run's own command line has room
(:func:`simherdr.proctitle.set_title`: the kernel's argv area cannot grow), so ``pgrep -f
'simherdr serve'`` finds it. ``SIMHERDR_RUN_SERVER=spawn`` (or a platform without
PR_SET_PDEATHSIG, or a run with threads) spawns ``python -m simherdr serve`` as before.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

#: The variable that chooses how the server starts: ``fork`` (the default) or ``spawn``.
MODE_ENV = "SIMHERDR_RUN_SERVER"


def flush_std_streams() -> None:
    """stdout and stderr flushed, as an interpreter's exit would (a closed or broken one
    ignored): before a fork (nothing written twice) and before ``os._exit``."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


#: its values: the server forked from run's process, or a new ``python -m simherdr serve``
MODES = ("fork", "spawn")


def mode_error(env: dict[str, str]) -> str | None:
    """What is wrong with ``env``'s :data:`MODE_ENV`, if anything (one line, what to set)."""
    mode = env.get(MODE_ENV, "fork")
    if mode in MODES:
        return None
    return f"{MODE_ENV}={mode!r}: set it to fork or spawn (or leave it unset: fork)"


def forking(env: dict[str, str]) -> bool:
    """Whether the server is forked (CHOICE ``run-server-fork``)."""
    import threading

    if env.get(MODE_ENV, "fork") == "spawn" or not sys.platform.startswith("linux"):
        return False
    return threading.active_count() == 1  # a fork copies only the calling thread


class ForkedServer:
    """The forked server as the subset of :class:`subprocess.Popen` ``simherdr run`` uses
    (``pid``, ``returncode``, ``poll``, ``wait``, ``send_signal``)."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def _reap(self, flags: int) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, flags)
            except ChildProcessError:  # reaped elsewhere: its status is lost, as Popen's
                self.returncode = 0
                return self.returncode
            if pid == self.pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def poll(self) -> int | None:
        return self._reap(os.WNOHANG)

    def wait(self, timeout: float | None = None) -> int:
        if timeout is None:
            status = self._reap(0)
            assert status is not None
            return status
        deadline = time.monotonic() + timeout
        while (status := self.poll()) is None:
            if time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(["simherdr", "serve"], timeout)
            time.sleep(0.005)
        return status

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)


def fork_server(
    words: Sequence[str],
    env: dict[str, str],
    log_path: str,
    serve: Callable[[list[str]], int],
    title: Sequence[str],
    in_child: Callable[[], None],
) -> ForkedServer:
    """``serve(words)`` (the CLI's main: ``["serve", ...]``) in a forked child with ``env``,
    stdout and stderr to ``log_path``; ``in_child`` runs first in the child (PR_SET_PDEATHSIG)."""
    flush_std_streams()  # nothing of run's own is written twice
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    parent = os.getpid()
    pid = os.fork()
    if pid:
        os.close(log)
        return ForkedServer(pid)
    status = 1
    try:
        _become_server(log, parent, env, title, in_child)
        status = serve(list(words))
        import atexit

        atexit._run_exitfuncs()  # the server's own (PTY panes' shells, finalizers)
    except SystemExit as e:  # argparse's exit
        status = e.code if isinstance(e.code, int) else 1
    except BaseException:  # never back into run's code: a server's failure is its status
        import traceback

        traceback.print_exc()
    finally:
        flush_std_streams()
        os._exit(status)


def _become_server(
    log: int,
    parent: int,
    env: dict[str, str],
    title: Sequence[str],
    in_child: Callable[[], None],
) -> None:
    """What Popen's child and a new interpreter would have given the server."""
    import atexit

    os.setsid()  # start_new_session: a terminal's Ctrl-C reaches run, not the server
    in_child()
    if os.getppid() != parent:  # run ended before the death signal was armed
        os._exit(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    _close_from(3)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # an interpreter's own
    atexit._clear()  # run's exit hooks are run's
    os.environ.clear()
    os.environ.update(env)
    # the process's own standard streams (line-buffered stderr, as a spawned Python's)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    from .proctitle import set_title

    set_title(list(title))


def _close_from(low: int) -> None:
    """Every descriptor from ``low`` up, as Popen's ``close_fds`` closes them: the open ones
    listed in ``/proc/self/fd`` (a loop to the descriptor limit is ~10^6 calls where it is
    that high and the C library has no close_range)."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        os.closerange(low, os.sysconf("SC_OPEN_MAX"))
        return
    for fd in fds:
        if fd >= low:
            try:
                os.close(fd)
            except OSError:  # the listing's own descriptor, closed by now
                pass
