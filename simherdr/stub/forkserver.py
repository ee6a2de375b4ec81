"""The stand-in's fork server (issue 34): the unchanged stand-in, preloaded, run in a forked
child per call of the native launcher (``simherdr/stub/data/launcher.c``).

Started by the simherdr server when the first launcher connects (:mod:`simherdr.standin`),
with the abstract listening socket and a lifeline pipe; it ends when the lifeline reads EOF
(the server closed it, or died), and ends every call still running with it: no process,
socket or descriptor outlives the server.

Pre-forked: :data:`IDLE` children wait, each having run the stand-in once against no socket
(so the pages a call touches are its own already, not copied on the call's path), and accept
the next launcher themselves; the parent forks a replacement when one takes a call.  A call:
the child tells the parent (its pid and the connection, over a datagram pair), reads the
launcher's request (argv, environment, umask, ignored signals and mask; fds 0/1/2 and the
working directory by SCM_RIGHTS; the wire is in ``launcher.c``), takes the caller's
descriptors as its own 0/1/2, its working directory, umask, environment (``posix.environ``,
``os.environ`` and the C environment), ignored signals and mask, and runs
:func:`simherdr.stub.cli.core.launch` exactly as the Python launcher does, under the
interpreter's top-level rules (exit status, SystemExit, a traceback and exit 1, death by SIGINT
after a KeyboardInterrupt's traceback).  It reports its own exit status (after closing the
caller's descriptors); the parent reports a death by signal.  A launcher that goes away
(killed) ends its call: SIGKILL to the child, as the call was that process.

CHOICE(standin-exec): the stand-in's only ``execve`` (``herdr server`` becoming ``simherdr
serve``) is not run in the forked child: the child sends the program, argv and environment to
the launcher, which execs it in the caller's own process (pid, parent, process group and
terminal as the Python stand-in's exec keeps them).

CHOICE(standin-fallback): a launcher of another simherdr tree, another interpreter or a release
this tree does not know gets 'F' and runs the Python stand-in its install wrote.
"""

from __future__ import annotations

# A call's signal set-up uses the C functions: the signal module's wrappers turn every handler
# and number into an enum member (Enum's lookup; a ValueError caught for a function handler),
# ~80 page faults and ~0.3 ms in a forked child, for the same system calls.
import _signal  # type: ignore[import-not-found]  # (no stub: the signal module's own core)
import _socket
import errno
import gc
import io
import os
import posix
import select
import signal
import socket
import stat
import struct
import sys
import time
from collections.abc import Callable

TYPE_CHECKING = False  # (not typing's: importing typing costs the fork server's start ~7 ms)
if TYPE_CHECKING:
    from typing import Any

MAGIC = b"SHS2"  # (SHS1: no stdio field; its launchers get no answer and run the Python stand-in)
#: CHOICE(standin-pool): children waiting for a call (two: a caller's next call, and one more
#: for a parallel caller, find one ready; more are forked as they are taken)
IDLE = 2
#: a pool of cold children (WARM_UP_ENV=0: a test suite's) below IDLE is refilled to this many
#: at once: each fork write-protects the parent's pages again, and its next round (the notes,
#: the reaping, a launcher's end) copies every page it writes (~100 page faults): forks in
#: threes pay that once for three calls. Warm children are forked one at a time: their
#: warm-ups, run at once, would compete with the caller's next call for the CPU.
REFILL = IDLE + 2
#: after the server went away: how long the calls still running may take to see it (their
#: connections closed, a `herdr server stop` waiting for the socket to go) before SIGKILL
GRACE = 2.0
#: a report's send flags, as an int (the enum flags' ``|`` runs Enum's machinery per call)
_NOWAIT = int(socket.MSG_NOSIGNAL | socket.MSG_DONTWAIT)
#: the signals this process handles, reset to their defaults in a child (plain ints: an enum
#: member's conversion runs Enum's machinery in a forked child)
_HANDLED = (int(signal.SIGCHLD), int(signal.SIGTERM), int(signal.SIGHUP))
_SIGKILL = int(signal.SIGKILL)
#: a warm-up's socket: none (a warm-up must send nothing: the recorder sees only calls)
_NOWHERE = "/nonexistent/simherdr-standin-warm-up.sock"
_WARM_UP = (["pane", "get", "w1:p1"],)
#: ``0``: the idle children do not warm up (a test that makes hundreds of calls in a row
#: spends its CPU on the calls; read when the fork server starts)
WARM_UP_ENV = "SIMHERDR_STANDIN_WARM_UP"


#: CHOICE(standin-ctty): the verbs that may open ``/dev/tty`` (a direct attach whose stdin is
#: not a terminal: stub/cli/attach.py) run as the Python stand-in: a forked child has no
#: controlling terminal, the caller's process has.
_NEEDS_CONTROLLING_TERMINAL = {("terminal", "attach"), ("agent", "attach")}
#: CHOICE(standin-session): a call that reaches sockets other than $HERDR_SOCKET_PATH's -- a
#: verb of the session group (each session's socket), or an explicit global ``--session`` (it
#: beats HERDR_SOCKET_PATH, src/session.rs:173-181; stub/cli/core.py _configure_session) whose
#: socket is not a simherdr's -- runs as the Python stand-in: the launcher vouched for
#: $HERDR_SOCKET_PATH's socket only, and another may read its peers' pids (a recorder's relay
#: of a server the client launched matches connections to runs by pid:
#: simherdr/contract/recorder.py). A session verb is not served even where its sockets are
#: all absent or a simherdr's at the check: a launched server's relay may bind one before the
#: verb's probe (a client polling `session list` while its server starts).
_OTHER_SOCKETS_GROUPS = {"session"}
#: CHOICE(standin-shared-socketless): a launcher that names a shared fork server sends it the
#: calls with no socket at $HERDR_SOCKET_PATH too (launcher.c): served are the groups that reach
#: no socket (herdr's config file, the agents' integration files); any other such call runs as
#: the Python stand-in, as every call without a socket does elsewhere
_SOCKETLESS_GROUPS = {"config", "integration"}


def needs_python(argv: list[str], env: list[bytes] | None = None, shared: bool = False) -> bool:
    """Whether a call (argv without argv[0]; ``env``: its environment's entries, None when not
    known) must run in the caller's own process: its first two words, past the global options,
    name a verb of :data:`_NEEDS_CONTROLLING_TERMINAL`, or it reaches other sockets than
    $HERDR_SOCKET_PATH's (:data:`_OTHER_SOCKETS_GROUPS`, a global ``--session`` before ``--``
    whose socket is not a simherdr's), or (``shared``: the call came to a shared fork server)
    it has no socket there and is not of :data:`_SOCKETLESS_GROUPS`."""
    words: list[str] = []
    skip = False
    globals_end = False  # past a literal "--": no global --session (_configure_session)
    session = None  # the last global --session's value, as herdr takes it
    for index, arg in enumerate(argv):
        if skip:
            skip = False
        elif arg == "--":
            globals_end = True
        elif not globals_end and arg == "--session":
            session = argv[index + 1] if index + 1 < len(argv) else ""
            skip = True
        elif not globals_end and arg.startswith("--session="):
            session = arg[len("--session=") :]
        elif arg in ("--session", "--remote", "--remote-keybindings", "--machine"):
            skip = True
        elif not arg.startswith("-") and len(words) < 2:
            words.append(arg)
    if tuple(words) in _NEEDS_CONTROLLING_TERMINAL:
        return True
    if words and words[0] in _OTHER_SOCKETS_GROUPS:
        return True
    if shared and env is not None and not (words and words[0] in _SOCKETLESS_GROUPS):
        if not _has_socket(env):
            return True
    return session is not None and not _a_simherdrs_session(session, env)


def _has_socket(env: list[bytes]) -> bool:
    """Whether the call's $HERDR_SOCKET_PATH is a socket (as launcher.c checks it; the first
    entry of the name, as _set_environ takes it)."""
    for entry in env:
        key, sep, value = entry.partition(b"=")
        if sep and key == b"HERDR_SOCKET_PATH":
            try:
                return bool(value) and stat.S_ISSOCK(os.stat(value).st_mode)
            except (OSError, ValueError):
                return False
    return False


def _a_simherdrs_session(name: str, env: list[bytes] | None) -> bool:
    """Whether session ``name``'s API socket (where the stand-in will connect: base.
    api_socket_path_for under the call's environment) is a simherdr's: its stand-in name is
    held (the launcher's bind probe, launcher.c name_taken)."""
    from .cli import base

    if env is None or base.validate_session_name(name):
        return False
    pairs: dict[str, str] = {}
    for entry in env:  # (the first of a name, as _set_environ takes it)
        key, sep, value = entry.partition(b"=")
        if sep and key:
            pairs.setdefault(
                key.decode("utf-8", "surrogateescape"), value.decode("utf-8", "surrogateescape")
            )
    active = None if name == base.DEFAULT_SESSION_NAME else name
    try:
        st = os.stat(base.api_socket_path_for(pairs, active))
    except (OSError, ValueError):
        return False
    if not stat.S_ISSOCK(st.st_mode):
        return False
    # the name launcher.c and simherdr/standin.py abstract_name derive from the socket file
    # (written here again: the stub imports nothing of simherdr's server side, and a server's
    # start answers its first ping before importing the stub: tests/core/test_serve_start.py)
    held = b"\0simherdr-standin-%x-%x-%x" % (st.st_dev, st.st_ino, st.st_mtime_ns)
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.bind(held)
    except OSError as exc:
        return exc.errno == errno.EADDRINUSE
    finally:
        probe.close()
    return False


def preload() -> dict[str, object]:
    """Import every module of the stand-in's CLI and resolve every release (the children share
    them); returns release name -> :class:`simherdr.stub.cli.base.Release`."""
    import importlib

    import simherdr.stub.cli as package
    from simherdr.facts.versions import RELEASES

    from .cli import base

    directory = os.path.dirname(package.__file__)
    for entry in sorted(os.listdir(directory)):
        if entry.endswith(".py") and entry != "__init__.py":
            importlib.import_module("simherdr.stub.cli." + entry[:-3])
    import simherdr.facts.paths  # noqa: F401  (imported by the stand-in on most calls)

    releases = {name: base.release_of(name) for name in RELEASES}
    _prebuild_groups(list(releases.values()))
    _prebuild_wires(list(releases.values()))
    return releases


def _prebuild_groups(releases: list) -> None:
    """Every command group's rows for every release, built once here: a call builds its
    group's on each run (the Python stand-in's start builds only its own; ~100 Python calls
    and ~70 records in every forked child). The command table (``commands.GROUPS``, which
    the CLI core reads) then answers these releases from what was built; any other release
    is built as before. What a call does with them stays in its own child (a fork of this
    heap), as it would in its own process."""
    from .cli import commands

    for group, build in list(commands.GROUPS.items()):
        built = {}
        for release in releases:
            try:
                built[id(release)] = build(release)
            except Exception:  # (built at its call, as before: its error is the call's)
                pass
        commands.GROUPS[group] = _from_built(build, built)


def _prebuild_wires(releases: list) -> None:
    """Each release's client-socket codec (``simherdr.protocol.wire_for``: its table read from
    its JSON file and built, once per process), made here: a terminal verb made its own in
    every forked child (~1-6 ms and ~50-250 page faults of a `terminal session observe`)."""
    from .cli.termclient import codec_for

    for protocol in sorted({release.protocol for release in releases}):
        try:
            codec_for(protocol)
        except Exception:  # (a release without a table: its call says so, as before)
            pass


def _from_built(build, built: dict):
    def rows(release):
        found = built.get(id(release))
        return found if found is not None else build(release)

    return rows


class _Libc:
    """The C library's ``prctl`` and ``memmove``, looked up once in the parent; a child calls
    them by address (``_ctypes.call_function``: a ctypes function object's call -- argument
    conversion, the errno swap, the ``import ctypes`` -- cost a forked child ~30 page faults a
    call, the raw call ~10; where there is no such function, the function objects). Every
    argument is an int of 32 bits, a bytes object (its data) or a ctypes object (the argv
    area's start as a pointer, made here)."""

    def __init__(self, area: tuple[int, int] | None) -> None:
        import _ctypes
        import ctypes

        libc = ctypes.CDLL(None)
        call = getattr(_ctypes, "call_function", None)
        self.area = area
        self.dest = ctypes.c_void_p(area[0]) if area is not None else None
        self.prctl: Callable[..., object] = libc.prctl
        self.memmove: Callable[..., object] = libc.memmove
        if call is not None:
            prctl_at = ctypes.cast(libc.prctl, ctypes.c_void_p).value
            memmove_at = ctypes.cast(libc.memmove, ctypes.c_void_p).value
            self.prctl = lambda *args: call(prctl_at, args)
            self.memmove = lambda *args: call(memmove_at, args)

    def write_argv(self, data: bytes) -> None:
        """``data`` (the area's size) over this process's command line."""
        self.memmove(self.dest, data, len(data))


def _libc(area: tuple[int, int] | None = None) -> _Libc | None:
    """The C functions a child calls; None without them (no C library found, no ctypes)."""
    try:
        return _Libc(area)
    except (OSError, AttributeError, ImportError):
        return None


def _argv_area() -> tuple[int, int] | None:
    """Where this process's command line lives (``/proc/self/stat`` fields 48-49: arg_start,
    arg_end); a child writes its caller's argv there (:func:`_show_as`)."""
    try:
        with open("/proc/self/stat", "rb") as handle:
            data = handle.read()
        fields = data[data.rindex(b")") + 2 :].split()
        start, end = int(fields[48 - 3]), int(fields[49 - 3])
    except (OSError, ValueError, IndexError):
        return None
    return (start, end) if end > start else None


def _show_as(libc: _Libc | None, argv: list[bytes]) -> None:
    """Show the caller's argv as this child's command line and name (``ps``; the server's
    trace names a request's peer by it: ``herdr pane get ...`` as for the Python stand-in).
    The way :mod:`simherdr.proctitle` does it (this package may not import it), without the
    shortening: the rest of the area is NULs, the longest prefix of whole words that fits."""
    if libc is None or not argv:
        return
    libc.prctl(15, argv[0].rsplit(b"/", 1)[-1][:15], 0, 0, 0)  # PR_SET_NAME
    if libc.area is None:
        return
    start, end = libc.area
    size = end - start
    wanted = b"".join(word + b"\0" for word in argv)
    while argv and len(wanted) > size:
        argv = argv[:-1]
        wanted = b"".join(word + b"\0" for word in argv)
    libc.write_argv(wanted + bytes(size - len(wanted)))


def _die_with_parent(libc: _Libc | None) -> None:
    """PR_SET_PDEATHSIG: a child ends with the fork server, whatever ends it."""
    if libc is not None:
        libc.prctl(1, _SIGKILL, 0, 0, 0)


class ForkServer:
    refill = IDLE  # (REFILL for cold children: __init__)

    def __init__(self, listen_fd: int, lifeline_fd: int, root: str, shared: bool = False):
        self.shared = shared  # a SharedStandin's (CHOICE standin-shared-socketless)
        self.listener = socket.socket(fileno=listen_fd)
        self.listener.setblocking(False)
        self.lifeline = lifeline_fd
        self.root = root
        self.python = os.path.abspath(sys.executable)
        self.releases = preload()
        _spare_stdio()
        self.libc = _libc(_argv_area())  # (for the children's _die_with_parent, _show_as)
        from .cli.core import launch

        # what a child uses, made here once: the stand-in's entry (an import statement in a
        # child runs the import machinery: ~10 page faults a call) and the poll of its wait
        # (the listener and the lifeline)
        self.launch = launch
        self.child_poll = select.poll()
        self.child_poll.register(listen_fd, select.POLLIN)
        self.child_poll.register(lifeline_fd, select.POLLIN)

        self.pid = os.getpid()
        self.warm = os.environ.get(WARM_UP_ENV, "1") != "0"
        self.refill = IDLE if self.warm else REFILL
        self.idle: set[int] = set()
        self.busy: dict[int, _socket.socket] = {}  # pid -> the launcher's connection
        self.watched: dict[int, int] = {}  # connection fd -> pid
        self.quick_deaths = 0
        self.stopping: float | None = None  # the deadline of the calls still running
        self.notes, self.child_notes = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notes.setblocking(False)
        self.wakeup_r, self.wakeup_w = os.pipe()
        os.set_blocking(self.wakeup_w, False)
        os.set_blocking(self.wakeup_r, False)
        signal.set_wakeup_fd(self.wakeup_w)
        # (held here too: a child that sets them back to their defaults frees nothing)
        self.handlers = (lambda *_: None, lambda *_: self.kill_all())
        signal.signal(signal.SIGCHLD, self.handlers[0])
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, self.handlers[1])
        self.poll = select.poll()
        for fd in (lifeline_fd, self.notes.fileno(), self.wakeup_r):
            self.poll.register(fd, select.POLLIN)
        gc.collect()
        gc.freeze()  # the children share the preloaded heap; no collection touches its pages
        for _ in range(IDLE):
            self.fork_idle()

    # -- the pool ------------------------------------------------------------------------------
    def fork_idle(self) -> None:
        if self.stopping is not None or self.quick_deaths > 20:
            return  # stopping, or children die as they start: the launchers fall back
        try:
            pid = os.fork()
        except OSError:
            return
        if pid == 0:
            Idle(self).run()  # never returns
        self.idle.add(pid)

    def run(self) -> None:
        while True:
            timeout = None
            if self.stopping is not None:
                if not self.busy:
                    self.kill_all()
                left = self.stopping - time.monotonic()
                if left <= 0:
                    self.kill_all()
                timeout = max(1, int(left * 1000))
            try:
                events = self.poll.poll(timeout)
            except InterruptedError:
                continue
            for fd, _mask in events:
                if fd == self.lifeline:
                    self.stop_accepting()
                elif fd == self.notes.fileno():
                    self.read_notes()
                elif fd == self.wakeup_r:
                    try:
                        os.read(self.wakeup_r, 512)
                    except BlockingIOError:
                        pass
                    self.reap()
                else:
                    self.launcher_event(fd)

    def read_notes(self) -> None:
        """Children that took a call: (pid, the launcher's connection)."""
        while True:
            try:
                data, ancdata, _flags, _addr = self.notes.recvmsg(
                    16, socket.CMSG_SPACE(struct.calcsize("i"))
                )
            except (BlockingIOError, InterruptedError):
                return
            fds: list[int] = []
            for level, kind, payload in ancdata:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds += struct.unpack("%di" % (len(payload) // 4), payload[: len(payload) & ~3])
            if len(data) != 4 or len(fds) != 1:
                for fd in fds:
                    os.close(fd)
                continue
            (pid,) = struct.unpack("<I", data)
            conn = _socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fds[0])  # (as in wait)
            if pid in self.idle:
                self.idle.discard(pid)
                self.busy[pid] = conn
                self.watched[conn.fileno()] = pid
                self.poll.register(conn.fileno(), select.POLLIN)
                self.quick_deaths = 0
                if not self.idle:  # (else the replacement is forked when a call ends: a
                    self.fork_idle()  # warm-up then competes with no call for the CPU)
            else:  # already reaped (it ended before this note was read): nothing to watch
                conn.close()

    def launcher_event(self, fd: int) -> None:
        """A watched launcher's connection polled readable: the launcher sends nothing more
        after its request, so that is its end (gone: its call is killed), unless the event is
        stale: an earlier event of the same poll closed that connection and a new call's took
        its descriptor number (a call's child reports its own status, its launcher exits, its
        end and the next call's note come in one poll): the new call has nothing to read."""
        pid = self.watched.get(fd)
        conn = self.busy.get(pid) if pid is not None else None
        if pid is None or conn is None:
            return
        try:
            conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return  # nothing there: not this connection's event
        except OSError:
            pass  # (reset: gone too)
        self.unwatch(fd)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def unwatch(self, fd: int) -> None:
        if self.watched.pop(fd, None) is not None:
            try:
                self.poll.unregister(fd)
            except KeyError:
                pass

    def reap(self) -> None:
        self.read_notes()  # a child's note is sent before it runs: read it before its end
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid in self.idle:
                # its note, sent before its call ran, may have come after the read above: a call
                # that ended between that read and this wait is a call (its launcher gets its
                # status), not a child that ended idle (its launcher met an EOF: "went away")
                self.read_notes()
            if pid in self.idle:  # it ended before taking a call
                self.idle.discard(pid)
                if status != 0:  # a failure (not a launcher gone before its request)
                    self.quick_deaths += 1
                self.fork_idle()
                continue
            conn = self.busy.pop(pid, None)
            if conn is None:
                continue
            if os.WIFSIGNALED(status):
                message = b"S" + struct.pack("<I", os.WTERMSIG(status))
            else:  # (the child said so itself already; the launcher reads the first)
                message = b"E" + struct.pack("<I", os.waitstatus_to_exitcode(status) & 0xFF)
            try:
                conn.send(message, _NOWAIT)
            except OSError:
                pass
            self.unwatch(conn.fileno())
            conn.close()
            if len(self.idle) < IDLE:
                while (
                    len(self.idle) < self.refill
                    and self.stopping is None
                    and self.quick_deaths <= 20
                ):
                    self.fork_idle()

    def stop_accepting(self) -> None:
        """The server is gone: no more calls; the idle children end now, the running calls
        within :data:`GRACE`."""
        self.stopping = time.monotonic() + GRACE
        try:
            self.poll.unregister(self.lifeline)
        except KeyError:
            pass
        self.listener.close()
        for pid in list(self.idle):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def kill_all(self) -> None:
        """End every child, then this process."""
        for pid in list(self.idle) + list(self.busy):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        while True:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
            except InterruptedError:
                continue
        os._exit(0)


# -- a child -----------------------------------------------------------------------------------


class Idle:
    """A pre-forked child: warm, waiting for a call, then that call."""

    def __init__(self, server: ForkServer):
        self.server = server
        self.listener = server.listener
        self.lifeline = server.lifeline
        self.notes = server.child_notes
        self.releases = server.releases

    def run(self) -> None:
        # no collection in a child, from its start (as the Python launcher runs the stand-in:
        # boot.start): a collection writes the header of every object it visits, each a page
        # copied from the fork server
        gc.disable()
        code = 1
        try:
            _die_with_parent(self.server.libc)
            if os.getppid() != self.server.pid:
                os._exit(0)
            _signal.set_wakeup_fd(-1)
            for sig in _HANDLED:
                _signal.signal(sig, _signal.SIG_DFL)
            if self.server.warm:
                self.warm_up()
            conn = self.wait()
            code = self.call(conn)
        finally:
            _exit(code)

    def warm_up(self) -> None:
        """Run the stand-in against no socket (its pages become this child's own now, not
        on the call's path); it writes only to memory."""
        from .cli.core import run

        release = self.releases.get("0.9.3") or next(iter(self.releases.values()))
        for argv in _WARM_UP:
            try:
                run(
                    argv,
                    version=release,
                    env={"HERDR_SOCKET_PATH": _NOWHERE},
                    stdout=io.BytesIO(),
                    stderr=io.BytesIO(),
                )
            except Exception:
                pass
        # and what a call's set-up touches (its pages too): the streams, the environment
        _fresh_stdio(_NULL_STDIO)
        _set_environ([k + b"=" + v for k, v in os.environb.items()])

    def wait(self) -> _socket.socket:
        poll = self.server.child_poll
        while True:
            try:
                events = poll.poll()
            except InterruptedError:
                continue
            for fd, _mask in events:
                if fd == self.lifeline:
                    os._exit(0)
            try:
                fd, _ = self.listener._accept()  # type: ignore[attr-defined]
            except (BlockingIOError, InterruptedError):
                continue  # another child took it
            except OSError:
                os._exit(0)
            # the C socket: socket.socket's accept makes the family and type enum members
            # (Enum's machinery: ~40 page faults of a forked child); its methods are these
            conn = _socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fd)
            conn.setblocking(True)
            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            if struct.unpack("3i", creds)[1] != os.geteuid():
                conn.close()  # another user's process: never served
                continue
            return conn

    def call(self, conn: _socket.socket) -> int:
        request = _read_request(conn)
        if request is None:
            return 0
        data, fds = request
        # the parent watches the connection from here on (the launcher sends nothing more:
        # readable means it went away) and reports a death by signal
        self.notes.sendmsg(
            [struct.pack("<I", os.getpid())],
            [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", conn.fileno()))],
        )
        fields = data.split(b"\0")
        python, root, release_name, exe = (f.decode("utf-8", "surrogateescape") for f in fields[:4])
        release = self.releases.get(release_name)
        rest = fields[8:]
        split = rest.index(b"") if b"" in rest else 0
        argv = [a.decode("utf-8", "surrogateescape") for a in rest[:split]]
        if (
            not _same_interpreter(python, self.server.python)
            or root != self.server.root
            or release is None
            or len(fds) != 4
            or not argv
            or needs_python(argv[1:], rest[split + 1 :], self.server.shared)
        ):
            conn.sendall(b"F")
            return 0
        try:  # the caller's process, made here; a failure runs the call the Python way
            _show_as(self.server.libc, [os.fsencode(exe), *rest[1:split]])
            umask, ignored, blocked, stdio = (int(f) for f in fields[4:8])
            env = [e for e in rest[split + 1 :] if e]  # (the message's final NUL leaves one "")
            for sig in range(1, 32):
                try:
                    if ignored >> sig & 1:
                        _signal.signal(sig, _signal.SIG_IGN)
                    elif sig not in _PYTHON_IGNORES and _signal.getsignal(sig) == _signal.SIG_IGN:
                        # ignored here (the fork server's starter ignored it: a server started
                        # in the background of a script), not by the caller: as the caller's
                        # Python stand-in would have it at its start
                        _signal.signal(sig, _AT_START.get(sig, _signal.SIG_DFL))
                except (OSError, ValueError):
                    pass
            _signal.pthread_sigmask(
                signal.SIG_SETMASK, [s for s in range(1, signal.NSIG) if blocked >> s & 1]
            )
            stdin, stdout, stderr, cwd = fds
            os.dup2(stdin, 0)
            os.dup2(stdout, 1)
            os.dup2(stderr, 2)
            os.fchdir(cwd)
            os.umask(umask)
            keep = conn.fileno()
            os.closerange(3, keep)
            os.closerange(keep + 1, 1 << 20)
            _set_environ(env)
            sys.argv = [exe] + argv[1:]
            _fresh_stdio(stdio)
        except Exception:
            conn.sendall(b"F")  # (nothing of the call ran: 0/1/2 were only duplicated)
            return 0
        # the launcher forwards its signals from now on (those that came before, too)
        conn.sendall(b"P" + struct.pack("<I", os.getpid()))
        global _CONN
        _CONN = conn
        os.execve = _exec_request(conn)  # CHOICE(standin-exec)
        posix._exit = _exit  # type: ignore[assignment]  # launch()'s clean exit reports first
        return _top_level(self.server.launch, argv[1:], release)


def _same_interpreter(theirs: str, ours: str) -> bool:
    """Whether the launcher's interpreter (its install's ``sys.executable``) is this one: the
    same path, or another path to the same file (a venv's ``python3`` and ``python``, the
    console script's shebang and pytest's: the stand-in runs under ``-I -S``, the binary is
    all that counts)."""
    if theirs == ours:
        return True
    try:
        return os.path.samefile(theirs, ours)
    except (OSError, ValueError):
        return False


def _read_request(conn: _socket.socket) -> tuple[bytes, list[int]] | None:
    """The launcher's request: (its fields, the descriptors that came with it)."""
    data = bytearray()
    fds: list[int] = []
    size = None
    while size is None or len(data) < size:
        try:
            chunk, ancdata, _flags, _addr = conn.recvmsg(
                1 << 16, socket.CMSG_SPACE(4 * struct.calcsize("i"))
            )
        except InterruptedError:
            continue
        except OSError:
            return None
        for level, kind, payload in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += struct.unpack("%di" % (len(payload) // 4), payload[: len(payload) & ~3])
        if not chunk:
            return None
        data += chunk
        if size is None and len(data) >= 8:
            if data[:4] != MAGIC:
                return None
            size = 8 + struct.unpack_from("<I", data, 4)[0]
    return bytes(data[8:size]), fds


_CONN: _socket.socket | None = None  # a call's launcher connection (the child's exit reports)
_real_exit = posix._exit


def _exit(code: int) -> None:
    """End the call: flush and close the caller's descriptors (its pipes see EOF when the
    launcher leaves), tell the launcher the status, end the process."""
    conn = _CONN
    if conn is not None:
        _flush()
        os.closerange(0, 3)
        try:
            conn.sendall(b"E" + struct.pack("<I", code & 0xFF), socket.MSG_NOSIGNAL)
        except OSError:
            pass
    _real_exit(code)


def _set_environ(env: list[bytes]) -> None:
    """The caller's environment, exactly: what the stand-in reads (``posix.environ``), what
    ``os`` reads and the C environment (``putenv``, as ``os.environ`` writes it)."""
    pairs = {}
    for entry in env:
        key, sep, value = entry.partition(b"=")
        if sep and key and key not in pairs:
            pairs[key] = value
    # os.environ and os.environb keep their entries in this very dict (os._createenviron);
    # the C calls are theirs (unsetenv, putenv), without their per-key Python wrappers
    data = posix.environ
    for key in [k for k in data if k not in pairs]:
        os.unsetenv(key)
    for key, value in pairs.items():
        if data.get(key) != value:
            os.putenv(key, value)
    data.clear()
    data.update(pairs)


#: the standard streams a call takes (:func:`_fresh_stdio`): per kind of descriptor (a pipe or
#: other that does not seek, a seekable file, a terminal), one made on such a descriptor
#: (:func:`_spare_stdio`); the interpreter's own under None
_SPARES: dict[int | None, tuple[Any, Any, Any]] = {}


def _spare_stdio() -> None:
    """Make, in the fork server, the streams its calls take: ``sys.stdin/stdout/stderr`` as the
    interpreter makes them at start (its ``create_stdio``: ``io.open(fd, mode, -1, closefd=
    False)``, the raw stream named ``<stdin>``..., a text wrapper of this interpreter's stdio
    encoding and errors, line-buffered on a terminal, stderr always), on descriptors 0/1/2
    made a pipe, a seekable file (/dev/null) and a terminal in turn: a stream keeps what it saw
    of its descriptor at its making (whether it seeks: a text wrapper made on a pipe must not
    ``tell``; the buffer's size: the descriptor's block size, a file's /dev/null's, 4096 as
    on the common file systems), so a call takes the ones its own descriptors match. Making
    three new streams in a forked child cost a call ~80 page faults (the codec look-ups, the
    decoder objects, the buffers)."""
    import io

    encoding = sys.stdout.encoding if sys.stdout else "utf-8"
    errors = (sys.stdout.errors if sys.stdout else None) or "strict"
    saved = [os.dup(fd) for fd in (0, 1, 2)]
    made: list[int] = []
    try:
        made += os.pipe()
        kinds = [(made[0], made[1]), (os.open(os.devnull, os.O_RDWR),) * 2]
        made.append(kinds[1][0])
        try:
            terminal = os.openpty()
            made += terminal
            kinds.append((terminal[1], terminal[1]))
        except OSError:  # (no terminals here: a pipe's, line-buffered)
            kinds.append(kinds[0])
        for kind, (read_end, write_end) in enumerate(kinds):
            streams = []
            for fd, name in ((0, "<stdin>"), (1, "<stdout>"), (2, "<stderr>")):
                os.dup2(read_end if fd == 0 else write_end, fd)
                binary = open(fd, "rb" if fd == 0 else "wb", -1, closefd=False)  # noqa: SIM115
                binary.raw.name = name  # type: ignore[attr-defined]
                streams.append(
                    io.TextIOWrapper(
                        binary,
                        encoding=encoding,
                        errors="backslashreplace" if fd == 2 else errors,
                        line_buffering=kind == _TERMINAL or fd == 2,
                    )
                )
            _SPARES[kind] = (streams[0], streams[1], streams[2])
        # the interpreter's own, held: a call that replaces them must not finalize them (their
        # teardown would cost it more than their making; they hold nothing to flush)
        _SPARES[None] = (sys.stdin, sys.stdout, sys.stderr)
    finally:
        for fd, old in zip((0, 1, 2), saved, strict=True):
            os.dup2(old, fd)
            os.close(old)
        for fd in made:
            os.close(fd)


_SEEKABLE, _TERMINAL = 1, 2  # (_SPARES' kinds; 0: neither)


def _fresh_stdio(stdio: int) -> None:
    """``sys.stdin/stdout/stderr`` as the interpreter would make them at start for the caller's
    0/1/2 (:func:`_spare_stdio`'s, never used: nothing read, nothing pending); ``stdio``: what
    the launcher saw of them (bit ``fd``: seekable, bit ``3 + fd``: a terminal)."""
    spares = _SPARES
    streams = [
        spares[_TERMINAL if stdio >> (3 + fd) & 1 else stdio >> fd & 1][fd] for fd in (0, 1, 2)
    ]
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams  # type: ignore[misc]


#: a warm-up's descriptors: /dev/null (seekable, no terminal)
_NULL_STDIO = 0b111


def _exec_request(sock: _socket.socket):
    def execve(path, argv, env):
        fields = [os.fsencode(path)] + [os.fsencode(a) for a in argv] + [b""]
        fields += [os.fsencode(k) + b"=" + os.fsencode(v) for k, v in env.items()]
        body = b"".join(f + b"\0" for f in fields)
        sock.sendall(b"X" + struct.pack("<I", len(body)) + body)
        _real_exit(0)  # (the launcher execs: no status to report)

    return execve


def _top_level(launch, argv, release) -> int:
    """``sys.exit(launch(argv, version=...))`` as the interpreter's top level runs it."""
    try:
        code = launch(argv, version=release)
        raise SystemExit(code)
    except SystemExit as exc:
        code = exc.code
        status = 0 if code is None else code if isinstance(code, int) else 1
        if not isinstance(code, int) and code is not None:
            try:
                print(code, file=sys.stderr)
            except Exception:
                pass
    except KeyboardInterrupt:
        sys.excepthook(*sys.exc_info())
        _flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        return 130  # (the signal ends the process first)
    except BaseException:
        sys.excepthook(*sys.exc_info())
        status = 1
    if not _flush():
        status = 120
    return status & 0xFF


#: what a Python start ignores whatever it inherited, and what it installs for a signal it
#: inherited at its default (the Python stand-in's dispositions, for a caller that ignores neither)
_PYTHON_IGNORES = frozenset({signal.SIGPIPE, signal.SIGXFSZ})
_AT_START: dict[int, object] = {signal.SIGINT: signal.default_int_handler}


def _flush() -> bool:
    ok = True
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            ok = False
    return ok


def _first_call(listen_fd: int, lifeline_fd: int) -> bool:
    """Wait for the first launcher (the stand-in is loaded only then); False when the lifeline
    ends first."""
    poll = select.poll()
    poll.register(listen_fd, select.POLLIN)
    poll.register(lifeline_fd, select.POLLIN)
    while True:
        try:
            events = poll.poll()
        except InterruptedError:
            continue
        if any(fd == lifeline_fd for fd, _mask in events):
            return False
        return True


def main() -> None:
    """``python -I -S -c ... LISTEN_FD LIFELINE_FD [--owner PID]`` (spawned by
    simherdr.standin; ``--owner``: a shared fork server, which also ends when that process
    does, by PR_SET_PDEATHSIG)."""
    listen_fd, lifeline_fd = (int(a) for a in sys.argv[1:3])
    if sys.argv[3:4] == ["--owner"]:
        libc = _libc()
        if libc is not None:
            libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != int(sys.argv[4]):
            return  # the owner died before that was set
    if not _first_call(listen_fd, lifeline_fd):
        return
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ForkServer(listen_fd, lifeline_fd, root, shared=sys.argv[3:4] == ["--owner"]).run()
