"""Issue 25 item 7: the agent session a restored pane keeps after another agent starts on it.

herdr's source, both releases: the session saved at stop comes back on the restored terminal
(src/persist/restore.rs:544,641) and AgentInfo/PaneInfo show it whatever the current agent
(src/app/creation.rs:520-543); starting another agent does not clear it (begin_managed_agent,
src/terminal/state.rs:1896-1917), only the matching agent's exit, a hook clear or a respawn
does (state.rs:500-510, 1712, 2055). A release keeps a foreign session
(release_agent_with_mutation, state.rs:1726-1780), and one in herdr's own `herdr:*` name is
ignored at the API (src/app/actions.rs:2898-2914). The 0.9.3 fork's
set_detected_state_with_screen_signals_at has no other rule ([H093] src/terminal/state.rs).
So the issue's "herdr drops it with the agent" is not what either release does: these tests
pin what the source does, through the shipped pane-reused-after-restart scenario.
"""

from __future__ import annotations

from simherdr.testing import Harness


def _reused(version: str) -> Harness:
    h = Harness(version)
    h.ok("workspace.create", cwd="/tmp")
    h.load_scenario("pane-reused-after-restart")
    h.ok("agent.start", name="worker", kind="pi", pane_id="w1:p1")
    h.advance(10)  # the restart at +5 s, the intruder's claude start at +6 s
    return h


def _session(h: Harness) -> dict | None:
    return h.ok("pane.get", pane_id="w1:p1")["pane"].get("agent_session")


def test_the_restored_session_stays_on_the_pane_another_agent_took(version):
    with _reused(version) as h:
        agent = h.ok("agent.get", target="w1:p1")["agent"]
        assert (agent["name"], agent["agent"]) == ("intruder", "claude")
        # pi's session, saved at stop and restored, is still the pane's: herdr shows it
        assert agent["agent_session"]["source"] == "herdr:pi"
        assert agent["agent_session"]["agent"] == "pi"
        assert _session(h) == agent["agent_session"]


def test_a_release_keeps_the_foreign_session_and_herdrs_own_source_is_ignored(version):
    with _reused(version) as h:
        pi = _session(h)
        assert pi is not None and pi["agent"] == "pi"
        # claude's hook releases claude: pi's session is foreign to it and stays
        h.ok("pane.release_agent", pane_id="w1:p1", source="herdr:claude", agent="claude")
        assert _session(h) == pi
        # a release in herdr's own name (the session's source) is ignored over the API
        # (src/app/actions.rs:2898-2914): the session goes only with pi's exit or a respawn
        h.ok("pane.release_agent", pane_id="w1:p1", source="herdr:pi", agent="pi")
        assert _session(h) == pi
