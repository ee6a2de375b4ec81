"""Socket safety (simherdr/server.py): a private directory, never taking over a live socket."""

from __future__ import annotations

import json
import os
import socket
import stat
import threading

import pytest

from simherdr.server import SocketBusy, UnsafeSocketDirectory, socket_answers
from simherdr.testing import ThreadServer
from tests import forkserve
from tests.core.socketclient import request


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_missing_parent_is_created_private(tmp_path):
    # three missing levels, short: the terminal plane's herdr-client.sock goes beside it, and
    # AF_UNIX paths end at 107 bytes (tmp_path is ~75 once pytest's run number has 4 digits)
    path = tmp_path / "m" / "b" / "s" / "herdr.sock"
    with ThreadServer(path=str(path)) as srv:
        assert mode(path.parent) == 0o700
        assert mode(path) == 0o600
        assert request(srv.path, "ping")["result"]["type"] == "pong"


def test_missing_parent_is_private_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        path = tmp_path / "open-umask" / "herdr.sock"
        with ThreadServer(path=str(path)):
            assert mode(path.parent) == 0o700
            assert mode(path) == 0o600
    finally:
        os.umask(old)


@pytest.mark.parametrize("bits", [0o777, 0o770, 0o707, 0o722])
def test_refuses_a_group_or_world_writable_directory(tmp_path, bits):
    d = tmp_path / "shared"
    d.mkdir()
    os.chmod(d, bits)
    with pytest.raises(UnsafeSocketDirectory) as e:
        ThreadServer(path=str(d / "herdr.sock"))
    assert "group- or world-writable" in str(e.value) and str(d) in str(e.value)
    assert isinstance(e.value, SocketBusy)  # `simherdr serve` reports it and exits 1
    assert os.listdir(d) == []


@pytest.mark.parametrize("bits", [0o1777, 0o1770])
def test_accepts_a_sticky_shared_directory(tmp_path, bits):
    d = tmp_path / "sticky"
    d.mkdir()
    os.chmod(d, bits)  # like /tmp: only the owner may remove the socket
    with ThreadServer(path=str(d / "herdr.sock")) as srv:
        assert request(srv.path, "ping")["result"]["type"] == "pong"


@pytest.mark.parametrize("bits", [0o700, 0o750, 0o755])
def test_accepts_a_private_or_read_only_shared_directory(tmp_path, bits):
    d = tmp_path / "mine"
    d.mkdir()
    os.chmod(d, bits)
    with ThreadServer(path=str(d / "herdr.sock")):
        assert mode(d) == bits  # an existing directory is never changed


def test_serve_refuses_an_unsafe_directory_with_a_clear_message(tmp_path):
    d = tmp_path / "shared"
    d.mkdir()
    os.chmod(d, 0o777)
    # forked (tests/forkserve.py: serve's main in a process of its own; serve's refusals as a
    # spawned process: tests/core/test_user_errors.py)
    p = forkserve.run(["serve", "--socket", str(d / "herdr.sock")], timeout=30)
    assert p.returncode == 1
    assert (
        p.stderr.startswith("simherdr: refusing to listen in ")
        and "without the sticky bit" in p.stderr
    )


class FakeHerdr:
    """Something herdr-like on a socket: answers ``ping`` like herdr 0.8.2, one request per
    connection (or, with ``silent``, accepts and never answers)."""

    def __init__(self, path: str, silent: bool = False):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(16)
        self.silent = silent
        self.served = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                if self.silent:
                    continue
                conn.settimeout(2)
                data = b""
                try:
                    while not data.endswith(b"\n"):
                        chunk = conn.recv(4096)
                        if not chunk:
                            break
                        data += chunk
                except OSError:
                    continue
                if not data.endswith(b"\n"):
                    continue
                rid = json.loads(data).get("id", "")
                conn.sendall(
                    json.dumps(
                        {
                            "id": rid,
                            "result": {
                                "type": "pong",
                                "version": "0.8.2",
                                "protocol": 20,
                                "capabilities": {
                                    "live_handoff": True,
                                    "detached_server_daemon": True,
                                },
                            },
                        }
                    ).encode()
                    + b"\n"
                )
                self.served += 1

    def close(self):
        # shutdown first: a close() alone leaves the socket listening while the thread is
        # blocked in accept()
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.thread.join(5)


@pytest.mark.parametrize("silent", [False, True], ids=["answers ping", "accepts silently"])
def test_never_takes_over_a_socket_a_herdr_answers(tmp_path, silent):
    path = str(tmp_path / "herdr.sock")
    fake = FakeHerdr(path, silent=silent)
    try:
        inode = os.stat(path).st_ino
        with pytest.raises(SocketBusy) as e:
            ThreadServer(path=path)
        assert str(e.value) == f"herdr is already running (socket busy at {path})"
        assert os.stat(path).st_ino == inode  # still the fake's socket, not replaced
        assert socket_answers(path)
        if not silent:
            assert request(path, "ping")["result"]["version"] == "0.8.2"  # the fake still serves
    finally:
        fake.close()


def test_a_dead_herdrs_socket_is_taken_over(tmp_path):
    path = str(tmp_path / "herdr.sock")
    fake = FakeHerdr(path)
    fake.close()  # the process is gone, its socket file stays behind
    assert os.path.exists(path) and not socket_answers(path)
    with ThreadServer(path=path) as srv:
        assert request(srv.path, "ping")["result"]["type"] == "pong"


def test_refuses_to_replace_something_that_is_not_a_socket(tmp_path):
    path = tmp_path / "herdr.sock"
    path.write_text("precious")
    with pytest.raises(SocketBusy, match="it is not a socket"):
        ThreadServer(path=str(path))
    assert path.read_text() == "precious"


def test_servers_starting_together_leave_the_umask_alone(tmp_path):
    """The umask is process-wide: a bind that set and restored it raced the other threads
    (two binds restoring each other's value left 0177 behind, and a test's compiler then
    wrote binaries nobody could execute, CI on a8f11da). Eight servers start at once in eight
    directories, ten rounds; the umask is what it was and each socket is still 0600."""

    def start(barrier: threading.Barrier, started: list, path: str) -> None:
        barrier.wait()
        started.append(ThreadServer(path=path))

    before = os.umask(0o022)
    try:
        for round_ in range(10):
            barrier = threading.Barrier(8)
            started: list[ThreadServer] = []
            # a directory each: binds in one directory are serialized by its lock
            paths = [str(tmp_path / f"r{round_}-{i}" / "h.sock") for i in range(8)]
            threads = [threading.Thread(target=start, args=(barrier, started, p)) for p in paths]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            try:
                assert len(started) == 8
                assert all(mode(s.path) == 0o600 for s in started)
                assert os.umask(0o022) == 0o022, f"round {round_}: the umask leaked"
            finally:
                for s in started:
                    s.stop()
    finally:
        os.umask(before)
