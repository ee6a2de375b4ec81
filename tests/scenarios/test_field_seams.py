"""The seams the field scenarios added (issue 22): the `unlisted` fault and the control ops
`detection.misread`, `agent.suspend`, `agent.fg`; in process on a virtual clock and over the
socket through the control plane."""

from __future__ import annotations

import pytest

from simherdr.scenarios.control import handle
from simherdr.scenarios.faults import Unlisted, fault_from_spec
from simherdr.testing import Harness
from tests.core.socketclient import request


def _agent(h, kind="pi", pane="w1:p1", name="worker"):
    if h.sim.session.find_pane("w1:p1") is None:
        h.ok("workspace.create", cwd="/tmp")
    h.ok("agent.start", name=name, kind=kind, pane_id=pane)
    h.advance(4)


def test_unlisted_hide_drops_the_pane_from_lists_and_lookups_only(version):
    with Harness(version=version) as h:
        _agent(h)
        h.ok("pane.split", target_pane_id="w1:p1", direction="right")
        h.sim.faults.add(Unlisted(pane="w1:p1"))
        assert h.ok("agent.list")["agents"] == []
        assert [p["pane_id"] for p in h.ok("pane.list")["panes"]] == ["w1:p2"]
        snap = h.ok("session.snapshot")["snapshot"]
        assert [p["pane_id"] for p in snap["panes"]] == ["w1:p2"] and snap["agents"] == []
        assert h.err("agent.get", target="worker") == {
            "code": "agent_not_found",
            "message": "agent target worker not found",
        }
        assert h.err("pane.get", pane_id="w1:p1")["code"] == "pane_not_found"
        assert h.ok("pane.get", pane_id="w1:p2")["pane"]["pane_id"] == "w1:p2"
        # the process is untouched: it still takes a prompt and works
        h.ok("agent.prompt", target="w1:p1", text="go")
        h.advance(1)
        h.sim.faults.clear()
        assert h.ok("agent.get", target="worker")["agent"]["agent_status"] == "working"


def test_unlisted_unknown_lists_the_pane_with_unknown_status_and_seq_zero(version):
    with Harness(version=version) as h:
        _agent(h)
        h.sim.faults.add(Unlisted(mode="unknown"))
        (row,) = h.ok("agent.list")["agents"]
        assert (row["agent_status"], row["state_change_seq"]) == ("unknown", 0)
        got = h.ok("agent.get", target="worker")["agent"]
        assert got["agent_status"] == "unknown" and got["name"] == "worker"


def test_unlisted_spec_is_checked():
    assert fault_from_spec({"type": "unlisted", "pane": "w1:*"}).describe()["mode"] == "hide"
    with pytest.raises(ValueError, match="mode must be one of"):
        fault_from_spec({"type": "unlisted", "mode": "vanish"})
    with pytest.raises(ValueError, match="unknown field"):
        fault_from_spec({"type": "unlisted", "panes": "w1:p1"})


def test_unlisted_over_the_socket_through_the_control_plane(server):
    request(server.path, "workspace.create", {"cwd": "/"})
    reply = server.run(
        lambda sim: handle(sim, {"op": "fault.add", "args": {"type": "unlisted", "pane": "w1:p1"}})
    )
    assert reply["ok"] and reply["result"]["type"] == "unlisted"
    assert request(server.path, "pane.get", {"pane_id": "w1:p1"})["error"]["code"] == (
        "pane_not_found"
    )
    assert request(server.path, "pane.list")["result"]["panes"] == []


def test_detection_misread_changes_what_herdr_reports_not_the_process(version):
    with Harness(version=version) as h:
        _agent(h, kind="agy", name="ag")
        h.ok("agent.prompt", target="ag", text="go")
        h.advance(1)
        assert handle(
            h.sim, {"op": "detection.misread", "args": {"pane_id": "w1:p1", "state": "idle"}}
        ) == {"ok": True, "result": None}
        assert h.ok("agent.get", target="ag")["agent"]["agent_status"] == "idle"
        assert h.sim.agents.occupant(h.sim.session.find_pane("w1:p1")).phase == "working"


@pytest.mark.parametrize(
    "args, message",
    [
        ({"pane_id": "w1:p1", "state": "sleeping"}, "state must be one of"),
        ({"pane_id": "w9:p9", "state": "idle"}, "no pane w9:p9"),
        ({"pane_id": "w1:p1", "state": "idle", "colour": 1}, "colour"),
    ],
)
def test_detection_misread_refuses_bad_args_in_one_line(args, message):
    with Harness() as h:
        h.ok("workspace.create", cwd="/tmp")
        reply = handle(h.sim, {"op": "detection.misread", "args": args})
        assert reply["ok"] is False and message in reply["error"]


def test_detection_misread_needs_a_detected_agent():
    with Harness() as h:
        h.ok("workspace.create", cwd="/tmp")
        reply = handle(
            h.sim, {"op": "detection.misread", "args": {"pane_id": "w1:p1", "state": "idle"}}
        )
        assert reply == {"ok": False, "error": "detection sees no agent in w1:p1"}


def test_suspend_reads_as_an_exit_and_fg_brings_the_same_process_back(version):
    with Harness(version=version) as h:
        _agent(h)
        pane = h.sim.session.find_pane("w1:p1")
        occupant = h.sim.agents.occupant(pane)
        h.ok("agent.prompt", target="worker", text="go")
        h.advance(1)
        assert handle(h.sim, {"op": "agent.suspend", "args": {"pane_id": "w1:p1"}})["ok"]
        h.advance(10)  # a stopped process finishes no turn
        assert occupant.phase == "working" and occupant.alive
        assert handle(h.sim, {"op": "agent.fg", "args": {"pane_id": "w1:p1"}})["ok"]
        assert h.sim.agents.occupant(pane) is occupant, "the same process, not a new one"
        assert h.ok("agent.get", target="w1:p1")["agent"]["agent_status"] == "working"
        h.advance(5)  # the rest of the turn
        assert h.ok("agent.get", target="w1:p1")["agent"]["agent_status"] == "idle"


def test_suspend_needs_an_agent():
    with Harness() as h:
        h.ok("workspace.create", cwd="/tmp")
        reply = handle(h.sim, {"op": "agent.suspend", "args": {"pane_id": "w1:p1"}})
        assert reply == {"ok": False, "error": "no simulated agent runs in w1:p1"}
