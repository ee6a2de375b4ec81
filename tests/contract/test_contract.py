"""Replay every cassette in-process, over the socket, and through the stand-in binary.

Point the same suite at a real herdr to contract-test a new release and report the drift:

    SIMHERDR_REAL_HERDR_SOCKET=/path/to/herdr.sock   # a fresh herdr server (it gets mutated)
    SIMHERDR_REAL_HERDR_BIN=/path/to/herdr          # optional: its real binary
    SIMHERDR_DRIFT_REPORT=drift.json                # optional: where to write the drift

Each mismatch is reported with its JSON path, expected and actual values.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from simherdr.handlers.registry import load_all
from tests import herdr_reference as ref
from tests.contract import replay
from tests.core.socketclient import raw

CASSETTES = replay.load_all()
REAL_SOCKET = os.environ.get("SIMHERDR_REAL_HERDR_SOCKET")
REAL_BIN = os.environ.get("SIMHERDR_REAL_HERDR_BIN")
MODES = (
    ["inprocess", "socket", "binary"]
    + (["real-socket"] if REAL_SOCKET else [])
    + (["real-binary"] if REAL_BIN and REAL_SOCKET else [])
)
_DRIFT: list = []


def _cases():
    for c in CASSETTES:
        for mode in MODES:
            profiles = c["profiles"] if not mode.startswith("real") else ["real"]
            for prof in profiles:
                yield pytest.param(c, mode, prof, id=f"{c['file'][:-5]}-{mode}-{prof}")


def _socket_call(path, step, ctx):
    obj = (
        replay.substitute(step["request"], ctx)
        if "request" in step
        else {
            "id": "contract",
            "method": step["method"],
            "params": replay.substitute(step["params"], ctx),
        }
    )
    out = raw(path, json.dumps(obj, ensure_ascii=False).encode() + b"\n")
    return json.loads(out)


@pytest.fixture
def stub(tmp_path_factory, request):
    from simherdr.stub.install import write_stub

    return lambda version: write_stub(str(tmp_path_factory.mktemp("bin")), herdr_version=version)


@pytest.mark.parametrize("cassette,mode,profile", list(_cases()))
def test_cassette(cassette, mode, profile, tmp_path, config, stub):
    needs = cassette.get("needs", [])
    if any(n not in load_all() for n in needs) and not mode.startswith("real"):
        pytest.skip(f"simulator has no {needs} yet")
    work = tmp_path / "work"
    work.mkdir()
    ctx = {"tmp": str(work), "version": profile}
    problems: list = []

    if mode == "inprocess":
        from simherdr.testing import Harness

        h = Harness(profile, config=config, auto_advance=True)
        call = lambda step: h.request(
            replay.substitute(step["request"], ctx)
            if "request" in step
            else {
                "id": "contract",
                "method": step["method"],
                "params": replay.substitute(step["params"], ctx),
            }
        )
        cleanup = h.close
    elif mode in ("socket", "binary"):
        from simherdr.testing import ThreadServer

        srv = ThreadServer(profile, config=config)
        path = srv.path
        call = lambda step: _socket_call(path, step, ctx)
        cleanup = srv.stop
    else:
        path = REAL_SOCKET
        call = lambda step: _socket_call(path, step, ctx)
        cleanup = lambda: None
        pong = _socket_call(path, {"method": "ping", "params": {}}, ctx)
        ctx["version"] = pong["result"]["version"]

    try:
        if mode in ("binary", "real-binary"):
            herdr = REAL_BIN if mode == "real-binary" else stub(profile)
            env = dict(os.environ, HERDR_SOCKET_PATH=path)
            env.pop("HERDR_SESSION", None)
        for i, step in enumerate(cassette["steps"]):
            where = f"step {i} ({step.get('method') or ' '.join(step.get('cli', []))})"
            if mode in ("binary", "real-binary"):
                if "cli" not in step:
                    continue
                argv = [herdr] + replay.substitute(step["cli"], ctx)
                p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
                found = replay.check_cli(step, p.returncode, p.stdout, p.stderr, ctx)
                for stream in (p.stdout, p.stderr):
                    if stream.startswith("{"):
                        ref.validate_reply(json.loads(stream), profile)
            else:
                if "usage" in step["expect"]:
                    continue
                reply = call(step)
                ref.validate_reply(reply, profile)
                found = replay.check_reply(step, reply, ctx)
                if "id" in step["expect"] and reply.get("id") != step["expect"]["id"]:
                    found.append(replay.Mismatch("$.id", step["expect"]["id"], reply.get("id")))
            problems += [f"{where}: {m}" for m in found]
    finally:
        cleanup()

    if mode.startswith("real") and problems:
        _DRIFT.append({"cassette": cassette["file"], "mode": mode, "drift": problems})
        report = os.environ.get("SIMHERDR_DRIFT_REPORT")
        if report:
            with open(report, "w") as f:
                json.dump(_DRIFT, f, indent=2)
    assert not problems, f"{cassette['name']} ({cassette['source']}):\n  " + "\n  ".join(problems)


def test_every_cassette_names_its_source():
    assert CASSETTES
    for c in CASSETTES:
        assert c.get("source") and c.get("steps") and set(c["profiles"]) <= {"0.8.2", "0.9.3"}, c[
            "file"
        ]


def test_matcher_reports_unexpected_fields_as_drift():
    m = replay.Matcher({})
    m.match({"a": 1}, {"a": 1, "b": 2})
    assert [p.path for p in m.problems] == ["$.b"]
    m = replay.Matcher({})
    m.match(
        {"a": "{x=}", "b": "pane {x} here", "<more>": True},
        {"a": "w1", "b": "pane w1 here", "c": 3},
    )
    assert m.problems == [] and m.ctx["x"] == "w1"
