"""herdr's client socket: ``<stem>-client.sock`` beside the API socket
(src/server/socket_paths.rs: derive_client_socket_from_api_socket, 0600, a stale file replaced,
a live one refused). Each connection speaks herdr's client protocol
(:mod:`simherdr.terminalplane.plane`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..facts.paths import client_socket_for_api_socket
from ..unixsocket import Listening, listen_protocol

if TYPE_CHECKING:
    from ..simulator import Simulator
    from .connection import TerminalClient
    from .plane import TerminalPlane


def client_socket_path(api_socket_path: str) -> str:
    """``herdr.sock`` -> ``herdr-client.sock`` in the same directory (stem, not suffix: a path
    without ``.sock`` gets ``-client.sock`` appended to its whole name); the rule lives in
    :func:`simherdr.facts.paths.client_socket_for_api_socket`, shared with the stand-in."""
    return client_socket_for_api_socket(api_socket_path)


class ClientSocket:
    def __init__(self, path: str, sim: Simulator):
        self.path = path
        self.sim = sim
        # made on the first connection: a server nobody attaches to never imports the plane,
        # its wire tables or its encoder (`simherdr serve` answers its first ping sooner)
        self.plane: TerminalPlane | None = None
        self._server: Listening | None = None

    async def start(self) -> None:
        """prepare_socket_path (src/ipc.rs:81-108), then listen ``0600``."""
        self._server = await listen_protocol(
            self.path,
            self._new_client,
            busy_message=f"herdr server is already running (socket busy at {self.path})",
        )

    def _new_client(self) -> TerminalClient:
        if self.plane is None:
            from .plane import TerminalPlane

            self.plane = TerminalPlane(self.sim)
        return self.plane.new_client()

    async def close(self) -> None:
        """The server stops: no more connections; every client is told (ServerShutdown)."""
        if self._server is not None:
            self._server.close()  # removes the socket only if it is still ours
            self._server = None
        if self.plane is not None:
            self.plane.close_all()
            self.plane.detach_listener()
