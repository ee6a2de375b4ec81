"""``simherdr serve`` as a real process without a Python start-up per process.

A multiprocessing forkserver imports the serve path once; each :func:`start` forks it and runs
the CLI's own ``main(["serve", ...])`` in the child, with the caller's environment and working
directory. The child is a process of its own (its pid, its sockets, its signal handlers, its
exit status and exit hooks, its stdout and stderr), as ``python -m simherdr serve`` is; only
the interpreter's start-up and the imports are paid once (a start and stop: ~13 ms of CPU
forked, ~57 ms spawned; the forkserver itself ~120 ms, once per worker, with what a served
request loads too: a child answering requests had imported ~40 modules itself, ~15 ms).

For tests of what a running server does (answers, persists, stops on a signal or on
``server.stop``, races another start), not of its start as a process: :func:`spawn_server` is
:func:`simherdr.testing.spawn_server` forked. Each such behaviour keeps one test that spawns
the real ``python -m simherdr serve`` (e.g. tests/hostile/test_socket_lifecycle.py's
simultaneous starts, tests/core/test_serve.py's SIGTERM, tests/core/test_user_errors.py's
start and stop lines, tests/persist/test_persist.py's first --persist start).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import subprocess
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
    "simherdr.run",  # forkserve.run(["run", ...])
    "simherdr.stub.install",
    "simherdr.stub.cli.launch",  # launch_server
    # what a served request loads on first use (the model, the handlers' helpers, the simulated
    # panes and the screen engine with its C library, the agent layer, git discovery): each
    # forked child that answered requests imported these itself (~40 modules)
    "simherdr.handlers.common",
    "simherdr.handlers.matching",
    "simherdr.panes.simulated",
    "simherdr.panes.engine",
    "simherdr.panes.screens",
    "simherdr.agents.layer",
    "simherdr.agents.occupant",
    "simherdr.git.worktrees",
    "simherdr.model.hub",
    "simherdr.model.terminal_detection",
    "simherdr.model.terminal_reports",
    "simherdr.outbox",
    "simherdr.facts.shellquote",
]
_ctx: BaseContext | None = None


def _context() -> BaseContext:
    global _ctx
    if _ctx is None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([*PRELOAD, __name__])
        _ctx = ctx
    return _ctx


def _serve(
    argv: list[str],
    out_path: str,
    err_path: str,
    env: dict[str, str],
    cwd: str,
    launch: str | None = None,
) -> None:
    """The child: the caller's environment and directory (as a spawned process inherits them),
    stdout to ``out_path``, stderr to ``err_path``, then the CLI's main, its status as the exit
    status, and the interpreter's exit hooks as a process's exit runs them. ``launch`` (a
    release): the stand-in's ``herdr server`` instead, which execs ``simherdr serve``."""
    import atexit

    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    for target, path in ((1, out_path), (2, err_path)):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, target)
        os.close(fd)
    # the process's own stdout and stderr (line-buffered stderr, as a spawned Python's)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)
    if launch is not None:
        from simherdr.stub.cli import launch as launcher

        sys.argv = ["-c"]  # as `python -c` running the launcher
        os.execve = _exec_serve  # type: ignore[assignment]  # its exec of `simherdr serve`
        status = launcher.run("server", argv, dict(os.environ), launch, sys.stdout, sys.stderr)
        sys.stderr.flush()
        sys.exit(status)
    from simherdr.cli import main

    try:
        status = main(argv)
    finally:
        atexit._run_exitfuncs()
    sys.exit(status)


def _exec_serve(path: str, argv: list[str], env: dict[str, str]) -> None:
    """The launcher's ``os.execve`` of ``simherdr serve`` (``python -E -c BOOT serve ...``,
    simherdr.stub.cli.launch.serve_argv) in the forked launcher: the CLI's main in this
    process, preloaded, with the environment the exec gives the server (its process title
    in it, taken out by serve as ever), and the server's status as the process's. The exec
    of a new Python itself (the boot line, ``-E``, the title over a fresh argv) is the
    stand-in's own ``herdr server``'s: tests/stub/test_cli_local_e2e.py,
    test_cli_sessions.py's hostile-variables test, test_server_process_title.py."""
    import atexit

    from simherdr.stub.cli.launch import serve_argv

    head = serve_argv({}, "0", "")[:4]  # [sys.executable, "-E", "-c", BOOT]
    if [path, *argv[1:4]] != [sys.executable, *head[1:]] or argv[4] != "serve":
        raise OSError(f"forkserve: not the launcher's exec of simherdr serve: {argv[:5]}")
    os.environ.clear()
    os.environ.update(env)
    from simherdr.cli import main

    try:
        status = main(argv[4:])
    finally:
        atexit._run_exitfuncs()
    sys.exit(status)


class ForkedServe:
    """The subset of :class:`subprocess.Popen` the tests use (``poll``, ``returncode``,
    ``stdout.read()`` and ``stderr.read()`` (text, once it exited), ``send_signal``,
    ``terminate``, ``kill``, ``wait``)."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        launch: str | None = None,
    ):
        self._paths = []
        for suffix in (".out", ".err"):
            fd, path = tempfile.mkstemp(prefix="forkserve-", suffix=suffix)
            os.close(fd)
            self._paths.append(path)
        env = dict(os.environ if env is None else env)
        self._proc = _context().Process(
            target=_serve,
            args=(argv, *self._paths, env, os.path.abspath(cwd or "."), launch),
            daemon=True,
        )
        self._proc.start()
        self.pid = self._proc.pid
        self.stdout, self.stderr = (_Output(path) for path in self._paths)

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

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        self._proc.join(timeout)
        if self._proc.exitcode is None:
            raise TimeoutError(f"forked serve {self.pid} still running after {timeout} s")
        return self._proc.exitcode

    def __del__(self) -> None:
        for path in self._paths:
            try:
                os.unlink(path)
            except OSError:
                pass


class _Output:
    """The child's stdout or stderr as a file the parent reads (all of it: once it exited)."""

    def __init__(self, path: str):
        self.path = path

    def read(self) -> str:
        with open(self.path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def close(self) -> None:
        """Nothing to close (a pipe's would be): the file is read whole by :meth:`read`."""


def start(
    argv: list[str], env: dict[str, str] | None = None, cwd: str | None = None
) -> ForkedServe:
    """``simherdr <argv>`` (``["serve", "--socket", path, ...]``) in a forked child, with
    ``env`` (default: this process's environment) and ``cwd`` (default: this process's)."""
    return ForkedServe(argv, env, cwd)


def launch_server(env: dict[str, str], version: str) -> ForkedServe:
    """The stand-in's ``herdr server`` (simherdr.stub.cli.launch) in a forked child with
    ``env``: its checks and its command line for ``simherdr serve`` as ever, whose exec then
    runs serve's main in the same child (:func:`_exec_serve`: neither the launcher's nor the
    server's Python start is paid); its status and stderr are the served process's."""
    return ForkedServe([], env, None, launch=version)


def run(
    argv: list[str],
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    timeout: float = 120.0,
) -> subprocess.CompletedProcess:
    """``subprocess.run(["simherdr", *argv], capture_output=True, text=True)`` with the command
    forked: its stdout, stderr and status. For commands whose start is not what a test checks
    (``simherdr run``'s own behaviour: the processes it starts are spawned as ever)."""
    proc = start(argv, env, cwd)
    try:
        status = proc.wait(timeout)
    except TimeoutError:
        proc.kill()
        proc.wait(10)
        raise
    return subprocess.CompletedProcess(
        ["simherdr", *argv], status, proc.stdout.read(), proc.stderr.read()
    )


def ping(path: str) -> bool:
    """Whether a server at ``path`` answers a ``ping`` (its loop runs)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5.0)
    try:
        s.connect(path)
        s.sendall(b'{"id":"forkserve","method":"ping","params":{}}\n')
        return b'"pong"' in s.recv(4096)
    except OSError:
        return False
    finally:
        s.close()


def spawn_server(
    path: str,
    version: str | None = None,
    time_scale: float = 1.0,
    extra: list[str] | None = None,
    timeout: float = 10.0,
    env: dict[str, str] | None = None,
) -> ForkedServe:
    """:func:`simherdr.testing.spawn_server` (the same command line) in a forked child: for
    tests of what a running server does, not of its start as a process. Waited for until a
    ``ping`` is answered: the server's loop runs, so its signal handlers are in place (a
    connect alone can succeed just before them: a signal then ends it as the default does)."""
    argv = ["serve", "--socket", path, "--time-scale", str(time_scale)]
    if version:
        argv += ["--herdr-version", str(version)]
    from simherdr.testing import wait_serving

    proc = start(argv + (extra or []), env)
    wait_serving(proc, path, ping, timeout)
    return proc


def stop() -> None:
    """Stop the forkserver if one was started, and reap it (its CPU, and its children's, then
    counts in this process's children: the suite's CPU time stays honest)."""
    if _ctx is None:
        return
    from multiprocessing import forkserver

    forkserver._forkserver._stop()  # the stdlib's own stop (used by its tests): closes, reaps
