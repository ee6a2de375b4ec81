"""The control plane: ops in-process, then end to end (`simherdr serve --control` driven by
`python -m simherdr ctl`, observed through herdr's own socket)."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from simherdr.cli import main as cli_main
from simherdr.scenarios.control import OPS, handle
from tests import forkserve
from tests.core.socketclient import raw, request
from tests.scenarios.conftest import start_ready


def op(h, op_name, **args):
    return handle(h.sim, {"op": op_name, "args": args})


def test_every_documented_op_exists():
    assert sorted(OPS) == sorted(
        [
            "fault.add",
            "fault.remove",
            "fault.list",
            "fault.clear",
            "agent.exit",
            "agent.block",
            "agent.state",
            "session.report",
            "pane.reuse",
            "agent.vanish",
            "detection.misread",
            "agent.suspend",
            "agent.fg",
            "shell.busy",
            "shell.idle",
            "shell.cd",
            "foreground.cwd",
            "behaviour.set",
            "trace.get",
            "trace.clear",
            "scenario.load",
            "server.restart",
            "server.reset",
            "server.info",
        ]
    )


def test_ctl_help_names_every_op(capsys):
    with pytest.raises(SystemExit):
        cli_main(["ctl", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(name in text for name in OPS)


def test_fault_ops(ws):
    r = op(
        ws,
        "fault.add",
        type="error",
        name="busy",
        method="agent.start",
        code="agent_pane_busy",
        count=1,
    )
    assert r["ok"] and r["result"]["name"] == "busy" and r["result"]["count"] == 1
    assert (
        ws.err("agent.start", name="rev", kind="pi", pane_id="w1:p1")["code"] == "agent_pane_busy"
    )
    listed = op(ws, "fault.list")["result"]
    assert [(f["name"], f["hits"], f["count"]) for f in listed] == [("busy", 1, 0)]
    assert op(ws, "fault.remove", name="busy")["ok"]
    assert op(ws, "fault.remove", name="busy") == {"ok": False, "error": "no fault named busy"}
    op(ws, "fault.add", type="drop")
    op(ws, "fault.add", type="latency", ms=5)
    assert op(ws, "fault.clear")["result"] == {"removed": ["drop-1", "latency-2"]}
    assert ws.sim.interceptors == []


def test_cwd_ops(ws, tmp_path):
    (tmp_path / "sub").mkdir()
    assert op(ws, "shell.cd", pane_id="w1:p1", path=str(tmp_path / "sub"))["ok"]
    assert ws.ok("pane.get", pane_id="w1:p1")["pane"]["cwd"] == str(tmp_path / "sub")
    assert op(ws, "foreground.cwd", pane_id="w1:p1", path=str(tmp_path))["ok"]
    assert ws.ok("pane.get", pane_id="w1:p1")["pane"]["foreground_cwd"] == str(tmp_path)
    assert op(ws, "foreground.cwd", pane_id="w1:p1")["ok"]
    assert "foreground_cwd" not in ws.ok("pane.get", pane_id="w1:p1")["pane"]
    assert not op(ws, "shell.cd", pane_id="w9:p1", path="/")["ok"]


def test_scenario_ops(ws):
    start_ready(ws)
    assert op(ws, "agent.block", pane_id="w1:p1")["ok"]
    assert ws.ok("agent.get", target="rev")["agent"]["agent_status"] == "blocked"
    assert op(ws, "agent.state", pane_id="w1:p1", state="working")["ok"]
    assert ws.ok("agent.get", target="rev")["agent"]["agent_status"] == "working"
    r = op(ws, "pane.reuse", pane_id="w1:p1", kind="codex", overrides={"startup": 0.5})
    assert r["ok"] and r["result"]["kind"] == "codex" and r["result"]["pane_id"] == "w1:p1"
    ws.advance(1)
    assert ws.ok("agent.get", target="w1:p1")["agent"]["agent"] == "codex"
    assert op(ws, "agent.exit", pane_id="w1:p1")["ok"]
    ws.advance(1)
    assert op(ws, "shell.busy", pane_id="w1:p1", command="make test")["ok"]
    assert ws.err("agent.start", name="b", kind="pi", pane_id="w1:p1")["code"] == "agent_pane_busy"
    assert op(ws, "shell.idle", pane_id="w1:p1")["ok"]
    assert op(ws, "behaviour.set", pane_id="w1:p1", values={"session_at": "never"})["ok"]
    ws.ok("agent.start", name="b", kind="claude", pane_id="w1:p1")
    ws.advance(20)
    assert "agent_session" not in ws.ok("agent.get", target="b")["agent"]
    assert op(ws, "session.report", pane_id="w1:p1", value="11111111-2222-4333-8444-555555555555")[
        "ok"
    ]
    assert (
        ws.ok("agent.get", target="b")["agent"]["agent_session"]["value"]
        == "11111111-2222-4333-8444-555555555555"
    )
    assert op(ws, "agent.vanish", pane_id="w1:p1", close="exited")["ok"]
    assert ws.err("pane.get", pane_id="w1:p1")["code"] == "pane_not_found"


def test_behaviour_set_for_a_kind(h):
    r = op(h, "behaviour.set", kind="pi", values={"startup": 9.5})
    assert r["ok"] and r["result"]["kind"] == "pi" and r["result"]["startup"] == 9.5
    assert h.sim.agents.behaviour_for("pi").startup == 9.5


@pytest.mark.parametrize(
    "request_obj,error",
    [
        ({"op": "nope"}, "unknown op 'nope'"),
        ([1], "a request is a JSON object"),
        ({"op": "fault.add", "args": [1]}, "args must be a JSON object"),
        (
            {"op": "fault.add", "args": {"type": "error", "code": "made_up"}},
            "not a herdr error code: 'made_up'",
        ),
        ({"op": "agent.exit", "args": {}}, "agent.exit: missing argument pane_id (string)"),
        (
            {"op": "agent.exit", "args": {"pane": "w1:p1"}},
            "agent.exit: unknown argument(s) pane (takes: pane_id)",
        ),
        ({"op": "agent.exit", "args": {"pane_id": 7}}, "pane_id must be string, not a number"),
        (
            {"op": "fault.add", "args": {"type": "latency", "method": "agent.*"}},
            "fault.add (latency): missing argument ms (number)",
        ),
        ({"op": "agent.exit", "args": {"pane_id": "w9:p9"}}, "no pane w9:p9"),
        (
            {"op": "agent.state", "args": {"pane_id": "w1:p1", "state": "idle"}},
            "no simulated agent runs in w1:p1",
        ),
        ({"op": "behaviour.set", "args": {"values": {}}}, "give exactly one of kind or pane_id"),
        (
            {"op": "behaviour.set", "args": {"kind": "pi", "values": {"bogus": 1}}},
            "unknown behaviour field",
        ),
        ({"op": "behaviour.set", "args": {"kind": "vim", "values": {}}}, "vim"),
    ],
)
def test_control_errors(ws, request_obj, error):
    r = handle(ws.sim, request_obj)
    assert r["ok"] is False and error in r["error"]


# --- end to end ------------------------------------------------------------------------------------


def ctl_process(control, op_name, args=None):
    """`python -m simherdr ctl` as a process (what a shell script or a non-Python test runs)."""
    cmd = [sys.executable, "-m", "simherdr", "ctl", "--control", control, op_name]
    if args is not None:
        cmd.append(json.dumps(args))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=20)


def ctl(capsys, *argv):
    """The same `simherdr ctl` code, in this process (fast): (status, stdout, stderr)."""
    status = cli_main(["ctl", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_control_plane_end_to_end(tmp_path, capsys):
    path, control = str(tmp_path / "herdr.sock"), str(tmp_path / "control.sock")
    # serve forked (tests/forkserve.py: what it does, not its start, is tested here)
    proc = forkserve.spawn_server(path, time_scale=50, extra=["--control", control])
    try:
        assert stat.S_IMODE(os.stat(control).st_mode) == 0o600
        request(path, "workspace.create", {"cwd": str(tmp_path)})

        # a fault, added by `python -m simherdr ctl`, acts on herdr's own socket
        r = ctl_process(
            control,
            "fault.add",
            {"type": "error", "name": "busy", "method": "agent.start", "code": "agent_pane_busy"},
        )
        assert r.returncode == 0 and json.loads(r.stdout)["name"] == "busy"
        assert request(path, "agent.start", {"name": "rev", "kind": "pi", "pane_id": "w1:p1"})[
            "error"
        ] == {
            "code": "agent_pane_busy",
            "message": "agent target pane w1:p1 is not an available shell",
        }
        status, out, _ = ctl(capsys, "--control", control, "fault.list")
        assert status == 0 and [(f["name"], f["hits"]) for f in json.loads(out)] == [("busy", 1)]
        assert ctl(capsys, "--control", control, "fault.remove", '{"name": "busy"}')[0] == 0

        # a scenario: a busy shell (as a process too), then the shell is free again
        assert ctl_process(control, "shell.busy", {"pane_id": "w1:p1"}).returncode == 0
        assert (
            request(path, "agent.start", {"name": "rev", "kind": "pi", "pane_id": "w1:p1"})[
                "error"
            ]["code"]
            == "agent_pane_busy"
        )
        assert ctl(capsys, "--control", control, "shell.idle", '{"pane_id": "w1:p1"}')[0] == 0
        assert (
            request(path, "agent.start", {"name": "rev", "kind": "pi", "pane_id": "w1:p1"})[
                "result"
            ]["agent"]["name"]
            == "rev"
        )

        # a dropped connection, then the race: the pane is reused by another agent
        assert (
            ctl(
                capsys,
                "--control",
                control,
                "fault.add",
                '{"type": "drop", "method": "ping", "count": 1}',
            )[0]
            == 0
        )
        assert raw(path, b'{"id":"a","method":"ping","params":{}}\n') == b""
        assert request(path, "ping")["result"]["type"] == "pong"
        status, out, _ = ctl(
            capsys, "--control", control, "pane.reuse", '{"pane_id": "w1:p1", "kind": "codex"}'
        )
        assert status == 0 and json.loads(out)["kind"] == "codex"
        deadline = time.monotonic() + 5  # codex is detected 0.2 simulated s later (4 ms)
        while (
            "result" in request(path, "agent.get", {"target": "rev"})
            and time.monotonic() < deadline
        ):
            time.sleep(0.005)
        assert request(path, "agent.get", {"target": "rev"})["error"]["code"] == "agent_not_found"
        assert (
            request(path, "agent.get", {"target": "w1:p1"})["result"]["agent"]["agent"] == "codex"
        )

        # errors: exit status 1 and a message
        status, out, err = ctl(
            capsys, "--control", control, "fault.add", '{"type": "error", "code": "made_up"}'
        )
        assert status == 1 and "not a herdr error code" in err and out == ""
        status, _, err = ctl(capsys, "--control", control, "agent.exit", '{"pane_id": "w9:p9"}')
        assert status == 1 and "no pane w9:p9" in err
        assert ctl(capsys, "--control", control, "fault.clear")[0] == 0
        assert ctl(capsys, "--control", control, "fault.list")[1].strip() == "[]"

        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
        assert not os.path.exists(control) and not os.path.exists(path)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ctl_usage_errors(tmp_path, capsys):
    status, _, err = ctl(capsys, "--control", str(tmp_path / "nothing.sock"), "fault.list")
    assert status == 3 and "cannot reach the control socket" in err and "nothing.sock" in err
    status, _, err = ctl(capsys, "--control", str(tmp_path / "x"), "fault.add", "{not json")
    assert status == 2 and "not JSON" in err
