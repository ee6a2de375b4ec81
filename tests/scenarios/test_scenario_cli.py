"""`simherdr scenario list|show|run`: the library from the command line (issue 22)."""

from __future__ import annotations

import pytest

from simherdr.cli import main
from simherdr.scenarios.data import library


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_each_scenario_with_its_releases_and_source(capsys):
    code, out, _ = run(capsys, "scenario", "list")
    assert code == 0
    for name in library():
        assert f"{name}  [herdr " in out
    line = next(x for x in out.splitlines() if x.startswith("wait-misses-focus-idle "))
    assert (
        line
        == "wait-misses-focus-idle  [herdr >=0.8.2]  https://github.com/herdrdev/herdr/issues/4473"
    )
    assert "agent-finishes  [herdr all]  simherdr's own" in out


def test_show_prints_the_provenance_and_the_timeline(capsys):
    code, out, _ = run(capsys, "scenario", "show", "wait-misses-focus-idle")
    assert code == 0
    assert "source: https://github.com/herdrdev/herdr/issues/4473" in out
    assert "releases: herdr >=0.8.2" in out
    assert "observes: " in out and "client should: " in out
    assert (
        '1. on event pane_agent_status_changed {"agent_status":"done"} +20s: another client '
        'calls pane.focus {"pane_id":"$pane"}' in out
    )
    assert '- agent.wait {"target":"worker","until":["idle"],"timeout_ms":60000} -> ok' in out


def test_show_toml_prints_the_file(capsys):
    code, out, _ = run(capsys, "scenario", "show", "--toml", "grok-stays-working")
    assert code == 0 and out.startswith('name = "grok-stays-working"')


def test_run_prints_the_trace_and_writes_the_timeline(capsys, tmp_path):
    html = tmp_path / "t.html"
    code, out, _ = run(
        capsys, "scenario", "run", "grok-stays-working", "--herdr-version", "0.8.2",
        "--html", str(html),
    )  # fmt: skip
    assert code == 0
    assert "STEP detection_misreads" in out and "agent.wait" in out
    assert "differs from the scenario's example" not in out
    page = html.read_text()
    assert page.lower().startswith("<!doctype html>")
    assert "<title>grok-stays-working on herdr 0.8.2</title>" in page


def test_run_twice_with_one_seed_prints_one_trace(capsys):
    first = run(capsys, "scenario", "run", "live-handoff-agents-late", "--seed", "5")
    second = run(capsys, "scenario", "run", "live-handoff-agents-late", "--seed", "5")
    assert first == second and first[0] == 0


OLD_ONLY = """
name = "old-only"
source = "https://example.invalid/issue"
releases = "<0.8.0"
observes = "x"
client_should = "y"

[[example]]
call = "ping"
expect = "not_found"
"""


def test_run_on_a_release_the_scenario_does_not_describe_says_so_first(capsys, tmp_path):
    f = tmp_path / "old-only.toml"
    f.write_text(OLD_ONLY)
    code, out, _ = run(capsys, "scenario", "run", str(f), "--herdr-version", "0.9.3")
    assert code == 0
    assert out.splitlines()[0] == (
        "note: scenario old-only describes herdr <0.8.0; on 0.9.3 herdr "
        "behaves otherwise, so the run shows this release's own behaviour"
    )
    assert "differs from the scenario's example: old-only example 1 (ping)" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["scenario", "run", "no-such"], "no scenario 'no-such'"),
        (["scenario", "show", "no-such"], "no scenario 'no-such'"),
        (["scenario", "run", "grok-stays-working", "--html", "/nonexistent/x.html"], "--html"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and message in err and err.startswith("simherdr scenario: ")


def test_serve_with_a_scenario_for_other_releases_says_so_first(tmp_path):
    from tests import forkserve  # the CLI's main in a process of its own, no Python start

    path = str(tmp_path / "h.sock")
    f = tmp_path / "old-only.toml"
    f.write_text(OLD_ONLY)
    proc = forkserve.spawn_server(path, "0.9.3", extra=["--scenario", str(f)])
    proc.terminate()
    assert proc.wait(10) == 0
    lines = proc.stderr.read().splitlines(keepends=True)
    assert lines[0] == (
        "simherdr serve: note: scenario old-only describes herdr <0.8.0; "
        "on 0.9.3 herdr behaves otherwise, so the run shows this release's own behaviour\n"
    )
    assert lines[1].startswith("simherdr: herdr 0.9.3 (protocol 22) listening")
