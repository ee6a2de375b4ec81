"""``contract diff``: the 0.8.2 and 0.9.3 corpora differ by VERSIONS.md's deltas, nothing else."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from simherdr.contract import diff as D
from simherdr.contract.cassette import from_json
from simherdr.contract.corpus import load_corpus
from tests.inproc import simherdr_main

CORPUS = Path(__file__).parent / "corpus"


def test_082_vs_093_lists_the_versions_deltas_and_nothing_unexplained():
    r = D.diff_corpora(load_corpus(CORPUS / "0.8.2"), load_corpus(CORPUS / "0.9.3"))
    unexplained = [d for d in r["differences"] if d["explained_by"] is None]
    assert not unexplained, json.dumps(unexplained, indent=1)
    rows = {d["explained_by"].split(" (", 1)[0] for d in r["differences"]}
    # what the corpus exercises today: the project's own version rows, named with their source
    for row in (
        "protocol",
        "name",
        "capabilities",
        "close_group_required",
        "trust_repository",
        "subscribe_replays_history",
        "recent_includes_viewport",
        "report_agent_options_anywhere",
        "cli_split_targets_caller",
        "invalid_request_keeps_id",
        "retired_methods",
        "methods",
    ):
        assert f"row {row}" in rows, row
    # the project's own row and its release file, not a reference file a clone does not have
    assert all(
        d["explained_by"].startswith("row ") and "(facts/releases/" in d["explained_by"]
        for d in r["differences"]
    )
    cats = {d["category"] for d in r["differences"]}
    assert {"fields added", "error codes", "error messages", "exit codes", "CLI usage"} <= cats
    assert {"event order", "requests", "values", "steps"} <= cats
    every = [d for d in r["differences"] if d["step_a"] is None and d["step_b"] is None]
    assert not every, "each difference names the step that shows it"


def test_the_same_release_recorded_twice_has_no_differences():
    a = load_corpus(CORPUS / "0.8.2")
    assert D.diff_corpora(a, a)["differences"] == []


def _cassette(steps):
    return from_json(
        {"name": "x", "provenance": {"herdr_version": "0.8.2"}, "steps": steps}, "x.json"
    )


def test_categories_and_markdown_json_reports(tmp_path):
    send = {"id": "1", "method": "pane.get", "params": {"pane_id": "<pane:1>"}}
    a = _cassette(
        [
            {"conn": 1, "send": send},
            {
                "conn": 1,
                "recv": {
                    "id": "1",
                    "result": {
                        "type": "pane_info",
                        "pane": {"n": 1, "gone": True, "agent_status": "idle"},
                    },
                },
            },
        ]
    )
    b = _cassette(
        [
            {"conn": 1, "send": send},
            {
                "conn": 1,
                "recv": {
                    "id": "1",
                    "result": {
                        "type": "pane_info",
                        "pane": {"n": "1", "new": 2, "agent_status": "busy"},
                    },
                },
            },
        ]
    )
    c = _cassette(
        [
            {"conn": 1, "send": send},
            {"conn": 1, "recv": {"id": "1", "error": {"code": "pane_not_found", "message": "m"}}},
        ]
    )
    got = {(d.category, d.path) for d in D.diff_pair(a, b, "x")}
    assert got == {
        ("type changes", "$.result.pane.n"),
        ("fields removed", "$.result.pane.gone"),
        ("fields added", "$.result.pane.new"),
        ("enum values", "$.result.pane.agent_status"),
    }
    [swap] = D.diff_pair(a, c, "x")
    assert (swap.category, swap.a, swap.b, swap.step_a) == (
        "error codes",
        "result pane_info",
        "pane_not_found",
        2,
    )
    for name, cas in (("a", a), ("b", b)):
        (tmp_path / name).mkdir()
        cas.dump(tmp_path / name / "x.json")
    md = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",  # what it loads (stderr): a diff relays nothing, no asyncio
            "-m",
            "simherdr",
            "contract",
            "diff",
            str(tmp_path / "a"),
            str(tmp_path / "b"),
        ],
        capture_output=True,
        text=True,
    )
    assert (
        md.returncode == 0
        and "## type changes" in md.stdout
        and "| x | 2 → 2 | pane.get |" in md.stdout
    )
    loaded = {line.rsplit("|", 1)[-1].strip() for line in md.stderr.splitlines()}
    assert "simherdr.contract.diff" in loaded and "asyncio" not in loaded
    # the same command in process (tests/inproc.py): the markdown run above is the process
    js = simherdr_main(
        "contract", "diff", str(tmp_path / "a"), str(tmp_path / "b"), "--format", "json"
    )
    assert len(json.loads(js.stdout)["differences"]) == 4


def _record_cli(tmp_path, version: str, script: str):
    from simherdr.testing import ThreadServer
    from tests.contract.conftest import record_script

    sub = tmp_path / version
    sub.mkdir()
    with ThreadServer(version) as srv:
        c, _ = record_script(srv.path, sub, script, version, name="cli")
    return c


def test_cli_copies_of_socket_values_are_explained_by_the_same_rows(tmp_path):
    # defect 4: `herdr api snapshot` prints session.snapshot's reply; its protocol and version
    # are the ping row's, whether read on the socket or in the CLI's stdout
    script = "herdr api snapshot; herdr status --json; herdr workspace list; herdr pane list"
    a, b = _record_cli(tmp_path, "0.8.2", script), _record_cli(tmp_path, "0.9.3", script)
    r = D.diff_corpora([a], [b])
    unexplained = [d for d in r["differences"] if d["explained_by"] is None]
    assert not unexplained, json.dumps(unexplained, indent=1)
    by_path = {(d["where"], d["path"]): d for d in r["differences"]}
    snap = by_path[("herdr api snapshot", "stdout:$.result.snapshot.protocol")]
    assert (snap["a"], snap["b"]) == (20, 22)
    assert snap["explained_by"].startswith("row protocol (")
    assert by_path[("herdr api snapshot", "stdout:$.result.snapshot.version")][
        "explained_by"
    ].startswith("row name (")
    # every CLI run pings first: the same capability difference is listed once, counted
    caps = [d for d in r["differences"] if d["path"] == "$.result.capabilities.health_check"]
    assert len(caps) == 1 and caps[0]["count"] >= 3, caps
    assert caps[0]["explained_by"].startswith("row capabilities (")


def test_every_pair_of_recorded_releases_differs_by_their_version_rows_only():
    import itertools

    dirs = sorted(p for p in CORPUS.iterdir() if p.is_dir())
    assert len(dirs) >= 2
    corpora = {d: load_corpus(d) for d in dirs}  # each read once (a diff only reads them)
    for a, b in itertools.combinations(dirs, 2):
        r = D.diff_corpora(corpora[a], corpora[b])
        assert r["unexplained"] == 0, (a.name, b.name, r["unexplained"])
