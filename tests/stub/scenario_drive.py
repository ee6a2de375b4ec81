"""The runs of tests/stub/test_scenarios_through_standin.py: a shipped scenario driven through
the stand-in, twice on one seed. Its own module (no pytest): the background job that runs them
(tests/stub/scenario_runs.py, tests/background.py) imports this, not the test module, so its
process does not import pytest (~0.15 s of CPU)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from simherdr.clock import ScaledClock
from simherdr.scenarios.data import library, load_scenario
from simherdr.simulator import Config
from simherdr.stub.install import write_stub
from simherdr.testing import ThreadServer

LIBRARY = Path(__file__).resolve().parents[2] / "simherdr" / "scenarios" / "library"
CLI_CALLS = {"workspace.create", "agent.start", "agent.get", "pane.get"}
# simulated seconds per wall second, for the server and the stand-in alike (the margins the
# scenarios leave a CLI client are a second or two of simulated time)
SCALE = 2.0
# A long advance is a pure wait (a timeout running out, a late report): past this many wall
# seconds per advance the clock runs faster for that scenario, so the suite does not sleep for
# minutes (the margins between CLI calls stay >= 2 x SCALE wall ms per simulated second).
MAX_ADVANCE_WALL = 8.0
# served by a real `simherdr serve` process in the one-seed sweep (see there)
TIGHT = {"restart-between-start-and-witness"}
# the release of the one-seed sweep (the scenarios' own)
ONE_SEED_VERSION = "0.9.3"


def _scale(name: str) -> float:
    data = tomllib.loads((LIBRARY / f"{name}.toml").read_text())
    longest = max((e["advance"] for e in data.get("example", []) if "advance" in e), default=0)
    return max(SCALE, longest / MAX_ADVANCE_WALL)


def _twice(name: str, version: str, serve: bool = False) -> tuple[list[tuple], list[tuple]]:
    """Two runs on one seed, side by side (each is mostly waiting on its clock). ``serve``: the
    server is a real `simherdr serve --scenario` process, else a ThreadServer in this process
    (the same server and scenario code; the CLI calls are real stand-in processes either way)."""
    from concurrent.futures import ThreadPoolExecutor

    scale = _scale(name)
    # one stand-in for both, written before either thread starts: a file being written while
    # the other thread forks stays open for writing in that child until it execs, and running
    # it then fails with ETXTBSY ("Text file busy", seen in CI)
    bindir = tempfile.mkdtemp(prefix="sstbin", dir="/tmp")
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, bindir, ignore_errors=True)
        stub = write_stub(bindir, version)
        # the served runs' servers forked here, before either thread starts (a fork copies
        # only the thread that forks)
        dirs = [_served(stack, name, version, scale) if serve else None for _ in range(2)]
        with ThreadPoolExecutor(2) as pool:
            a, b = (
                pool.submit(run_through_standin, name, version, scale, serve, stub, d) for d in dirs
            )
            return a.result(), b.result()


def _cli_scenarios() -> list[str]:
    # read as the library's loader reads them: its parse of each file is kept by the process
    # (tests/scenarios' collection has parsed every one), not parsed again here at collection
    out = []
    for name in sorted(library()):
        calls = {e["call"] for e in load_scenario(name).example if "call" in e}
        if calls and calls <= CLI_CALLS:
            out.append(name)
    return out


def _argv(call: str, p: dict) -> list[str]:
    if call == "workspace.create":
        return ["workspace", "create", "--cwd", p.get("cwd", "/tmp"), "--no-focus"]
    if call == "agent.start":
        argv = ["agent", "start", p["name"], "--kind", p["kind"], "--pane", p["pane_id"]]
        if "timeout_ms" in p:
            argv += ["--timeout", str(p["timeout_ms"])]
        return argv + (["--", *p["args"]] if p.get("args") else [])
    if call == "agent.get":
        return ["agent", "get", p["target"]]
    return ["pane", "get", p["pane_id"]]


def _outcome(code: int, out: str, err: str) -> tuple:
    try:
        doc = json.loads(out or err)
    except ValueError:
        return (code, (out or err).strip()[:80])
    if "error" in doc:
        return (code, doc["error"].get("code"))
    result = doc.get("result", {})
    agent = result.get("agent") or result.get("pane") or {}
    if "workspace" in result:
        return (code, result["workspace"].get("workspace_id"))
    return (code, agent.get("name"), agent.get("agent"), agent.get("agent_status"))


def run_through_standin(
    name: str,
    version: str,
    scale: float = SCALE,
    serve: bool = True,
    stub: str | None = None,
    served: str | None = None,
) -> list[tuple]:
    """``stub``: a stand-in already written (else one is written here, in this thread);
    ``served``: the directory of a server :func:`_served` started (else one is started here)."""
    with contextlib.ExitStack() as stack:
        if served is not None:
            d = served
        elif serve:
            d = _served(stack, name, version, scale)
        else:
            d = tempfile.mkdtemp(prefix="sst", dir="/tmp")
            stack.callback(shutil.rmtree, d, ignore_errors=True)
        sock = os.path.join(d, "h.sock")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": d,
            "HERDR_SOCKET_PATH": sock,
            "SIMHERDR_TIME_SCALE": str(scale),
        }
        if not serve:
            cfg = Config(home=d, server_cwd=d)
            srv = stack.enter_context(
                ThreadServer(version, path=sock, clock=ScaledClock(scale), config=cfg)
            )
            srv.load_scenario(name)
        return _drive(name, version, scale, d, env, stub)


def _served(stack: contextlib.ExitStack, name: str, version: str, scale: float) -> str:
    """`simherdr serve --scenario NAME` on ``DIR/h.sock`` (HOME=DIR), stopped and DIR removed
    by ``stack``: the CLI's serve forked from this process (simherdr.runserver, as `simherdr
    run` starts its server: a process of its own without a Python start; `serve --scenario`
    spawned: tests/core/test_user_errors.py), waited for until its socket file exists."""
    from simherdr.cli import main
    from simherdr.run import _die_with_parent
    from simherdr.runserver import fork_server

    d = tempfile.mkdtemp(prefix="sst", dir="/tmp")
    stack.callback(shutil.rmtree, d, ignore_errors=True)
    sock = os.path.join(d, "h.sock")
    words = ["serve", "--socket", sock, "--quiet", "--herdr-version", version]
    words += ["--scenario", name, "--time-scale", str(scale)]
    log = os.path.join(d, "serve.log")
    title = [sys.executable, "-m", "simherdr", *words]
    srv = fork_server(words, dict(os.environ, HOME=d), log, main, title, _die_with_parent)

    def stop() -> None:
        srv.send_signal(signal.SIGTERM)
        srv.wait(15)

    stack.callback(stop)
    deadline = time.monotonic() + 20
    while not os.path.exists(sock):
        assert time.monotonic() < deadline and srv.poll() is None, Path(log).read_text()
        time.sleep(0.02)
    return d


def _drive(
    name: str, version: str, scale: float, d: str, env: dict, stub: str | None = None
) -> list[tuple]:
    """The scenario's example, each call a stand-in run, each advance a wall sleep."""
    if stub is None:
        stub = write_stub(os.path.join(d, "stub"), version)
    data = tomllib.loads((LIBRARY / f"{name}.toml").read_text())
    outcomes = []
    for step in data["example"]:
        if "advance" in step:
            time.sleep(step["advance"] / scale)
            continue
        argv = _argv(step["call"], step.get("params", {}))
        p = subprocess.run([stub, *argv], env=env, capture_output=True, text=True, timeout=120)
        outcomes.append((step["call"], *_outcome(p.returncode, p.stdout, p.stderr)))
    return outcomes
