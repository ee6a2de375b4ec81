"""The race helpers, each with what a client sees (CLIENTS.md §2.10, §3, §4; SOCKET.md §7.1)."""

from __future__ import annotations

import pytest

from simherdr.scenarios import (
    agent_vanishes,
    busy_shell,
    pane_reused,
    quiet_next_start,
    session_reported,
    shell_idle,
)
from tests.releases import rows
from tests.scenarios.conftest import NOT_RUNNING, events, start_ready


def working(ws, name="rev", kind="claude"):
    start_ready(ws, name=name, kind=kind)
    ws.ok("agent.prompt", target=name, text="go")
    ws.advance(1)
    assert ws.ok("agent.get", target=name)["agent"]["agent_status"] == "working"


# --- pane reuse ----------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["rev", "w1:p1"])
def test_pane_reused_ends_a_wait_pinned_to_the_old_agent(ws, target):
    working(ws)
    before = ws.ok("pane.get", pane_id="w1:p1")["pane"]
    old_pid = ws.ok("pane.process_info", pane_id="w1:p1")["process_info"]["foreground_processes"][0]
    task = ws.spawn("agent.wait", target=target)
    pane_reused(ws.sim, "w1:p1", "codex")
    ws.advance(0.25)  # the new process is detected
    assert ws.result(task)["error"] == NOT_RUNNING
    after = ws.ok("pane.get", pane_id="w1:p1")["pane"]
    assert (after["pane_id"], after["terminal_id"]) == (before["pane_id"], before["terminal_id"])
    assert after["agent"] == "codex"
    assert ws.err("agent.get", target="rev")["code"] == "agent_not_found"  # the name went away
    new = ws.ok("pane.process_info", pane_id="w1:p1")["process_info"]["foreground_processes"][0]
    assert new["name"] == "codex" and old_pid["name"] == "claude"


def test_pane_reused_with_the_exit_seen_releases_first(ws, version):
    start_ready(ws)  # idle: the client waits for it to pick up work
    task = ws.spawn("agent.wait", target="w1:p1", until=["working"], timeout_ms=60_000)
    mark = ws.sim.hub.seq
    pane_reused(ws.sim, "w1:p1", "claude", exit_seen=True, startup=0.1)
    ws.settle()
    assert ws.result(task)["error"] == NOT_RUNNING  # the release ended it
    detected = [
        (d.get("agent"), d.get("released")) for k, d in events(ws, mark, ("pane_agent_detected",))
    ]
    assert detected == [("claude", True)]
    ws.advance(0.5)
    got = [
        (d.get("agent"), d.get("released")) for k, d in events(ws, mark, ("pane_agent_detected",))
    ]
    assert got == [("claude", True), ("claude", None)]  # then the new process is detected
    a = ws.ok("agent.get", target="w1:p1")["agent"]
    if not rows(version).exit_keeps_name_until_shell:
        assert a["agent"] == "claude" and "name" not in a  # a new occupant: no name
    else:
        # 0.9.3 frees a name only when detection sees no agent after the exit; the shell never
        # came back in between, so the new process keeps it (exit_keeps_name_until_shell)
        assert a["agent"] == "claude" and a["name"] == "rev"


def test_same_kind_reuse_unseen_by_herdr_is_invisible(ws):
    """herdr tells agents apart by process name: a same-kind swap between two detection polls
    leaves name, label and session in place, and the replacement satisfies a pinned wait (the
    hazard; with exit_seen=True the release ends the wait instead, test above)."""
    working(ws, kind="pi")
    session = ws.ok("agent.get", target="rev")["agent"]["agent_session"]
    task = ws.spawn("agent.wait", target="rev")
    pane_reused(ws.sim, "w1:p1", "pi")
    ws.advance(0.1)
    assert not task.done()
    ws.advance(2)
    a = ws.result(task)["result"]["agent"]
    assert (a["name"], a["agent"], a["agent_status"]) == ("rev", "pi", "idle")
    assert a["agent_session"] == session


# --- a vanished agent ---------------------------------------------------------------------------


def test_agent_vanishes_shell_comes_back(ws, version):
    working(ws)
    task = ws.spawn("agent.wait", target="rev", until=["blocked"])
    agent_vanishes(ws.sim, "w1:p1")
    ws.settle()
    assert ws.result(task)["error"] == NOT_RUNNING
    if rows(version).exit_keeps_name_until_shell:  # the name stays until the shell is seen
        assert "agent" not in ws.ok("agent.get", target="rev")["agent"]
        ws.advance(1)
    assert ws.err("agent.get", target="rev") == {
        "code": "agent_not_found",
        "message": "agent target rev not found",
    }
    assert ws.ok("pane.get", pane_id="w1:p1")["pane"]["pane_id"] == "w1:p1"  # the pane stays


@pytest.mark.parametrize("close,event", [("exited", "pane_exited"), ("closed", "pane_closed")])
def test_agent_vanishes_with_its_pane(ws, close, event):
    ws.ok("pane.split", pane_id="w1:p1", direction="right")
    working(ws)
    task = ws.spawn("agent.wait", target="rev")
    mark = ws.sim.hub.seq
    agent_vanishes(ws.sim, "w1:p1", close=close)
    ws.settle()
    assert ws.result(task)["error"] == NOT_RUNNING
    assert [
        k for k, d in events(ws, mark) if k.startswith("pane_") and d.get("pane_id") == "w1:p1"
    ] == [event]
    assert ws.err("pane.get", pane_id="w1:p1")["code"] == "pane_not_found"
    assert ws.err("agent.get", target="rev")["code"] == "agent_not_found"


def test_agent_vanishes_refuses_unknown_modes(ws):
    with pytest.raises(ValueError):
        agent_vanishes(ws.sim, "w1:p1", close="gone")
    with pytest.raises(LookupError):
        agent_vanishes(ws.sim, "w1:p1")  # no agent there
    with pytest.raises(KeyError):
        agent_vanishes(ws.sim, "w9:p9")


# --- a busy shell ----------------------------------------------------------------------------------


def test_busy_shell_refuses_agent_start_until_idle(ws):
    busy_shell(ws.sim, "w1:p1", command="sleep 30")
    assert ws.err("agent.start", name="rev", kind="pi", pane_id="w1:p1") == {
        "code": "agent_pane_busy",
        "message": "agent target pane w1:p1 is not an available shell",
    }
    info = ws.ok("pane.process_info", pane_id="w1:p1")["process_info"]
    assert info["foreground_process_group_id"] != info["shell_pid"]  # phren's shell check
    assert info["foreground_processes"][0]["cmdline"] == "sleep 30"
    shell_idle(ws.sim, "w1:p1")
    info = ws.ok("pane.process_info", pane_id="w1:p1")["process_info"]
    assert info["foreground_process_group_id"] == info["shell_pid"]
    assert ws.ok("agent.start", name="rev", kind="pi", pane_id="w1:p1")["agent"]["name"] == "rev"


def test_busy_shell_for_a_while_and_a_retrying_client(ws):
    """phren retries agent.start every 250 ms while it answers agent_pane_busy (CLIENTS §4.2)."""
    busy_shell(ws.sim, "w1:p1", duration=1.1)
    attempts = 0
    while True:
        attempts += 1
        reply = ws.call("agent.start", name="rev", kind="pi", pane_id="w1:p1")
        if "result" in reply:
            break
        assert reply["error"]["code"] == "agent_pane_busy"
        ws.advance(0.25)
    assert attempts == 6  # t = 0, .25, .5, .75, 1.0 busy; 1.25 free


def test_busy_shell_type_ahead_and_ctrl_c(ws):
    busy_shell(ws.sim, "w1:p1", command=["sleep", "30"])
    ws.ok("pane.send_text", pane_id="w1:p1", text="echo hi")
    screen = ws.ok("pane.read", pane_id="w1:p1", source="visible")["read"]["text"]
    assert "echo hi" not in screen and "sleep 30" in screen
    shell_idle(ws.sim, "w1:p1")
    assert (
        ws.ok("pane.read", pane_id="w1:p1", source="visible")["read"]["text"]
        .rstrip()
        .endswith("$ echo hi")
    )
    ws.ok("pane.send_keys", pane_id="w1:p1", keys=["C-c"])  # clears the typed line
    busy_shell(ws.sim, "w1:p1")
    ws.ok("pane.send_keys", pane_id="w1:p1", keys=["C-c"])  # interrupts the command
    assert "result" in ws.call("agent.start", name="rev", kind="pi", pane_id="w1:p1")


def test_busy_shell_refused_while_an_agent_runs(ws):
    start_ready(ws)
    with pytest.raises(LookupError):
        busy_shell(ws.sim, "w1:p1")


# --- a late session id -------------------------------------------------------------------------------


def test_session_reported_late_to_a_polling_client(ws):
    """entwurf's witness loop polls agent get <name> every 100 ms for 5 s (CLIENTS §3.4)."""
    quiet_next_start(ws.sim, "w1:p1")
    start = ws.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    assert "agent_session" not in start["agent"]
    seen = []
    for i in range(50):
        ws.advance(0.1)
        if i == 29:
            session_reported(ws.sim, "w1:p1", value="0b5f6e2a-1111-4222-8333-944445555666")
        a = ws.ok("agent.get", target="rev")["agent"]
        seen.append("agent_session" in a)
        if seen[-1]:
            assert a["agent_session"] == {
                "source": "herdr:claude",
                "agent": "claude",
                "kind": "id",
                "value": "0b5f6e2a-1111-4222-8333-944445555666",
            }
    assert seen.index(True) == 29 and all(seen[29:])
