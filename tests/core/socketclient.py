"""A minimal herdr socket client for tests: one request per connection."""

from __future__ import annotations

import json
import socket

from tests import herdr_reference as ref


def raw(path: str, data: bytes, timeout: float = 5.0, shut_write: bool = False) -> bytes:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    try:
        s.sendall(data)
        if shut_write:
            s.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            b = s.recv(65536)
            if not b:
                break
            chunks.append(b)
        return b"".join(chunks)
    finally:
        s.close()


def request(
    path: str,
    method: str,
    params: dict | None = None,
    rid: str = "t",
    timeout: float = 5.0,
    version: str | None = None,
) -> dict:
    """One request; the reply is checked against the schema of the version serving ``path``."""
    line = json.dumps({"id": rid, "method": method, "params": params if params is not None else {}})
    out = raw(path, line.encode() + b"\n", timeout)
    lines = out.decode().splitlines()
    assert len(lines) == 1, f"expected exactly one reply line, got {out!r}"
    reply = json.loads(lines[0])
    ref.validate_reply(reply, version or ref.socket_version(path))
    return reply


class Subscription:
    def __init__(
        self,
        path: str,
        subscriptions: list,
        rid: str = "sub",
        timeout: float = 5.0,
        version: str | None = None,
    ):
        self.version = version or ref.socket_version(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.sock.sendall(
            json.dumps(
                {
                    "id": rid,
                    "method": "events.subscribe",
                    "params": {"subscriptions": subscriptions},
                }
            ).encode()
            + b"\n"
        )
        self.file = self.sock.makefile("rb")

    def next(self) -> dict:
        line = self.file.readline()
        assert line, "subscription closed"
        obj = json.loads(line)
        ref.validate_reply(obj, self.version)
        return obj

    def close(self):
        self.file.close()
        self.sock.close()
