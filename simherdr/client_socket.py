"""herdr's client socket: ``<stem>-client.sock`` beside the API socket
(src/server/socket_paths.rs: derive_client_socket_from_api_socket, 0600, a stale file replaced,
a live one refused).

OUT OF SCOPE (the one place that says so): herdr's binary attach protocol (src/protocol) that
a terminal client speaks on this socket. simherdr accepts connections and holds them open,
reading and discarding what arrives, until the client hangs up or the server stops; GUI bridges
and fixtures that only look for the socket, or connect to it, see what they expect.
"""

from __future__ import annotations

import asyncio
import os

from .unixsocket import Listening, listen_protocol


def client_socket_path(api_socket_path: str) -> str:
    """``herdr.sock`` -> ``herdr-client.sock`` in the same directory (stem, not suffix: a path
    without ``.sock`` gets ``-client.sock`` appended to its whole name)."""
    parent, name = os.path.split(api_socket_path)
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return os.path.join(parent, f"{stem or 'herdr'}-client.sock")


class _Held(asyncio.Protocol):
    """One client connection, held open: what it sends is read and dropped."""

    def __init__(self, owner: ClientSocket) -> None:
        self.owner = owner
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.owner._held.add(self)

    def data_received(self, data: bytes) -> None:
        pass

    def connection_lost(self, exc: Exception | None) -> None:
        self.owner._held.discard(self)


class ClientSocket:
    def __init__(self, path: str):
        self.path = path
        self._server: Listening | None = None
        self._held: set[_Held] = set()

    async def start(self) -> None:
        """prepare_socket_path (src/ipc.rs:81-108), then listen ``0600``."""
        self._server = await listen_protocol(
            self.path,
            lambda: _Held(self),
            busy_message=f"herdr server is already running (socket busy at {self.path})",
        )

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()  # removes the socket only if it is still ours
            self._server = None
        for held in list(self._held):
            if held.transport is not None:
                held.transport.close()
        self._held.clear()
