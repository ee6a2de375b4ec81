"""Unix-socket plumbing shared by the herdr socket (:mod:`simherdr.server`) and the control
plane (:mod:`simherdr.scenarios.control`): a private directory, a stale socket replaced but a
live one never, the socket created ``0600``. Protocol-free: each caller brings its handler.
"""

from __future__ import annotations

import asyncio
import os
import socket
import stat
from collections.abc import Awaitable, Callable

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class SocketBusy(RuntimeError):
    """The socket path cannot be taken (something answers there, or it is not a socket)."""


class UnsafeSocketDirectory(SocketBusy):
    """The socket's directory is not private (a SocketBusy, so ``simherdr serve`` reports it
    the same way: a message and exit status 1)."""


def check_socket_dir(directory: str) -> None:
    """The socket must live in a private directory.

    CHOICE (herdr's own config dir is private; a shared one would let another user replace or
    race the socket): a directory we create is created ``0700``; an existing directory that is
    group- or world-writable without the sticky bit is refused, because anyone who can write
    there can delete our socket and put theirs in its place. A sticky world-writable directory
    (``/tmp``) is accepted: there only the owner can remove the socket.
    """
    if not os.path.isdir(directory):
        try:
            os.makedirs(directory, mode=0o700)
        except FileExistsError:
            pass  # created concurrently: checked below like any existing directory
        else:
            os.chmod(directory, 0o700)  # whatever the umask
            return
    mode = os.stat(directory).st_mode
    if mode & (stat.S_IWGRP | stat.S_IWOTH) and not mode & stat.S_ISVTX:
        raise UnsafeSocketDirectory(
            f"refusing to listen in {directory}: the directory is group- or world-writable "
            f"(mode {stat.S_IMODE(mode):04o}) without the sticky bit, so another user could "
            f"replace the socket; use a private directory (chmod 700) or let simherdr create it"
        )


def socket_answers(path: str, timeout: float = 1.0) -> bool:
    """True if something accepts connections at ``path`` (a live herdr or simherdr)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


def take_path(path: str, busy_message: str) -> None:
    """Make ``path`` free to bind: its directory checked, a stale socket file removed. Raises
    :class:`SocketBusy` with ``busy_message`` when something still answers there, and never
    removes what is not a socket."""
    check_socket_dir(os.path.dirname(path) or ".")
    if os.path.exists(path) or os.path.islink(path):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise SocketBusy(f"refusing to replace {path}: it is not a socket")
        if socket_answers(path):
            raise SocketBusy(busy_message)
        os.unlink(path)  # stale socket file


async def listen_unix(
    path: str, handler: Handler, *, limit: int, busy_message: str, backlog: int = 100
) -> asyncio.Server:
    """:func:`take_path`, then listen on ``path``, created ``0600`` with no window where it
    is wider (umask while binding, chmod after)."""
    take_path(path, busy_message)
    old = os.umask(0o177)
    try:
        server = await asyncio.start_unix_server(handler, path=path, limit=limit, backlog=backlog)
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    return server
