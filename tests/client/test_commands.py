"""The thin clients as commands (simherdr-open, simherdr-fresh-call), end to end against
`simherdr serve` and the stand-in binary, as a user runs them from the README.

Each command runs as a process (its console script) for its first call of a kind (a result,
a usage error); the repeats and refusals run its ``main`` in this process (:func:`in_process`:
the same parser, lines and exit status, with the call's environment, working directory and
argv[0]; no Python start of ~0.1 s of CPU each)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from simherdr.contract.targets import ping_version
from simherdr.stub.install import write_stub
from tests import forkserve
from tests.inproc import main_result

BIN = os.path.dirname(sys.executable)


def command(name: str) -> list[str]:
    exe = shutil.which(name, path=BIN)
    if exe is None:  # not installed as a console script (run from a bare checkout)
        fn = {"simherdr-open": "open_main", "simherdr-fresh-call": "fresh_call_main"}[name]
        return [
            sys.executable,
            "-c",
            f"import sys; from simherdr_client.commands import {fn}; sys.exit({fn}())",
        ]
    return [exe]


@pytest.fixture
def served(tmp_path):
    sock = str(tmp_path / "h" / "herdr.sock")
    proc = forkserve.spawn_server(sock, time_scale=100)  # the commands are what runs here
    try:
        # what `simherdr install-stub DIR --socket S` writes (that command's own test:
        # tests/core/test_user_errors.py), without a Python start for it
        herdr = write_stub(str(tmp_path / "bin"), herdr_version=ping_version(sock))
        env = dict(
            os.environ,
            HERDR_SOCKET_PATH=sock,
            HERDR_BIN_PATH=herdr,
            SIMHERDR_TIME_SCALE="100",
            PATH=os.path.dirname(herdr) + os.pathsep + os.environ["PATH"],
        )
        for k in ("GENTLE_HERDR_SESSION_LIB_DIR", "GENTLE_WORKTREE_LIB_DIR", "HERDR_ENV"):
            env.pop(k, None)
        yield env, herdr
    finally:
        proc.terminate()
        proc.wait(10)


def run(argv, env, cwd=None):
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def in_process(monkeypatch):
    """``run([*command(name), *argv], env, cwd)`` with the command's ``main`` in this process:
    the process's environment is ``env`` and its cwd ``cwd`` for the call (monkeypatch undoes
    both), argparse's exit is the status."""
    from simherdr_client.commands import fresh_call_main, open_main

    def go(name, argv, env, cwd=None):
        fn = {"simherdr-open": open_main, "simherdr-fresh-call": fresh_call_main}[name]
        with monkeypatch.context() as m:
            for key in set(os.environ) - set(env):
                m.delenv(key)
            for key, value in env.items():
                m.setenv(key, value)
            if cwd is not None:
                m.chdir(cwd)
            m.setattr(sys, "argv", [name])
            return main_result(name, fn, list(argv))

    return go


def test_open_prints_rows_and_refuses_a_repeat(served, tmp_path, in_process):
    env, _ = served
    project = tmp_path / "My Project"
    project.mkdir()
    p = run([*command("simherdr-open"), str(project), "--no-notify"], env)
    assert p.returncode == 0, p.stderr
    rows = dict(line.split(": ", 1) for line in p.stdout.splitlines())
    assert rows["outcome"] == "opened" and rows["panel"] == "normal"
    assert rows["agent"] == "my-project" and rows["pane"] == "w1:p1"
    again = in_process("simherdr-open", [str(project), "--no-notify", "--json"], env)
    assert again.returncode == 1
    out = json.loads(again.stdout)
    # herdr refuses the second start (agent_name_taken); the panel it made is named
    assert (out["code"], out["herdrErrorCode"]) == ("agent-start-failed", "agent_name_taken")
    assert out["panel"] == {"workspaceId": "w2", "paneId": "w2:p1"}
    listed = json.loads(run(["herdr", "workspace", "list"], env).stdout)
    assert len(listed["result"]["workspaces"]) == 2  # the panel herdr did create stays
    named = in_process(
        "simherdr-open",
        ["My Project", "--name", "second", "--no-notify", "--json"],
        env,
        cwd=str(tmp_path),
    )
    assert named.returncode == 0 and json.loads(named.stdout)["details"]["agentName"] == "second"


def test_open_usage_and_refusals(served, tmp_path, in_process):
    env, _ = served
    p = run([*command("simherdr-open")], env)
    assert p.returncode == 2 and "PATH" in p.stderr and "Traceback" not in p.stderr
    p = in_process("simherdr-open", [str(tmp_path / "missing"), "--no-notify"], env)
    assert p.returncode == 1 and p.stderr.startswith("refused: path-missing:")


def test_fresh_call_prints_a_receipt(served, tmp_path, in_process):
    env, _ = served
    subprocess.run(
        ["herdr", "workspace", "create", "--cwd", str(tmp_path)],
        env=env,
        check=True,
        capture_output=True,
    )
    ctx = dict(env, HERDR_ENV="1", HERDR_PANE_ID="w1:p1")
    args = [
        "--backend",
        "pi",
        "--model",
        "sonnet",
        "--task",
        "line one\nline two",
        "--caller-id",
        "garden-1",
        "--json",
    ]
    p = run([*command("simherdr-fresh-call"), *args], ctx)
    assert p.returncode == 0, p.stdout + p.stderr
    receipt = json.loads(p.stdout)["receipt"]
    assert receipt["herdrWorkspaceId"] == "w1" and receipt["herdrTabId"] == "w1:t2"
    assert receipt["backend"] == "pi" and receipt["witness"]["state"] in ("reported", "unavailable")
    text = in_process("simherdr-fresh-call", args[:-1], ctx)
    assert text.returncode == 0 and text.stdout.startswith("[entwurf fresh call → herdr]")
    refused = in_process("simherdr-fresh-call", args[:-1], dict(env, HERDR_ENV="0"))
    assert refused.returncode == 1 and "rejected: herdr-context-missing" in refused.stdout
    bad = in_process("simherdr-fresh-call", ["--backend", "pi"], ctx)
    assert bad.returncode == 2 and "--model" in bad.stderr and "Traceback" not in bad.stderr
