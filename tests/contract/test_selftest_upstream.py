"""Issue 33 item 8: ``simherdr contract selftest --upstream-herdr PATH -- COMMAND``: parity with
the user's own herdr. PATH here is the stand-in's own ``herdr server`` (``simherdr
install-stub``; no real herdr has been built on these machines), and, for drift, a wrapper
whose server answers one method with an error simherdr does not."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from simherdr import testing
from simherdr.contract.selftest import upstream_env
from simherdr.stub import native
from simherdr.stub.install import write_stub
from tests import forkserve

SIMHERDR = [sys.executable, "-m", "simherdr"]
SCRIPT = 'herdr workspace create --cwd "$PWD" --no-focus >/dev/null && herdr pane list'


class Ran:
    def __init__(self, returncode: int, stdout: str, stderr: str):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


#: the suite's choice of stand-ins (tests/standin_shared.py), kept: the stub target's install
#: then sends its calls to the suite's shared fork server, not to one of its server's own
_SUITES_STAND_INS = (native.NATIVE_ENV, native.SHARED_ENV)


@pytest.fixture
def selftest(monkeypatch, capfd):
    """``simherdr contract selftest ARGS`` in this process (its servers and COMMAND are
    processes), from a directory, without the caller's HERDR_* / SIMHERDR_* variables. The
    simherdr it records on for the drift is ``simherdr serve`` forked (tests/forkserve.py), not
    spawned: the selftest's own spawned server is tests/contract/test_suites.py's (a selftest
    process); the upstream herdr's server is a process of its own as ever. The suite's
    stand-in choice stays (``_SUITES_STAND_INS``)."""
    from simherdr.cli import main

    monkeypatch.setattr(testing, "spawn_server", forkserve.spawn_server)
    for k in list(os.environ):
        if k.startswith(("HERDR_", "SIMHERDR_")) and k not in _SUITES_STAND_INS:
            monkeypatch.delenv(k)

    def run(cwd: Path, *args: str) -> Ran:
        monkeypatch.chdir(cwd)
        capfd.readouterr()
        code = main(["contract", "selftest", *args])
        out = capfd.readouterr()
        return Ran(code, out.out, out.err)

    return run


def test_selftest_against_the_stand_ins_own_herdr_server_passes_everywhere(tmp_path, selftest):
    herdr = write_stub(str(tmp_path / "bin"), herdr_version="0.9.2")
    proj = tmp_path / "proj"
    proj.mkdir()
    p = selftest(
        proj, "--upstream-herdr", herdr, "--out", str(tmp_path / "kept"), "--", "sh", "-c", SCRIPT
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"`{herdr} server` answers herdr 0.9.2 (protocol 22)" in p.stdout
    for kind in ("inprocess", "socket", "stub"):
        assert f"PASS selftest.json [0.9.2 on {kind}]" in p.stdout
    assert "your herdr 0.9.2" in p.stdout and "3 of 3 targets passed" in p.stdout
    assert "drift" not in p.stdout
    cassette = json.loads((tmp_path / "kept" / "selftest.json").read_text())
    # recorded against that server, its CLI runs through PATH, at a real herdr's time scale
    assert cassette["provenance"]["herdr_version"] == "0.9.2"
    assert cassette["provenance"]["time_scale"] == 1.0
    runs = [s["cli_run"]["argv"][:2] for s in cassette["steps"] if "cli_run" in s]
    assert runs == [["workspace", "create"], ["pane", "list"]]
    # the server ran in a private root: the workspace it created is the command's, labelled
    # after the command's directory; nothing of it is left running
    assert cassette["normalization"]["context"]["<cwd>"] == str(proj)
    assert not any(tmp_path.glob("**/herdr.sock"))


DRIFT = """
name = "drift"
summary = "this herdr answers pane.list with an error simherdr does not"
[[step]]
at = 0
do = "fault.add"
args = { type = "error", method = "pane.list", code = "not_implemented" }
"""


def _drifting_herdr(tmp_path: Path) -> str:
    """A herdr whose server is simherdr 0.9.3 with one difference (its CLI: the stand-in)."""
    stand_in = write_stub(str(tmp_path / "standin"), herdr_version="0.9.3")
    (tmp_path / "drift.toml").write_text(DRIFT)
    serve = " ".join(SIMHERDR)
    path = tmp_path / "bin" / "herdr"
    path.parent.mkdir()
    path.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = server ]; then\n'
        f'  exec {serve} serve --quiet --socket "$HERDR_SOCKET_PATH" --herdr-version 0.9.3 '
        f"--scenario {tmp_path / 'drift.toml'}\n"
        "fi\n"
        f'exec {stand_in} "$@"\n'
    )
    path.chmod(0o755)
    return str(path)


def test_a_miss_lists_the_drift_from_simherdrs_own_recording_each_attributed(tmp_path, selftest):
    herdr = _drifting_herdr(tmp_path)
    kept = tmp_path / "kept"
    p = selftest(
        tmp_path, "--upstream-herdr", herdr, "--targets", "inprocess", "--out", str(kept),
        "--", "sh", "-c", SCRIPT + " || true",
    )  # fmt: skip
    assert p.returncode == 1, p.stdout + p.stderr
    assert "FAIL selftest.json [0.9.3 on inprocess]" in p.stdout
    # the same release on both sides: no version row explains anything, all of it is drift
    m = re.search(
        r"drift: (\d+) differences between herdr 0.9.3 and simherdr 0.9.3, (\d+) unexp", p.stdout
    )
    assert m and m.group(1) == m.group(2) != "0", p.stdout
    line = next(x for x in p.stdout.splitlines() if x.startswith("  error codes: pane.list"))
    assert "not_implemented -> result pane_list" in line and line.endswith("[unexplained]")
    assert any(
        x.startswith("  exit codes: herdr pane list exit: 1 -> 0") for x in p.stdout.splitlines()
    )
    report = (kept / "selftest.drift.md").read_text()
    assert "**unexplained**" in report and "not_implemented" in report
    assert f"the drift: {kept / 'selftest.drift.md'}" in p.stdout


def test_bad_upstreams_are_one_line(tmp_path, selftest):
    for args, words in (
        (["--", "true"], "give --herdr-version V (simherdr) or --upstream-herdr PATH"),
        (["--upstream-herdr", str(tmp_path / "none"), "--", "true"], "cannot run it"),
        (["--upstream-herdr", "/bin/false", "--", "true"], "exited 1 before its socket answered"),
    ):
        p = selftest(tmp_path, *args)
        assert p.returncode == 2 and p.stdout == "", (args, p.stdout, p.stderr)
        assert p.stderr.count("\n") == 1 and words in p.stderr, p.stderr


def test_the_upstreams_environment_is_private(tmp_path):
    env = upstream_env(
        str(tmp_path),
        {"HOME": "/home/u", "HERDR_SESSION": "x", "SIMHERDR_TIME_SCALE": "9", "A": "1"},
    )
    assert env["A"] == "1" and "HERDR_SESSION" not in env and "SIMHERDR_TIME_SCALE" not in env
    assert env["HOME"] == str(tmp_path / "home")
    assert env["HERDR_SOCKET_PATH"] == str(tmp_path / "herdr.sock")
    for key in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        assert env[key].startswith(str(tmp_path)) and os.path.isdir(env[key])
