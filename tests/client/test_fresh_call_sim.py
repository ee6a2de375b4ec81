"""Flow B end to end: the client runs simherdr's stand-in ``herdr`` binary against a real
simulator. Every herdr error, drift and reclaim here is produced by the simulator's state, not
scripted; hooks only make herdr's world change between two calls (another actor, an agent
exiting, a session report arriving)."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from simherdr_client import fresh_call as F
from simherdr_client.fresh_call import FreshCallRequest, fresh_call, render
from simherdr_client.runner import HerdrRunner

from simherdr.scenarios import agents as SC
from tests import forkserve
from tests.client.helpers import SCALE, FakeTime, run

NONCE = "mux-fresh-call-" + "0123456789abcdef01234567"
NAME = F.agent_name_for(NONCE)


@pytest.fixture
def caller(herdr_sim, tmp_path):
    """The caller's own pane w1:p1 (workspace w1) and the context a pane would give it."""
    herdr_sim.ok("workspace.create", cwd=str(tmp_path))
    env = {
        **herdr_sim.env,
        "HERDR_ENV": "1",
        "HERDR_BIN_PATH": herdr_sim.stub,
        "HERDR_PANE_ID": "w1:p1",
    }
    return herdr_sim, env


def req(**kw):
    base = dict(
        backend="claude-code", model="opus", task="review\nthe diff", caller_garden_id="garden-1"
    )
    base.update(kw)
    return FreshCallRequest(**base)


def go(sim, env, request=None, rec=None, time=None, **kw):
    rec = rec or sim.recorder(env)
    time = time or FakeTime(stretch=10)  # the 5000 ms window is 5 reads
    result = run(
        fresh_call(
            request or req(),
            env=env,
            runner=rec,
            sleep=time.sleep,
            clock=time.clock,
            new_nonce=lambda: NONCE,
            **kw,
        )
    )
    return result, rec


def pane_info(sim, pane_id):
    reply = sim.invoke("pane.get", pane_id=pane_id)
    return reply.get("result", {}).get("pane")


# --- success --------------------------------------------------------------------------------------


def test_claude_success_late_session_is_reported(caller, tmp_path):
    sim, env = caller
    sim.run(lambda s: SC.quiet_next_start(s, "w1:p2"))
    # through the binary (the file's other flows run the stand-in in process: InprocRunner)
    rec = sim.recorder(env, process=True).before(
        ("agent", "get"), lambda s: SC.session_reported(s, "w1:p2"), nth=3
    )
    result, rec = go(sim, env, req(cwd=str(tmp_path)), rec=rec)
    assert result == {
        "ok": True,
        "receipt": {
            "backend": "claude-code",
            "requestedKind": "claude",
            "model": "opus",
            "cwd": str(tmp_path),
            "herdrAgentName": NAME,
            "herdrWorkspaceId": "w1",
            "herdrTabId": "w1:t2",
            "herdrPaneId": "w1:p2",
            "herdrTerminalId": pane_info(sim, "w1:p2")["terminal_id"],
            "nonce": NONCE,
            "witness": {"state": "reported", "reads": 3, "settleMs": 3000},
        },
    }
    assert rec.verbs() == [
        "pane get",
        "tab create",
        "agent start",
        "agent get",
        "agent get",
        "agent get",
    ]
    assert all(r.status == 0 for r in rec.results[:3])
    # herdr's own view: the agent runs in the new, unfocused tab with exactly our argv
    agent = sim.ok("agent.get", target=NAME)["agent"]
    assert (agent["pane_id"], agent["tab_id"], agent["agent"]) == ("w1:p2", "w1:t2", "claude")
    assert sim.ok("tab.get", tab_id="w1:t2")["tab"]["focused"] is False
    start = rec.calls[2]
    assert start[start.index("--") + 1 :][1:] == [
        "--allowedTools=mcp__entwurf-bridge__entwurf_v2",
        "--model=opus",
    ]


def test_pi_success_session_at_start_needs_no_witness_reads(caller):
    sim, env = caller
    rec = sim.recorder(env)
    result = F.fresh_call_sync(
        req(backend="pi", model="gpt-5"), env=env, runner=rec
    )  # threaded-code entry
    assert result["ok"] is True
    assert result["receipt"]["requestedKind"] == "pi"
    assert result["receipt"]["witness"] == {"state": "reported", "reads": 0, "settleMs": 0}
    assert "cwd" not in result["receipt"]
    assert rec.verbs() == ["pane get", "tab create", "agent start"]
    assert render(result).startswith("[entwurf fresh call → herdr]")


def test_no_session_within_the_window_is_unavailable(caller):
    sim, env = caller
    sim.run(lambda s: SC.quiet_next_start(s, "w1:p2"))
    result, rec = go(sim, env)
    assert result["receipt"]["witness"] == {"state": "unavailable", "reads": 5, "settleMs": 5000}
    assert "pane close" not in rec.verbs()  # expiry never closes
    assert pane_info(sim, "w1:p2")["agent"] == "claude"


def test_agent_gone_before_the_first_read_is_unobserved(caller):
    sim, env = caller
    sim.run(lambda s: SC.quiet_next_start(s, "w1:p2"))

    def gone(s):
        SC.agent_exits(s, "w1:p2")
        # the shell's re-detect now, not SHELL_REDETECT_DELAY later (5 ms of wall time here: a
        # stand-in call through the fork server can come sooner and still find the agent idle)
        s.agents.shell_returned(s.session.panes["w1:p2"])

    rec = sim.recorder(env).before(("agent", "get"), gone)
    result, rec = go(sim, env, rec=rec)
    assert result["receipt"]["witness"] == {"state": "unobserved", "reads": 5, "settleMs": 5000}
    assert all(r.status == 1 and '"agent_not_found"' in r.stderr for r in rec.results[3:])


def test_success_through_simherdr_serve_process(tmp_path, stub_path):
    sockdir = tempfile.mkdtemp(prefix="shc", dir="/tmp")
    sock = os.path.join(sockdir, "herdr.sock")
    # a serve process of its own, forked (tests/forkserve.py: the CLI's main, no Python start)
    proc = forkserve.spawn_server(sock, version="0.9.3", time_scale=SCALE)
    try:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp_path),
            "HERDR_SOCKET_PATH": sock,
            "SIMHERDR_TIME_SCALE": str(SCALE),
            "HERDR_ENV": "1",
            "HERDR_BIN_PATH": stub_path,
        }
        runner = HerdrRunner(stub_path, env)
        made = runner.run_sync(["workspace", "create", "--cwd", str(tmp_path)])
        assert made.status == 0, made.stderr
        env["HERDR_PANE_ID"] = "w1:p1"
        t = FakeTime(stretch=10)
        result = run(fresh_call(req(backend="pi"), env=env, sleep=t.sleep, clock=t.clock))
        assert result["ok"] is True, result
        assert result["receipt"]["herdrPaneId"] == "w1:p2"
        got = runner.run_sync(["agent", "get", result["receipt"]["herdrAgentName"]])
        assert got.status == 0 and '"pane_id":"w1:p2"' in got.stdout
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(sockdir, ignore_errors=True)


# --- refusals that need herdr ---------------------------------------------------------------------


def test_nonexistent_caller_pane_is_a_refusal_with_one_call(caller):
    sim, env = caller
    result, rec = go(sim, {**env, "HERDR_PANE_ID": "w1:p9"})
    assert result == {"ok": False, "reason": "herdr-caller-pane-get-failed"}
    assert rec.verbs() == ["pane get"]
    assert '"pane_not_found"' in rec.results[0].stderr
    assert sim.invoke("tab.get", tab_id="w1:t2")["error"]["code"] == "tab_not_found"


def test_caller_pane_alias_answers_about_another_id_which_is_drift(caller):
    sim, env = caller
    result, rec = go(
        sim, {**env, "HERDR_PANE_ID": "1-1"}
    )  # herdr resolves the legacy form to w1:p1
    assert result == {"ok": False, "reason": "herdr-caller-pane-drift"}
    assert rec.verbs() == ["pane get"] and rec.results[0].status == 0


# --- failures after a mutation --------------------------------------------------------------------


def test_workspace_gone_before_tab_create_is_recovery_none_with_herdrs_code(caller):
    sim, env = caller
    rec = sim.recorder(env).before(
        ("tab", "create"), lambda s: s.invoke("workspace.close", {"workspace_id": "w1"})
    )
    result, rec = go(sim, env, rec=rec)
    assert result == {
        "ok": False,
        "reason": "herdr-tab-create-failed",
        "herdrErrorCode": "workspace_not_found",
        "recovery": {"outcome": "none"},
    }
    assert rec.verbs() == ["pane get", "tab create"]
    assert "recovery: none" in render(result)


def test_tab_create_killed_by_our_bound_is_unknown(caller):
    from simherdr.scenarios.faults import Hang

    sim, env = caller
    # herdr holds the reply, so our kill bound always wins the race (deterministic under load)
    sim.run(lambda s: s.faults.add(Hang(method="tab.create")))
    rec = sim.recorder(env, verb_timeouts={("tab", "create"): 50})
    result, rec = go(sim, env, rec=rec)
    assert result == {
        "ok": False,
        "reason": "herdr-tab-create-failed",
        "recovery": {"outcome": "unknown"},
    }
    assert "no exit status (timeout 50ms or signal null)" in rec.results[1].stderr
    assert "UNKNOWN outcome" in render(result)


def test_start_with_an_out_of_range_timeout_fails_and_the_pane_is_closed(caller):
    sim, env = caller
    result, rec = go(sim, env, start_ready_ms=3000)
    assert rec.calls[2][rec.calls[2].index("--timeout") + 1] == "3000"
    terminal = result.get("recovery", {}).get("terminalId")
    assert result == {
        "ok": False,
        "reason": "herdr-agent-start-failed",
        "herdrErrorCode": "invalid_agent_timeout",
        "recovery": {"outcome": "closed", "paneId": "w1:p2", "terminalId": terminal},
    }
    assert terminal and terminal.startswith("term_")
    assert rec.verbs() == ["pane get", "tab create", "agent start", "pane get", "pane close"]
    # closing the sole pane removed the tab; the caller's tab is untouched
    assert sim.invoke("tab.get", tab_id="w1:t2")["error"]["code"] == "tab_not_found"
    assert pane_info(sim, "w1:p1") is not None


def test_busy_pane_is_not_retried_and_a_live_agent_is_never_closed(caller):
    sim, env = caller
    # the new agent is detected at once (its detect_after, 0.2 s, is 2 ms of wall time here:
    # a reclaim read that came sooner saw no agent yet and closed the pane)
    rec = sim.recorder(env).before(
        ("agent", "start"), lambda s: SC.takeover(s, "w1:p2", "pi", detect_after=0)
    )
    result, rec = go(sim, env, rec=rec)
    assert result == {
        "ok": False,
        "reason": "herdr-agent-start-failed",
        "herdrErrorCode": "agent_pane_busy",
        "recovery": {"outcome": "orphan-unreclaimed", "paneId": "w1:p2", "reason": "agent-present"},
    }
    assert rec.verbs() == ["pane get", "tab create", "agent start", "pane get"]
    assert pane_info(sim, "w1:p2")["agent"] == "pi"
    assert "recovery: orphan-unreclaimed:agent-present (w1:p2)" in render(result)


def test_name_taken_elsewhere_fails_and_the_empty_pane_is_closed(caller):
    sim, env = caller
    other = sim.ok("tab.create", workspace_id="w1", focus=False)["root_pane"]["pane_id"]  # w1:p2
    sim.ok("agent.start", name=NAME, kind="claude", pane_id=other)
    result, rec = go(sim, env)
    assert result["reason"] == "herdr-agent-start-failed"
    assert result["herdrErrorCode"] == "agent_name_taken"
    assert result["recovery"]["outcome"] == "closed" and result["recovery"]["paneId"] == "w1:p3"
    assert pane_info(sim, other)["agent"] == "claude"  # the other agent is untouched


def test_herdr_start_timeout_leaves_a_booting_agent_unreclaimed(caller):
    sim, env = caller
    sim.run(lambda s: s.agents.configure_pane("w1:p2", startup=600.0, session_at="never"))
    result, rec = go(sim, env, start_ready_ms=4000)
    # herdr's server clears the pending name at start + timeout, a round trip before the CLI's own
    # deadline; on a scaled clock that round trip is scaled too, so the CLI usually sees the name
    # gone (agent_name_not_found) before its own `timeout`. Either is herdr's answer.
    assert result.pop("herdrErrorCode") in ("timeout", "agent_name_not_found")
    assert result == {
        "ok": False,
        "reason": "herdr-agent-start-failed",
        "recovery": {"outcome": "orphan-unreclaimed", "paneId": "w1:p2", "reason": "agent-present"},
    }
    assert pane_info(sim, "w1:p2")["agent"] == "claude"


def test_name_moving_to_another_terminal_during_the_witness_is_vanished(caller):
    sim, env = caller
    sim.run(lambda s: SC.quiet_next_start(s, "w1:p2"))
    other = {}

    def move_the_name(s):
        SC.agent_exits(s, "w1:p2")
        s.agents.shell_returned(s.session.panes["w1:p2"])  # 0.9.3 frees the name only then

    async def start_elsewhere(s):
        pane = (await s.invoke("tab.create", {"workspace_id": "w1", "focus": False}))["result"][
            "root_pane"
        ]
        other["pane"] = pane["pane_id"]
        await s.invoke("agent.start", {"name": NAME, "kind": "claude", "pane_id": pane["pane_id"]})

    rec = (
        sim.recorder(env)
        .before(("agent", "get"), move_the_name, nth=2)
        .before(("agent", "get"), start_elsewhere, nth=2)
    )
    result, rec = go(sim, env, rec=rec)
    assert result["reason"] == "herdr-agent-start-vanished"
    assert '"pane_id":"%s"' % other["pane"] in rec.results[4].stdout
    assert result["recovery"]["paneId"] == "w1:p2"
    assert result["recovery"]["outcome"] == "closed"
    assert pane_info(sim, "w1:p2") is None and pane_info(sim, other["pane"])["agent"] == "claude"


def test_pane_closed_before_the_reclaim_read_is_pane_get_failed(caller):
    sim, env = caller
    rec = sim.recorder(env).before(
        ("pane", "get"), lambda s: s.invoke("pane.close", {"pane_id": "w1:p2"}), nth=2
    )
    result, rec = go(sim, env, rec=rec, start_ready_ms=1)
    assert result["recovery"] == {
        "outcome": "orphan-unreclaimed",
        "paneId": "w1:p2",
        "reason": "pane-get-failed",
    }
    assert rec.verbs()[-1] == "pane get"


def test_pane_closed_between_read_and_close_is_close_failed(caller):
    sim, env = caller
    rec = sim.recorder(env).before(
        ("pane", "close"), lambda s: s.invoke("pane.close", {"pane_id": "w1:p2"})
    )
    result, rec = go(sim, env, rec=rec, start_ready_ms=1)
    assert result["recovery"] == {
        "outcome": "orphan-unreclaimed",
        "paneId": "w1:p2",
        "reason": "close-failed",
    }
    assert '"pane_not_found"' in rec.results[-1].stderr
