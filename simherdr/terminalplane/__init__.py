"""herdr's terminal plane, server side: the client socket's protocol (handshake, terminal
attach / observe / control, ANSI frames). :mod:`.plane` holds herdr's rules,
:mod:`.connection` one client's framing and writer queue, :mod:`.encoder` the frames,
:mod:`.listener` the socket ``<stem>-client.sock``."""

from __future__ import annotations

from .listener import ClientSocket, client_socket_path
from .plane import APP_CLIENT_REASON, TerminalPlane

__all__ = ["APP_CLIENT_REASON", "ClientSocket", "TerminalPlane", "client_socket_path"]
