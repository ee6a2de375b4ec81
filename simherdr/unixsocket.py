"""Unix-socket plumbing shared by the herdr socket (:mod:`simherdr.server`) and the control
plane (:mod:`simherdr.scenarios.control`): a private directory, a stale socket replaced but a
live one never, the socket created ``0600``. Protocol-free: each caller brings its handler.

Races (two servers started on one path at the same instant): the check "does something answer
here", the removal of a stale socket and the bind run under an exclusive ``flock`` of the
socket's directory, so exactly one starter binds and every other one then finds a live socket
and refuses with the busy message. CHOICE(start-lock): herdr itself has no such lock
(src/ipc.rs:80-107 checks, removes, binds); the lock is on the directory, so no lock file is
left beside the socket, and it is held only for the start-up step. On exit a server removes
the socket only if the path is still the socket it bound (same device and inode): a server
whose socket file was replaced by a newer server's never deletes the newer one.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import logging
import os
import socket
import stat
from collections.abc import Awaitable, Callable
from typing import Protocol, cast

# What serves one accepted connection: an asyncio protocol factory (the API socket answers
# from data_received, with no task per request; see simherdr.server).
ProtocolFactory = Callable[[], asyncio.BaseProtocol]
# What may serve an accepted (non-blocking) connection before any transport exists: it
# answers and closes the socket itself and returns None, or returns the protocol that serves
# the rest of the connection through a transport (issue 26: a one-line request answered from
# its first read needs no transport, no selector registration and no further loop turns).
FirstRead = Callable[[socket.socket], "asyncio.BaseProtocol | None"]


class _TransportMaker(Protocol):
    """What asyncio's selector event loop (the default on Linux) has had since Python 3.4:
    a socket transport made at once, where ``loop.connect_accepted_socket`` needs a task, a
    waiter and three loop turns per connection (issue 26: one-line requests)."""

    def _make_socket_transport(
        self, sock: socket.socket, protocol: asyncio.BaseProtocol
    ) -> asyncio.Transport: ...


StreamHandler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def stream_protocol(handler: StreamHandler, limit: int) -> ProtocolFactory:
    """A factory serving each connection with asyncio streams, as asyncio.start_unix_server
    does: ``handler`` runs as the protocol's client_connected_cb (the control socket)."""
    return lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader(limit=limit), handler)


class SocketBusy(RuntimeError):
    """The socket path cannot be taken (something answers there, or it is not a socket)."""


class UnsafeSocketDirectory(SocketBusy):
    """The socket's directory is not private (a SocketBusy, so ``simherdr serve`` reports it
    the same way: a message and exit status 1)."""


def check_socket_dir(directory: str) -> None:
    """The socket must live in a private directory.

    CHOICE (herdr's own config dir is private; a shared one would let another user replace or
    race the socket): a directory we create is created ``0700``; an existing directory that is
    group- or world-writable without the sticky bit is refused, because anyone who can write
    there can delete our socket and put theirs in its place. A sticky world-writable directory
    (``/tmp``) is accepted: there only the owner can remove the socket.
    """
    if not os.path.isdir(directory):
        try:
            os.makedirs(directory, mode=0o700)
        except FileExistsError:
            pass  # created concurrently: checked below like any existing directory
        else:
            os.chmod(directory, 0o700)  # whatever the umask
            return
    mode = os.stat(directory).st_mode
    if mode & (stat.S_IWGRP | stat.S_IWOTH) and not mode & stat.S_ISVTX:
        raise UnsafeSocketDirectory(
            f"refusing to listen in {directory}: the directory is group- or world-writable "
            f"(mode {stat.S_IMODE(mode):04o}) without the sticky bit, so another user could "
            f"replace the socket; use a private directory (chmod 700) or let simherdr create it"
        )


def socket_answers(path: str, timeout: float = 1.0) -> bool:
    """True if something accepts connections at ``path`` (a live herdr or simherdr). A socket
    we may not connect to (another user's: EACCES) raises :class:`SocketBusy`: herdr treats
    only refused, missing and timed-out connections as stale (src/ipc.rs:109-114) and reports
    any other connect error instead of removing the socket."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        return True
    except PermissionError:
        raise SocketBusy(
            f"refusing to replace {path}: permission denied connecting to it (a socket of "
            f"another user?); choose another socket path"
        ) from None
    except OSError:
        return False
    finally:
        s.close()


@contextlib.contextmanager
def _directory_lock(directory: str):
    """An exclusive flock of ``directory`` for the check-remove-bind step (see module doc)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def socket_identity(path: str) -> tuple[int, int, int] | None:
    """A socket file's device, inode and modification time (ns): the inode alone is reused at
    once by the next file made after one is removed (a server stopping while another starts),
    the time tells them apart (the stand-in's name, standin.py; "still ours" at close)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns)


def take_path(path: str, busy_message: str) -> None:
    """Make ``path`` free to bind: its directory checked, a stale socket file removed. Raises
    :class:`SocketBusy` with ``busy_message`` when something still answers there, and never
    removes what is not a socket. Under the directory lock, so a starter beside us never
    removes the file we just bound, nor we the one it did (issue 25: the loser of two starts
    on a stale socket saw its lstat fail with ENOENT)."""
    directory = os.path.dirname(path) or "."
    check_socket_dir(directory)
    with _directory_lock(directory):
        _take_path(path, busy_message)


def _take_path(path: str, busy_message: str) -> None:
    """:func:`take_path`'s check and removal; the caller holds the directory lock."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise SocketBusy(f"refusing to replace {path}: it is not a socket")
    if socket_answers(path):
        raise SocketBusy(busy_message)
    os.unlink(path)  # stale socket file


# accept(2) failing for lack of resources: asyncio's own accept loop (3.11) logs a traceback
# and schedules a retry for every remaining slot of the backlog on each failure, so one
# episode of EMFILE floods the log with ~20,000 lines a second. This loop logs once per
# episode, stops watching the socket and tries again after a back-off doubling from 10 ms to
# 1 s, until accept works again.
_RESOURCE_ERRNOS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
ACCEPT_BACKOFF_MIN = 0.01
ACCEPT_BACKOFF_MAX = 1.0
log = logging.getLogger("simherdr.socket")


class Listening:
    """A bound, listening socket with its accept loop, and the socket file it owns."""

    def __init__(
        self,
        sock: socket.socket,
        path: str,
        factory: ProtocolFactory,
        backlog: int,
        first_read: FirstRead | None = None,
    ) -> None:
        self.sock = sock
        self.path = path
        self.identity = socket_identity(path)
        self._factory = factory
        self._first_read = first_read
        self._backlog = backlog
        self._loop = asyncio.get_running_loop()
        # the selector loop makes an accepted connection's transport synchronously; any other
        # loop (uvloop, a test's) goes through the public connect_accepted_socket
        self._maker: _TransportMaker | None = (
            cast(_TransportMaker, self._loop)
            if isinstance(self._loop, asyncio.selector_events.BaseSelectorEventLoop)
            else None
        )
        # socket.accept() makes each connection's socket from the listening one's family and
        # type, read through properties that convert them to enums (~15,000 instructions a
        # connection, a tenth of a ping): the same socket is made here from these, read once
        self._kind = (sock.family, sock.type, sock.proto)
        self._delay = ACCEPT_BACKOFF_MIN
        self._retry: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task] = set()
        self.starved = False  # accept is failing for lack of resources (logged once)
        self._loop.add_reader(sock.fileno(), self._accept)

    def _accept(self) -> None:
        """Readable: accept what is pending (up to a backlog's worth), as asyncio does."""
        family, type_, proto = self._kind
        for _ in range(self._backlog):
            try:
                # socket.accept() without its wrapper (see __init__)
                fd, _ = self.sock._accept()  # type: ignore[attr-defined]
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:
                if e.errno in _RESOURCE_ERRNOS:
                    self._starve(e)
                return  # anything else (a connection aborted before accept): wait for more
            conn = socket.socket(family, type_, proto, fd)
            if self.starved:
                self.starved = False
                self._delay = ACCEPT_BACKOFF_MIN
                log.warning("accepting connections on %s again", self.path)
            if self._maker is not None:
                self._serve(conn, self._maker)
                continue
            # non-blocking: connect_accepted_socket sets it (one ioctl, not two)
            task = self._loop.create_task(self._connect(conn))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _serve(self, conn: socket.socket, maker: _TransportMaker) -> None:
        """One accepted connection on the selector loop: its first read (if any), then a
        transport for whatever it leaves to a protocol."""
        try:
            conn.setblocking(False)
            proto = self._factory() if self._first_read is None else self._first_read(conn)
            if proto is None:
                return  # answered and closed by the first read
            maker._make_socket_transport(conn, proto)
        except OSError:
            conn.close()
        except Exception as e:
            # what a transport does when its protocol fails (asyncio's _fatal_error): the
            # loop's exception handler hears of it, this connection closes, the others go on
            self._loop.call_exception_handler(
                {"message": "Fatal error on a first read", "exception": e, "socket": conn}
            )
            conn.close()

    def _starve(self, e: OSError) -> None:
        if not self.starved:
            self.starved = True
            log.warning(
                "cannot accept connections on %s: %s; retrying until resources free up",
                self.path,
                e.strerror,
            )
        self._loop.remove_reader(self.sock.fileno())
        self._retry = self._loop.call_later(self._delay, self._resume)
        self._delay = min(self._delay * 2, ACCEPT_BACKOFF_MAX)

    def _resume(self) -> None:
        self._retry = None
        if self.sock.fileno() >= 0:
            self._loop.add_reader(self.sock.fileno(), self._accept)

    async def _connect(self, conn: socket.socket) -> None:
        try:
            await self._loop.connect_accepted_socket(self._factory, conn)
        except OSError:
            conn.close()

    def close(self) -> str:
        """Stop accepting; remove the socket file if it is still the one bound here. Returns
        what became of the file: "removed", "gone" (someone else removed it before us) or
        "replaced" (another file, e.g. a newer server's socket, is there now: left alone)."""
        if self._retry is not None:
            self._retry.cancel()
        if self.sock.fileno() >= 0:
            self._loop.remove_reader(self.sock.fileno())
        # The file goes before the listener closes, as herdr's do: the client socket's file is
        # removed at complete_shutdown (src/server/headless.rs:4886, 4892-4904) while its
        # listener is open until the server is dropped; the API socket's at ServerHandle's drop
        # (src/api/server.rs:41-50), its listener open in the accept thread until the process
        # exits (:97-123). `herdr server stop` returns once neither path is reachable, a path
        # existing and accepting (src/session.rs:388-400): so on its return both files are gone.
        # Closed first, a file left behind unreachable for a moment ended that wait early.
        fate = self._unlink_if_ours()
        self.sock.close()
        return fate

    def _unlink_if_ours(self) -> str:
        now = socket_identity(self.path)
        if now is None:
            return "gone"
        if self.identity is None or now != self.identity:
            return "replaced"
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            return "gone"
        return "removed"


#: One direction of a relayed connection: ``pump(src, dst, "send")`` copies client -> upstream,
#: ``pump(src, dst, "recv")`` upstream -> client.
Pump = Callable[[asyncio.StreamReader, asyncio.StreamWriter, str], Awaitable[None]]


async def relay_both_ways(
    pump: Pump,
    client: tuple[asyncio.StreamReader, asyncio.StreamWriter],
    upstream: tuple[asyncio.StreamReader, asyncio.StreamWriter],
) -> None:
    """Runs a relayed connection's two pumps (the recorder's JSON plane and client socket): the
    upstream's side decides when the connection is over (the client's pump is then
    cancelled); both writers are closed after, and the client's pump is awaited."""
    cr, cw = client
    ur, uw = upstream
    up = asyncio.ensure_future(pump(cr, uw, "send"))
    down = asyncio.ensure_future(pump(ur, cw, "recv"))
    try:
        await down
        if not up.done():
            up.cancel()
    except asyncio.CancelledError:
        up.cancel()
        down.cancel()
        raise
    finally:
        for w in (cw, uw):
            w.close()
        with contextlib.suppress(BaseException):
            await up


def fate_text(fates: list[tuple[str, str]]) -> str:
    """What a stopping server says of its socket files: ``[(path, fate), ...]`` from
    :meth:`Listening.close` -> "removed A and B", or each file's own fate when not all were
    removed here (issue 25: a socket removed by someone else is not "removed" by us)."""
    if all(fate == "removed" for _, fate in fates):
        return "removed " + " and ".join(path for path, _ in fates)
    words = {
        "removed": "removed {}",
        "gone": "{} was already gone (removed by someone else)",
        "replaced": "{} is another socket now (left in place)",
    }
    return "; ".join(words[fate].format(path) for path, fate in fates)


async def listen_unix(
    path: str, handler: StreamHandler, *, limit: int, busy_message: str, backlog: int = 100
) -> Listening:
    """:func:`listen_protocol` serving each connection with asyncio streams, as
    asyncio.start_unix_server does (``handler(reader, writer)``)."""
    return await listen_protocol(
        path, stream_protocol(handler, limit), busy_message=busy_message, backlog=backlog
    )


def _private_before_bind(sock: socket.socket) -> None:
    """Linux creates a bound socket's node with the socket's own mode less the umask
    (net/unix/af_unix.c, unix_bind), so a ``0600`` socket binds ``0600``. Never the umask:
    it is process-wide, so setting it while binding raced other threads (two binds restoring
    each other's value left ``0177`` behind, and a test's compiler wrote non-executable
    binaries). Elsewhere the private directory and the chmod after binding cover it."""
    try:
        os.fchmod(sock.fileno(), 0o600)
    except OSError:
        pass


async def listen_protocol(
    path: str,
    factory: ProtocolFactory,
    *,
    busy_message: str,
    backlog: int = 100,
    first_read: FirstRead | None = None,
) -> Listening:
    """:func:`take_path`, then listen on ``path``, created ``0600`` with no window where it
    is wider (the socket's own mode before binding, chmod after); all under the directory
    lock. ``first_read``: see :data:`FirstRead` (the selector loop only; any other loop
    serves every connection with ``factory``)."""
    check_socket_dir(os.path.dirname(path) or ".")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with _directory_lock(os.path.dirname(path) or "."):
            _take_path(path, busy_message)
            _private_before_bind(sock)
            try:
                sock.bind(path)
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    raise SocketBusy(busy_message) from None
                raise
            sock.listen(backlog)
            sock.setblocking(False)
            listening = Listening(sock, path, factory, backlog, first_read)
    except BaseException:
        sock.close()
        raise
    os.chmod(path, 0o600)
    return listening
