"""The process `herdr [--session S] server` leaves running looks like herdr's (issue 33 item 1):
herdr runs its server in the process its client started (src/main.rs:579-581), so `ps`,
`pgrep -f 'herdr.*server'`, /proc/PID/cmdline and comm read the command the client typed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from simherdr import proctitle
from simherdr.stub.cli import launch, sessions
from tests.releases import DEFAULT_VERSION

pytestmark = pytest.mark.skipif(
    not os.path.exists("/proc/self/cmdline"), reason="needs Linux /proc"
)


@pytest.fixture
def home():
    path = tempfile.mkdtemp(prefix="sht", dir="/tmp")  # short: AF_UNIX paths
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _wait(predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_herdr_session_server_shows_herdrs_command_line(home):
    from simherdr.stub.install import write_stub

    bindir = os.path.join(home, "bin")
    write_stub(bindir, DEFAULT_VERSION)
    env = {
        "PATH": bindir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "XDG_CONFIG_HOME": home,
        "LANG": "C.UTF-8",
    }
    sock = os.path.join(home, "herdr", "sessions", "lab", "herdr.sock")
    proc = subprocess.Popen(
        ["herdr", "--session", "lab", "server"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        assert _wait(lambda: sessions.is_running_at(sock)), "no server"
        with open("/proc/%d/cmdline" % proc.pid, "rb") as handle:
            cmdline = handle.read()
        # Exactly herdr's where the kernel lets the area shrink, else NUL-padded.
        assert cmdline.rstrip(b"\0") == b"herdr\0--session\0lab\0server"
        with open("/proc/%d/comm" % proc.pid, "rb") as handle:
            assert handle.read() == b"herdr\n"
        if shutil.which("ps"):
            shown = subprocess.run(
                ["ps", "-p", str(proc.pid), "-o", "command="], capture_output=True, text=True
            )
            assert shown.stdout.strip() == "herdr --session lab server"
        if shutil.which("pgrep"):
            found = subprocess.run(["pgrep", "-f", "herdr.*server"], capture_output=True, text=True)
            assert str(proc.pid) in found.stdout.split()
        assert subprocess.run(["herdr", "session", "stop", "lab"], env=env).returncode == 0
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def test_the_title_is_the_stand_ins_argv(home):
    env = {"PATH": home}
    herdr = os.path.join(home, "herdr")
    open(herdr, "w").close()
    os.chmod(herdr, 0o755)
    # Found on PATH under its name: the word typed.
    assert launch.server_title([herdr, "--session", "x", "server"], env) == [
        "herdr",
        "--session",
        "x",
        "server",
    ]
    # Run by a path PATH does not lead to: that path.
    assert launch.server_title([herdr, "server"], {"PATH": "/nonexistent"}) == [herdr, "server"]
    # The launch module called in-process (no `server` word in the process's argv).
    assert launch.server_title(["-c"], env) == ["herdr", "server"]


def test_the_server_takes_its_title_out_of_its_environment():
    assert launch.TITLE_ENV == proctitle.TITLE_ENV
    child = launch.serve_env({"A": "1"}, ["herdr", "server"])
    assert proctitle.take_title(child) == ["herdr", "server"]
    assert child == {"A": "1"}
    for bad in ("", "[]", "{}", "[1]", "nope", '["a\\u0000b"]'):
        env = {proctitle.TITLE_ENV: bad}
        assert proctitle.take_title(env) is None
        assert env == {}


def test_set_title_in_a_child_process():
    code = (
        "import sys; from simherdr.proctitle import set_title; "
        "ok = set_title(['herdr', 'server']); "
        "sys.stdout.write(repr((ok, open('/proc/self/cmdline','rb').read(), "
        "open('/proc/self/comm','rb').read())))"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=root),
        timeout=30,
    )
    shortened, cmdline, comm = eval(done.stdout)
    assert cmdline.rstrip(b"\0") == b"herdr\0server"
    if shortened:  # the kernel let the area shrink: exactly herdr's argv, no padding
        assert cmdline == b"herdr\0server\0"
    assert comm == b"herdr\n"
