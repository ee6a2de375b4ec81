"""A self-reported agent stays while its pane's shell runs any foreground job (issue 33 item 9).

herdr 0.9.2 clears a self-reported agent "once their pane is back at an idle shell" (its
changelog, #4687; row clear_reported_agent_at_idle_shell): idle is ``pane_shell_is_idle`` =
``available_pane_shell(child_pid).is_some()`` (0.9.3 src/platform/mod.rs): the foreground job is
the shell process alone. ``sleep 300`` run in the pane (``herdr pane run``) is a foreground job,
so the agent stays until it ends; in a simulated pane ``sleep N`` holds the foreground N
simulated seconds (SIMULATED_SLEEP)."""

from __future__ import annotations

import pytest

from simherdr.agents.layer import SELF_REPORTED_SHELL_RECHECK
from simherdr.panes.simulated import sleep_seconds
from tests.releases import BASE, releases_where, rows

CLEARING = releases_where(lambda v: v.rows.clear_reported_agent_at_idle_shell)
AGENT = "shepherd-compat-agent"  # no built-in agent kind


def _run(ws, command):  # what `herdr pane run w1:p1 COMMAND` sends
    ws.ok("pane.send_input", pane_id="w1:p1", text=command, keys=["Enter"])


def _report(ws):
    ws.ok("pane.report_agent", pane_id="w1:p1", source="custom:shep", agent=AGENT, state="working")


def _foreground(ws):
    info = ws.ok("pane.process_info", pane_id="w1:p1")
    return [p["argv"] for p in info["process_info"]["foreground_processes"]]


@pytest.mark.parametrize("version", (BASE, *CLEARING))
def test_reported_agent_stays_while_sleep_runs(ws, version):
    _run(ws, "sleep 300")
    _report(ws)
    ws.advance(10 * SELF_REPORTED_SHELL_RECHECK)
    pane = ws.ok("pane.get", pane_id="w1:p1")["pane"]
    assert pane["agent"] == AGENT and pane["agent_status"] == "working"
    assert [a["agent"] for a in ws.ok("agent.list")["agents"]] == [AGENT]
    assert _foreground(ws) == [["sleep", "300"]]
    # agent.start refuses the busy pane, as herdr's (no available shell)
    assert ws.err("agent.start", name="b", kind="pi", pane_id="w1:p1")["code"] == (
        "agent_pane_busy"
    )
    ws.advance(300)  # the sleep ends: the shell is idle again
    assert _foreground(ws) == [[ws.sim.session.panes["w1:p1"].shell]]
    ws.advance(SELF_REPORTED_SHELL_RECHECK + 0.01)
    pane = ws.ok("pane.get", pane_id="w1:p1")["pane"]
    if rows(version).clear_reported_agent_at_idle_shell:
        assert "agent" not in pane and pane["agent_status"] == "unknown"
        assert ws.ok("agent.list")["agents"] == []
    else:
        assert pane["agent"] == AGENT


@pytest.mark.parametrize("version", CLEARING)
def test_typed_ahead_input_waits_for_the_sleep(ws, version):
    ws.ok("pane.send_input", pane_id="w1:p1", text="sleep 2\recho after\r")
    ws.advance(1)
    text = ws.ok("pane.read", pane_id="w1:p1", source="visible")["read"]["text"]
    assert "echo after" not in text
    ws.advance(1.5)
    text = ws.ok("pane.read", pane_id="w1:p1", source="visible")["read"]["text"]
    assert "$ echo after" in text


@pytest.mark.parametrize("version", CLEARING)
def test_ctrl_c_ends_the_sleep_and_the_agent_goes(ws, version):
    _run(ws, "sleep infinity")
    _report(ws)
    ws.advance(1000)
    assert ws.ok("pane.get", pane_id="w1:p1")["pane"]["agent"] == AGENT
    ws.ok("pane.send_keys", pane_id="w1:p1", keys=["C-c"])
    ws.advance(SELF_REPORTED_SHELL_RECHECK + 0.01)
    assert "agent" not in ws.ok("pane.get", pane_id="w1:p1")["pane"]


def test_sleep_durations():
    assert sleep_seconds("sleep 300") == 300
    assert sleep_seconds("sleep 1m 2.5s") == 62.5
    assert sleep_seconds("  sleep .5h") == 1800
    assert sleep_seconds("sleep infinity") == float("inf")
    for other in ("sleep", "sleep x", "sleep 0", "sleep 1 && ls", "sleeps 3", "echo sleep 3"):
        assert sleep_seconds(other) is None, other
