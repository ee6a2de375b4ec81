"""A tiny recording herdr look-alike on a Unix socket (a thread per connection, one
request per connection, like herdr): it answers ``ping`` with a configurable version/protocol
and every other method from a scripted table, and records every request line verbatim.

Used by tests/stub/conftest.py (fixture ``fake``) and the stub tests.

The fakes of a process share one accepting thread (:class:`_Acceptor`, a selector over their
listeners): a thread of its own per fake, polling ``accept`` every 50 ms to see its stop, cost
~0.1 ms of CPU to start for each of ~720 fakes a run, and its wake-ups while it lived.
"""

from __future__ import annotations

import json
import os
import selectors
import socket
import threading
from dataclasses import dataclass

from simherdr.standin import hold_name
from simherdr.unixsocket import socket_identity
from tests.releases import BASE, resolve


class Raw:
    """Reply with these exact bytes (no envelope, no added newline)."""

    def __init__(self, data: bytes):
        self.data = data


class Hangup:
    """Close the connection without replying."""


class ThenShutdown:
    """Stop listening and remove the socket file, then send ``reply`` on this connection.

    (Shutting down first means no later connect can slip into the listen backlog.)"""

    def __init__(self, reply):
        self.reply = reply


def ok(**fields):
    return {"result": {"type": "ok", **fields}}


def result(type_, **fields):
    return {"result": {"type": type_, **fields}}


def error(code, message):
    return {"error": {"code": code, "message": message}}


class FakeHerdr:
    def __init__(self, path: str, version: str = BASE, protocol: int | None = None):
        self.path = path
        self.version = version
        self.protocol = resolve(version).protocol if protocol is None else protocol
        self.capabilities = {"live_handoff": True, "detached_server_daemon": True}
        self.ping_reply = None  # reply item overriding the normal pong
        self.default_reply = None  # reply for unscripted methods (None: not_implemented error)
        self.lines: list[bytes] = []
        self._script: dict[str, list] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(path)
        self._listener.listen(64)
        # Its socket's stand-in name held (never listened on), as a simherdr server holds it:
        # the suite's shared fork server serves the calls to this fake (the same bytes: the
        # fake never reads its peer's pid); without one they run the Python stand-in as before.
        self._standin_name = hold_name(socket_identity(path))
        _ACCEPTOR.add(self)

    # -- scripting ------------------------------------------------------------------------
    def on(self, method: str, *replies) -> FakeHerdr:
        """Queue replies for ``method``; the last one keeps answering once the queue drains."""
        with self._lock:
            self._script.setdefault(method, []).extend(replies)
        return self

    # -- inspection -----------------------------------------------------------------------
    @property
    def requests(self) -> list[dict]:
        with self._lock:
            return [json.loads(line) for line in self.lines]

    def ops(self) -> list[dict]:
        """Requests other than the guard's pings."""
        return [r for r in self.requests if r.get("method") != "ping"]

    def calls(self) -> list[tuple]:
        """(method, id) of every request, pings included, in arrival order."""
        return [(r["method"], r["id"]) for r in self.requests]

    # -- server ---------------------------------------------------------------------------
    def shutdown(self) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()
        if self._standin_name is not None:
            self._standin_name.close()
        _ACCEPTOR.remove(self._listener)  # (before its close: no event for a closed socket)
        try:
            self._listener.close()
        finally:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass

    def _accept(self) -> None:
        """A connection waits on the listener (the acceptor's thread): handled in its own."""
        try:
            conn, _ = self._listener.accept()
        except OSError:  # taken already, or the fake shut down meanwhile (a closed socket)
            return
        if self._stopped.is_set():
            conn.close()
            return
        conn.setblocking(True)
        threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _next_reply(self, request: dict):
        method = request.get("method")
        if method == "ping" and self.ping_reply is None:
            return result(
                "pong", version=self.version, protocol=self.protocol, capabilities=self.capabilities
            )
        if method == "ping":
            return self.ping_reply
        with self._lock:
            queue = self._script.get(method)
            if not queue:
                if self.default_reply is not None:
                    return self.default_reply
                return error("not_implemented", "method not implemented yet")
            reply = queue.pop(0) if len(queue) > 1 else queue[0]
        if callable(reply):
            reply = reply(request)
        return reply

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            buf = b""
            try:
                while b"\n" not in buf:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return  # a reachability probe (server stop) or an aborted client
                    buf += chunk
            except OSError:
                return
            line = buf.split(b"\n", 1)[0]
            with self._lock:
                self.lines.append(line)
            request = json.loads(line)
            reply = self._next_reply(request)
            if isinstance(reply, ThenShutdown):
                reply = reply.reply
                self.shutdown()
            try:
                if isinstance(reply, Raw):
                    conn.sendall(reply.data)
                elif isinstance(reply, Hangup):
                    pass
                else:
                    envelope = {"id": request.get("id", ""), **reply}
                    conn.sendall(json.dumps(envelope, ensure_ascii=False).encode() + b"\n")
            except OSError:
                pass


class _Acceptor:
    """The thread that accepts the connections of every :class:`FakeHerdr` of the process
    (started with the first), each connection then handled in a thread of its own."""

    def __init__(self) -> None:
        self._pid = os.getpid()
        self._selector = selectors.DefaultSelector()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, fake: FakeHerdr) -> None:
        fake._listener.setblocking(False)
        if self._pid != os.getpid():  # a forked child: its own (the epoll set is shared)
            self.__init__()  # type: ignore[misc]
        with self._lock:
            self._selector.register(fake._listener, selectors.EVENT_READ, fake)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="fake-herdr", daemon=True)
                self._thread.start()

    def remove(self, listener: socket.socket) -> None:
        with self._lock:
            try:
                self._selector.unregister(listener)
            except (KeyError, ValueError):
                pass

    def _run(self) -> None:
        while True:
            # a timeout: a fake's listener registered while it waits is watched from the next
            # turn on (epoll sees it at once; the timeout bounds it elsewhere)
            for key, _ in self._selector.select(0.5):
                key.data._accept()


_ACCEPTOR = _Acceptor()


@dataclass
class Result:
    rc: int
    out: bytes
    err: bytes

    @property
    def stdout(self) -> str:
        return self.out.decode()

    @property
    def stderr(self) -> str:
        return self.err.decode()

    def json(self):
        return json.loads(self.out)

    def err_json(self):
        return json.loads(self.err)
