"""The thin clients under the field scenarios (issue 22): what the opener's finish watcher
(CLIENTS.md §2.10) and the fresh-call rail (§3.4) do when herdr behaves as the field reports.

The watcher only ever runs ``herdr agent get <paneId>``: here that verb is answered in process
by a simulator on a virtual clock (``SimAgentGet``: the CLI's envelope, CLIENTS.md §1 — the
result JSON on stdout with status 0, herdr's error envelope on stderr with status 1), so every
scenario's timing is exact. The fresh-call rail runs the real stand-in binary against a
``ThreadServer`` with the scenario loaded there (``herdr_sim``).

Each test records what the client concludes; a conclusion that is wrong about the world but
follows the client's own stated rule is asserted as such (and named in the test), not "fixed".
"""

from __future__ import annotations

import json

import pytest
from simherdr_client.opener import FinishWatcher, WatchConfig, session_uuid
from simherdr_client.runner import RunResult

from simherdr.scenarios import agents as SC
from simherdr.testing import Harness
from tests.client.helpers import SCALE, run
from tests.client.test_fresh_call_sim import NAME, go, pane_info, req
from tests.releases import VERSIONS

CONFIG = WatchConfig(interval_ms=1000, grace_ms=3000, max_wait_ms=120_000)


class SimAgentGet:
    """``herdr agent get <target>`` answered by an in-process simulator."""

    def __init__(self, h: Harness):
        self.h = h
        self.calls = 0

    async def __call__(self, args):
        args = list(args)
        assert args[:2] == ["agent", "get"] and len(args) == 3, args
        self.calls += 1
        reply = await self.h.sim.request(
            {"id": "cli:agent:get", "method": "agent.get", "params": {"target": args[2]}}
        )
        if "result" in reply:
            return RunResult(0, json.dumps({"id": "cli:agent:get", "result": reply["result"]}), "")
        return RunResult(1, "", json.dumps({"error": reply["error"], "id": "cli:agent:get"}))


def watch(h: Harness, session_id: str, pane_id: str = "w1:p1", config=CONFIG) -> dict:
    """Run one finish watcher to its end on the simulator's own loop and clock."""

    async def sleep(ms: float) -> None:
        await h.clock.advance(ms / 1000)

    sent: list[dict] = []
    w = FinishWatcher(
        pane_id=pane_id,
        session_id=session_id,
        agent_name="worker",
        details={},
        run=SimAgentGet(h),
        deliver=sent.append,
        sleep=sleep,
        clock=lambda: h.sim.now() * 1000,
        config=config,
    )
    out = h.loop.run_until_complete(w.run_to_end())
    assert out["delivered"] and len(sent) == 1
    return out


def started_pi(h: Harness, scenario: str | None, prompt: bool = True, pane: str = "w1:p1") -> str:
    """Load ``scenario``, start a pi and (optionally) prompt it; return our session id (the one
    the opener would have passed with --session-id)."""
    if scenario:
        h.load_scenario(scenario)
    if h.sim.session.find_pane("w1:p1") is None:
        h.ok("workspace.create", cwd="/tmp")
    h.ok("agent.start", name="worker", kind="pi", pane_id=pane)
    h.advance(4)
    session = h.ok("agent.get", target="worker")["agent"].get("agent_session")
    if prompt:
        h.ok("agent.prompt", target="worker", text="do the task")
    return session["value"] if session else "/h/.pi/agent/sessions/x_late.jsonl"


# --- the opener's finish watcher ------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_watcher_vanished_agent(version):
    with Harness(version=version) as h:
        ours = started_pi(h, "agent-vanishes-mid-run")
        assert watch(h, ours)["outcome"] == "vanished"


@pytest.mark.parametrize("version", VERSIONS)
def test_watcher_never_started(version):
    with Harness(version=version) as h:
        ours = started_pi(h, "never-starts-working")
        assert watch(h, ours)["outcome"] == "never-started"


@pytest.mark.parametrize("version", VERSIONS)
def test_watcher_late_session_is_not_foreign_and_finishes(version):
    with Harness(version=version) as h:
        h.load_scenario("late-session-id")
        ours = "/home/u/.pi/sessions/2026-01-01T00-00-00-000Z_late.jsonl"  # reported at +6 s
        started_pi(h, None)
        out = watch(h, ours)
        assert out["outcome"] == "finished"


@pytest.mark.parametrize("version", VERSIONS)
def test_watcher_rotated_session_is_never_claimed_as_ours(version):
    with Harness(version=version) as h:
        ours = started_pi(h, None)
        h.advance(1)
        SC.session_reported(
            h.sim,
            "w1:p1",
            "/h/.pi/agent/sessions/2026-01-01T00-00-09-000Z_0c0c0c0c-1111-4222-8333-444444444444.jsonl",
            "new",
        )
        rotated = h.ok("agent.get", target="worker")["agent"]["agent_session"]["value"]
        assert session_uuid(rotated) != session_uuid(ours), "herdr followed the rotation"
        assert watch(h, ours)["outcome"] == "foreign-session"


@pytest.mark.parametrize("version", VERSIONS)
def test_watcher_done_counts_as_finished(version):
    with Harness(version=version) as h:
        h.load_scenario("wait-misses-focus-idle")
        h.ok("workspace.create", cwd="/tmp")
        h.ok("tab.create", workspace_id="w1")
        h.ok("pane.focus", pane_id="w1:p2")
        ours = started_pi(h, None)
        statuses = []
        real = SimAgentGet.__call__

        async def spy(self, args):
            r = await real(self, args)
            if r.status == 0:
                statuses.append(json.loads(r.stdout)["result"]["agent"]["agent_status"])
            return r

        SimAgentGet.__call__ = spy  # type: ignore[method-assign]
        try:
            out = watch(h, ours)
        finally:
            SimAgentGet.__call__ = real  # type: ignore[method-assign]
        assert out["outcome"] == "finished"
        assert statuses[-1] == "done", "the finish was read from `done`, before any focus"


@pytest.mark.parametrize("version", VERSIONS)
def test_watcher_restart_between_start_and_witness_is_vanished(version):
    with Harness(version=version) as h:
        h.load_scenario("restart-between-start-and-witness")  # the restart: 1 s after the start
        h.ok("workspace.create", cwd="/tmp")
        h.ok("agent.start", name="worker", kind="pi", pane_id="w1:p1")
        out = watch(h, "/h/.pi/agent/sessions/x_4d4d4d4d-0000-4000-8000-000000000001.jsonl")
        assert out["outcome"] == "vanished"


@pytest.mark.parametrize("version", VERSIONS)
def test_watcher_takes_a_registry_drop_for_a_vanished_agent(version):
    """#3215: the agent is alive, but `agent_not_found` is the watcher's "vanished" (its rule,
    CLIENTS.md §2.10); it claims no finish, which is the safe side."""
    with Harness(version=version) as h:
        ours = started_pi(h, "registry-drops-live-agent")
        assert watch(h, ours)["outcome"] == "vanished"
        assert h.sim.agents.occupant(h.sim.session.find_pane("w1:p1")).alive


@pytest.mark.parametrize("version", VERSIONS)
def test_watcher_polls_through_a_live_handoff_unless_a_poll_lands_in_the_gap(version):
    with Harness(version=version) as h:
        h.load_scenario("live-handoff-agents-late")
        h.sim.agents.set_behaviour("pi", work=60.0)
        ours = started_pi(h, None)
        # the handoff begins 1 s after the prompt: a poll at +1.0 s meets the 0.3 s gap
        assert watch(h, ours)["outcome"] == "vanished"
    with Harness(version=version) as h:
        h.load_scenario("live-handoff-agents-late")
        h.sim.agents.set_behaviour("pi", work=60.0)
        ours = started_pi(h, None)
        h.advance(0.5)  # the polls fall at +0.5, +1.5, ...: they miss the gap
        assert watch(h, ours)["outcome"] == "finished"


@pytest.mark.parametrize("version", VERSIONS)
def test_watcher_times_out_on_a_start_that_never_completes(version):
    with Harness(version=version) as h:
        h.load_scenario("pi-start-never-ready")
        h.ok("workspace.create", cwd="/tmp")
        h.ok("agent.start", name="worker", kind="pi", pane_id="w1:p1", timeout_ms=300000)
        h.advance(2)  # pi reports its session (ours) at +1 s
        ours = h.ok("agent.get", target="worker")["agent"]["agent_session"]["value"]
        out = watch(
            h, ours, config=WatchConfig(interval_ms=1000, grace_ms=3000, max_wait_ms=60_000)
        )
        assert out["outcome"] == "timed-out"


# --- the fresh-call rail --------------------------------------------------------------------------


@pytest.fixture
def rail(herdr_sim, tmp_path):
    herdr_sim.ok("workspace.create", cwd=str(tmp_path))
    env = {
        **herdr_sim.env,
        "HERDR_ENV": "1",
        "HERDR_BIN_PATH": herdr_sim.stub,
        "HERDR_PANE_ID": "w1:p1",
    }
    return herdr_sim, env


def test_rail_late_claude_session_is_unavailable_and_nothing_is_closed(rail):
    sim, env = rail
    sim.srv.load_scenario("claude-session-arrives-late")
    # the witness window is FakeTime, simulated time runs with the stand-in's wall time: widen the
    # scenario's 87 s so that no loaded machine reaches it within five reads
    sim.run(lambda s: s.agents.set_behaviour("claude", session_after=3600.0))
    result, rec = go(sim, env)
    assert result["ok"] is True
    assert result["receipt"]["witness"] == {"state": "unavailable", "reads": 5, "settleMs": 5000}
    assert "pane close" not in rec.verbs()
    assert pane_info(sim, "w1:p2")["agent"] == "claude"


def test_rail_server_restart_during_agent_start_fails_and_closes_nothing(rail):
    """The server restarts while the CLI's `agent start` waits for readiness (a server that dies
    mid-`agent start`): the CLI answers herdr's `timeout` envelope, and the rail reclaims per
    its table (CLIENTS.md §3.4 step 5): the pane's terminal is not the created one, so it closes
    nothing (`orphan-unreclaimed: terminal-id-mismatch`). Correct by its rules: the pane left
    behind is a fresh shell in the new server, not ours to close."""
    sim, env = rail
    sim.srv.load_scenario("restart-between-start-and-witness")
    # the restart comes 1 simulated s after the start's reply (10 ms of wall time); past it the
    # CLI polls the new server until its --timeout: herdr's default 30 s (300 ms of wall time at
    # SCALE, 30 times the restart's delay), not the rail's 240 s (2.4 s of polling, ~870 polls)
    result, rec = go(sim, env, start_ready_ms=30_000)
    # which of the CLI's own polls meets the restart is wall-clock timing: the dropped
    # connection (agent_start_transport_failed) or the new server's pane (timeout)
    code = json.loads(rec.results[2].stderr)["error"]["code"]
    assert code in ("timeout", "agent_start_transport_failed")
    assert result == {
        "ok": False,
        "reason": "herdr-agent-start-failed",
        "herdrErrorCode": code,
        "recovery": {
            "outcome": "orphan-unreclaimed",
            "paneId": "w1:p2",
            "reason": "terminal-id-mismatch",
        },
    }
    assert rec.verbs() == ["pane get", "tab create", "agent start", "pane get"]
    if code == "timeout":
        assert json.loads(rec.results[2].stderr)["error"]["message"] == (
            "timed out waiting for agent startup"
        )
    assert "agent" not in pane_info(sim, "w1:p2")


def test_rail_session_rotation_after_the_witness_leaves_the_receipt_alone(rail):
    """The witness reads claude's session (`reported` at its first read), and the scenario's
    /clear rotation (+6 s after the start's reply) lands after the rail answered: it changes
    nothing in the receipt, and herdr holds the rotated id. Pinned with a hook before the first
    witness read: claude's integration reports its session there and the server's clock stands
    still through the witness; claude reports nothing by itself (quiet_next_start). Unpinned,
    claude's own report (8 simulated s after its start, 80 ms of wall time at SCALE) came after
    all five reads on a fast run (`unavailable`), and on a loaded one before `agent start`
    answered (the start's reply held the session: `reported` at 0 reads). Should the machine
    stall 60 ms between the reply and that read, the rotation comes first and the read sees the
    rotated id: the same receipt, the same end."""
    sim, env = rail
    sim.srv.load_scenario("session-rotates-in-pane")
    sim.run(lambda s: SC.quiet_next_start(s, "w1:p2"))

    def reported_and_held(s):
        SC.session_reported(s, "w1:p2")
        sim.srv.hold()

    rec = sim.recorder(env).before(("agent", "get"), reported_and_held)
    try:
        result, _ = go(sim, env, req(), rec=rec)
    finally:
        sim.srv.release()
    assert result["ok"] is True
    assert result["receipt"]["witness"] == {"state": "reported", "reads": 1, "settleMs": 1000}
    assert "agent_session" not in result["receipt"]  # by contract (CLIENTS.md §3.5)
    sim.srv.skip(10 / SCALE)  # past both of the scenario's reports
    agent = sim.ok("agent.get", target=NAME)["agent"]
    assert agent["agent"] == "claude"
    assert agent["agent_session"]["value"] == "5d1c7e22-1111-4a4a-8b8b-0000000c1ea2"
    assert result["receipt"]["herdrPaneId"] == agent["pane_id"] == "w1:p2"


def test_the_in_process_agent_get_prints_what_the_stand_in_prints(rail):
    """SimAgentGet's envelope is the stand-in's: compare one success and one error."""
    sim, env = rail
    sim.ok("agent.start", name="worker", kind="pi", pane_id="w1:p1")
    rec = sim.recorder(env, process=True)  # the binary's (the rails' flows: InprocRunner)
    ok = run(rec(["agent", "get", "nobody"]))
    assert ok.status == 1
    assert json.loads(ok.stderr) == {
        "error": {"code": "agent_not_found", "message": "agent target nobody not found"},
        "id": "cli:agent:get",
    }
    got = run(rec(["agent", "get", "w1:p1"]))
    assert got.status == 0 and set(json.loads(got.stdout)) == {"id", "result"}
    assert json.loads(got.stdout)["id"] == "cli:agent:get"


def test_rail_restart_after_the_start_reports_success_unobserved_with_a_dead_terminal(rail):
    """The restart lands after `agent start` answered and before the first witness read (the
    moment the `restart-between-start-and-witness` scenario names; a hook places it exactly
    here): every read is `agent_not_found`, which the rail's rule counts as no evidence
    (CLIENTS.md §3.4: "A failed or unreadable read, including `agent_not_found`, is not
    evidence"), so it ends in success with witness `unobserved` and a receipt whose terminal no
    longer exists. That follows its stated rules; a caller must not read `unobserved` as
    "running"."""
    from simherdr.scenarios.server import server_restart

    sim, env = rail
    sim.run(lambda s: SC.quiet_next_start(s, "w1:p2"))
    rec = sim.recorder(env).before(("agent", "get"), server_restart)
    result, rec = go(sim, env, rec=rec)
    assert result["ok"] is True
    assert result["receipt"]["witness"] == {"state": "unobserved", "reads": 5, "settleMs": 5000}
    assert all(json.loads(r.stderr)["error"]["code"] == "agent_not_found" for r in rec.results[3:])
    assert result["receipt"]["herdrTerminalId"] != pane_info(sim, "w1:p2")["terminal_id"]
    assert "pane close" not in rec.verbs()
