"""The client socket beside the API socket (src/server/socket_paths.rs)."""

from __future__ import annotations

import os
import socket
import stat
import subprocess

import pytest

from simherdr.server import SocketBusy
from simherdr.stub.install import write_stub
from simherdr.terminalplane import client_socket_path
from simherdr.testing import ThreadServer
from tests import forkserve


@pytest.mark.parametrize(
    "api,client",
    [
        ("/run/h/herdr.sock", "/run/h/herdr-client.sock"),
        ("/run/h/dev.sock", "/run/h/dev-client.sock"),
        ("/run/h/api", "/run/h/api-client.sock"),
        ("/run/h/a.b.sock", "/run/h/a.b-client.sock"),
    ],
)
def test_path_is_derived_from_the_api_socket_stem(api, client):
    assert client_socket_path(api) == client


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_both_sockets_created_0600_and_removed_on_stop(version, config):
    with ThreadServer(version, config=config) as srv:
        client = client_socket_path(srv.path)
        assert stat.S_ISSOCK(os.lstat(client).st_mode)
        assert _mode(srv.path) == 0o600 and _mode(client) == 0o600
        held = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        held.connect(client)  # accepted; herdr waits 4 s for its Hello
        held.settimeout(0.2)
        with pytest.raises(socket.timeout):
            held.recv(1)  # nothing answered, nothing closed
    assert not os.path.exists(srv.path) and not os.path.exists(client)
    held.settimeout(2)
    assert held.recv(1) == b""  # the server's stop closed the held connection
    held.close()


def test_stale_client_socket_is_replaced(tmp_path, version, config):
    d = tmp_path / "run"
    d.mkdir(mode=0o700)
    api = str(d / "herdr.sock")
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(client_socket_path(api))
    stale.close()  # the file stays, nothing listens
    with ThreadServer(version, path=api, config=config):
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.connect(client_socket_path(api))
        probe.close()
    assert not os.path.exists(client_socket_path(api))


def test_live_client_socket_is_refused_and_nothing_is_bound(tmp_path, version, config):
    d = tmp_path / "run"
    d.mkdir(mode=0o700)
    api = str(d / "herdr.sock")
    live = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    live.bind(client_socket_path(api))
    live.listen(1)
    try:
        with pytest.raises(SocketBusy, match="herdr server is already running"):
            ThreadServer(version, path=api, config=config)
        assert not os.path.exists(api)
    finally:
        live.close()


def test_server_stop_through_the_stand_in_waits_for_both(tmp_path, version):
    d = tmp_path / "run"
    d.mkdir(mode=0o700)
    api = str(d / "herdr.sock")
    # forked (tests/forkserve.py); a spawned server stopped through the stand-in:
    # tests/stub/test_cli_local_e2e.py::test_default_server_stopped_with_server_stop
    proc = forkserve.spawn_server(api, version)
    try:
        assert os.path.exists(client_socket_path(api))
        env = {**os.environ, "HERDR_SOCKET_PATH": api}
        herdr = write_stub(str(tmp_path / "bin"), version)
        out = subprocess.run(
            [herdr, "server", "stop"],
            env=env,
            capture_output=True,
            text=True,
            timeout=20,
        )
        assert out.returncode == 0, out.stderr
        assert not os.path.exists(api) and not os.path.exists(client_socket_path(api))
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
