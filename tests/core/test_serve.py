"""`simherdr serve` and `simherdr install-stub` as processes. A test of what a running server
does to its own process (a signal, server.stop) starts it forked (tests/forkserve.py: the CLI's
main in a process of its own) where another case spawns the real ``python -m simherdr serve``."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from simherdr.server import socket_answers
from simherdr.testing import spawn_server
from tests import forkserve
from tests.core.socketclient import request
from tests.inproc import simherdr_main
from tests.releases import DEFAULT_VERSION


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_cleanly_on_signal_and_removes_socket(tmp_path, sig):
    path = str(tmp_path / "herdr.sock")
    # SIGTERM: the real `python -m simherdr serve`; SIGINT: forked (the same handlers)
    start = spawn_server if sig == signal.SIGTERM else forkserve.spawn_server
    proc = start(path, version="0.8.2")
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
    first = forkserve.spawn_server(path)  # a live server; the second start is the real one
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
    # forked; through the stand-in's `herdr server` the real process:
    # tests/stub/test_cli_local_e2e.py::test_default_server_stopped_with_server_stop
    path = str(tmp_path / "herdr.sock")
    proc = forkserve.spawn_server(path)
    try:
        assert request(path, "server.stop")["result"] == {"type": "ok"}
        assert proc.wait(10) == 0
        assert not os.path.exists(path)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_bad_version_is_a_usage_error(tmp_path):
    # in-process (tests/inproc.py); serve's usage errors as a process: tests/core/test_user_errors.py
    p = simherdr_main("serve", "--socket", str(tmp_path / "s"), "--herdr-version", "1.0")
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


def test_a_stopped_serve_runs_its_exit_hooks_and_flushes(tmp_path):
    """serve ends without the interpreter's teardown (simherdr.cli._end_process, CHOICE): what
    that teardown did for the process still happens: an ``atexit`` hook runs, a stdout buffer
    not yet written reaches the pipe, the status is serve's."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(
        "import atexit, os, sys\n"
        "sys.stdout.write('unflushed')  # a pipe: block-buffered, written only by a flush\n"
        "atexit.register(lambda: open(os.environ['HOOK_MARK'], 'w').write('ran'))\n"
    )
    path = str(tmp_path / "herdr.sock")
    env = dict(os.environ, PYTHONPATH=str(hooks), HOOK_MARK=str(tmp_path / "mark"))
    env.pop("PYTHONUNBUFFERED", None)  # stdout buffered, as it is by default
    proc = subprocess.Popen(
        [sys.executable, "-m", "simherdr", "serve", "--socket", path, "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while not (os.path.exists(path) and socket_answers(path)):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.01)
        assert request(path, "ping")["result"]["type"] == "pong"  # its signal handlers are set
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (proc.returncode, out, err) == (0, "unflushed", "")
    assert (tmp_path / "mark").read_text() == "ran"
