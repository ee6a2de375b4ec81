"""`simherdr run -- COMMAND`: a client's suite (Python, Node, shell; each a small suite written
here) against a private simulator; the exit status passed through; a failing suite's trace
summary; nothing left behind after SIGINT, SIGTERM or a crash; a client that starts `herdr
server` itself lands inside the private root."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from tests import forkserve
from tests.inproc import simherdr_main
from tests.run import drop_kept_trace

NODE = shutil.which("node")


def simherdr_run(*argv, cwd=None, env=None, timeout=120, real=False):
    """``simherdr run ARGV``: forked by default (tests/forkserve.py: run's main in a process of
    its own; the server and COMMAND it starts are spawned as ever); ``real=True`` spawns
    ``python -m simherdr run`` (the Python suite, a crash, bad usage; the signals below)."""
    if not real:
        return forkserve.run(["run", *argv], env=env, cwd=cwd, timeout=timeout)
    return subprocess.run(
        [sys.executable, "-m", "simherdr", "run", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
    )


def leftovers(root: str) -> list[str]:
    """Processes whose command line names the run's private root (its server, strays)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if root in cmd:
            found.append(f"{pid}: {cmd}")
    return found


def gone(root: str, timeout: float = 5.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = leftovers(root)
        if not left and not os.path.exists(root):
            return []
        time.sleep(0.05)
    return leftovers(root) + ([root] if os.path.exists(root) else [])


PY_SUITE = """
import json, os, socket, subprocess, unittest

def call(method, **params):
    s = socket.socket(socket.AF_UNIX)
    s.connect(os.environ["HERDR_SOCKET_PATH"])
    s.sendall(json.dumps({"id": "t", "method": method, "params": params}).encode() + b"\\n")
    buf = b""
    while not buf.endswith(b"\\n"):
        buf += s.recv(65536)
    return json.loads(buf)

def ctl(op, **args):  # the per-test reset recipe (CONTROL.md)
    s = socket.socket(socket.AF_UNIX)
    s.connect(os.environ["SIMHERDR_CONTROL_SOCKET"])
    s.sendall(json.dumps({"op": op, "args": args}).encode() + b"\\n")
    return json.loads(s.makefile().readline())

class Suite(unittest.TestCase):
    def setUp(self):
        self.assertTrue(ctl("server.reset")["ok"])

    def test_socket(self):
        r = call("workspace.create", cwd="/tmp")
        self.assertEqual(r["result"]["workspace"]["workspace_id"], "w1")

    def test_binary_after_reset(self):
        p = subprocess.run([os.environ["HERDR_BIN"], "workspace", "create"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["result"]["workspace"]["workspace_id"], "w1")

    def test_dirs_are_private(self):
        root = os.environ["SIMHERDR_RUN_ROOT"]
        self.assertEqual(os.stat(root).st_mode & 0o777, 0o700)
        for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "HERDR_SOCKET_PATH", "HERDR_BIN_PATH"):
            self.assertTrue(os.environ[name].startswith(root + "/"), name)
        self.assertEqual(os.environ["PATH"].split(os.pathsep)[0], os.path.dirname(
            os.environ["HERDR_BIN"]))
"""


def test_a_python_suite_passes_and_leaves_nothing(tmp_path):
    (tmp_path / "test_client.py").write_text(PY_SUITE)
    p = simherdr_run("--herdr-version", "0.8.2", "--", sys.executable, "-m", "unittest", "-v",
                     cwd=tmp_path, real=True)  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "Ran 3 tests" in p.stderr and "OK" in p.stderr
    assert "simherdr run: the command failed" not in p.stderr


NODE_SUITE = """
const { test, beforeEach } = require("node:test");
const assert = require("node:assert");
const net = require("node:net");
const { execFileSync } = require("node:child_process");

// the per-test reset recipe (CONTROL.md): one line to the control socket
const ctl = (op, args = {}) => new Promise((ok, fail) => {
  const c = net.createConnection(process.env.SIMHERDR_CONTROL_SOCKET);
  c.on("error", fail);
  c.on("data", (d) => { c.end(); ok(JSON.parse(d)); });
  c.write(JSON.stringify({ op, args }) + "\\n");
});

beforeEach(async () => assert.equal((await ctl("server.reset")).ok, true));

const herdr = (...argv) => JSON.parse(execFileSync("herdr", argv, { encoding: "utf8" }));

test("a workspace through the stand-in on PATH", () => {
  assert.equal(herdr("workspace", "create").result.workspace.workspace_id, "w1");
});

test("ids start again after the reset; the trace is cut per test", async () => {
  await ctl("trace.clear");
  herdr("workspace", "create");
  const got = await ctl("trace.get");
  const methods = got.result.entries.filter((e) => e.kind === "request").map((e) => e.method);
  assert.ok(methods.includes("workspace.create"), methods.join());
  assert.equal(herdr("workspace", "list").result.workspaces.length, 1);
});
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_a_node_suite_passes(tmp_path):
    (tmp_path / "client.test.js").write_text(NODE_SUITE)
    p = simherdr_run("--time-scale", "50", "--", NODE, "--test", "client.test.js", cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "# pass 2" in p.stdout and "# fail 0" in p.stdout


SHELL_SUITE = """#!/bin/sh
set -e
echo "$SIMHERDR_RUN_ROOT" > "$1"
herdr workspace create --cwd /tmp >/dev/null
herdr tab create --no-focus >/dev/null
n=$(herdr tab list | grep -o '"tab_id"' | wc -l)
[ "$n" -eq 2 ] || { echo "expected 2 tabs, got $n" >&2; exit 5; }
herdr pane get w9:p9 >/dev/null 2>"$1.err" || exit 7
"""


def test_a_shell_suite_fails_with_its_status_and_a_trace_summary(tmp_path):
    script = tmp_path / "suite.sh"
    script.write_text(SHELL_SUITE)
    script.chmod(0o755)
    trace = tmp_path / "t.jsonl"
    p = simherdr_run("--trace", str(trace), "--", str(script), str(tmp_path / "root"))
    assert p.returncode == 7, p.stderr
    # the stand-in's own error: herdr's JSON envelope on stderr
    err = json.loads((tmp_path / "root.err").read_text())
    assert err["error"]["code"] == "pane_not_found"
    # the summary: the failed status, the last requests, the error reply, the paths
    text = p.stderr
    assert "simherdr run: the command failed (exit status 7)" in text
    assert "-> workspace.create" in text and "-> tab.create" in text and "-> pane.get" in text
    assert "-- error replies" in text and "error pane_not_found" in text
    assert f"trace: {trace}" in text and f"timeline: {tmp_path / 't.html'}" in text
    assert trace.exists() and (tmp_path / "t.html").exists()
    assert '"method":"tab.create"' in trace.read_text()
    assert gone((tmp_path / "root").read_text().strip()) == []


def test_success_keeps_only_a_given_trace(tmp_path):
    p = simherdr_run("--", "sh", "-c", 'echo "$SIMHERDR_TRACE"; herdr workspace list >/dev/null')
    assert p.returncode == 0, p.stderr
    default_trace = p.stdout.strip()
    assert default_trace.endswith("trace.jsonl") and not os.path.exists(default_trace)
    assert p.stderr == ""


def test_bad_usage_is_one_line():
    for argv, needle in (
        ([], "give the command to run after --"),
        (["--seed", "3", "--", "true"], "--seed needs --scenario"),
        (["--scenario", "no-such-scenario", "--", "true"], "--scenario"),
        (["--time-scale", "0", "--", "true"], "--time-scale"),
    ):
        # the first as a process; the others through the CLI's main in process (tests/inproc.py)
        p = simherdr_run(*argv, real=True) if not argv else simherdr_main("run", *argv)
        assert p.returncode == 2, (argv, p.stderr)
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0] and "Traceback" not in p.stderr, p.stderr


def test_an_unknown_server_mode_is_one_line_and_starts_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMHERDR_RUN_SERVER", "spwan")
    trace = tmp_path / "t.jsonl"
    p = simherdr_main("run", "--trace", str(trace), "--", "true")
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "SIMHERDR_RUN_SERVER='spwan'" in lines[0], p.stderr
    assert "fork or spawn" in lines[0] and not list(tmp_path.iterdir())  # nothing made


def test_a_command_that_cannot_start_is_127(tmp_path):
    p = simherdr_run("--", str(tmp_path / "no-such-command"))
    assert p.returncode == 127 and "cannot run" in p.stderr
    drop_kept_trace(p.stderr)


WAITER = """#!/bin/sh
echo "$SIMHERDR_RUN_ROOT" > "$1"
herdr workspace create >/dev/null
echo $$ > "$1.pid"
exec sleep 60
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_everything(tmp_path, sig):
    script = tmp_path / "wait.sh"
    script.write_text(WAITER)
    script.chmod(0o755)
    marker = tmp_path / "root"
    proc = subprocess.Popen(
        [sys.executable, "-m", "simherdr", "run", "--", str(script), str(marker)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (marker.exists() and marker.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    root = marker.read_text().strip()
    assert root and leftovers(root), "the server was not running"
    # the workspace created, the command sits in sleep (its pid, exec'd)
    pidfile = tmp_path / "root.pid"
    while time.monotonic() < deadline and not _sleeping(pidfile):
        time.sleep(0.01)
    assert _sleeping(pidfile), "the command never got to its sleep"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err  # sleep was ended by the forwarded signal
    assert gone(root) == [], err
    assert "exit status" in err and "trace:" in err  # a failure: the summary
    drop_kept_trace(err)


def _sleeping(pidfile) -> bool:
    try:
        pid = int(pidfile.read_text())
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip() == "sleep"
    except (OSError, ValueError):  # not written (whole) yet
        return False


def test_a_crash_of_the_command_stops_everything(tmp_path):
    marker = tmp_path / "root"
    p = simherdr_run(
        "--",
        "sh",
        "-c",
        f'echo "$SIMHERDR_RUN_ROOT" > {marker}; herdr workspace list; kill -SEGV $$',
        real=True,
    )
    assert p.returncode == 128 + signal.SIGSEGV, p.stderr
    assert "the command failed (exit status 139)" in p.stderr
    assert gone(marker.read_text().strip()) == []
    drop_kept_trace(p.stderr)


OWN_SERVER = """#!/bin/sh
# a client that manages its own session: `herdr --session lab server`, left running
set -e
echo "$SIMHERDR_RUN_ROOT" > "$1"
herdr --session lab server &
echo $! > "$1.pid"
i=0
until herdr --session lab workspace list >/dev/null 2>&1; do
  i=$((i+1)); [ $i -lt 400 ] || { echo "lab server did not start" >&2; exit 9; }; sleep 0.05
done
herdr --session lab workspace create >/dev/null
herdr session list --json > "$1.sessions"
"""


def test_a_client_that_starts_herdr_server_itself(tmp_path):
    script = tmp_path / "own.sh"
    script.write_text(OWN_SERVER)
    script.chmod(0o755)
    marker = tmp_path / "root"
    p = simherdr_run("--", str(script), str(marker))
    assert p.returncode == 0, p.stderr
    root = marker.read_text().strip()
    sessions = json.loads((tmp_path / "root.sessions").read_text())["sessions"]
    lab = next(s for s in sessions if s["name"] == "lab")
    assert lab["running"] and lab["socket_path"].startswith(root + "/config/herdr/sessions/lab/")
    default = next(s for s in sessions if s["default"])
    assert default["running"] and default["socket_path"].startswith(root + "/")
    assert gone(root) == []  # the lab server the client left running is stopped too
    # ... found by its pid: its command line is herdr's (`herdr --session lab server`), it does
    # not name the root
    pid = int((tmp_path / "root.pid").read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def test_record_writes_a_cassette(tmp_path):
    out = tmp_path / "corpus"
    p = simherdr_run(
        "--record", str(out), "--record-name", "suite", "--",
        "sh", "-c", "herdr workspace create >/dev/null && herdr workspace list >/dev/null",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    cassette = json.loads((out / "suite.json").read_text())
    sent = json.dumps(cassette)
    assert "workspace.create" in sent and "workspace.list" in sent
    assert "simherdr run: recorded" in p.stderr


@pytest.mark.parametrize("mode", ["simulated", "pty", "mixed"])
def test_the_run_pane_mode_reaches_a_herdr_server_the_command_starts(mode):
    """A suite that launches its own daemons (`$HERDR_BIN server`, as IvoryHeart/herdr-web's
    live suite does) gets the run's pane mode: `simherdr run --pane-mode pty` means real shells
    in those servers too (the stand-in passes it to `simherdr serve`)."""
    from types import SimpleNamespace

    from simherdr import run as R
    from simherdr.stub.cli import launch

    layout = R.Layout(
        *(f"/r/{n}" for n in ("root", "bin", "cfg", "state", "s", "c", "cs", "k")), "/r/t", "/r/l"
    )
    args = SimpleNamespace(time_scale=1.0, pane_mode=mode, real_dirs=False, render_interval=0.016)
    env = R.child_env(layout, args, "0.8.2", "/r/bin/herdr")
    argv = launch.serve_argv(env, "0.8.2", "/x.sock")
    assert argv[argv.index("--render-interval") + 1] == "0.016"  # herdr's cadence, passed on
    if mode == "simulated":
        assert "--pane-mode" not in argv
    else:
        assert argv[argv.index("--pane-mode") + 1] == mode


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="zombies are told apart in /proc")
def test_a_group_whose_members_all_exited_is_gone():
    """A group of zombies (exited, not reaped yet: init reaps a reparented `herdr server &`
    when it gets to it) is no group to wait for; a live member is."""
    from simherdr.run import _group_alive

    p = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        assert _group_alive(p.pid)
        p.kill()
        os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)  # exited, left a zombie
        os.killpg(p.pid, 0)  # the signal still finds the group
        assert not _group_alive(p.pid)
    finally:
        p.kill()
        p.wait()
    assert not _group_alive(p.pid)


SERVER_SEEN = r"""
import json, os, sys
run = os.getppid()
with open(f"/proc/{run}/task/{run}/children") as f:
    kids = [int(p) for p in f.read().split() if int(p) != os.getpid()]
[pid] = kids  # the server: run's one other child
with open(f"/proc/{pid}/stat", "rb") as f:
    fields = f.read().rsplit(b")", 1)[1].split()
with open(f"/proc/{pid}/cmdline", "rb") as f:
    argv = f.read().split(b"\0")
fds = {int(fd): os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
def status(pid):
    with open(f"/proc/{pid}/status") as f:
        return dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
print(json.dumps({"session": int(fields[3]), "pid": pid, "ppid": int(fields[1]), "run": run,
                  "argv": [a.decode() for a in argv[:4]], "fds": fds,
                  "caught": status(pid)["SigCgt"].strip(), "blocked": status(pid)["SigBlk"],
                  "run_blocked": status(run)["SigBlk"]}))
"""


@pytest.mark.parametrize("mode", ["fork", "spawn"])
def test_the_server_is_a_serve_process_of_its_own(tmp_path, mode):
    """Forked (simherdr.runserver, CHOICE run-server-fork) or spawned (SIMHERDR_RUN_SERVER=
    spawn): a session of its own, `simherdr serve` on its command line, stdin /dev/null,
    stdout and stderr the server log, nothing else of run's (a forked run's pipes included),
    SIGINT and SIGTERM its loop's (nothing else caught), run's signal mask."""
    env = dict(os.environ, SIMHERDR_RUN_SERVER=mode)
    trace = tmp_path / "t.jsonl"
    p = simherdr_run("--trace", str(trace), "--", sys.executable, "-c", SERVER_SEEN, env=env)
    assert p.returncode == 0, p.stderr
    seen = json.loads(p.stdout)
    assert seen["session"] == seen["pid"] and seen["ppid"] == seen["run"]
    assert seen["argv"] == [sys.executable, "-m", "simherdr", "serve"]
    fds = seen["fds"]
    log = str(tmp_path / "t.server.log")
    assert (fds.pop("0"), fds.pop("1"), fds.pop("2")) == ("/dev/null", log, log)
    others = sorted(v for v in fds.values() if not v.startswith(("socket:", "anon_inode:")))
    assert others == [str(trace)], fds  # the trace serve writes; no pipe, no file of run's
    assert seen["caught"] == f"{(1 << 1) | (1 << 14):016x}"
    assert seen["blocked"] == seen["run_blocked"]  # a spawned child's mask is its parent's
