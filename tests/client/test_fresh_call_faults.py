"""Flow B drift and transport cases produced through the simulator's fault layer
(simherdr.scenarios.faults, used from the tests only): replies about another pane or terminal,
a lost reply, a reply that never comes. The client still only runs the stand-in binary."""

from __future__ import annotations

import pytest
from simherdr_client import fresh_call as F
from simherdr_client.fresh_call import FreshCallRequest, fresh_call, render

from simherdr.scenarios import agents as SC
from simherdr.scenarios.faults import Drop, ErrorReply, Hang, WrongPane
from tests.client.helpers import FakeTime, run

NONCE = "mux-fresh-call-" + "fedcba9876543210fedcba98"
NAME = F.agent_name_for(NONCE)


@pytest.fixture
def caller(herdr_sim, tmp_path):
    herdr_sim.ok("workspace.create", cwd=str(tmp_path))
    env = {
        **herdr_sim.env,
        "HERDR_ENV": "1",
        "HERDR_BIN_PATH": herdr_sim.stub,
        "HERDR_PANE_ID": "w1:p1",
    }
    return herdr_sim, env


def go(sim, env, rec=None, **kw):
    rec = rec or sim.recorder(env)
    t = FakeTime(stretch=10)
    request = FreshCallRequest(backend="claude-code", model="opus", task="t", caller_garden_id="g")
    result = run(
        fresh_call(
            request,
            env=env,
            runner=rec,
            sleep=t.sleep,
            clock=t.clock,
            new_nonce=lambda: NONCE,
            **kw,
        )
    )
    return result, rec


def add(fault):
    return lambda s: s.faults.add(fault)


def pane(sim, pane_id):
    return sim.invoke("pane.get", pane_id=pane_id).get("result", {}).get("pane")


def test_caller_pane_reply_about_another_pane_is_drift(caller):
    sim, env = caller
    sim.run(add(WrongPane(method="pane.get", params={"pane_id": "w1:p1"}, to_pane="w1:p9")))
    result, rec = go(sim, env)
    assert result == {"ok": False, "reason": "herdr-caller-pane-drift"}
    assert rec.verbs() == ["pane get"]


def test_start_reply_naming_another_tab_is_pane_drift_and_the_live_agent_is_left(caller):
    sim, env = caller
    rec = sim.recorder(env).before(
        ("agent", "start"), add(WrongPane(method="agent.get", to_pane="w1:p1", fields=("tab_id",)))
    )
    result, rec = go(sim, env, rec=rec)
    assert '"tab_id":"w1:t1"' in rec.results[2].stdout and rec.results[2].status == 0
    assert result == {
        "ok": False,
        "reason": "herdr-agent-start-pane-drift",
        "recovery": {"outcome": "orphan-unreclaimed", "paneId": "w1:p2", "reason": "agent-present"},
    }
    assert rec.verbs() == ["pane get", "tab create", "agent start", "pane get"]


def test_witness_read_naming_another_tab_is_vanished(caller):
    sim, env = caller
    sim.run(lambda s: SC.quiet_next_start(s, "w1:p2"))
    rec = sim.recorder(env).before(
        ("agent", "get"),
        add(WrongPane(method="agent.get", to_pane="w1:p1", fields=("tab_id",))),
        nth=2,
    )
    result, rec = go(sim, env, rec=rec)
    assert result == {
        "ok": False,
        "reason": "herdr-agent-start-vanished",
        "recovery": {"outcome": "orphan-unreclaimed", "paneId": "w1:p2", "reason": "agent-present"},
    }
    assert rec.verbs() == [
        "pane get",
        "tab create",
        "agent start",
        "agent get",
        "agent get",
        "pane get",
    ]


def test_reclaim_sees_another_terminal_and_leaves_the_pane(caller):
    sim, env = caller
    stale = WrongPane(
        method="pane.get", params={"pane_id": "w1:p2"}, to_pane="w1:p2", to_terminal="term_stale"
    )
    rec = sim.recorder(env).before(("pane", "get"), add(stale), nth=2)
    result, rec = go(sim, env, rec=rec, start_ready_ms=1)
    assert result["herdrErrorCode"] == "invalid_agent_timeout"
    assert result["recovery"] == {
        "outcome": "orphan-unreclaimed",
        "paneId": "w1:p2",
        "reason": "terminal-id-mismatch",
    }
    assert pane(sim, "w1:p2") is not None and "pane close" not in rec.verbs()


def test_reclaim_sees_another_pane_id_and_leaves_the_pane(caller):
    sim, env = caller
    other = WrongPane(
        method="pane.get", params={"pane_id": "w1:p2"}, to_pane="w1:p1", fields=("pane_id",)
    )
    rec = sim.recorder(env).before(("pane", "get"), add(other), nth=2)
    result, rec = go(sim, env, rec=rec, start_ready_ms=1)
    assert result["recovery"] == {
        "outcome": "orphan-unreclaimed",
        "paneId": "w1:p2",
        "reason": "pane-id-mismatch",
    }


def test_lost_tab_create_reply_is_unknown_although_the_tab_exists(caller):
    sim, env = caller
    sim.run(add(Drop(method="tab.create", stage="reply")))
    result, rec = go(sim, env)
    assert result == {
        "ok": False,
        "reason": "herdr-tab-create-failed",
        "recovery": {"outcome": "unknown"},
    }
    assert rec.results[1].status == 1 and not rec.results[1].stderr.startswith("{")
    assert sim.ok("tab.get", tab_id="w1:t2")["tab"]["pane_count"] == 1  # why UNKNOWN is honest
    assert "recovery: UNKNOWN" in render(result)


def test_tab_create_envelope_is_taken_at_its_word(caller):
    sim, env = caller
    sim.run(add(ErrorReply(method="tab.create", code="tab_create_failed")))
    result, rec = go(sim, env)
    assert result == {
        "ok": False,
        "reason": "herdr-tab-create-failed",
        "herdrErrorCode": "tab_create_failed",
        "recovery": {"outcome": "none"},
    }


def test_a_start_that_never_answers_is_killed_by_our_bound_and_reclaimed(caller):
    sim, env = caller
    sim.run(add(Hang(method="agent.start")))
    # herdr never answers (Hang): our kill bound always ends the call; 50 ms of idle wall time
    rec = sim.recorder(env, start_timeout_ms=50)
    result, rec = go(sim, env, rec=rec)
    assert "no exit status (timeout 50ms or signal null)" in rec.results[2].stderr
    assert result == {
        "ok": False,
        "reason": "herdr-agent-start-failed",
        "recovery": {
            "outcome": "closed",
            "paneId": "w1:p2",
            "terminalId": result["recovery"]["terminalId"],
        },
    }
    assert pane(sim, "w1:p2") is None
