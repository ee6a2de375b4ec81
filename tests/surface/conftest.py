"""Fixtures of the server-surface tests (``h`` is the suite's: replies validated against the
schema of the profile's own herdr version)."""

from __future__ import annotations

import json
import socket

import pytest

from simherdr.testing import ThreadServer
from tests import herdr_reference as ref


class Socket:
    """One request per connection on a ThreadServer; replies schema-checked per version."""

    def __init__(self, srv: ThreadServer, version: str):
        self.srv, self.version, self.path = srv, version, srv.path

    def call(self, method: str, **params) -> dict:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect(self.path)
        try:
            line = {"id": "t", "method": method, "params": params}
            s.sendall(json.dumps(line).encode() + b"\n")
            reply = json.loads(s.makefile("rb").readline())
        finally:
            s.close()
        ref.validate_reply(reply, self.version)
        return reply

    def ok(self, method: str, **params) -> dict:
        reply = self.call(method, **params)
        assert "result" in reply, f"{method} failed: {reply}"
        return reply["result"]

    def err(self, method: str, **params) -> dict:
        reply = self.call(method, **params)
        assert "error" in reply, f"{method} unexpectedly succeeded: {reply}"
        return reply["error"]


@pytest.fixture
def sock(version, config):
    with ThreadServer(version, config=config) as srv:
        yield Socket(srv, version)
