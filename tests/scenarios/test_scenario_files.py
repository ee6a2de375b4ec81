"""Scenarios as data: the shipped library runs end to end, the same seed gives the same trace,
and a broken file is refused with a message that says where."""

from __future__ import annotations

import pytest

from simherdr.facts.versions import RELEASES
from simherdr.scenarios.data import (
    ScenarioError,
    library,
    load_scenario,
    parse_scenario,
    run_example,
)
from simherdr.testing import Harness
from simherdr.trace import without_wall

SHIPPED = sorted(library())


def test_the_library_covers_the_clients_situations():
    assert set(SHIPPED) >= {
        "agent-finishes",
        "never-starts-working",
        "agent-vanishes-mid-run",
        "pane-reused-after-restart",
        "late-session-id",
        "busy-shell",
        "witness-never-arrives",
        "stranger-pane-joins",
    }


def _release(name: str) -> str:
    """The newest modelled release the scenario describes (field scenarios name theirs)."""
    sc = load_scenario(name)
    return next(v for v in reversed(RELEASES) if sc.applies_to(v))


def _run(name: str, seed: int | None = None):
    with Harness(version=_release(name), auto_advance=True) as h:
        sc = load_scenario(name, seed=seed)
        running = sc.install(h.sim)
        h.settle()
        problems = run_example(h, sc)
        return problems, without_wall(h.trace()), running, sc


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_scenario_runs_end_to_end_twice_with_one_trace(name):
    problems, first, running, sc = _run(name)
    assert problems == []
    assert sc.example, "every shipped scenario shows a client's calls"
    assert sorted(set(running.fired)) == list(range(len(sc.steps))), "every step fired"
    assert next(e["name"] for e in first if e["kind"] == "step") == "scenario.load"
    problems2, second, _, _ = _run(name)
    assert problems2 == [] and second == first


def test_the_seed_reaches_the_faults_it_adds(tmp_path):
    f = tmp_path / "flaky.toml"
    f.write_text("""
        name = "flaky"
        seed = 11
        [[step]]
        at = 0
        do = "fault.add"
        args = { type = "error", method = "pane.get", code = "pane_not_found", probability = 0.5 }
    """)

    def codes(seed):
        with Harness() as h:
            h.load_scenario(str(f), seed=seed)
            h.ok("workspace.create")
            out = []
            for _ in range(24):
                r = h.call("pane.get", pane_id="w1:p1")
                out.append("ok" if "result" in r else r["error"]["code"])
            faults = [e for e in h.trace() if e["kind"] == "fault"]
            assert len(faults) == out.count("pane_not_found")
            return out

    assert codes(11) == codes(11)
    assert codes(11) != codes(12)
    assert 0 < codes(11).count("pane_not_found") < 24


@pytest.mark.parametrize(
    "text, message",
    [
        ("nme = 1", "unknown key(s) nme"),
        ('[[step]]\nat = 1\ndo = "agent.explode"', "step 1: do = 'agent.explode' is not an op"),
        ('[[step]]\ndo = "agent.exit"', "step 1: give exactly one of at or on"),
        ('[[step]]\nat = -1\ndo = "agent.exit"', "step 1: at: must not be negative"),
        ('[[step]]\non = { bogus = 1 }\ndo = "agent.exit"', "step 1: on = { event = TYPE }"),
        ('[[step]]\nat = 0\ndo = "call"', "step 1: a call needs args.method"),
        ("name = [", "not valid TOML"),
    ],
)
def test_a_broken_scenario_file_says_where(tmp_path, text, message):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(ScenarioError) as e:
        load_scenario(str(f))
    assert message in str(e.value) and str(f) in str(e.value)


def test_a_scenario_file_is_read_again_once_changed_and_each_load_is_its_own(tmp_path):
    """load_scenario keeps a file's TOML while the file is unchanged: a rewrite is read (even
    at the same size), and what one load's scenario holds is not another's."""
    f = tmp_path / "s.toml"
    f.write_text(
        'name = "one"\n[[step]]\nat = 1\ndo = "agent.exit"\nargs = { pane_id = "w1:p1" }\n'
    )
    first = load_scenario(str(f))
    first.steps[0].args["pane_id"] = "changed by its user"
    again = load_scenario(str(f))
    assert again.name == "one" and again.steps[0].args == {"pane_id": "w1:p1"}
    f.write_text(
        'name = "two"\n[[step]]\nat = 1\ndo = "agent.exit"\nargs = { pane_id = "w1:p2" }\n'
    )
    assert load_scenario(str(f)).steps[0].args == {"pane_id": "w1:p2"}
    f.unlink()
    with pytest.raises(ScenarioError):
        load_scenario(str(f))


def test_an_unknown_scenario_lists_the_shipped_ones():
    with pytest.raises(ScenarioError, match="busy-shell"):
        load_scenario("no-such-scenario")


def test_a_failing_step_is_noted_in_the_trace_not_raised():
    sc = parse_scenario({"step": [{"at": 0, "do": "agent.exit", "args": {"pane_id": "w9:p9"}}]})
    with Harness() as h:
        sc.install(h.sim)
        h.advance(0.1)
        notes = [e for e in h.trace() if e["kind"] == "note"]
        assert notes and "w9:p9" in notes[0]["error"]


def test_the_library_listing_follows_the_files_added_and_removed(tmp_path, monkeypatch):
    """library() keeps its listing while the directory's mtime stays (a second old at least:
    a change within the file system's timestamp granularity must still show)."""
    import os
    import time

    from simherdr.scenarios import data as D

    monkeypatch.setattr(D, "LIBRARY_DIR", str(tmp_path))
    monkeypatch.setattr(D, "_LISTING", None)
    (tmp_path / "a.toml").write_text("")
    old = time.time() - 60
    os.utime(tmp_path, (old, old))
    assert D.library() == {"a": str(tmp_path / "a.toml")}
    D.library().clear()  # a caller's copy: the kept listing is not touched
    assert D.library() == {"a": str(tmp_path / "a.toml")}
    (tmp_path / "b.toml").write_text("")
    assert sorted(D.library()) == ["a", "b"]
    (tmp_path / "a.toml").unlink()  # within the same second: read again, not kept
    assert sorted(D.library()) == ["b"]
    os.utime(tmp_path, (old + 1, old + 1))
    assert sorted(D.library()) == ["b"]  # kept now
    (tmp_path / "c.toml").write_text("")
    assert sorted(D.library()) == ["b", "c"]
