"""Whole suites as one recording: resets between tests, honest provenance of a non-empty
start, ``--snapshot-first`` seeding, the time scale read from the upstream, and
``contract selftest`` (one command for all of it)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from simherdr.contract import verify as V
from simherdr.contract.journal import NON_EMPTY
from simherdr.contract.targets import simherdr_target
from simherdr.testing import ThreadServer
from tests import forkserve
from tests.contract.conftest import record_script, stub_in_process, verify_everywhere
from tests.contract.recording import sock
from tests.inproc import simherdr_main

SIMHERDR = [sys.executable, "-m", "simherdr"]


@pytest.fixture
def served(tmp_path, version):
    """``simherdr serve`` with its control socket, at time scale 50 (forked: tests/forkserve.py;
    what is recorded is what it answers, not its start)."""
    up, ctl = str(tmp_path / "up.sock"), str(tmp_path / "ctl.sock")
    proc = forkserve.spawn_server(up, version, time_scale=50, extra=["--control", ctl])
    yield up, ctl
    proc.terminate()
    proc.wait(10)


RESET = f'{sys.executable} -m simherdr ctl --control "$SIMHERDR_CONTROL" server.reset >/dev/null'


def test_a_suite_that_resets_between_tests_records_and_replays_as_one(tmp_path, served, version):
    up, ctl = served
    work = tmp_path / "w"
    work.mkdir()
    one_test = (
        f"{RESET}; herdr workspace create --cwd {work} --no-focus >/dev/null; "
        "herdr agent start job --kind pi --pane w1:p1 --timeout 300000 >/dev/null; "
        "herdr agent get job; "
    )
    c, rec = record_script(
        up,
        tmp_path,
        one_test * 2,
        version,
        control_upstream=ctl,
        control_listen=str(tmp_path / "proxy.control"),
    )
    assert [s["boundary"] for s in c.steps if "boundary" in s] == ["server.reset"] * 2
    # read from the upstream's control socket, not given
    assert c.provenance["time_scale"] == 50
    assert "server.info" in c.provenance["time_scale_from"]
    results = verify_everywhere(c, version, stub_in_process=stub_in_process(version))
    for kind, r in results.items():
        assert r.status == "pass", f"{kind}:\n{r.report()}"
        assert r.boundaries == 2, kind
    # without the boundary the second test's start is refused as on a server that kept the
    # first's agent (what replay did before boundaries existed)
    c.steps = [s for s in c.steps if "boundary" not in s]
    t = simherdr_target("socket", version, time_scale=50)
    try:
        r = V.run_cassette(c, t, timeout=2)
    finally:
        t.close()
    assert r.status == "fail"
    assert "agent_name_taken" in r.report() or "agent_pane_busy" in r.report(), r.report()


def test_a_recording_that_met_existing_state_is_flagged_at_record_time_and_in_verify(
    tmp_path, version
):
    work = tmp_path / "w"
    work.mkdir()
    with ThreadServer(version) as srv:
        pre = sock("workspace.create", cwd=str(work), focus=False)
        subprocess.run(["sh", "-c", pre], env={"HERDR_SOCKET_PATH": srv.path}, check=True)
        c, rec = record_script(srv.path, tmp_path, sock("pane.get", pane_id="w1:p1"), version)
    assert rec.warnings and rec.warnings[0].startswith(NON_EMPTY)
    assert "--snapshot-first" in rec.warnings[0]
    assert c.provenance["non_empty_start"].startswith(NON_EMPTY)
    t = simherdr_target("socket", version)
    try:
        r = V.run_cassette(c, t)
    finally:
        t.close()
    assert r.status == "fail"  # the pane it read does not exist on a fresh server
    assert NON_EMPTY in r.report()  # and the report says why


def test_snapshot_first_seeds_a_simherdr_target_with_the_starting_state(tmp_path, version):
    work = tmp_path / "w"
    work.mkdir()
    with ThreadServer(version) as srv:
        pre = sock("workspace.create", cwd=str(work), focus=False, label="before")
        subprocess.run(["sh", "-c", pre], env={"HERDR_SOCKET_PATH": srv.path}, check=True)
        script = f"{sock('pane.get', pane_id='w1:p1')}; herdr pane split w1:p1 --direction right"
        c, rec = record_script(srv.path, tmp_path, script, version, snapshot_first=True)
    assert c.provenance["seeded"] == "session.snapshot"
    assert "seed" in c.steps[0]
    results = verify_everywhere(c, version, stub_in_process=stub_in_process(version))
    for kind, r in results.items():
        assert r.status == "pass", f"{kind}:\n{r.report()}"
        assert not r.warnings  # seeded: nothing to warn about


def test_selftest_records_a_command_and_verifies_it_on_every_target(tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    script = (
        f"herdr workspace create --cwd {work} --no-focus >/dev/null && herdr pane list && "
        f"{RESET} && herdr workspace create --cwd {work} --no-focus"
    )
    p = subprocess.run(
        [
            *SIMHERDR,
            "contract",
            "selftest",
            "--herdr-version",
            "0.8.2",
            "--time-scale",
            "20",
            "--out",
            str(tmp_path / "kept"),
            "--",
            "sh",
            "-c",
            script,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    for kind in ("inprocess", "socket", "stub"):
        assert f"PASS selftest.json [0.8.2 on {kind}]" in p.stdout
    assert "3 of 3 targets passed" in p.stdout and "1 resets" in p.stdout
    assert (tmp_path / "kept" / "selftest.json").exists()
    # a usage error in process (tests/inproc.py): the selftest above is the process
    bad = simherdr_main("contract", "selftest", "--herdr-version", "0.7.0", "--", "true")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "0.7.0" in bad.stderr
