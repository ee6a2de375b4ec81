"""A shared fork server (simherdr/standin.py ``SharedStandin``; the launcher's config field
``SIMHERDR_STANDIN_SERVER`` names it): one for a run that starts many servers.

- it serves the calls a simherdr's own fork server would, for any simherdr, and starts none
  of theirs;
- a socket that is not a simherdr's still gets the Python stand-in in the caller's own process
  (its peer is the caller: a recorder matches connections to the runs by that pid);
- its end, or its owner's death, leaves no process; a launcher that names it afterwards still
  answers.

Skipped without a C compiler (no native launcher there).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import native_client
import pytest

from simherdr.standin import SharedStandin
from simherdr.stub import native
from simherdr.stub.install import write_stub
from simherdr.testing import ThreadServer

pytestmark = native_client.NEEDS_NATIVE


@pytest.fixture(scope="module")
def shared():
    made = SharedStandin.start(warm_up=False)
    assert made is not None
    yield made
    made.close()


@pytest.fixture(scope="module")
def herdr(shared, tmp_path_factory):
    return write_stub(
        str(tmp_path_factory.mktemp("shared")), "0.9.3", native=True, shared=shared.name
    )


def _env(path: str) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "HERDR_SOCKET_PATH": path}


def _call(herdr: str, path: str, *argv: str) -> tuple[int, subprocess.CompletedProcess]:
    """(the launcher's pid, its outcome)."""
    proc = subprocess.Popen(
        [herdr, *argv], env=_env(path), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = proc.communicate(timeout=60)
    return proc.pid, subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ")[1][0] not in "ZX"
    except OSError:
        return False


def _children_of(pid: int) -> set[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return {int(p) for p in handle.read().split()}
    except OSError:
        return set()


def test_it_serves_every_simherdr_and_starts_none_of_their_fork_servers(herdr):
    with ThreadServer("0.9.3") as a, ThreadServer("0.9.3") as b:
        for server in (a, b):
            since = server.trace()[-1]["seq"] if server.trace() else 0
            pid, done = _call(herdr, server.path, "workspace", "create", "--no-focus")
            assert done.returncode == 0, done.stderr
            pid, done = _call(herdr, server.path, "pane", "get", "w1:p1")
            assert done.returncode == 0 and b'"pane_id":"w1:p1"' in done.stdout, done.stderr
            peers = {e.get("pid") for e in server.trace(since) if e.get("method") == "pane.get"}
            # served in a forked child (not the launcher's own process: no Python start) ...
            assert peers and pid not in peers
            # ... of the shared fork server: this server's own never started
            assert server.server.standin is not None and server.server.standin.process is None


def test_a_socket_that_is_not_a_simherdrs_sees_the_caller_itself(herdr, tmp_path):
    """No simherdr holds the socket's name: the Python stand-in runs in the launcher's own
    process, whose pid the socket's peer is (what the record proxy matches its runs by)."""
    path = str(tmp_path / "look-alike.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(4)
    peers: list[int] = []

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
            peers.append(int.from_bytes(creds[:4], sys.byteorder))
            conn.recv(65536)  # the ping; then the caller reads EOF

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        pid, done = _call(herdr, path, "pane", "get", "w1:p1")
    finally:
        thread.join(30)
        listener.close()
    assert done.returncode != 0 and done.stderr
    assert peers == [pid]


def test_with_no_socket_it_serves_the_socketless_verbs_only(shared, tmp_path):
    """CHOICE(standin-shared-socketless): a call with no socket at $HERDR_SOCKET_PATH (unset,
    or no socket file there) goes to the shared fork server too, which serves `config` and
    `integration` (they reach no socket) and asks for the Python stand-in for anything else.
    The Python launcher is removed here: what it would have run fails instead."""
    herdr = write_stub(str(tmp_path / "bin"), "0.9.3", native=True, shared=shared.name)
    os.unlink(os.path.join(str(tmp_path / "bin"), ".herdr-python"))
    (tmp_path / "home").mkdir()
    for socket_path in (None, str(tmp_path / "none.sock")):
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home")}
        if socket_path is not None:
            env["HERDR_SOCKET_PATH"] = socket_path
        for argv, out in (
            (["config", "check"], b"config: ok\n"),
            (["integration", "status"], b"pi: not installed ("),
        ):
            done = subprocess.run([herdr, *argv], env=env, capture_output=True, timeout=60)
            assert done.returncode == 0 and done.stdout.startswith(out), done
        done = subprocess.run([herdr, "pane", "list"], env=env, capture_output=True, timeout=60)
        # (python itself cannot open the removed launcher script)
        assert done.returncode == 2 and b".herdr-python" in done.stderr, done


def test_its_end_leaves_no_process_and_its_launchers_still_answer(tmp_path):
    made = SharedStandin.start(warm_up=False)
    assert made is not None and made.process is not None
    herdr = write_stub(str(tmp_path / "bin"), "0.9.3", native=True, shared=made.name)
    with ThreadServer("0.9.3") as server:
        _pid, done = _call(herdr, server.path, "--version")
        assert done.stdout == b"herdr 0.9.3\n"
        pids = {made.process.pid} | _children_of(made.process.pid)
        assert len(pids) >= 2  # the fork server and its idle children
        made.close()
        assert not any(_alive(pid) for pid in pids)
        # the name is gone: the server's own fork server serves from now on
        _pid, done = _call(herdr, server.path, "--version")
        assert done.stdout == b"herdr 0.9.3\n"
        assert server.server.standin.process is not None


_OWNER = """
import sys, time
sys.path.insert(0, {root!r})
from simherdr.standin import SharedStandin
made = SharedStandin.start(warm_up=False)
print(made.name, made.process.pid, flush=True)
time.sleep(600)
"""


def test_its_owners_death_ends_it_and_every_child(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    owner = subprocess.Popen(
        [sys.executable, "-c", _OWNER.format(root=root)], stdout=subprocess.PIPE, text=True
    )
    try:
        name, pid = owner.stdout.readline().split()
        herdr = write_stub(str(tmp_path / "bin"), "0.9.3", native=True, shared=name)
        with ThreadServer("0.9.3") as server:
            _pid, done = _call(herdr, server.path, "--version")  # (it loads, forks children)
            assert done.stdout == b"herdr 0.9.3\n"
            assert server.server.standin.process is None
        pids = {int(pid)} | _children_of(int(pid))
        assert len(pids) >= 2
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait()
        owner.stdout.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.01)
    assert not any(_alive(p) for p in pids)


def test_an_install_writes_the_name_it_finds_in_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(native.SHARED_ENV, "simherdr-standin-shared-test")
    path = write_stub(str(tmp_path / "a"), "0.9.3", native=True)
    with open(path, "rb") as handle:
        assert b"\0simherdr-standin-shared-test\0" in handle.read()
    assert native.shared_name("x" * 101) == native.shared_name("a\0b") == ""
    assert native.shared_name("") == ""
    monkeypatch.delenv(native.SHARED_ENV)
    assert native.shared_name() == ""
