"""`server.reset`: a newly started server's state on the same sockets (simherdr's own control
op): nothing of the old state leaks into the next test."""

from __future__ import annotations

import json

from simherdr.scenarios.control import handle
from tests import forkserve
from tests.core.socketclient import request
from tests.scenarios.conftest import start_ready
from tests.scenarios.test_control import ctl


def op(h, name, **args):
    return handle(h.sim, {"op": name, "args": args})


def test_reset_forgets_everything_and_ids_start_again(ws, tmp_path):
    start_ready(ws)
    ws.ok("tab.create")
    ws.ok("workspace.create", cwd=str(tmp_path))
    assert op(ws, "fault.add", type="error", method="ping", code="agent_pane_busy")["ok"]
    assert op(ws, "behaviour.set", kind="claude", values={"startup": 9.0})["ok"]
    assert op(ws, "scenario.load", scenario="agent-finishes")["ok"]
    waiting = ws.spawn("agent.wait", target="rev", until=["done"], timeout_ms=60_000)
    ws.settle()

    assert op(ws, "server.reset") == {"ok": True, "result": None}

    ws.settle()
    assert waiting.done() and ws.result(waiting) is None  # the old wait: no reply
    assert ws.ok("workspace.list")["workspaces"] == []
    assert ws.ok("agent.list")["agents"] == []
    assert ws.ok("ping")["type"] == "pong"  # the fault is gone
    assert op(ws, "fault.list")["result"] == []
    assert ws.sim.interceptors == []
    assert ws.sim.agents.behaviour_for("claude").startup != 9.0
    assert ws.sim.timers.next_timer() is None  # the scenario's steps and the agent's timers
    # a fresh server's ids
    created = ws.ok("workspace.create", cwd=str(tmp_path))
    assert created["workspace"]["workspace_id"] == "w1"
    assert [p["pane_id"] for p in ws.ok("pane.list")["panes"]] == ["w1:p1"]
    start_ready(ws)  # a pane id of the old state is a new pane, with a fresh shell
    assert ws.ok("agent.get", target="rev")["agent"]["agent_status"] == "idle"


def test_reset_drops_triggered_scenario_steps(ws):
    assert op(ws, "scenario.load", scenario="agent-vanishes-mid-run")["ok"]
    assert op(ws, "shell.busy", pane_id="w1:p1")["ok"]  # the old w1:p1's shell
    op(ws, "server.reset")
    ws.ok("workspace.create", cwd="/")
    start_ready(ws)  # the new w1:p1 has a fresh, idle shell
    ws.ok("agent.prompt", target="rev", text="go")
    ws.advance(30)
    # the scenario would have made the agent vanish one second after it started working
    assert ws.ok("agent.get", target="rev")["agent"]["name"] == "rev"


def test_reset_over_the_control_socket(tmp_path, capsys):
    path, control = str(tmp_path / "herdr.sock"), str(tmp_path / "control.sock")
    # forked (tests/forkserve.py); the control plane of a spawned serve, `simherdr ctl` run in
    # this process (as a process of its own: tests/scenarios/test_control.py::
    # test_control_plane_end_to_end)
    proc = forkserve.spawn_server(path, time_scale=50, extra=["--control", control])
    try:
        request(path, "workspace.create", {"cwd": str(tmp_path)})
        request(path, "workspace.create", {"cwd": str(tmp_path)})
        status, out, _ = ctl(capsys, "--control", control, "server.reset", "{}")
        assert status == 0 and json.loads(out) is None
        assert request(path, "workspace.list")["result"]["workspaces"] == []
        made = request(path, "workspace.create", {"cwd": str(tmp_path)})
        assert made["result"]["workspace"]["workspace_id"] == "w1"
        # the trace goes on, with the reset in it as a control step
        entries = json.loads(ctl(capsys, "--control", control, "trace.get", "{}")[1])["entries"]
        assert ("step", "server.reset") in [(e["kind"], e.get("name")) for e in entries]
        assert sum(e.get("method") == "workspace.create" for e in entries) == 6  # 3 calls
    finally:
        proc.kill()
        proc.wait()
