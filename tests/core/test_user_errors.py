"""Every bad input a new user can give `simherdr` is answered with one line and exit 2 (bad
usage), never a traceback. Each command's mistakes keep a case that runs it as a process, as a
user would (serve's each: its errors come after an event loop may have started); the further
cases, and the parametrised tables but for their first case, run the CLI's own main in this
process (``simherdr_main``: the same parser, the same lines, the same status; tests/inproc.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import simherdr
from tests import forkserve
from tests.inproc import simherdr_main


def simherdr_cmd(*argv, env=None, timeout=30):
    return subprocess.run(
        [sys.executable, "-m", "simherdr", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def assert_one_line_usage_error(p, *needles):
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    for n in needles:
        assert n in lines[0], lines[0]


def test_version():
    p = simherdr_cmd("--version")
    assert p.returncode == 0 and p.stdout == f"simherdr {simherdr.__version__}\n"


@pytest.mark.parametrize("value", ["nan", "inf", "1e309", "-3", "0", "fast"])
def test_serve_time_scale_must_be_finite_and_positive(tmp_path, value):
    run = simherdr_cmd if value == "nan" else simherdr_main
    p = run("serve", "--socket", str(tmp_path / "s" / "h.sock"), "--time-scale", value)
    assert_one_line_usage_error(p, "--time-scale", value)
    assert not (tmp_path / "s").exists()


def test_pane_mode_pty_without_pyte(tmp_path):
    # a Python that cannot import pyte (the pty extra is not installed)
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(
        "import sys\n"
        "class _NoPyte:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'pyte':\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, _NoPyte())\n"
    )
    env = dict(os.environ, PYTHONPATH=str(hide))
    p = simherdr_cmd("serve", "--socket", str(tmp_path / "h.sock"), "--pane-mode", "pty", env=env)
    assert_one_line_usage_error(p, "--pane-mode pty needs the pty extra", "simherdr[pty]")


def test_a_socket_path_over_the_unix_limit_leaves_nothing_behind(tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    p = simherdr_cmd("serve", "--socket", str(deep / "herdr.sock"))
    assert_one_line_usage_error(p, "a Unix socket path may have at most 107", "shorter path")
    assert not (tmp_path / ("d" * 60)).exists()
    p = simherdr_main(
        "serve", "--socket", str(tmp_path / "h.sock"), "--control", str(deep / "c.sock")
    )
    assert_one_line_usage_error(p, "--control")


def test_serve_bad_scenario_and_trace(tmp_path):
    p = simherdr_cmd("serve", "--socket", str(tmp_path / "h.sock"), "--scenario", "nope")
    assert_one_line_usage_error(p, "--scenario: no scenario 'nope'")
    p = simherdr_main(
        "serve", "--socket", str(tmp_path / "h.sock"), "--trace", str(tmp_path / "no" / "t.jsonl")
    )
    assert_one_line_usage_error(p, "--trace", "No such file or directory")


def test_install_stub_on_a_file_or_an_unwritable_directory(tmp_path):
    f = tmp_path / "a-file"
    f.write_text("x")
    assert_one_line_usage_error(simherdr_cmd("install-stub", str(f)), "is not a directory")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        if os.access(ro, os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
        assert_one_line_usage_error(simherdr_cmd("install-stub", str(ro)), "cannot write")
    finally:
        ro.chmod(0o700)


def test_install_stub_under_a_file_is_refused(tmp_path):
    f = tmp_path / "a-file"
    f.write_text("x")
    # in process: install-stub's usage errors as a process are the test above's
    assert_one_line_usage_error(simherdr_main("install-stub", str(f / "bin")), "cannot write")


def test_install_stub_never_replaces_a_herdr_it_did_not_write(tmp_path):
    real = tmp_path / "herdr"
    real.write_text("#!/bin/sh\necho the real herdr\n")
    p = simherdr_main("install-stub", str(tmp_path))  # (its errors as a process: see above)
    assert_one_line_usage_error(p, "was not written by simherdr", "--force")
    assert real.read_text() == "#!/bin/sh\necho the real herdr\n"
    # its own stand-in is replaced quietly; --force replaces anything
    p = simherdr_main("install-stub", str(tmp_path), "--force")
    assert p.returncode == 0 and p.stdout.strip() == str(real)
    p = simherdr_main("install-stub", str(tmp_path), "--herdr-version", "0.8.2")
    assert p.returncode == 0
    assert subprocess.run([str(real), "--version"], capture_output=True, text=True).stdout == (
        "herdr 0.8.2\n"
    )


def test_install_stub_follows_the_running_server(tmp_path):
    path = str(tmp_path / "herdr.sock")
    proc = forkserve.spawn_server(path, version="0.8.2")  # a running server (tests/forkserve.py)
    try:
        # in process (a successful install-stub as a process: tests/core/test_serve.py)
        p = simherdr_main("install-stub", str(tmp_path / "bin"), "--socket", path)
        assert p.returncode == 0, p.stderr
        herdr = p.stdout.strip()
        env = dict(os.environ, HERDR_SOCKET_PATH=path)
        out = subprocess.run([herdr, "workspace", "list"], capture_output=True, text=True, env=env)
        assert out.returncode == 0 and json.loads(out.stdout)["result"]["type"] == "workspace_list"
        p = simherdr_main(
            "install-stub", str(tmp_path / "bin2"), "--socket", path, "--herdr-version", "0.9.3"
        )
        assert_one_line_usage_error(p, "does not match the server", "herdr 0.8.2")
    finally:
        proc.terminate()
        proc.wait(10)
    p = simherdr_main("install-stub", str(tmp_path / "bin3"), "--herdr-version", "auto")
    assert_one_line_usage_error(p, "--herdr-version auto needs --socket")
    p = simherdr_main("install-stub", str(tmp_path / "bin3"), "--socket", path)
    assert_one_line_usage_error(p, "cannot ask the server for its version")


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--timeout", "inf", "fault.list"], "--timeout"),
        (["--timeout", "nan", "fault.list"], "--timeout"),
        (["fault.list", "{not json"], "ARGS is not JSON"),
        (["fault.list", "[1]"], "ARGS must be a JSON object"),
    ],
)
def test_ctl_bad_usage(tmp_path, argv, needle):
    run = simherdr_cmd if argv[1] == "inf" else simherdr_main
    p = run("ctl", "--control", str(tmp_path / "c.sock"), *argv)
    assert_one_line_usage_error(p, needle)


def test_unknown_subcommand_and_flags():
    assert_one_line_usage_error(simherdr_cmd("sreve"), "invalid choice")
    assert_one_line_usage_error(simherdr_main("serve"), "--socket")


def test_serve_says_where_it_listens_and_when_it_stops(tmp_path):
    path, control = str(tmp_path / "h.sock"), str(tmp_path / "c.sock")
    trace = tmp_path / "trace.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simherdr",
            "serve",
            "--socket",
            path,
            "--control",
            control,
            "--trace",
            str(trace),
            "--scenario",
            "busy-shell",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [proc.stderr.readline() for _ in range(4)]
        assert lines[0] == f"simherdr: herdr 0.9.3 (protocol 22) listening on {path}\n"
        assert lines[1] == f"simherdr: control socket on {control}\n"
        assert lines[2] == f"simherdr: trace to {trace}\n"
        assert lines[3] == "simherdr: scenario busy-shell (seed 6)\n"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == 0 and out == ""
        assert err == f"simherdr: stopped (SIGTERM); removed {path} and {control}\n"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    entries = [json.loads(x) for x in trace.read_text().splitlines()]
    assert entries[0]["kind"] == "step" and entries[0]["name"] == "scenario.load"


def test_trace_view_and_show_bad_files(tmp_path):
    assert_one_line_usage_error(
        simherdr_cmd("trace", "view", str(tmp_path / "none.jsonl")), "No such file"
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "request"}\nnot json\n')
    assert_one_line_usage_error(simherdr_main("trace", "show", str(bad)), "bad.jsonl:2")


def test_serve_stop_after_someone_removed_its_socket_says_so(tmp_path):
    """Issue 25 item 9: the socket file was removed by someone else; the stop line says so
    (it used to claim "removed PATH"), and a socket that another server now owns is left."""
    import socket as socketlib

    path = str(tmp_path / "s" / "herdr.sock")
    control = str(tmp_path / "s" / "ctl.sock")
    # forked (tests/forkserve.py); serve's lines as a process: the test above
    proc = forkserve.spawn_server(path, extra=["--control", control])
    other = None
    try:
        while not os.path.exists(control):
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.01)
        os.unlink(path)
        os.unlink(control)
        other = socketlib.socket(socketlib.AF_UNIX, socketlib.SOCK_STREAM)
        other.bind(control)  # someone else's socket on the control path now
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0 and proc.stdout.read() == ""
        assert proc.stderr.read().splitlines(keepends=True) == [
            f"simherdr: herdr 0.9.3 (protocol 22) listening on {path}\n",
            f"simherdr: control socket on {control}\n",
            f"simherdr: stopped (SIGTERM); {path} was already gone (removed by someone else); "
            f"{control} is another socket now (left in place)\n",
        ]
        assert os.path.exists(control)
    finally:
        if other is not None:
            other.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
