"""Hook authority, sequencing, release and sessions (SOCKET.md §6.4, §6.6, §8.3)."""

from __future__ import annotations

from simherdr.scenarios import agents as scenarios
from tests.agents.conftest import events, start_ready, statuses


def test_custom_hook_overrides_detection_and_clear_falls_back(ws):
    start_ready(ws)
    mark = ws.sim.hub.seq
    ws.ok(
        "pane.report_agent",
        pane_id="w1:p1",
        source="custom:ci",
        agent="Claude-Code",
        state="working",
    )
    a = ws.ok("agent.get", target="rev")["agent"]
    assert a["agent_status"] == "working" and a["agent"] == "claude"
    ws.advance(10)  # detection keeps saying idle; the hook wins
    assert ws.ok("agent.get", target="rev")["agent"]["agent_status"] == "working"
    ws.ok("pane.clear_agent_authority", pane_id="w1:p1", source="other")  # wrong source: ignored
    assert ws.ok("agent.get", target="rev")["agent"]["agent_status"] == "working"
    ws.ok("pane.clear_agent_authority", pane_id="w1:p1")
    assert ws.ok("agent.get", target="rev")["agent"]["agent_status"] == "idle"
    assert statuses(ws, mark) == ["working", "idle"]


def test_custom_label_makes_a_shell_an_agent_and_release_clears_it(ws):
    mark = ws.sim.hub.seq
    assert ws.ok(
        "pane.report_agent",
        pane_id="w1-1",
        source="custom:docs",
        agent="  docs ",
        state="working",
        message="indexing",
    ) == {"type": "ok"}
    a = ws.ok("agent.get", target="w1:p1")["agent"]
    assert a["agent"] == "docs" and a["agent_status"] == "working"
    ws.ok("agent.rename", target="w1:p1", name="indexer")
    # release by another source or label does nothing
    ws.ok("pane.release_agent", pane_id="w1:p1", source="custom:other", agent="docs")
    assert ws.ok("agent.get", target="indexer")["agent"]["agent"] == "docs"
    ws.ok("pane.release_agent", pane_id="w1:p1", source="custom:docs", agent="docs")
    assert ws.err("agent.get", target="indexer")["code"] == "agent_not_found"
    assert ws.ok("agent.list")["agents"] == []
    got = [
        (k, d.get("agent"), d.get("released"), d.get("final_status"), d.get("agent_status"))
        for k, d in events(ws, mark)
        if k.startswith("pane_")
    ]
    assert got == [
        ("pane_agent_detected", "docs", None, None, None),
        ("pane_agent_status_changed", "docs", None, None, "working"),
        ("pane_updated", None, None, None, None),  # agent.rename
        ("pane_updated", None, None, None, None),  # release cleared the name
        ("pane_agent_detected", "docs", True, "unknown", None),
        ("pane_agent_status_changed", "docs", None, None, "unknown"),
    ]


def test_release_keeps_a_process_owned_agent(ws):
    start_ready(ws)
    ws.ok("pane.report_agent", pane_id="w1:p1", source="custom:x", agent="claude", state="working")
    ws.ok("pane.release_agent", pane_id="w1:p1", source="custom:x", agent="claude")
    a = ws.ok("agent.get", target="rev")["agent"]
    assert a["agent"] == "claude" and a["agent_status"] == "idle" and a["name"] == "rev"


def test_sequencing_per_source(ws):
    r = lambda **kw: ws.ok("pane.report_agent", pane_id="w1:p1", agent="docs", **kw)
    r(source="a", state="working", seq=5)
    r(source="a", state="idle", seq=5)  # not greater: dropped
    assert ws.ok("pane.get", pane_id="w1:p1")["pane"]["agent_status"] == "working"
    r(source="a", state="idle")  # unsequenced after sequenced: dropped
    assert ws.ok("pane.get", pane_id="w1:p1")["pane"]["agent_status"] == "working"
    r(source="a", state="blocked", seq=6)
    assert ws.ok("pane.get", pane_id="w1:p1")["pane"]["agent_status"] == "blocked"
    ws.ok("pane.clear_agent_authority", pane_id="w1:p1", seq=6)  # stale seq: ignored
    assert ws.ok("pane.get", pane_id="w1:p1")["pane"]["agent_status"] == "blocked"
    ws.ok("pane.clear_agent_authority", pane_id="w1:p1", seq=7)
    assert ws.ok("pane.get", pane_id="w1:p1")["pane"]["agent_status"] == "unknown"


def test_known_label_conflicting_with_detected_agent_is_dropped(ws):
    start_ready(ws)
    ws.ok("pane.report_agent", pane_id="w1:p1", source="custom:x", agent="codex", state="working")
    a = ws.ok("agent.get", target="rev")["agent"]
    assert a["agent"] == "claude" and a["agent_status"] == "idle"


def test_reserved_native_stores_only_the_session(ws):
    start_ready(ws, session_at="never")
    ws.ok(
        "pane.report_agent",
        pane_id="w1:p1",
        source="herdr:claude",
        agent="claude",
        state="working",
        agent_session_id="sess-1",
        seq=1,
    )
    a = ws.ok("agent.get", target="rev")["agent"]
    assert a["agent_status"] == "idle"
    assert a["agent_session"] == {
        "source": "herdr:claude",
        "agent": "claude",
        "kind": "id",
        "value": "sess-1",
    }


def test_session_identity_only_report_is_dropped_entirely(ws):
    start_ready(ws, kind="qwen", session_at="never")
    ws.ok(
        "pane.report_agent",
        pane_id="w1:p1",
        source="herdr:hermes",
        agent="hermes",
        state="working",
        agent_session_id="x",
    )
    a = ws.ok("agent.get", target="rev")["agent"]
    assert a["agent_status"] == "idle" and "agent_session" not in a


def test_custom_sources_sessions_are_dropped(ws):
    ws.ok(
        "pane.report_agent",
        pane_id="w1:p1",
        source="custom:docs",
        agent="docs",
        state="idle",
        agent_session_id="abc",
    )
    assert "agent_session" not in ws.ok("pane.get", pane_id="w1:p1")["pane"]


def test_full_lifecycle_needs_the_process_and_its_session(ws):
    # no pi process: the report is ignored
    ws.ok(
        "pane.report_agent", pane_id="w1:p1", source="herdr:pi", agent="pi", state="working", seq=1
    )
    assert ws.ok("agent.list")["agents"] == []
    start_ready(ws, kind="pi")  # pi reports its session path at start (seq 1)
    a = ws.ok("agent.get", target="rev")["agent"]
    session = a["agent_session"]
    assert session["kind"] == "path" and session["source"] == "herdr:pi"
    assert session["value"].endswith(".jsonl") and "_" in session["value"].rsplit("/", 1)[-1]
    assert "screen_detection_skipped" not in a
    ws.ok(
        "pane.report_agent", pane_id="w1:p1", source="herdr:pi", agent="pi", state="working", seq=2
    )
    a = ws.ok("agent.get", target="rev")["agent"]
    assert a["agent_status"] == "working" and a["screen_detection_skipped"] is True
    assert (
        ws.ok("agent.explain", target="rev")["explain"]["screen_detection_skip_reason"]
        == "full_lifecycle_hook_authority"
    )
    # a different session for the same source is refused while the anchor holds
    ws.ok(
        "pane.report_agent",
        pane_id="w1:p1",
        source="herdr:pi",
        agent="pi",
        state="idle",
        seq=3,
        agent_session_path="/tmp/other_0000.jsonl",
    )
    assert ws.ok("agent.get", target="rev")["agent"]["agent_status"] == "working"
    ws.ok("pane.report_agent", pane_id="w1:p1", source="herdr:pi", agent="pi", state="idle", seq=4)
    assert ws.ok("agent.get", target="rev")["agent"]["agent_status"] == "idle"


def test_late_session_report(ws):
    """claude reports its session id late (CLIENTS.md §1): ready without it, then it appears."""
    start_ready(ws)
    assert "agent_session" not in ws.ok("agent.get", target="rev")["agent"]
    ws.advance(5.5)  # default: 8 s after the process started
    s = ws.ok("agent.get", target="rev")["agent"]["agent_session"]
    assert s["source"] == "herdr:claude" and s["kind"] == "id" and len(s["value"]) == 36


def test_late_session_reported_by_the_scenario_seam(ws):
    scenarios.quiet_next_start(ws.sim, "w1:p1")
    start_ready(ws)
    ws.advance(60)
    assert "agent_session" not in ws.ok("agent.get", target="rev")["agent"]
    mark = ws.sim.hub.seq
    scenarios.session_reported(ws.sim, "w1:p1", value="0b5f6e2a-1111-4222-8333-944445555666")
    assert (
        ws.ok("agent.get", target="rev")["agent"]["agent_session"]["value"]
        == "0b5f6e2a-1111-4222-8333-944445555666"
    )
    assert events(ws, mark) == []  # a session report alone emits nothing


def test_report_errors(ws):
    assert ws.err("pane.report_agent", pane_id="w9:p9", source="s", agent="a", state="idle") == {
        "code": "pane_not_found",
        "message": "pane w9:p9 not found",
    }
    assert ws.err("pane.report_agent", pane_id="w1:p1", source="s", agent="  ", state="idle") == {
        "code": "invalid_agent",
        "message": "agent label must not be empty",
    }
    assert (
        ws.err("pane.report_agent", pane_id="w1:p1", source="s", agent="a", state="done")["code"]
        == "invalid_request"
    )
    assert (
        ws.err("pane.report_agent_session", pane_id="w1:p1", source="s", agent="")["code"]
        == "invalid_agent"
    )
    assert (
        ws.err("pane.release_agent", pane_id="w9:p9", source="s", agent="a")["code"]
        == "pane_not_found"
    )
    assert ws.err("pane.clear_agent_authority", pane_id="w9:p9")["code"] == "pane_not_found"


def test_hook_reported_blocked_overrides_and_prompt_is_refused(ws):
    start_ready(ws)
    ws.ok(
        "pane.report_agent", pane_id="w1:p1", source="custom:perm", agent="claude", state="blocked"
    )
    assert ws.err("agent.prompt", target="rev", text="x")["code"] == "agent_blocked"
    assert ws.ok("workspace.get", workspace_id="w1")["workspace"]["agent_status"] == "blocked"
