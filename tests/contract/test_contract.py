"""The contract suite: every cassette replayed by ``simherdr.contract.verify`` on each target.

A thin wrapper over the same code as ``simherdr contract verify``. To contract-test a real
herdr, use the command (the suite's cassettes are a corpus like any other)::

    simherdr contract verify tests/contract/cassettes --target real --socket /path/herdr.sock \
        [--herdr-bin /path/to/herdr] [--json drift.json]

Every reply is validated against herdr's published schema.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simherdr.contract import cassette as C
from simherdr.contract import verify as V
from simherdr.contract.corpus import load_corpus
from simherdr.contract.match import Matcher
from simherdr.contract.targets import simherdr_target
from simherdr.facts.versions import RELEASES
from simherdr.handlers.registry import load_all
from tests import herdr_reference as ref
from tests.standin_inproc import run_inproc

HERE = Path(__file__).parent
# the hand-written cassettes, and the client suite recorded on every release (make corpus)
CORPORA = [HERE / "cassettes", *sorted((HERE / "corpus").iterdir())]
CASSETTES = [c for d in CORPORA if d.is_dir() for c in load_corpus(d)]
KNOWN = set(RELEASES)
# CHOICE (the suite's speed): every release's corpus replays in process; over the socket and
# through the stand-in, the releases at the two ends (and the hand-written cassettes' own)
ENDS = {RELEASES[0], RELEASES[-1], "0.8.2", "0.9.3"}


def _versions(c, target: str) -> list[str]:
    versions, _ = V.versions_for(c, KNOWN, None)
    if target != "inprocess" and c.recorded:
        return [v for v in versions if v in ENDS]
    return list(versions)


def _cases():
    for c in CASSETTES:
        for target in ("inprocess", "socket", "stub"):
            for v in _versions(c, target):
                yield pytest.param(c, target, v, id=f"{Path(c.file).stem}-{target}-{v}")


# the newest release each cassette (by name: the corpus holds one recording per release) is
# replayed on by the stub target
NEWEST_STUB: dict[str, str] = {}
for _c in CASSETTES:
    for _v in _versions(_c, "stub"):
        NEWEST_STUB[Path(_c.file).stem] = max(
            NEWEST_STUB.get(Path(_c.file).stem, _v), _v, key=RELEASES.index
        )


def through_binary(cassette, version: str) -> bool:
    """Whether the stub target's replay runs the stand-in binary for each CLI step: on the
    newest release the cassette (or the client suite's recording of that name) is replayed
    on; on the others the stand-in runs in this process (its ``core.run``:
    tests/standin_inproc.py; the binary and the in-process stand-in print the same bytes:
    tests/stub/test_native_standin.py), ~4-5 ms of CPU a CLI step fewer."""
    return version == NEWEST_STUB[Path(cassette.file).stem]


def replay(cassette, target: str, version: str) -> dict:
    """The replay's status, reason and report (a fresh simherdr target for it, with its own
    home and cwd: short paths, as a server the client launched binds its socket under the home
    and pytest's long tmp_path overflows sun_path's 108 bytes; no tmp_path per case either)."""
    t = simherdr_target(target, version, time_scale=V.time_scale(cassette))
    try:
        result = V.run_cassette(
            cassette, t, validator=lambda reply: ref.validate_reply(reply, version)
        )
    finally:
        t.close()
    return {"status": result.status, "reason": result.reason, "report": result.report()}


@pytest.mark.parametrize("cassette,target,version", list(_cases()))
def test_cassette(cassette, target, version, monkeypatch):
    missing = [n for n in cassette.needs if n not in load_all()]
    if missing:
        pytest.skip(f"simulator has no {missing} yet")
    if target == "stub" and not through_binary(cassette, version):
        monkeypatch.setattr(V, "run_binary", run_inproc(version))
    result = replay(cassette, target, version)
    if result["status"] == "skip":
        pytest.skip(result["reason"])
    assert result["status"] == "pass", result["report"]


def test_every_cassette_names_its_source_and_provenance():
    assert CASSETTES
    for c in CASSETTES:
        assert c.source and c.steps, c.file
        assert c.provenance.get("source") in C.SOURCES, c.file
        assert set(c.profiles) <= KNOWN, c.file


def test_matcher_reports_unexpected_fields_as_drift():
    m = Matcher({})
    m.match({"a": 1}, {"a": 1, "b": 2})
    assert [p.path for p in m.problems] == ["$.b"]
    m = Matcher({})
    m.match(
        {"a": "{x=}", "b": "pane {x} here", "<more>": True},
        {"a": "w1", "b": "pane w1 here", "c": 3},
    )
    assert m.problems == [] and m.ctx["x"] == "w1"
