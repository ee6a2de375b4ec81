"""`simherdr serve` and `simherdr install-stub` as processes."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys

import pytest

from simherdr.server import socket_answers
from simherdr.testing import spawn_server
from tests.core.socketclient import request
from tests.releases import DEFAULT_VERSION


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_cleanly_on_signal_and_removes_socket(tmp_path, sig):
    path = str(tmp_path / "herdr.sock")
    proc = spawn_server(path, version="0.8.2")
    try:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert request(path, "ping", version="0.8.2")["result"]["protocol"] == 20
        proc.send_signal(sig)
        assert proc.wait(10) == 0
        assert not os.path.exists(path)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_refuses_a_socket_that_answers(tmp_path):
    path = str(tmp_path / "herdr.sock")
    first = spawn_server(path)
    try:
        second = subprocess.run(
            [sys.executable, "-m", "simherdr", "serve", "--socket", path],
            capture_output=True,
            text=True,
            timeout=20,
        )
        assert second.returncode == 1
        assert "herdr is already running (socket busy at" in second.stderr
        assert socket_answers(path)
        assert request(path, "ping")["result"]["version"] == DEFAULT_VERSION
    finally:
        first.terminate()
        first.wait(10)


def test_server_stop_ends_the_process(tmp_path):
    path = str(tmp_path / "herdr.sock")
    proc = spawn_server(path)
    try:
        assert request(path, "server.stop")["result"] == {"type": "ok"}
        assert proc.wait(10) == 0
        assert not os.path.exists(path)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_bad_version_is_a_usage_error(tmp_path):
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "simherdr",
            "serve",
            "--socket",
            str(tmp_path / "s"),
            "--herdr-version",
            "1.0",
        ],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert p.returncode == 2 and "invalid choice: '1.0'" in p.stderr


def test_install_stub_prints_an_executable_path(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "simherdr", "install-stub", str(tmp_path / "bin")],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert p.returncode == 0
    path = p.stdout.strip()
    assert path == str(tmp_path / "bin" / "herdr") and os.access(path, os.X_OK)
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20)
    assert out.returncode == 0 and out.stdout == "herdr 0.9.3\n"
