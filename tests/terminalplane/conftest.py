"""A server with one workspace (pane w1:p1) and a way to open terminal-plane clients on it."""

from __future__ import annotations

import pytest

from simherdr.terminalplane import client_socket_path
from simherdr.testing import ThreadServer
from tests.core.socketclient import request

from .wireclient import WireClient


class Plane:
    def __init__(self, srv: ThreadServer) -> None:
        self.srv = srv
        self.protocol = srv.sim.version.protocol
        self.client_path = client_socket_path(srv.path)
        self._clients: list[WireClient] = []

    def client(self) -> WireClient:
        c = WireClient(self.client_path, self.protocol)
        self._clients.append(c)
        return c

    def api(self, method: str, **params) -> dict:
        reply = request(self.srv.path, method, params)
        assert "error" not in reply, reply
        return reply["result"]

    def terminal_id(self, pane_id: str = "w1:p1") -> str:
        return self.api("pane.get", pane_id=pane_id)["pane"]["terminal_id"]

    def close(self) -> None:
        for c in self._clients:
            c.close()


def make_plane(version: str, config, tmp_path) -> tuple[ThreadServer, Plane]:
    srv = ThreadServer(version, config=config)
    plane = Plane(srv)
    plane.api("workspace.create", cwd=str(tmp_path))
    return srv, plane


@pytest.fixture
def plane(config, tmp_path):
    """herdr 0.8.2 (protocol 20) with workspace w1."""
    srv, p = make_plane("0.8.2", config, tmp_path)
    with srv:
        yield p
        p.close()
