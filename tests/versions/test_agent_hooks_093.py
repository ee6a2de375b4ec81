"""0.8.2 -> 0.9.3 deltas of hook and session reports, side by side: who may record a resume
command and what drops it, grok's session rules, herdr:codex's authority ending with its
session, and a session rebind restarting the process acquisition ([H093]
src/terminal/state.rs)."""

from __future__ import annotations

import pytest

from simherdr.agents.layer import command_kind
from simherdr.facts.kinds import kind_names_in
from simherdr.scenarios import agents as SC
from tests.releases import BASE, rows, tables


@pytest.fixture
def bg(h, tmp_path):
    """Workspace w1 (pane w1:p1) in the background behind a focused w2."""
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("workspace.create", cwd=str(tmp_path), focus=True)
    return h


def _slot(h):
    return h.sim.session.panes["w1:p1"].agent


def _session(h, source, agent, value, start="startup", **kw):
    h.ok(
        "pane.report_agent_session",
        pane_id="w1:p1",
        source=source,
        agent=agent,
        agent_session_id=value,
        session_start_source=start,
        **kw,
    )


def _agent(h):
    return h.ok("pane.get", pane_id="w1:p1")["pane"]


@pytest.fixture
def v09(version):
    if not rows(version).report_resume_argv:
        pytest.skip("resume_argv is 0.9.2")


def test_the_detected_agent_records_a_resume_without_authority(bg, v09):
    """can_record_reported_resume: with no hook authority, the agent detection sees running
    in the pane may record its command (a herdr:claude session report holds no authority)."""
    bg.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    bg.advance(3.1)
    assert _slot(bg).hook is None
    _session(bg, "herdr:claude", "claude", "s1", resume_argv=["claude", "--resume", "s1"])
    assert _slot(bg).resume_argv == ["claude", "--resume", "s1"]


def test_no_authority_and_no_such_process_is_not_accepted(bg, v09):
    r = bg.call(
        "pane.report_agent_session",
        pane_id="w1:p1",
        source="herdr:claude",
        agent="claude",
        agent_session_id="s1",
        resume_argv=["claude"],
    )
    assert r["error"]["code"] == "resume_not_accepted"


@pytest.mark.parametrize(
    "drop",
    [
        ("pane.clear_agent_authority", {}),
        ("pane.release_agent", {"source": "custom:bot", "agent": "bot"}),
        ("pane.report_agent", {"source": "custom:other", "agent": "bot2", "state": "idle"}),
    ],
    ids=["clear-authority", "release", "another-reporter"],
)
def test_the_resume_command_goes_with_its_reporter(bg, v09, drop):
    bg.ok(
        "pane.report_agent",
        pane_id="w1:p1",
        source="custom:bot",
        agent="bot",
        state="idle",
        resume_argv=["bot", "--resume"],
    )
    assert _slot(bg).resume_argv == ["bot", "--resume"]
    method, params = drop
    bg.ok(method, pane_id="w1:p1", **params)
    assert _slot(bg).resume_argv is None


def test_grok_new_session_replaces_only_on_0_9_3(bg, version):
    _session(bg, "herdr:grok", "grok", "g1")
    _session(bg, "herdr:grok", "grok", "g2", start="new")
    expected = "g1" if tables(version).hook_sources == tables(BASE).hook_sources else "g2"
    assert _agent(bg)["agent_session"]["value"] == expected


def test_grok_never_takes_over_another_owner_on_0_9_3(bg, version):
    _session(bg, "herdr:claude", "claude", "c1")  # a shell pane: the session is kept
    bg.sim.agents.configure_pane("w1:p1", session_at="never")
    bg.ok("agent.start", name="g", kind="grok", pane_id="w1:p1")
    bg.advance(3.1)
    _session(bg, "herdr:grok", "grok", "g1")
    owner = bg.ok("agent.get", target="g")["agent"]["agent_session"]["source"]
    assert owner == (
        "herdr:grok"
        if tables(version).hook_sources == tables(BASE).hook_sources
        else "herdr:claude"
    )


def test_codex_authority_ends_with_its_session_on_0_9_3(bg, version):
    bg.ok(
        "pane.report_agent",
        pane_id="w1:p1",
        source="herdr:codex",
        agent="codex",
        state="working",
        agent_session_id="c1",
    )
    _session(bg, "herdr:codex", "codex", "c2", start="clear")
    pane = _agent(bg)
    assert pane["agent_session"]["value"] == "c2"
    assert pane["agent_status"] == "unknown"  # 0.8.2: never working (session only)
    assert _slot(bg).hook is None


def test_a_session_rebind_restarts_the_acquisition_on_0_9_3(bg, version):
    """A new session while the agent works: on 0.9.3 the idle that follows without a fresh
    working report is the new session's first (no completion: "rebinding can expose a cached
    Working screen"); on 0.8.2 it completes the work."""
    bg.sim.agents.configure_pane("w1:p1", work=1.0, session_after=0.5)
    bg.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    bg.advance(3.1)
    first = bg.ok("agent.get", target="rev")["agent"]["agent_session"]["value"]
    bg.ok("agent.prompt", target="rev", text="go")
    bg.advance(0.6)
    assert bg.ok("agent.get", target="rev")["agent"]["agent_status"] == "working"
    _session(bg, "herdr:claude", "claude", first + "-2", start="clear", seq=100)
    bg.advance(2)
    agent = bg.ok("agent.get", target="rev")["agent"]
    assert agent["agent_session"]["value"] == first + "-2"
    assert agent["agent_status"] == (
        "done" if not rows(version).session_rebind_restarts_acquisition else "idle"
    )


def test_a_rebind_while_idle_changes_nothing_later(bg, version):
    """The acquisition a rebind starts while idle ends at once (finish_agent_process_
    acquisition runs after every input), so later work completes as usual."""
    bg.sim.agents.configure_pane("w1:p1", work=1.0, session_after=0.5)
    bg.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    bg.advance(3.1)
    first = bg.ok("agent.get", target="rev")["agent"]["agent_session"]["value"]
    _session(bg, "herdr:claude", "claude", first + "-2", start="clear", seq=100)
    SC.agent_state(bg.sim, "w1:p1", "blocked")
    SC.agent_state(bg.sim, "w1:p1", "idle")
    agent = bg.ok("agent.get", target="rev")["agent"]
    assert agent["agent_session"]["value"] == first + "-2"
    assert agent["agent_status"] == "done"


def test_a_codex_start_completes_at_its_prompt_on_0_9_3(h, tmp_path, version):
    """0.9.3 CodexPromptObserved: a codex still `unknown` after the settle, whose prompt
    detection saw, is interactive_ready; on 0.8.2 the start waits for idle."""
    h.ok("workspace.create", cwd=str(tmp_path))
    h.sim.agents.configure_pane("w1:p1", startup=60.0)
    h.ok("agent.start", name="cx", kind="codex", pane_id="w1:p1")
    h.advance(3.1)
    pane = h.sim.session.panes["w1:p1"]
    assert h.ok("agent.get", target="cx")["agent"]["launch_pending"] is True
    changed = h.sim.agents.codex_prompt_observed(pane, True)
    agent = h.ok("agent.get", target="cx")["agent"]
    assert agent["agent_status"] == "unknown"
    if not rows(version).codex_prompt_readiness:
        assert changed is False and agent["launch_pending"] is True
    else:
        assert changed is True and agent["interactive_ready"] is True
        assert "launch_pending" not in agent
        assert h.sim.agents.codex_prompt_observed(pane, True) is False  # active: ignored


def test_a_codex_prompt_seen_before_the_settle_waits_for_it(h, tmp_path, version):
    if not rows(version).codex_prompt_readiness:
        pytest.skip("0.9.3 rule")
    h.ok("workspace.create", cwd=str(tmp_path))
    h.sim.agents.configure_pane("w1:p1", startup=60.0)
    h.ok("agent.start", name="cx", kind="codex", pane_id="w1:p1")
    h.advance(0.5)
    h.sim.agents.codex_prompt_observed(h.sim.session.panes["w1:p1"], True)
    assert h.ok("agent.get", target="cx")["agent"]["launch_pending"] is True
    h.advance(3)  # the settle deadline reconciles it
    assert h.ok("agent.get", target="cx")["agent"]["interactive_ready"] is True


def _codex_start(h, tmp_path, args, **behaviour):
    h.ok("workspace.create", cwd=str(tmp_path))
    if behaviour:
        h.sim.agents.configure_pane("w1:p1", **behaviour)
    return h.ok("agent.start", name="cx", kind="codex", pane_id="w1:p1", args=args)


def test_codex_resume_start_names_its_session_on_0_9_3(h, tmp_path, version):
    r = _codex_start(h, tmp_path, ["resume", "sess-1"])
    assert r["argv"] == ["codex", "resume", "sess-1"]
    if not rows(version).start_args_session:
        assert "agent_session" not in r["agent"]
        return
    expected = {"source": "herdr:codex", "agent": "codex", "kind": "id", "value": "sess-1"}
    assert r["agent"]["agent_session"] == expected
    h.advance(5)  # the resumed codex reports the same session; the start completes
    agent = h.ok("agent.get", target="cx")["agent"]
    assert agent["interactive_ready"] is True and agent["agent_session"] == expected


def test_a_failed_codex_resume_start_forgets_its_session(h, tmp_path, version):
    if not rows(version).start_args_session:
        pytest.skip("0.9.3 rule")
    h.ok("workspace.create", cwd=str(tmp_path))
    h.sim.agents.configure_pane("w1:p1", detect_after=20.0, session_at="never")  # never runs
    h.ok(
        "agent.start",
        name="cx",
        kind="codex",
        pane_id="w1:p1",
        args=["resume", "s"],
        timeout_ms=4000,
    )
    assert h.ok("pane.get", pane_id="w1:p1")["pane"]["agent_session"]["value"] == "s"
    h.advance(4.1)  # the start's deadline: the name goes, and the unconfirmed session with it
    assert h.err("agent.get", target="cx")["code"] == "agent_not_found"
    assert "agent_session" not in h.ok("pane.get", pane_id="w1:p1")["pane"]


@pytest.mark.parametrize(
    "args", [["resume", "--last"], ["resume"], ["resume", "a", "b"], ["x", "y"]]
)
def test_other_codex_arguments_name_no_session(h, tmp_path, version, args):
    r = _codex_start(h, tmp_path, args)
    assert "agent_session" not in r["agent"]


@pytest.mark.parametrize(
    "line,agent",
    [
        ("letta", True),
        ("letta --backend local", True),
        ("letta --backend=x --agent a1", True),
        ("letta -p hi", False),
        ("letta --output-format=json", False),
        ("letta --backend local run", False),
        ("letta --version", False),
    ],
)
def test_only_an_interactive_letta_is_an_agent(h, tmp_path, version, line, agent):
    """[H093] src/detect/mod.rs is_interactive_letta_process; letta is no 0.8.2 kind."""
    found = command_kind(line, h.sim.version.tables.agent_kinds)
    if "letta" not in kind_names_in(tables(version).agent_kinds):
        assert found is None
    else:
        assert (found is not None) == agent
        if agent:
            assert found[0] == "letta"


@pytest.mark.parametrize("kind", ["letta", "muse"])
def test_a_0_9_3_kind_starts_and_takes_prompts(h, tmp_path, version, kind):
    """letta and muse are kinds of 0.9.3's table: their start completes and agent.prompt
    reaches them (the status machine reads labels with the version's kinds)."""
    if kind not in kind_names_in(tables(version).agent_kinds):
        pytest.skip("0.9.x kinds")
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("agent.start", name="a", kind=kind, pane_id="w1:p1")
    h.advance(5)
    assert h.ok("agent.get", target="a")["agent"]["interactive_ready"] is True
    h.ok("agent.prompt", target="a", text="go")
    h.advance(0.6)
    assert h.ok("agent.get", target="a")["agent"]["agent_status"] == "working"


def test_a_simulated_letta_reports_its_session(h, tmp_path, version):
    if "letta" not in kind_names_in(tables(version).agent_kinds):
        pytest.skip("0.9.x kind")
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("agent.start", name="a", kind="letta", pane_id="w1:p1")
    h.advance(5)
    session = h.ok("agent.get", target="a")["agent"]["agent_session"]
    assert (session["source"], session["agent"], session["kind"]) == ("herdr:letta", "letta", "id")


def test_a_restored_resume_command_survives_its_agent_coming_back(bg, v09):
    """restore_reported_resume keeps the reporter: the resumed agent's process is the same
    agent, so reconcile_reported_resume keeps the command (and the file keeps saving it)."""
    bg.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    bg.advance(3.1)
    _session(bg, "herdr:claude", "claude", "s1", seq=100, resume_argv=["claude", "--resume", "s1"])
    bg.sim.restart()
    bg.settle()
    bg.advance(3)  # the typed command runs claude again
    assert bg.ok("pane.get", pane_id="w1:p1")["pane"]["agent"] == "claude"
    slot = _slot(bg)
    assert (slot.resume_source, slot.resume_agent) == ("herdr:claude", "claude")
    assert slot.resume_argv == ["claude", "--resume", "s1"]
