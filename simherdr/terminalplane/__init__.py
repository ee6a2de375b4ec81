"""herdr's terminal plane, server side: the client socket's protocol (handshake, terminal
attach / observe / control, ANSI frames). :mod:`.plane` holds herdr's rules,
:mod:`.connection` one client's framing and writer queue, :mod:`.encoder` the frames,
:mod:`.listener` the socket ``<stem>-client.sock`` (the only module a server imports
before its first client connects)."""

from __future__ import annotations

from .listener import ClientSocket, client_socket_path

__all__ = ["ClientSocket", "client_socket_path"]
