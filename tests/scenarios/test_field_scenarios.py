"""The field scenarios (issue 22): what real herdr does to clients, from its issue tracker and
the clients' own notes. Each one cites its source, names the releases it describes, and its
example client asserts the client-visible effect on every modelled release where it applies
(and the fixed behaviour where an example step is limited to the releases after a fix). Runs
are deterministic per seed."""

from __future__ import annotations

import pytest

from simherdr.facts.versions import RELEASES as ALL_RELEASES
from simherdr.scenario_cli import play
from simherdr.scenarios.data import (
    ScenarioError,
    library,
    load_scenario,
    parse_scenario,
    run_example,
)
from simherdr.testing import Harness

RELEASES = list(ALL_RELEASES)  # every modelled herdr release, oldest first: they are cheap
FIELD = sorted(n for n in library() if load_scenario(n).origin)
CASES = [(n, v) for n in FIELD for v in RELEASES]


def test_the_library_holds_twenty_field_scenarios_each_with_its_provenance():
    assert len(FIELD) >= 20
    for name in FIELD:
        sc = load_scenario(name)
        assert sc.origin and all(o.strip() for o in sc.origin), name
        assert sc.observes and sc.client_should, name
        assert sc.example, f"{name}: a field scenario shows the client's calls"
        assert any(sc.applies_to(v) for v in RELEASES), f"{name}: applies to no modelled release"
        herdr_urls = [o for o in sc.origin if o.startswith("https://github.com/")]
        assert herdr_urls or any("CLIENTS.md" in o for o in sc.origin), name


@pytest.mark.parametrize("name, version", CASES)
def test_a_field_scenario_shows_its_effect_on_each_release_it_describes(name, version):
    sc = load_scenario(name)
    guarded = any("releases" in ex or "when" in ex for ex in sc.example)
    if not sc.applies_to(version) and not guarded:
        pytest.skip(f"{name} describes herdr {sc.releases}, not {version}")
    _, entries, problems = play(name, version)
    assert problems == []
    notes = [e for e in entries if e["kind"] == "note" and "releases" in e]
    assert bool(notes) == (not sc.applies_to(version))


@pytest.mark.parametrize("name", FIELD)
def test_a_field_scenario_gives_the_same_trace_twice_and_fires_every_step(name):
    version = next(v for v in reversed(RELEASES) if load_scenario(name).applies_to(v))
    _, first, _ = play(name, version)
    _, second, _ = play(name, version)
    assert first == second
    sc = load_scenario(name)
    with Harness(version=version, auto_advance=True) as h:
        running = sc.install(h.sim)
        h.settle()
        assert run_example(h, sc) == []
        assert sorted(set(running.fired)) == list(range(len(sc.steps))), "every step fired"


OTHER_RELEASES = """
name = "old-only"
source = "https://example.invalid/issue"
releases = "<0.8.0"
observes = "x"
client_should = "y"
"""


def test_loaded_on_a_release_it_does_not_describe_the_scenario_says_so(tmp_path):
    f = tmp_path / "old-only.toml"
    f.write_text(OTHER_RELEASES)
    sc = load_scenario(str(f))
    with Harness(version="0.9.3", auto_advance=True) as h:
        running = sc.install(h.sim)
        h.settle()
        assert running.elsewhere == (
            "scenario old-only describes herdr <0.8.0; on 0.9.3 herdr behaves otherwise, so the "
            "run shows this release's own behaviour"
        )
        notes = [e for e in h.trace() if e["kind"] == "note"]
        assert [n["releases"] for n in notes] == [running.elsewhere]


def test_the_control_plane_load_reply_carries_the_releases_and_the_note(tmp_path):
    from simherdr.scenarios.control import handle

    f = tmp_path / "old-only.toml"
    f.write_text(OTHER_RELEASES)
    with Harness(version="0.9.3") as h:
        reply = handle(h.sim, {"op": "scenario.load", "args": {"scenario": str(f)}})
        assert reply["ok"] and reply["result"]["releases"] == "<0.8.0"
        assert reply["result"]["origin"] == ["https://example.invalid/issue"]
        assert reply["result"]["note"].startswith("scenario old-only describes herdr <0.8.0")
        reply = handle(h.sim, {"op": "scenario.load", "args": {"scenario": "done-or-idle"}})
        assert reply["ok"] and "note" not in reply["result"]


def test_an_example_branch_runs_where_its_rows_hold_and_names_are_checked(tmp_path):
    sc = parse_scenario(
        {
            "example": [
                {"call": "ping", "expect": "ok", "when": {"agent_completion_seq": True}},
                {"call": "ping", "expect": "no_such_code", "when": {"agent_completion_seq": False}},
            ]
        }
    )
    for version in RELEASES:
        with Harness(version=version, auto_advance=True) as h:
            problems = run_example(h, sc)
            assert (problems == []) == h.sim.version.rows.agent_completion_seq
    with pytest.raises(ScenarioError, match="not a release row: completion_row"):
        parse_scenario({"example": [{"call": "ping", "when": {"completion_row": True}}]}, "f")


def test_release_specs_are_checked_and_compared_as_versions():
    sc = parse_scenario({"releases": ">=0.8.1, <0.9.2"})
    assert [sc.applies_to(v) for v in ("0.8.0", "0.8.1", "0.8.10", "0.9.1", "0.9.2")] == [
        False,
        True,
        True,
        True,
        False,
    ]
    assert parse_scenario({"releases": "0.8.2"}).applies_to("0.8.2")
    with pytest.raises(ScenarioError, match="'later' is not a clause"):
        parse_scenario({"releases": "later"}, "f.toml")
    with pytest.raises(ScenarioError, match="source must be a string or a list"):
        parse_scenario({"source": 3}, "f.toml")


# --- the effects an example cannot time -----------------------------------------------------------


def _finished_in_a_hidden_tab(h):
    h.ok("workspace.create", cwd="/tmp")
    h.ok("tab.create", workspace_id="w1")
    h.ok("pane.focus", pane_id="w1:p2")
    h.ok("agent.start", name="worker", kind="pi", pane_id="w1:p1")
    h.advance(4)
    h.ok("agent.prompt", target="worker", text="fix the bug")
    h.advance(10)
    assert h.ok("agent.get", target="worker")["agent"]["agent_status"] == "done"


@pytest.mark.parametrize(
    "version", [v for v in RELEASES if load_scenario("wait-misses-focus-idle").applies_to(v)]
)
def test_4473_a_running_idle_wait_does_not_wake_when_a_focus_turns_done_into_idle(version):
    with Harness(version=version) as h:
        _finished_in_a_hidden_tab(h)
        wait = h.spawn("agent.wait", target="worker", until=["idle"], timeout_ms=60000)
        h.advance(5)
        h.ok("pane.focus", pane_id="w1:p1")
        h.advance(1)
        assert h.ok("agent.get", target="worker")["agent"]["agent_status"] == "idle"
        assert not wait.done(), "the running wait saw no event for the focus"
        fresh = h.call("agent.wait", target="worker", until=["idle"], timeout_ms=2000)
        assert fresh["result"]["agent"]["agent_status"] == "idle"
        h.advance(53)
        assert not wait.done(), "59 s into a 60 s wait"
        h.advance(1.5)
        assert wait.done() and h.result(wait)["result"]["agent"]["agent_status"] == "idle"


@pytest.mark.parametrize("version", RELEASES)
def test_2354_the_misread_idle_ends_the_prompt_wait_long_before_the_turn(version):
    with Harness(version=version) as h:
        h.load_scenario("agy-idle-while-working")
        h.ok("workspace.create", cwd="/tmp")
        h.ok("agent.start", name="ag", kind="agy", pane_id="w1:p1")
        h.advance(4)
        t0 = h.sim.now()
        wait = h.spawn(
            "agent.prompt", target="ag", text="go", wait={"until": ["idle"], "timeout_ms": 120000}
        )
        h.advance(3)
        assert wait.done() and h.result(wait)["result"]["agent"]["agent_status"] == "idle"
        assert h.sim.now() - t0 < 5
        occupant = h.sim.agents.occupant(h.sim.session.find_pane("w1:p1"))
        assert occupant.phase == "working", "the process is still in its 30 s turn"


@pytest.mark.parametrize("version", RELEASES)
def test_the_restart_keeps_the_pane_id_and_changes_its_terminal_id(version):
    with Harness(version=version, auto_advance=True) as h:
        h.load_scenario("restart-between-start-and-witness")
        h.ok("workspace.create", cwd="/tmp")
        started = h.ok("agent.start", name="worker", kind="claude", pane_id="w1:p1")["agent"]
        h.advance(6)
        pane = h.ok("pane.get", pane_id="w1:p1")["pane"]
        assert pane["pane_id"] == started["pane_id"]
        assert pane["terminal_id"] != started["terminal_id"]


@pytest.mark.parametrize("version", RELEASES)
def test_the_live_handoff_window_hides_then_reports_unknown_then_recovers(version):
    with Harness(version=version, auto_advance=True) as h:
        h.load_scenario("live-handoff-agents-late")
        h.ok("workspace.create", cwd="/tmp")
        h.ok("agent.start", name="worker", kind="claude", pane_id="w1:p1")
        h.advance(4)
        h.ok("agent.prompt", target="worker", text="long job")
        h.advance(0.5)  # working; the handoff begins 1 s after the prompt
        seen = []
        for _ in range(50):
            h.advance(0.1)
            agents = h.ok("agent.list")["agents"]
            seen.append(agents[0]["agent_status"] if agents else None)
        assert seen[:4] == ["working"] * 4
        assert None in seen and "unknown" in seen
        assert seen.index("unknown") > seen.index(None)
        assert seen[-1] == "working"
        assert seen.count(None) in (3, 4) and 33 <= seen.count("unknown") <= 35
