"""The server's side of the native stand-in (issue 34): the socket its launcher finds, and the
fork server behind it, started on first use and ended with the server.

A simherdr server whose API socket file is (device, inode, mtime in ns) listens on the Linux
abstract socket ``\\0simherdr-standin-<dev>-<ino>-<mtime>`` (hex; the time because an inode is
reused at once by the next socket file, while the holder of the old name may still be closing:
that server's launchers then met the wrong name): no file to clean up, gone with the last process that
holds it.  The first launcher that connects starts the fork server
(:mod:`simherdr.stub.forkserver`: ``python -I -S`` of this interpreter, in a session of its
own), which gets the listening socket (that launcher still in its backlog) and a lifeline
pipe, and serves every call from then on; this loop stops watching the socket.  :meth:`StandinHost.close`
closes the lifeline (the fork server ends every call still running, then itself) and waits for
it; a server that dies closes the lifeline the same way (the kernel closes its descriptors).
:class:`SharedStandin`: one fork server for the calls to many servers (a test suite).

Another process of the same user only may use it: the launcher checks the fork server's
credentials (SO_PEERCRED) before it sends anything, the fork server checks the launcher's.
A socket that is not a simherdr's (a real herdr, the record proxy, a client's fake) has no such
name, and the launcher runs the Python stand-in.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import Mapping

_BOOT = "import sys; sys.path.insert(0, %r); from simherdr.stub.forkserver import main; main()"
#: room in the fork server's command line for its children's (they show their caller's argv
#: there: simherdr/stub/forkserver.py _show_as)
_TITLE_ROOM = " " * 1024
#: the dynamic linker resolves every symbol at the fork server's start (and at each dlopen):
#: lazily, each forked call resolved again what it called first (a symbol lookup through every
#: library's tables, a copy of the written GOT page; ~30 page faults a call). Only the fork
#: server's own environment: a call runs with its caller's (forkserver._set_environ).
_BIND_NOW = {"LD_BIND_NOW": "1"}
#: CHOICE(standin-env): the fork server starts with only the environment its own start reads
#: (the locale, the dynamic loader's and the C library's variables, its own settings), not the
#: server's whole environment: a call sets its caller's (forkserver._set_environ), and each
#: variable of the fork server's own is one more its forked child unsets and frees on every
#: call (~30 page faults of ~35 variables)
_START_ENV_PREFIXES = ("LC_", "LD_", "MALLOC_", "SIMHERDR_STANDIN_")
_START_ENV_NAMES = frozenset(
    ("LANG", "LANGUAGE", "TZ", "TZDIR", "GLIBC_TUNABLES", "LOCPATH", "GCONV_PATH", "NLSPATH")
)
#: how long close() waits for the fork server to end its calls and itself
CLOSE_TIMEOUT = 5.0


def abstract_name(identity: tuple[int, int, int]) -> bytes:
    """The abstract socket name for an API socket file (its st_dev, st_ino, st_mtime_ns), as
    launcher.c writes it."""
    return b"\0simherdr-standin-%x-%x-%x" % identity


def hold_name(identity: tuple[int, int, int] | None) -> socket.socket | None:
    """Hold the stand-in name of a socket file that is not a simherdr's but reads no peer's pid
    (bound, never listened on; the caller closes it with its listener): a launcher installed
    with a shared fork server (:class:`SharedStandin`) sends its calls there, as for a
    simherdr's; any other launcher meets a name that refuses, and runs the Python stand-in as
    it did. None where there is no such name (no identity, not Linux, the name taken)."""
    if identity is None or not sys.platform.startswith("linux"):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(abstract_name(identity))
    except OSError:
        sock.close()
        return None
    return sock


def _project_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _spawn(
    sock: socket.socket, extra: list[str] | None = None, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen, int]:
    """Start the fork server on the listening ``sock`` (OSError when it cannot start): the
    process and the write end of its lifeline (closing it ends the fork server)."""
    lifeline_r, lifeline_w = os.pipe()
    fds = (sock.fileno(), lifeline_r)
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _BOOT % _project_root()]
            + [str(fd) for fd in fds]
            + (extra or [])
            + [_TITLE_ROOM],
            pass_fds=fds,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(_start_env(os.environ if env is None else env), **_BIND_NOW),
            start_new_session=True,  # a terminal's Ctrl-C reaches the calls by their launchers
        )
    except OSError:
        os.close(lifeline_w)
        raise
    finally:
        os.close(lifeline_r)
    return process, lifeline_w


def _start_env(env: Mapping[str, str]) -> dict[str, str]:
    """What of ``env`` the fork server starts with (CHOICE(standin-env))."""
    return {
        k: v for k, v in env.items() if k in _START_ENV_NAMES or k.startswith(_START_ENV_PREFIXES)
    }


class StandinHost:
    """The abstract listening socket, then the fork server that took it over."""

    def __init__(self, sock: socket.socket, loop: asyncio.AbstractEventLoop):
        self.sock: socket.socket | None = sock
        self.loop = loop
        self.process: subprocess.Popen | None = None
        self.lifeline: int | None = None
        loop.add_reader(sock.fileno(), self._first)

    @classmethod
    def open(cls, identity: tuple[int, int, int] | None) -> StandinHost | None:
        """Listen for the launchers of the API socket ``identity``; None when that is not
        possible (no identity, not Linux, the name taken): the launchers run the Python
        stand-in."""
        if identity is None or not sys.platform.startswith("linux"):
            return None
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(abstract_name(identity))
            sock.listen(128)
        except OSError:
            sock.close()
            return None
        sock.setblocking(False)
        return cls(sock, asyncio.get_running_loop())

    def _first(self) -> None:
        """A launcher is waiting: start the fork server, which accepts it (and every later
        one) itself."""
        sock = self.sock
        if sock is None:
            return
        self.loop.remove_reader(sock.fileno())
        self.sock = None
        try:
            self.process, self.lifeline = _spawn(sock)
        except OSError:
            pass  # no fork server: the waiting launcher reads EOF, falls back
        finally:
            sock.close()  # the fork server holds it now

    async def close(self) -> None:
        if self.sock is not None:
            self.loop.remove_reader(self.sock.fileno())
            self.sock.close()
            self.sock = None
        if self.lifeline is not None:
            os.close(self.lifeline)
            self.lifeline = None
        process, self.process = self.process, None
        if process is None:
            return
        try:
            pidfd = os.pidfd_open(process.pid)
        except (AttributeError, OSError):
            pidfd = None
        if pidfd is not None:
            ended = self.loop.create_future()
            self.loop.add_reader(pidfd, lambda: ended.done() or ended.set_result(None))
            try:
                await asyncio.wait_for(ended, CLOSE_TIMEOUT)
            except TimeoutError:
                process.kill()
            finally:
                self.loop.remove_reader(pidfd)
                os.close(pidfd)
        try:
            process.wait(CLOSE_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def close_now(self) -> None:
        """Synchronous: for an owner whose loop is gone."""
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.lifeline is not None:
            os.close(self.lifeline)
            self.lifeline = None
        if self.process is not None:
            try:
                self.process.wait(CLOSE_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


class SharedStandin:
    """One fork server for the native stand-in calls of a run that starts many servers (a test
    suite: a server per test would start a fork server per test, ~0.1 s of CPU each, for a few
    calls).

    CHOICE(standin-shared): it listens on the abstract socket ``\\0`` + :attr:`name`; a native
    launcher installed while ``SIMHERDR_STANDIN_SERVER`` holds that name (:meth:`install_env`)
    sends there the calls the socket's own fork server would serve (a simherdr's: the socket's
    derived name is held), for any simherdr, without starting theirs; the stand-in in its
    child connects to ``$HERDR_SOCKET_PATH`` itself.  Any other socket still runs the Python
    stand-in in the caller's process (launcher.c).  The fork server starts now and loads the
    stand-in at its first call; it lives as long as its owner: :meth:`close`, or the owner's
    death (the lifeline, and PR_SET_PDEATHSIG) ends it and every call still running."""

    def __init__(self, name: str, process: subprocess.Popen, lifeline: int):
        self.name = name
        self.process: subprocess.Popen | None = process
        self.lifeline: int | None = lifeline

    @classmethod
    def start(cls, warm_up: bool = True) -> SharedStandin | None:
        """A shared fork server of this interpreter and tree; None where there can be none
        (not Linux, the socket or the process refused).  ``warm_up=False``: its children do
        not warm up (forkserver.WARM_UP_ENV: less CPU in all, a little more on a call's path)."""
        if not sys.platform.startswith("linux"):
            return None
        import secrets

        from .stub.forkserver import WARM_UP_ENV

        name = "simherdr-standin-shared-%d-%s" % (os.getpid(), secrets.token_hex(8))
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(b"\0" + name.encode())
            sock.listen(128)
            env = dict(os.environ)
            if not warm_up:
                env[WARM_UP_ENV] = "0"
            process, lifeline = _spawn(sock, ["--owner", str(os.getpid())], env)
        except OSError:
            return None
        finally:
            sock.close()  # the fork server holds it (or nobody: the launchers fall back)
        return cls(name, process, lifeline)

    def install_env(self) -> dict[str, str]:
        """What an install needs in its environment to write launchers that use this one."""
        from .stub.native import SHARED_ENV

        return {SHARED_ENV: self.name}

    def close(self) -> None:
        """End it: the idle children and the calls still running, then the fork server."""
        if self.lifeline is not None:
            os.close(self.lifeline)
            self.lifeline = None
        process, self.process = self.process, None
        if process is None:
            return
        process.terminate()  # (a forked child of the owner may hold the lifeline too)
        try:
            process.wait(CLOSE_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
