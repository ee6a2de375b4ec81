"""Helpers of the contract tests: a real (non-temporary) HOME, recording a command."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from simherdr.contract import verify as V
from simherdr.contract.targets import simherdr_target
from tests.contract.recording import record_script as record_script  # its home (no pytest)
from tests.releases import VERSIONS
from tests.standin_inproc import run_inproc

# A directory outside the temp roots and outside any repository (git discovery would label a
# workspace after the repository): what a user's HOME looks like to the recorder.
REAL_ROOT = Path.home() / ".cache" / "simherdr-tests" / "contract-homes"


@pytest.fixture
def real_home():
    REAL_ROOT.mkdir(parents=True, exist_ok=True)
    d = tempfile.mkdtemp(prefix="home-", dir=REAL_ROOT)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def stub_in_process(version: str, versions=VERSIONS) -> bool:
    """For a test run on each of ``versions``: whether its stub target runs the stand-in in
    this process (all but the last: the newest keeps the binary)."""
    return version != versions[-1]


def verify_everywhere(
    cassette, version: str, targets=("inprocess", "socket", "stub"), *, stub_in_process=False
):
    """Each target's result (a fresh simherdr of the cassette's version).

    The targets replay side by side, each in a thread of its own (a stub replay waits on its
    CLI runs' processes; the recorded gaps pass at once on each target's clock). Each target is its own server, home and binder (nothing is shared
    but the cassette, which a replay only reads). ``stub_in_process``: the stub target's CLI
    runs are the stand-in's ``core.run`` in this process (tests/standin_inproc.py
    ``run_inproc``: ~4-5 ms of CPU a run fewer), replayed after the others (a run's working
    directory is this process's for it)."""
    from concurrent.futures import ThreadPoolExecutor

    def one(kind: str):
        t = simherdr_target(kind, version, time_scale=V.time_scale(cassette))
        try:
            return V.run_cassette(cassette, t)
        finally:
            t.close()

    later = ["stub"] if stub_in_process and "stub" in targets else []
    side_by_side = [kind for kind in targets if kind not in later]
    with ThreadPoolExecutor(len(side_by_side)) as pool:
        futures = {kind: pool.submit(one, kind) for kind in side_by_side}
        results = {kind: f.result() for kind, f in futures.items()}
    for kind in later:
        with pytest.MonkeyPatch.context() as m:
            m.setattr(V, "run_binary", run_inproc(version))
            results[kind] = one(kind)
    return {kind: results[kind] for kind in targets}


def env_without_herdr() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("HERDR_")}
