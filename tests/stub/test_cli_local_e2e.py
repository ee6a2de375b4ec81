"""The server-free commands and sessions end to end through the real stand-in executable,
on both profiles: config check, session list/stop/delete, `herdr --session X server` started and
stopped through the stand-in, integration, the nested client guard, live-handoff (no ping)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest
from stub_fake import ok

from tests.forkserve import ping
from tests.releases import DEFAULT_VERSION, VERSIONS, kinds, tables


@pytest.fixture
def home():
    path = tempfile.mkdtemp(prefix="she", dir="/tmp")  # short: AF_UNIX path limit
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def run(stubs, home):
    def call(*argv, version=DEFAULT_VERSION, env=None, timeout=30):
        full = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LANG": "C.UTF-8"}
        full["XDG_CONFIG_HOME"] = os.path.join(home, "cfg")
        full.update(env or {})
        return subprocess.run(
            [stubs[version], *argv], env=full, capture_output=True, text=True, timeout=timeout
        )

    return call


def wait_until(predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.mark.parametrize("version", VERSIONS)
def test_config_check(run, home, version):
    done = run("config", "check", version=version)
    assert (done.returncode, done.stdout, done.stderr) == (0, "config: ok\n", "")
    config = os.path.join(home, "cfg", "herdr")
    os.makedirs(config)
    with open(os.path.join(config, "config.toml"), "w") as handle:
        handle.write("[ui]\nmouse_captur = true\n")
    done = run("config", "check", version=version)
    assert (done.returncode, done.stdout) == (
        1,
        "config: issues found\nunknown config key ui.mouse_captur; ignoring key\n",
    )
    done = run("config", version=version)
    assert done.returncode == 2 and done.stderr.startswith("herdr config commands:\n")


@pytest.mark.parametrize("version", VERSIONS)
def test_server_with_a_session_through_the_stand_in(run, home, stubs, version):
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": os.path.join(home, "cfg"),
    }
    # A lab script: `herdr server --session lab &` (the global --session, anywhere).
    server = subprocess.Popen(
        [stubs[version], "server", "--session", "lab"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        def listed():
            done = run("session", "list", "--json", version=version)
            return {s["name"]: s["running"] for s in json.loads(done.stdout)["sessions"]}

        # waited for on its socket (a stand-in call per poll was a Python start each: the
        # session verbs run in the caller's process); the stand-in's listing is checked once
        sock = os.path.join(home, "cfg", "herdr", "sessions", "lab", "herdr.sock")
        assert wait_until(lambda: ping(sock))
        assert listed().get("lab") is True
        # The session's socket serves this herdr version.
        done = run("--session", "lab", "status", "--json", version=version)
        assert json.loads(done.stdout)["server"]["version"] == version
        done = run(
            "workspace", "create", "--label", "x", version=version, env={"HERDR_SESSION": "lab"}
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["result"]["type"] == "workspace_created"

        assert run("session", "delete", "lab", version=version).returncode == 1
        done = run("session", "stop", "lab", version=version)
        assert (done.returncode, done.stdout) == (0, "stopped session lab\n")
        assert server.wait(timeout=15) == 0
        assert server.stderr.read() == ""  # herdr's headless server prints nothing
        assert listed() == {"default": False, "lab": False}
        done = run("session", "delete", "lab", "--json", version=version)
        assert done.returncode == 0 and json.loads(done.stdout)["deleted"] is True
        assert listed() == {"default": False}
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        server.stderr.close()


def test_default_server_stopped_with_server_stop(run, home, stubs):
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, "cfg"),
    }
    server = subprocess.Popen([stubs["0.8.2"], "server"], env=env, stderr=subprocess.DEVNULL)
    try:
        sock = os.path.join(home, "cfg", "herdr", "herdr.sock")
        assert wait_until(lambda: ping(sock))  # (on its socket; the stand-in's listing below)
        assert run("session", "list", "--json").stdout.count('"running":true') == 1
        assert (
            json.loads(run("session", "list", "--json").stdout)["sessions"][0]["socket_path"]
            == sock
        )
        assert run("server", "stop", version="0.8.2").returncode == 0
        assert server.wait(timeout=15) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


@pytest.mark.parametrize("version", VERSIONS)
def test_integration_through_the_stand_in(run, home, version):
    os.makedirs(os.path.join(home, ".claude"))
    done = run("integration", "install", "claude", version=version)
    hook = os.path.join(home, ".claude", "hooks", "herdr-agent-state.sh")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "installed claude integration hook to " + hook
    status = run("integration", "status", version=version).stdout
    # src/integration/mod.rs CLAUDE_INTEGRATION_VERSION, by the release's integration table
    claude = {"0.8.2": 8, "0.9.3": 10}[tables(version).integration]
    assert "claude: current (v%d) (%s)" % (claude, hook) in status
    done = run("integration", version=version)
    assert done.returncode == 2 and done.stderr.startswith("herdr integration commands:\n")
    assert ("  herdr integration install letta\n" in done.stderr) == ("letta" in kinds(version))
    assert run("integration", "uninstall", "claude", version=version).returncode == 0


def test_nested_client_guard(run):
    done = run("client", env={"HERDR_ENV": "1"})
    assert done.returncode == 1
    assert done.stderr.startswith("\x1b[1merror:\x1b[0m nested herdr is disabled by default.\n")


@pytest.mark.parametrize("version", VERSIONS)
def test_live_handoff_is_sent_without_a_ping(herdr, fake, version):
    fake.on("server.live_handoff", ok())
    res = herdr(
        "server",
        "live-handoff",
        "--expected-protocol",
        "22",
        "--import-exe=/x",
        version=version,
        env={"XDG_CONFIG_HOME": "/cfg"},
    )
    assert res.rc == 0, res.stderr
    assert fake.requests == [
        {
            "id": "cli:server:live-handoff",
            "method": "server.live_handoff",
            "params": {"import_exe": "/x", "expected_protocol": 22},
        }
    ]
    assert res.stderr == "live handoff complete; server log: /cfg/herdr/herdr-server.log\n"


def test_live_handoff_error_and_usage(herdr, fake):
    res = herdr("server", "live-handoff")  # the fake answers not_implemented-like errors
    assert res.rc == 1 and json.loads(res.stderr)["id"] == "cli:server:live-handoff"
    for bad in (["--expected-protocol", "x"], ["--bogus", "1"], ["--import-exe"]):
        res = herdr("server", "live-handoff", *bad)
        assert (res.rc, res.stderr) == (
            2,
            "usage: herdr server live-handoff [--import-exe <path>] [--expected-protocol <n>] "
            "[--expected-version <version>]\n",
        )
