"""A scripted herdr client socket for the stand-in's terminal client tests: it answers the
Hello with a Welcome (or a refusal), records every client message, and sends what a test
queues (``Terminal`` frames, ``ServerShutdown``...). The real server's behaviour is tested in
tests/terminalplane/; this fake pins the client's side byte for byte."""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import subprocess
import threading

from simherdr.protocol import FrameDecoder, encode_frame, wire_for
from simherdr.standin import hold_name
from simherdr.unixsocket import socket_identity


class FakeTerminalServer:
    def __init__(
        self, path: str, protocol: int, *, refuse: str | None = None, api_path: str | None = None
    ) -> None:
        self.path = path
        self.protocol = protocol
        self.wire = wire_for(protocol)
        self.refuse = refuse
        self.welcome_encoding = "TerminalAnsi"
        self.messages: queue.Queue = queue.Queue()  # what the client sent, decoded
        self.outbox: queue.Queue = queue.Queue()  # what to send: a value, or None to close
        self.silent = False  # accept and never answer the Hello
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(4)
        self.api = _HeldApiSocket(api_path) if api_path is not None else None
        self.conn: socket.socket | None = None
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    # -- the test's side ----------------------------------------------------------------------
    def send(self, value) -> None:
        self.outbox.put(value)

    def close_client(self) -> None:
        self.outbox.put(None)

    def frame(self, seq: int, data: bytes, full: bool = False, width=120, height=40) -> None:
        self.send(
            {
                "Terminal": {
                    "seq": seq,
                    "width": width,
                    "height": height,
                    "full": full,
                    "bytes": data,
                }
            }
        )

    def next_message(self, timeout: float = 30.0):
        return self.messages.get(timeout=timeout)

    def shutdown(self) -> None:
        self.outbox.put(None)
        if self.api is not None:
            self.api.close()
        try:
            self.sock.close()
        finally:
            if os.path.exists(self.path):
                os.unlink(self.path)

    # -- the server -----------------------------------------------------------------------------
    def _serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        self.conn = conn
        reader = threading.Thread(target=self._read, args=(conn,), daemon=True)
        reader.start()
        while True:
            item = self.outbox.get()
            if item is None:
                # the reader sees the end (b"") and closes the socket: closing it here could
                # beat the reader's next recv, which then fails instead of reporting "EOF"
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            try:
                conn.sendall(encode_frame(self.wire.encode_server(item)))
            except OSError:
                return

    def _read(self, conn: socket.socket) -> None:
        decoder = FrameDecoder()
        first = True
        while True:
            try:
                data = conn.recv(65536)
            except OSError:
                return
            if not data:
                self.messages.put("EOF")
                conn.close()
                return
            for payload in decoder.feed(data):
                message = self.wire.decode_client(payload)
                self.messages.put(message)
                if first:
                    first = False
                    if self.silent:
                        continue
                    self.send(
                        {
                            "Welcome": {
                                "version": self.protocol,
                                "encoding": self.welcome_encoding,
                                "error": self.refuse,
                            }
                        }
                    )
                    if self.refuse is not None:
                        self.close_client()


class _HeldApiSocket:
    """The API socket file beside the client socket, never listened on, and its stand-in name
    held as a simherdr server holds it: the stand-in's terminal session reads only the client
    socket's path from it (``ctx.client_socket_path``), and the suite's shared fork server
    serves the call (without it the socket file is missing and the launcher execs the Python
    stand-in: the same bytes, ~5 ms of CPU more a call)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.name = hold_name(socket_identity(path))

    def close(self) -> None:
        if self.name is not None:
            self.name.close()
        self.sock.close()
        if os.path.exists(self.path):
            os.unlink(self.path)


@contextlib.contextmanager
def standin_processes(stubs, base_env):
    """Start stand-in runs (``spawn(socket_path, *argv, version=, stdin=)``, stdout and stderr
    piped); each is killed and reaped when the block ends."""
    procs: list[subprocess.Popen] = []

    def spawn(socket_path, *argv, version, stdin=subprocess.DEVNULL):
        proc = subprocess.Popen(
            [stubs[version], *argv],
            env=dict(base_env, HERDR_SOCKET_PATH=socket_path),
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        procs.append(proc)
        return proc

    try:
        yield spawn
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
