"""The server reads a client's pid (SO_PEERCRED) for its trace (issue 34: read with
memoryview.cast, not struct, off serve's start path)."""

from __future__ import annotations

import os
import socket

import pytest

from simherdr.server import _peer_pid


@pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED"), reason="SO_PEERCRED is Linux's")
def test_the_peer_pid_is_the_connecting_process():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with a, b:
        assert _peer_pid(a) == os.getpid()


def test_no_socket_no_pid():
    assert _peer_pid(None) is None


def test_a_closed_socket_has_no_pid():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    b.close()
    a.close()
    assert _peer_pid(a) is None
