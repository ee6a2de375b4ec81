"""0.8.2 -> 0.9.3 deltas of the agent status machine, side by side: which idle transitions
complete work, what keeps a start's idle from counting, the completion reset on a new
session or label, and the hook-source tables (herdr:codex, herdr:letta)."""

from __future__ import annotations

import pytest

from tests.agents.conftest import events, statuses
from tests.releases import BASE, rows, tables


@pytest.fixture
def bg(h, tmp_path):
    """Workspace w1 (pane w1:p1) in the background behind a focused w2."""
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("workspace.create", cwd=str(tmp_path), focus=True)
    return h


def _report(h, state, agent="bot", source="custom:bot", **kw):
    h.ok("pane.report_agent", pane_id="w1:p1", source=source, agent=agent, state=state, **kw)


def _pane_status(h):
    return h.ok("pane.get", pane_id="w1:p1")["pane"]["agent_status"]


def test_unknown_to_idle_completes_only_on_0_8_2(bg, version):
    """0.8.2 is_completion_transition_parts counts Unknown -> Idle with an unchanged label;
    0.9.3 is_completion_transition only Working/Blocked -> Idle."""
    _report(bg, "unknown")
    mark = bg.sim.hub.seq
    _report(bg, "idle")
    expected = "done" if rows(version).completion_from_unknown else "idle"
    assert _pane_status(bg) == expected
    assert statuses(bg, mark) == [expected]


def test_working_to_idle_completes_on_both(bg, version):
    _report(bg, "working")
    _report(bg, "idle")
    assert _pane_status(bg) == "done"


def test_idle_after_work_during_a_pending_start(bg, version):
    """0.8.2 suppresses every idle while the start is pending; 0.9.3's start is a process
    acquisition, so only the first idle is the start's and work done before the 3 s settle
    completes."""
    bg.sim.agents.configure_pane("w1:p1", startup=0.1, work=0.5, session_at="never")
    bg.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    bg.advance(0.5)  # detected at 0.2, first idle at 0.3
    assert _pane_status(bg) == "idle"
    bg.ok("pane.send_text", pane_id="w1:p1", text="go")
    bg.ok("pane.send_keys", pane_id="w1:p1", keys=["enter"])
    bg.advance(1.0)  # working at ~0.7, idle at ~1.2: still before the settle
    agent = bg.ok("agent.get", target="rev")["agent"]
    assert agent["launch_pending"] is True
    if not rows(version).managed_start_acquires:
        assert agent["agent_status"] == "idle"
    else:
        assert agent["agent_status"] == "done"
        assert agent["completion_seq"] == agent["state_change_seq"]


def test_first_idle_of_a_start_is_no_completion_on_both(bg, version):
    bg.sim.agents.configure_pane("w1:p1", session_at="never")
    bg.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    bg.advance(5)
    agent = bg.ok("agent.get", target="rev")["agent"]
    assert agent["agent_status"] == "idle" and "completion_seq" not in agent


def test_a_late_session_report_clears_the_completion_on_0_9_3(bg, version):
    """0.9.3 completion_reset: the first claude session report after the work completed is a
    new session reference; the pane is marked seen (done -> idle, with its status event) and
    completion_seq goes. 0.8.2 keeps `done`."""
    bg.sim.agents.configure_pane("w1:p1", work=1.0, session_at="never")
    bg.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    bg.advance(3.1)
    bg.ok("agent.prompt", target="rev", text="go")
    bg.advance(2)
    before = bg.ok("agent.get", target="rev")["agent"]
    assert before["agent_status"] == "done"
    mark = bg.sim.hub.seq
    bg.ok(
        "pane.report_agent_session",
        pane_id="w1:p1",
        source="herdr:claude",
        agent="claude",
        agent_session_id="s-1",
        session_start_source="startup",
    )
    after = bg.ok("agent.get", target="rev")["agent"]
    assert after["agent_session"]["value"] == "s-1"
    assert after["state_change_seq"] == before["state_change_seq"]  # no state change
    if not rows(version).completion_reset_on_identity_change:
        assert after["agent_status"] == "done" and statuses(bg, mark) == []
    else:
        assert before["completion_seq"] == before["state_change_seq"]
        assert after["agent_status"] == "idle" and "completion_seq" not in after
        assert statuses(bg, mark) == ["idle"]


def test_the_same_session_again_keeps_the_completion(bg, version):
    bg.sim.agents.configure_pane("w1:p1", work=1.0, session_value="s-1", session_after=0.5)
    bg.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    bg.advance(3.1)
    bg.ok("agent.prompt", target="rev", text="go")
    bg.advance(2)
    bg.ok(
        "pane.report_agent",
        pane_id="w1:p1",
        source="herdr:claude",
        agent="claude",
        state="idle",
        agent_session_id="s-1",
    )
    assert bg.ok("agent.get", target="rev")["agent"]["agent_status"] == "done"


def test_a_new_label_clears_the_completion_on_0_9_3(bg, version):
    _report(bg, "working")
    _report(bg, "idle")
    mark = bg.sim.hub.seq
    _report(bg, "idle", agent="bot2")
    kinds = [k for k, _ in events(bg, mark, ("pane_agent_detected", "pane_agent_status_changed"))]
    if not rows(version).completion_reset_on_identity_change:
        assert _pane_status(bg) == "done" and kinds == ["pane_agent_detected"]
    else:
        assert _pane_status(bg) == "idle"
        assert kinds == ["pane_agent_detected", "pane_agent_status_changed"]


def test_codex_state_reports_are_authority_only_on_0_9_3(bg, version):
    """0.8.2 reserves herdr:codex's state to screen detection (only its session is kept);
    0.9.3 is_reserved_native_state_source no longer lists it."""
    _report(bg, "working", agent="codex", source="herdr:codex", agent_session_id="c-1")
    pane = bg.ok("pane.get", pane_id="w1:p1")["pane"]
    if tables(version).hook_sources == tables(BASE).hook_sources:
        assert pane.get("agent") is None and pane["agent_status"] == "unknown"
    else:
        assert pane["agent"] == "codex" and pane["agent_status"] == "working"


def test_letta_state_reports_are_session_identity_only_on_0_9_3(bg, version):
    """0.9.3 session_identity_only_integration lists herdr:letta (a report's state is
    dropped); on 0.8.2 it is a custom source naming a self-reported agent."""
    _report(bg, "working", agent="letta", source="herdr:letta", agent_session_id="l-1")
    pane = bg.ok("pane.get", pane_id="w1:p1")["pane"]
    if tables(version).hook_sources == tables(BASE).hook_sources:
        assert pane["agent"] == "letta" and pane["agent_status"] == "working"
    else:
        assert pane.get("agent") is None and pane["agent_status"] == "unknown"


def test_a_relative_session_path_is_no_session_path(bg, version):
    """valid_session_path needs an absolute path (src/agent_resume.rs:254-259); pi then
    falls back to the id."""
    bg.ok("agent.start", name="p", kind="pi", pane_id="w1:p1")
    bg.advance(3.1)
    bg.ok(
        "pane.report_agent_session",
        pane_id="w1:p1",
        source="herdr:pi",
        agent="pi",
        seq=100,
        agent_session_path="rel/s.jsonl",
        agent_session_id="pi-id",
        session_start_source="new",
    )
    session = bg.ok("agent.get", target="p")["agent"]["agent_session"]
    assert session["kind"] == "id" and session["value"] == "pi-id"


def test_work_before_the_first_idle_ends_the_acquisition_on_0_9_3(bg, version):
    """0.9.3: a `working` report that leaves the pane working ends the process acquisition,
    so the idle after it completes work; 0.8.2 suppresses the first idle whatever came
    before it."""
    bg.ok("pane.send_text", pane_id="w1:p1", text="claude")
    bg.ok("pane.send_keys", pane_id="w1:p1", keys=["enter"])
    bg.advance(0.5)  # detected, still starting up
    assert bg.ok("pane.get", pane_id="w1:p1")["pane"]["agent"] == "claude"
    _report(bg, "working", agent="claude", source="custom:x")
    _report(bg, "idle", agent="claude", source="custom:x")
    assert _pane_status(bg) == ("idle" if not rows(version).working_ends_acquisition else "done")


def test_codex_report_for_another_session_is_dropped(bg, version):
    _report(bg, "working", agent="codex", source="herdr:codex", agent_session_id="c-1")
    _report(bg, "idle", agent="codex", source="herdr:codex", agent_session_id="c-2")
    pane = bg.ok("pane.get", pane_id="w1:p1")["pane"]
    assert pane["agent_status"] == (
        "unknown" if tables(version).hook_sources == tables(BASE).hook_sources else "working"
    )
    if tables(version).hook_sources != tables(BASE).hook_sources:
        _report(bg, "idle", agent="codex", source="herdr:codex", agent_session_id="c-1")
        assert _pane_status(bg) == "done"


def test_an_exited_agent_takes_its_resume_command_along(h, tmp_path, version):
    """[H093] set_detected_state_with_screen_signals_at: the exit of the agent kind that
    reported resume_argv drops it, so a restart types nothing."""
    if not rows(version).report_resume_argv:
        pytest.skip("resume_argv is 0.9.2")
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    h.advance(3.1)
    _report(h, "idle", agent="claude", source="custom:x", resume_argv=["claude", "--resume", "r1"])
    assert h.sim.session.panes["w1:p1"].agent.resume_argv == ["claude", "--resume", "r1"]
    h.ok("agent.prompt", target="rev", text="/exit")
    h.advance(1)
    h.sim.restart()
    h.settle()
    text = h.ok("pane.read", pane_id="w1:p1", source="visible")["read"]["text"]
    assert "--resume" not in text
