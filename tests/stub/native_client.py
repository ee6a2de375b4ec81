"""A launcher of the native stand-in written in Python, for tests: the wire of
``simherdr/stub/data/launcher.c`` (request with SCM_RIGHTS; 'P', 'E', 'S', 'X', 'F' back), so a
test drives the fork server directly, in-process and without an exec per call."""

from __future__ import annotations

import os
import socket
import struct
import sys
from dataclasses import dataclass

import pytest

import simherdr
from simherdr.standin import abstract_name
from simherdr.stub import native


def _no_launcher() -> bool:
    cc = native.compiler()
    return cc is None or native.build(cc) is None


# the modules of the native stand-in's tests: skipped where install-stub cannot build it
NEEDS_NATIVE = pytest.mark.skipif(
    _no_launcher(),
    reason="no C compiler on this machine (or not Linux): install-stub writes the Python stand-in",
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(simherdr.__file__)))


@dataclass
class Outcome:
    kind: str  # "E" (exit status), "S" (signal), "X" (exec request), "F" (fall back)
    value: int
    stdout: bytes
    stderr: bytes


def name_of(api_socket: str) -> bytes:
    st = os.stat(api_socket)
    return abstract_name((st.st_dev, st.st_ino, st.st_mtime_ns))


def _memfd(data: bytes = b"") -> int:
    fd = os.memfd_create("native-client")
    if data:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


#: the launcher's stdio field for call()'s descriptors: memfds (seekable, no terminal)
MEMFD_STDIO = 0b111


def request(
    argv, env, release, *, exe="/bin/herdr", python=None, root=ROOT, stdio=MEMFD_STDIO
) -> bytes:
    fields = [os.fsencode(python or os.path.abspath(sys.executable)), os.fsencode(root)]
    fields += [release.encode(), os.fsencode(exe), b"18", b"0", b"0", str(stdio).encode()]
    fields += [os.fsencode(a) for a in ["herdr", *argv]] + [b""]
    fields += [os.fsencode(k) + b"=" + os.fsencode(v) for k, v in env.items()]
    body = b"".join(f + b"\0" for f in fields)
    return b"SHS2" + struct.pack("<I", len(body)) + body


def call(name: bytes, argv, env, release, *, stdin=b"", cwd=".", timeout=20.0, **kw) -> Outcome:
    """One call through the fork server listening on abstract ``name`` (``cwd``: a directory,
    or an open descriptor to send as the working directory)."""
    where = os.dup(cwd) if isinstance(cwd, int) else os.open(cwd, os.O_RDONLY | os.O_DIRECTORY)
    fds = [_memfd(stdin), _memfd(), _memfd(), where]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(name)
        data = request(argv, env, release, **kw)
        sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("4i", *fds))])
        kind, value = "", 0
        buf = b""
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                raise ConnectionError("the fork server closed the call without a status")
            buf += chunk
            while buf:
                kind = chr(buf[0])
                if kind == "F":
                    return Outcome("F", 0, b"", b"")
                if kind == "X":
                    return Outcome("X", 0, b"", b"")
                if len(buf) < 5:
                    break
                (value,) = struct.unpack("<I", buf[1:5])
                buf = buf[5:]
                if kind in "ES":
                    return Outcome(kind, value, _read_all(fds[1]), _read_all(fds[2]))
    finally:
        sock.close()
        for fd in fds:
            os.close(fd)
