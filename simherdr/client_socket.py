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
import contextlib
import os
import socket
import stat

SOCKET_MODE = 0o600


def client_socket_path(api_socket_path: str) -> str:
    """``herdr.sock`` -> ``herdr-client.sock`` in the same directory (stem, not suffix: a path
    without ``.sock`` gets ``-client.sock`` appended to its whole name)."""
    parent, name = os.path.split(api_socket_path)
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return os.path.join(parent, f"{stem or 'herdr'}-client.sock")


def _answers(path: str) -> bool:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(1.0)
    try:
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


class ClientSocket:
    def __init__(self, path: str):
        self.path = path
        self._server: asyncio.base_events.Server | None = None
        self._held: set[asyncio.Task] = set()

    async def start(self) -> None:
        """prepare_socket_path (src/ipc.rs:81-108), then bind 0600."""
        from .server import SocketBusy  # the transport's one refusal type (the CLI prints it)

        if os.path.lexists(self.path):
            if not stat.S_ISSOCK(os.lstat(self.path).st_mode):
                raise SocketBusy(f"refusing to replace {self.path}: it is not a socket")
            if _answers(self.path):
                raise SocketBusy(f"herdr server is already running (socket busy at {self.path})")
            os.unlink(self.path)
        old = os.umask(0o177)
        try:
            self._server = await asyncio.start_unix_server(self._hold, path=self.path)
        finally:
            os.umask(old)
        os.chmod(self.path, SOCKET_MODE)

    async def _hold(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._held.add(task)
        try:
            while await reader.read(65536):
                pass
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self._held.discard(task)
            writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
        for t in list(self._held):
            t.cancel()
        await asyncio.gather(*self._held, return_exceptions=True)
