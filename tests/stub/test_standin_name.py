"""The native stand-in's name for a server (simherdr/standin.py abstract_name): a socket file's
device, inode and mtime. An inode is reused at once by the next file made after one is
removed, while the server that held the old name may still be closing (its fork server ends
its calls first): by the inode alone the new server could not take its name, and its
launchers met the old one's (a refused connection, a call served by the wrong fork server)."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile

import pytest

from simherdr.standin import abstract_name
from simherdr.testing import ThreadServer

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="abstract socket names are Linux's"
)


def _identity(path: str) -> tuple[int, int, int]:
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_mtime_ns)


@pytest.fixture
def disk_dir():
    """A directory on /tmp whatever TMPDIR says: `make test` puts TMPDIR on tmpfs, which does
    not hand a removed file's inode to the next file made (the case could not be shown)."""
    d = tempfile.mkdtemp(prefix="standin-name-", dir="/tmp")
    yield d
    shutil.rmtree(d, ignore_errors=True)


#: tries at the reused inode: another process on the machine may take the freed inode first
REUSE_TRIES = 5


def test_a_server_on_a_reused_inode_takes_a_name_of_its_own(disk_dir):
    path = os.path.join(disk_dir, "herdr.sock")
    for _ in range(REUSE_TRIES):
        with ThreadServer("0.9.3", path=path):
            old = _identity(path)
        # the old server stopping: its socket file removed, its stand-in name still held
        holder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        holder.bind(abstract_name(old))
        try:
            with ThreadServer("0.9.3", path=path) as server:
                new = _identity(path)
                if new[:2] != old[:2]:
                    continue  # the inode went elsewhere: again, from a new old server
                assert abstract_name(new) != abstract_name(old)
                assert server.server.standin is not None  # it listens on a name of its own
                probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                with pytest.raises(OSError):
                    probe.bind(abstract_name(new))  # held: by the new server
                probe.close()
                return
        finally:
            holder.close()
    pytest.skip(f"this filesystem gave the new socket file another inode {REUSE_TRIES} times")
