"""The socket transport: herdr's framing on a Unix socket (SOCKET.md §1).

One request per connection: read one ``\\n``-terminated line (max 1 MiB, 5 s), answer with one
line, close. No reply at all for EOF before the newline, a timeout, an oversized line or
invalid UTF-8; a blank line closes silently. Waits and subscriptions watch the connection:
EOF or any further byte cancels them without a reply.

Robustness: a reply or a pushed event line that makes no progress for WRITE_TIMEOUT (a client
that never reads) drops the connection (herdr's 5 s write timeout): the server buffers at most
one unsent line per connection and never blocks other clients. The socket lives in a private
directory (see :func:`check_socket_dir`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import socket

from .simulator import Simulator
from .standin import StandinHost
from .terminalplane import ClientSocket, client_socket_path
from .trace import record_reply, record_request
from .unixsocket import (  # noqa: F401  (re-exported: callers import them from here)
    Listening,
    SocketBusy,
    UnsafeSocketDirectory,
    check_socket_dir,
    listen_protocol,
    listen_unix,
    socket_answers,
    take_path,
)
from .wire import DuplicateField, decode_request, encode

log = logging.getLogger("simherdr.server")

MAX_REQUEST_BYTES = 1024 * 1024  # src/api/server.rs:32
REQUEST_TIMEOUT = 5.0  # src/api/server.rs:30 (real seconds: a transport limit)
# herdr checks that deadline between 100 ms polls of a pending read (src/api/server.rs:28,
# 540-548), so a stalled line is dropped 5.0-5.1 s after the accept: one sweep of every
# connection still reading, on the same period, instead of a timer per connection.
POLL_INTERVAL = 0.1
WRITE_TIMEOUT = 5.0  # src/api/server.rs:31
# A new connection's first read, into one buffer the server reuses: the size of an asyncio
# transport's reads (selector_events max_size), so a first read takes what a transport's would.
FIRST_READ = 256 * 1024
# CHOICE: listen backlog. asyncio's default (100) refuses a burst of more simultaneous
# connects with EAGAIN for non-blocking clients; Linux caps this at net.core.somaxconn.
LISTEN_BACKLOG = 1024


async def flush(proto: _Request) -> bool:
    """Wait until everything written has reached the socket. herdr's 5 s write timeout
    (src/api/server.rs:31) is a per-write(2) limit: a client that takes no bytes for
    WRITE_TIMEOUT is dropped (aborted) and False returned; a slow but reading client is not."""
    transport = proto.transport
    size = transport.get_write_buffer_size()
    if size:
        # Pause at any unsent byte (limit 0): drained() is then done when the client took
        # everything. Set here, on the slow path, not for every connection.
        transport.set_write_buffer_limits(high=0)
    while size:
        try:
            async with asyncio.timeout(WRITE_TIMEOUT):
                await proto.drained()  # write limits are 0: done when the buffer is empty
        except (TimeoutError, ConnectionError):
            now = transport.get_write_buffer_size()
            if now and now < size and not transport.is_closing():
                size = now  # progress: the client is reading, keep going
                continue
            transport.abort()  # discard unsent bytes: never wait for a client that never reads
            return False
        size = transport.get_write_buffer_size()
    return True


# struct ucred {pid_t pid; uid_t uid; gid_t gid;}: three native ints, read as struct's "3i"
# reads them without importing struct (and its C module) on serve's start (issue 34).
_PEERCRED_SIZE = 12
_HAS_PEERCRED = hasattr(socket, "SO_PEERCRED")  # Linux


def _peer_pid(sock) -> int | None:
    """The client's process id (SO_PEERCRED, Linux), for the trace (``sock``: the socket or
    a transport's view of it)."""
    if sock is None or not _HAS_PEERCRED:
        return None
    try:
        pid, _, _ = memoryview(
            sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED_SIZE)
        ).cast("i")
    except OSError:
        return None
    return pid or None


# The phases of one connection (herdr: one request per connection).
READING, ANSWERING, WATCHING, DONE = range(4)


class Connection:
    """What a wait or a stream sees of its client (handlers/context.py ClientConnection)."""

    def __init__(self, proto: _Request):
        self._proto = proto
        self.closed: asyncio.Future = proto.closed

    def cancelled(self) -> bool:
        return self.closed.done()

    async def send(self, obj) -> None:
        """Push one line; a client that takes nothing for WRITE_TIMEOUT is dropped (so at most
        one line per connection is ever buffered here)."""
        if self.cancelled():
            return
        self._proto.transport.write(encode(obj))
        if not await flush(self._proto) and not self.closed.done():
            self.closed.set_result(None)


class _Request(asyncio.Protocol):
    """One connection: read one line, answer it, close. A request that answers at once (a
    call, no interceptor) is answered from ``data_received``, with no task; a wait, a stream
    or an intercepted call runs as a task that watches the connection: EOF or any further byte
    cancels it (src/ipc.rs:216-236).

    Most connections never get one: :meth:`Server._first_read` answers a request line that
    is complete in the connection's first read and whose reply the socket takes at once. A
    protocol takes over with what that read left: ``early``, the bytes read (a line not yet
    complete, or one that needs a task), or ``unsent``, the rest of a reply the client has not
    taken yet."""

    def __init__(
        self, server: Server, label: str, early: bytes = b"", unsent: bytes | None = None
    ) -> None:
        self.server = server
        self.loop = server.loop
        self.label = label  # the trace's c<N>, in the order connections were accepted
        self.phase = READING
        self.buf = b""
        self._early = early
        self._unsent = unsent
        self.task: asyncio.Task | None = None
        self._closed: asyncio.Future | None = None
        self._drained: asyncio.Future | None = None
        self._lost = False

    @property
    def closed(self) -> asyncio.Future:
        """Done when the client goes away (EOF, a further byte, the connection lost)."""
        if self._closed is None:
            self._closed = self.loop.create_future()
            if self._lost:
                self._closed.set_result(None)
        return self._closed

    def _gone(self) -> None:
        if self._closed is not None and not self._closed.done():
            self._closed.set_result(None)

    def connection_made(self, transport) -> None:  # type: ignore[override]
        self.transport: asyncio.WriteTransport = transport
        self.server._protos.add(self)
        if self._unsent is not None:  # the request was answered; the reply is not all out
            self.phase = ANSWERING
            self.answer(self._unsent)
            return
        # herdr drops a connection whose request line is not complete after 5 s
        # (src/api/server.rs:503-553): the server's sweep aborts it (Server._sweep).
        self.server._await_line(self)
        if self._early:
            early, self._early = self._early, b""
            try:
                self.data_received(early)
            except Exception as e:
                # as a transport treats its protocol failing on bytes it read (asyncio's
                # _fatal_error): the loop's exception handler hears of it, the connection
                # closes at once (not left open with its line already taken)
                self.loop.call_exception_handler(
                    {"message": "Fatal error on a first read's bytes", "exception": e}
                )
                self._drop()

    def data_received(self, data: bytes) -> None:
        if self.phase == WATCHING:
            self._gone()
            return
        if self.phase != READING:
            return
        start = len(self.buf)
        buf = self.buf + data if start else data
        i = buf.find(b"\n", start)
        if i < 0:
            if len(buf) > MAX_REQUEST_BYTES:
                self._drop()  # over-size: dropped without a reply
            else:
                self.buf = buf
            return
        self.buf = b""
        self.server._reading.pop(self, None)
        if i > MAX_REQUEST_BYTES:
            self._drop()
            return
        self.phase = ANSWERING
        self.server._line(self, buf[:i], pending=i + 1 < len(buf))

    def eof_received(self) -> bool:
        if self.phase == WATCHING:
            self._gone()
            return True  # the task may still write its last line; it closes the transport
        if self.phase == READING:
            self._drop()  # EOF before the newline: no reply
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        self.server._reading.pop(self, None)
        self.server._protos.discard(self)
        self._gone()
        if self._drained is not None and not self._drained.done():
            self._drained.set_exception(ConnectionResetError("connection lost"))

    def resume_writing(self) -> None:
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    def drained(self) -> asyncio.Future:
        """Done when the write buffer is empty again (resume_writing at limit 0)."""
        fut = self._drained = self.loop.create_future()
        if self._lost:
            fut.set_exception(ConnectionResetError("connection lost"))
        elif not self.transport.get_write_buffer_size():
            fut.set_result(None)
        return fut

    def _drop(self) -> None:
        self.phase = DONE
        self.server._reading.pop(self, None)
        self.transport.close()

    def answer(self, line: bytes | None) -> None:
        """Write the reply line (if any) and close; a reply the client does not take yet is
        flushed by a task under herdr's write timeout."""
        self.phase = DONE
        if line is None:
            self.transport.close()
            return
        self.transport.write(line)
        if not self.transport.get_write_buffer_size():
            self.transport.close()
            return
        self.task = self.server.spawn(self._run(flush(self)))

    def start(self, coro) -> None:
        """Run a wait, a stream or an intercepted call as a task watching the connection;
        bytes already after the request line count as the client going away."""
        self.phase = WATCHING
        self.task = self.server.spawn(self._run(coro))

    async def _run(self, coro) -> None:
        try:
            await coro
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.phase = DONE
            if self.transport.get_write_buffer_size():
                self.transport.abort()  # cancelled mid-write: never wait for a client to read
            else:
                self.transport.close()

    def stop(self) -> None:
        """A simulated restart or the server's close: the task is cancelled, a connection
        that has not sent its line yet is closed."""
        if self.task is not None:
            if self.task is not asyncio.current_task():
                self.task.cancel()
        elif self.phase == READING:
            self._drop()


class Server:
    def __init__(self, sim: Simulator, path: str):
        self.sim = sim
        self.path = os.path.abspath(path)
        self._server: Listening | None = None
        self._protos: set[_Request] = set()
        # connections still reading their request line -> their deadline (loop time)
        self._reading: dict[_Request, float] = {}
        self._sweeper: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task] = set()
        self._closing = False
        self.client_socket: ClientSocket | None = None
        self.standin: StandinHost | None = None  # the native launcher's fork server (standin.py)
        self.stopped = asyncio.Event()
        self.fate = ""  # what close() did with the socket file (unixsocket.Listening.close)
        self._labels = itertools.count(1)  # the trace's connection labels c1, c2, ...
        self._read_buffer = bytearray(FIRST_READ)  # every connection's first read (one loop)
        self._read_view = memoryview(self._read_buffer)
        self.loop: asyncio.AbstractEventLoop  # set by start()
        sim.config.socket_path = self.path
        sim.on_stop.append(self._on_sim_stop)
        sim.on_restart.append(self._drop_connections)

    @property
    def closing(self) -> bool:
        """Closing or closed (server.stop, the owner's close): its socket may already be gone
        while :attr:`stopped` is not set yet."""
        return self._closing

    @property
    def connections(self) -> int:
        """Connections open now (their request read, answered or still running)."""
        return len(self._protos)

    async def start(self) -> None:
        # one lookup: asyncio.get_running_loop() costs a getpid(2) on every call
        self.loop = asyncio.get_running_loop()
        busy = f"herdr is already running (socket busy at {self.path})"
        take_path(self.path, busy)  # the API socket's refusals first
        # herdr's client socket beside it (simherdr.terminalplane); a refusal of either binds
        # neither.
        self.client_socket = ClientSocket(client_socket_path(self.path), self.sim)
        await self.client_socket.start()
        try:
            self._server = await listen_protocol(
                self.path,
                lambda: _Request(self, self.next_label()),
                backlog=LISTEN_BACKLOG,
                busy_message=busy,
                first_read=self._first_read,
            )
        except BaseException:
            await self.client_socket.close()
            raise
        self.standin = StandinHost.open(self._server.identity)
        await self.sim.start()

    def _await_line(self, proto: _Request) -> None:
        loop = self.loop
        self._reading[proto] = loop.time() + REQUEST_TIMEOUT
        if self._sweeper is None:
            self._sweeper = loop.call_later(POLL_INTERVAL, self._sweep)

    def _sweep(self) -> None:
        """Abort every connection whose request line is past its deadline; run again while
        any connection is still reading."""
        now = self.loop.time()
        for proto, deadline in list(self._reading.items()):
            if now >= deadline:
                del self._reading[proto]
                proto.transport.abort()
        self._sweeper = self.loop.call_later(POLL_INTERVAL, self._sweep) if self._reading else None

    def spawn(self, coro) -> asyncio.Task:
        task = self.loop.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _drop_connections(self) -> None:
        """A simulated restart: the old process's connections (waits, subscriptions) close."""
        for proto in list(self._protos):
            proto.stop()

    def _on_sim_stop(self) -> None:
        # server.stop: stop accepting after the reply is written; the socket goes away.
        asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(self.close()))

    async def close(self) -> None:
        if self._closing:  # server.stop's own close and the owner's may overlap: one runs
            await self.stopped.wait()
            return
        self._closing = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        if self._server is not None:
            self.fate = self._server.close()  # removes the socket only if it is still ours
            self._server = None
        if self.client_socket is not None:
            await self.client_socket.close()
        for proto in list(self._protos):
            proto.stop()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.sim.close()
        if self.standin is not None:
            # the native launcher's calls end with the server (no process outlives it)
            await self.standin.close()
        self.stopped.set()

    async def serve_forever(self) -> None:
        await self.stopped.wait()

    def next_label(self) -> str:
        return f"c{next(self._labels)}"

    def _first_read(self, conn: socket.socket) -> _Request | None:
        """A new connection's first read (unixsocket.FirstRead), before any transport: a
        request line complete in it and answered at once is answered here, its reply sent
        and the socket closed — herdr's whole exchange in one loop turn (issue 26). Anything
        else goes on through a :class:`_Request` protocol with what this read got, exactly as
        if the protocol had read it: a line not yet complete (the 5 s deadline starts with
        the protocol), a wait, a stream or an intercepted call, a reply the client does not
        take at once (herdr's write timeout then applies)."""
        label = self.next_label()
        try:
            n = conn.recv_into(self._read_buffer)
        except (BlockingIOError, InterruptedError):
            return _Request(self, label)  # nothing sent yet: the transport waits for it
        except OSError:
            conn.close()  # the client is gone (a reset): no reply, as a transport would do
            return None
        if not n:
            conn.close()  # EOF before the newline: no reply
            return None
        view = self._read_view
        end = self._read_buffer.find(b"\n", 0, n)
        if end < 0:
            return _Request(self, label, early=bytes(view[:n]))
        with view[:end] as line:
            reply = self._respond(line, label, conn)
        if type(reply) is tuple:  # a task's work: the protocol reads the line again
            return _Request(self, label, early=bytes(view[:n]))
        if reply is not None:
            try:
                sent = conn.send(reply)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:
                conn.close()  # the client is gone: as a transport's failed write
                return None
            if sent < len(reply):
                return _Request(self, label, unsent=reply[sent:])
        conn.close()
        return None

    def _line(self, proto: _Request, line: bytes, pending: bool) -> None:
        """One complete request line (without its newline) read by a protocol."""
        outcome = self._respond(line, proto.label, proto.transport.get_extra_info("socket"))
        if type(outcome) is not tuple:
            proto.answer(outcome)
            return
        obj, mdef, pid = outcome
        label = proto.label
        sim = self.sim
        if pending:
            proto.closed.set_result(None)  # a byte after the line: the client went away
        conn = Connection(proto)
        if mdef is not None and mdef.kind == "stream" and not sim.stopping:
            proto.start(self._streamed(mdef, obj, conn, label, pid))
        else:
            # Waits watch their client; so does every call while interceptors are installed
            # (simherdr.scenarios: a held request ends when its client goes away).
            proto.start(self._waited(obj, conn, label, pid))

    def _respond(self, line, label: str, sock) -> bytes | tuple | None:
        """One request line (bytes or a view of them): the encoded reply of a request answered
        at once, None for no reply at all, or ``(request, MethodDef | None, peer pid)`` for
        one that needs a task (a wait, a stream, an intercepted call). Nothing is recorded
        or changed for the last: the task does it."""
        try:
            text = str(line, "utf-8")
        except UnicodeDecodeError:
            return None
        text = text.strip()
        if not text:
            return None
        sim = self.sim
        pid = _peer_pid(sock)
        try:
            obj = decode_request(text)
        except (ValueError, RecursionError) as e:
            reply = self._undecodable(e)
            record_request(sim.trace, text[:1000], label, pid)
            record_reply(sim.trace, None, reply, label)
            return encode(reply)
        mdef = None
        if isinstance(obj, dict) and isinstance(obj.get("method"), str):
            mdef = sim.methods.get(obj["method"])
        if sim.answers_now(mdef):
            return encode(sim.request_now(obj, origin=label, peer_pid=pid))
        return (obj, mdef, pid)

    async def _waited(self, obj, conn: Connection, label: str, pid: int | None) -> None:
        reply = await self.sim.request(obj, conn, origin=label, peer_pid=pid)
        if reply is not None:
            conn._proto.transport.write(encode(reply))
            await flush(conn._proto)

    async def _streamed(self, mdef, obj, conn: Connection, label: str, pid: int | None) -> None:
        record_request(self.sim.trace, obj, label, pid)
        reply = await self._stream(mdef, obj, conn)
        record_reply(self.sim.trace, obj, reply, label)
        if reply is not None:
            await conn.send(reply)

    async def _stream(self, mdef, obj, conn):
        """events.subscribe: parse like any request, then hand the connection over."""
        from .facts import errors as E

        try:
            rid, mdef, p = self.sim.parse(obj)
        except E.HerdrError as e:
            return {"id": e.reply_id or "", "error": e.body()}
        try:
            await mdef.fn(self.sim, p, rid, conn)
        except E.HerdrError as e:
            return {"id": e.reply_id if e.reply_id is not None else rid, "error": e.body()}
        except Exception as e:  # a simulator bug: one internal_error line, then the stream ends
            # CHOICE(stream-internal-error): herdr has no such path; like a set-up error, the
            # subscriber gets one error line (with its id) instead of a silently dropped stream.
            log.exception("stream %s failed", mdef.name)
            return {"id": rid, "error": E.internal_error(type(e).__name__).body()}
        return None

    def _undecodable(self, e: Exception) -> dict:
        """A line that is not one JSON request: invalid_request with id "" — except that a
        duplicated field other than ``id`` still lets 0.9.x recover the id and a retired
        method name (profile rows invalid_request_keeps_id, retired_methods)."""
        if isinstance(e, DuplicateField):
            retired = self.sim.retired(e.obj, e.names)
            if retired is not None:
                return {"id": retired.reply_id or "", "error": retired.body()}
            rid = self.sim.unparsable_id(e.obj, e.names)
        else:
            rid = ""
        return {"id": rid, "error": {"code": "invalid_request", "message": f"invalid request: {e}"}}


async def serve(sim: Simulator, path: str, ready=None) -> None:
    server = Server(sim, path)
    await server.start()
    if ready:
        ready(server)
    await server.serve_forever()
