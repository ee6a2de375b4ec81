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
import contextlib
import itertools
import logging
import os
import socket
import struct

from .client_socket import ClientSocket, client_socket_path
from .simulator import Simulator
from .trace import record_reply, record_request
from .unixsocket import (  # noqa: F401  (re-exported: callers import them from here)
    Listening,
    SocketBusy,
    UnsafeSocketDirectory,
    check_socket_dir,
    listen_unix,
    socket_answers,
    take_path,
)
from .wire import DuplicateField, decode_request, encode

log = logging.getLogger("simherdr.server")

MAX_REQUEST_BYTES = 1024 * 1024  # src/api/server.rs:32
REQUEST_TIMEOUT = 5.0  # src/api/server.rs:30 (real seconds: a transport limit)
WRITE_TIMEOUT = 5.0  # src/api/server.rs:31
# CHOICE: listen backlog. asyncio's default (100) refuses a burst of more simultaneous
# connects with EAGAIN for non-blocking clients; Linux caps this at net.core.somaxconn.
LISTEN_BACKLOG = 1024


def _abort(writer: asyncio.StreamWriter) -> None:
    """Drop a connection now, discarding unsent bytes (close() would wait for the client to
    read them, forever for a client that never reads)."""
    with contextlib.suppress(Exception):
        writer.transport.abort()


async def flush(writer: asyncio.StreamWriter) -> bool:
    """Wait until everything written has reached the socket. herdr's 5 s write timeout
    (src/api/server.rs:31) is a per-write(2) limit: a client that takes no bytes for
    WRITE_TIMEOUT is dropped (aborted) and False returned; a slow but reading client is not."""
    transport = writer.transport
    size = transport.get_write_buffer_size()
    while size:
        try:
            async with asyncio.timeout(WRITE_TIMEOUT):
                await writer.drain()  # write limits are 0: returns when the buffer is empty
        except (TimeoutError, ConnectionError):
            now = transport.get_write_buffer_size()
            if now and now < size and not transport.is_closing():
                size = now  # progress: the client is reading, keep going
                continue
            _abort(writer)
            return False
        size = transport.get_write_buffer_size()
    return True


_PEERCRED = struct.Struct("3i")


def _peer_pid(writer: asyncio.StreamWriter) -> int | None:
    """The client's process id (SO_PEERCRED, Linux), for the trace."""
    sock = writer.get_extra_info("socket")
    if sock is None or not hasattr(socket, "SO_PEERCRED"):
        return None
    try:
        pid, _, _ = _PEERCRED.unpack(
            sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
        )
    except OSError:
        return None
    return pid or None


class Connection:
    """What a wait or a stream sees of its client."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer
        self.closed: asyncio.Future = asyncio.get_running_loop().create_future()
        self._watch: asyncio.Task | None = None

    def watch(self) -> None:
        """Any readable byte or EOF cancels (src/ipc.rs:216-236)."""

        async def probe():
            with contextlib.suppress(Exception):
                await self.reader.read(1)
            if not self.closed.done():
                self.closed.set_result(None)

        self._watch = asyncio.get_running_loop().create_task(probe())

    def cancelled(self) -> bool:
        return self.closed.done()

    async def send(self, obj) -> None:
        """Push one line; a client that takes nothing for WRITE_TIMEOUT is dropped (so at most
        one line per connection is ever buffered here)."""
        if self.cancelled():
            return
        self.writer.write(encode(obj))
        if not await flush(self.writer) and not self.closed.done():
            self.closed.set_result(None)

    def stop(self) -> None:
        if self._watch:
            self._watch.cancel()


class Server:
    def __init__(self, sim: Simulator, path: str):
        self.sim = sim
        self.path = os.path.abspath(path)
        self._server: Listening | None = None
        self._conns: set[asyncio.Task] = set()
        self.client_socket: ClientSocket | None = None
        self.stopped = asyncio.Event()
        self.fate = ""  # what close() did with the socket file (unixsocket.Listening.close)
        self._labels = itertools.count(1)  # the trace's connection labels c1, c2, ...
        sim.config.socket_path = self.path
        sim.on_stop.append(self._on_sim_stop)
        sim.on_restart.append(self._drop_connections)

    async def start(self) -> None:
        busy = f"herdr is already running (socket busy at {self.path})"
        take_path(self.path, busy)  # the API socket's refusals first
        # herdr's client socket beside it (simherdr.client_socket); a refusal of either binds
        # neither.
        self.client_socket = ClientSocket(client_socket_path(self.path))
        await self.client_socket.start()
        try:
            self._server = await listen_unix(
                self.path,
                self._handle,
                limit=MAX_REQUEST_BYTES + 1,
                backlog=LISTEN_BACKLOG,
                busy_message=busy,
            )
        except BaseException:
            await self.client_socket.close()
            raise
        await self.sim.start()

    def _drop_connections(self) -> None:
        """A simulated restart: the old process's connections (waits, subscriptions) close."""
        for t in list(self._conns):
            if t is not asyncio.current_task():
                t.cancel()

    def _on_sim_stop(self) -> None:
        # server.stop: stop accepting after the reply is written; the socket goes away.
        asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(self.close()))

    async def close(self) -> None:
        if self._server is not None:
            self.fate = self._server.close()  # removes the socket only if it is still ours
            self._server = None
        if self.client_socket is not None:
            await self.client_socket.close()
        for t in list(self._conns):
            t.cancel()
        await asyncio.gather(*self._conns, return_exceptions=True)
        await self.sim.close()
        self.stopped.set()

    async def serve_forever(self) -> None:
        await self.stopped.wait()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._conns.add(task)
        # Pause at any unsent byte: flush() then waits for the client to take everything.
        writer.transport.set_write_buffer_limits(high=0)
        try:
            await self._one_request(reader, writer, f"c{next(self._labels)}")
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self._conns.discard(task)
            if writer.transport.get_write_buffer_size():
                _abort(writer)  # cancelled mid-write: never wait for a client to read
            else:
                with contextlib.suppress(Exception):
                    writer.close()

    async def _one_request(self, reader, writer, label: str) -> None:
        # herdr drops a connection whose request line is not complete after 5 s (it polls
        # every 100 ms past the deadline, src/api/server.rs:503-553): here the transport is
        # aborted when the deadline passes. (A timer handle, not asyncio.timeout: this is
        # every request's path, and the handle costs half as much.)
        expire = asyncio.get_running_loop().call_later(REQUEST_TIMEOUT, _abort, writer)
        try:
            line = await reader.readuntil(b"\n")
        except (
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            ConnectionError,
            ValueError,
        ):
            return  # EOF, over-size or timeout (aborted): dropped without a reply
        finally:
            expire.cancel()
        if len(line) - 1 > MAX_REQUEST_BYTES:
            return
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            return
        text = text.strip()
        if not text:
            return
        sim = self.sim
        pid = _peer_pid(writer)
        try:
            obj = decode_request(text)
        except (ValueError, RecursionError) as e:
            reply = self._undecodable(e)
            record_request(sim.trace, text[:1000], label, pid)
            record_reply(sim.trace, None, reply, label)
            await self._write(writer, reply)
            return
        mdef = None
        if isinstance(obj, dict) and isinstance(obj.get("method"), str):
            mdef = sim.methods.get(obj["method"])
        if mdef is not None and mdef.kind == "stream" and not sim.stopping:
            conn = Connection(reader, writer)
            conn.watch()
            record_request(sim.trace, obj, label, pid)
            try:
                reply = await self._stream(mdef, obj, conn)
                record_reply(sim.trace, obj, reply, label)
                if reply is not None:
                    await conn.send(reply)
            finally:
                conn.stop()
            return
        # Waits watch their client; so does every call while interceptors are installed
        # (simherdr.scenarios: a held request ends when its client goes away).
        if mdef is not None and (mdef.kind == "wait" or sim.interceptors):
            conn = Connection(reader, writer)
            conn.watch()
            try:
                reply = await sim.request(obj, conn, origin=label, peer_pid=pid)
            finally:
                conn.stop()
        else:
            reply = await sim.request(obj, origin=label, peer_pid=pid)
        if reply is not None:
            await self._write(writer, reply)

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

    async def _write(self, writer, reply) -> None:
        writer.write(encode(reply))
        await flush(writer)


async def serve(sim: Simulator, path: str, ready=None) -> None:
    server = Server(sim, path)
    await server.start()
    if ready:
        ready(server)
    await server.serve_forever()
