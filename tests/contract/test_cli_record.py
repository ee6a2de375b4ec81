"""The CLI-level recorder and the commands themselves (``simherdr record``, ``contract verify``),
run as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys

from simherdr.contract import verify as V
from simherdr.contract.corpus import load_corpus
from simherdr.contract.targets import simherdr_target
from simherdr.stub.install import write_stub
from simherdr.testing import ThreadServer
from tests.inproc import simherdr_main

SIMHERDR = [sys.executable, "-m", "simherdr"]


def run(*argv, **kw):
    return subprocess.run([*SIMHERDR, *argv], capture_output=True, text=True, timeout=120, **kw)


def test_record_a_client_that_runs_herdr_then_verify(tmp_path, version):
    # The "real" herdr binary here is the stand-in; the recorder wraps whatever it is given.
    real = write_stub(str(tmp_path / "realbin"), herdr_version=version)
    work = tmp_path / "w"
    work.mkdir()
    script = (
        f"herdr workspace create --cwd {work} --no-focus >/dev/null && "
        "herdr pane get w1:p1 >/dev/null && "
        "HERDR_PANE_ID=w1:p1 herdr pane split --direction down >/dev/null; "
        "herdr pane get; herdr pane get w1:p9; exit 0"
    )
    with ThreadServer(version) as srv:
        # in process (tests/inproc.py; COMMAND and the recording herdr are processes): `simherdr
        # record` as a process is test_verify_command_reports_misses_and_binds_versions's first
        p = simherdr_main(
            "record",
            "--upstream",
            srv.path,
            "--socket",
            str(tmp_path / "proxy.sock"),
            "--out",
            str(tmp_path / "corpus"),
            "--name",
            "cli",
            "--herdr-bin",
            real,
            "--",
            "sh",
            "-c",
            script,
        )
    assert p.returncode == 0, p.stderr
    assert "5 CLI runs" in p.stderr
    [c] = load_corpus(tmp_path / "corpus")
    runs = [s["cli_run"] for s in c.steps if "cli_run" in s]
    assert [r["argv"][:2] for r in runs] == [
        ["workspace", "create"],
        ["pane", "get"],
        ["pane", "split"],
        ["pane", "get"],
        ["pane", "get"],
    ]
    assert runs[0]["argv"][3] == "<tmp:1>"
    assert runs[1]["stdout"]["json"]["result"]["pane"]["pane_id"] == "<pane:1>"
    assert runs[2]["env"] == {"HERDR_PANE_ID": "<pane:1>"}
    assert runs[3]["exit"] == 2 and runs[3]["stderr"].startswith("usage: herdr pane get")
    assert runs[4]["exit"] == 1 and runs[4]["stderr"]["json"]["error"]["code"] == "pane_not_found"
    # the socket calls behind each run are recorded and tied to it
    vias = {s["via"] for s in c.steps if "via" in s}
    assert vias == {"cli:1", "cli:2", "cli:3", "cli:5"}
    for kind in ("stub", "socket"):  # CLI runs through the stand-in, or their socket calls
        with simherdr_target(kind, version) as t:
            result = V.run_cassette(c, t)
        assert result.status == "pass", result.report()
    # the command reports the same, and exits 0 (in process, tests/inproc.py: `contract verify`
    # as a process is test_verify_command_reports_misses_and_binds_versions's first)
    v = simherdr_main("contract", "verify", str(tmp_path / "corpus"), "--target", "stub")
    assert v.returncode == 0 and "1 passed, 0 failed" in v.stdout, v.stdout + v.stderr


def test_verify_command_reports_misses_and_binds_versions(tmp_path):
    with ThreadServer("0.8.2") as srv:
        p = run(
            "record",
            "--upstream",
            srv.path,
            "--socket",
            str(tmp_path / "p.sock"),
            "--out",
            str(tmp_path / "c"),
            "--name",
            "ping",
            "--",
            sys.executable,
            "-IS",
            "-c",
            "import os,_socket;s=_socket.socket(_socket.AF_UNIX);s.connect(os.environ['HERDR_SOCKET_PATH']);"
            's.sendall(b\'{"id":"1","method":"ping","params":{}}\\n\');print(s.recv(9999))',
        )
    assert p.returncode == 0, p.stderr
    # bound to its version: a 0.9.3 target skips it unless asked
    with ThreadServer("0.9.3") as other:
        skip = run(
            "contract", "verify", str(tmp_path / "c"), "--target", "socket", "--socket", other.path
        )
        assert (
            skip.returncode == 0
            and "SKIP" in skip.stdout
            and "recorded for herdr 0.8.2" in skip.stdout
        )
        miss = simherdr_main(  # the verify runs below in process (tests/inproc.py)
            "contract",
            "verify",
            str(tmp_path / "c"),
            "--socket",
            other.path,
            "--any-version",
            "--json",
            str(tmp_path / "r.json"),
            "--read-wait",  # the ping that differs is asked again 0.1 s, not 1 (WAIT_FLOOR)
            "0.1",
        )
    assert miss.returncode == 1
    assert "$.result.protocol: expected 20, got 22" in miss.stdout
    assert "closest recorded reply: step 2" in miss.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    assert "$.result.protocol" in [m["path"] for m in report[0]["misses"]]
    # simherdr on the recorded profile: pass; on another profile when asked: the same miss
    assert (
        simherdr_main("contract", "verify", str(tmp_path / "c"), "--target", "inprocess").returncode
        == 0
    )
    assert (
        simherdr_main("contract", "verify", str(tmp_path / "c"), "--profile", "0.9.3").returncode
        == 1
    )
    bad = simherdr_main("contract", "verify", str(tmp_path / "nope"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "no such corpus" in bad.stderr
    real = simherdr_main("contract", "verify", str(tmp_path / "c"), "--target", "real")
    assert real.returncode == 2 and "needs --socket" in real.stderr


def test_record_refuses_a_dead_upstream_in_one_line(tmp_path):
    # in process (tests/inproc.py): `simherdr record` as a process is the tests above
    p = simherdr_main(
        "record",
        "--upstream",
        str(tmp_path / "none.sock"),
        "--socket",
        str(tmp_path / "p.sock"),
        "--out",
        str(tmp_path / "c"),
    )
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and "does not answer ping" in p.stderr


def test_verify_real_time_sleeps_through_the_recorded_gaps(tmp_path):
    """`contract verify --real-time`: a simherdr socket target sleeps a recorded gap instead of
    letting it pass at once on its clock (targets.SKIP_GAPS); both pass."""
    import time

    with ThreadServer("0.9.3") as srv:
        script = (
            "import os,_socket\n"
            "for i in (1, 2):\n"
            "    s=_socket.socket(_socket.AF_UNIX);s.connect(os.environ['HERDR_SOCKET_PATH'])\n"
            '    s.sendall(b\'{"id":"%d","method":"ping","params":{}}\\n\' % i);s.recv(9999)\n'
        )
        p = simherdr_main(
            "record", "--upstream", srv.path, "--socket", str(tmp_path / "p.sock"),
            "--out", str(tmp_path / "c"), "--name", "pings", "--", sys.executable, "-IS", "-c", script,
        )  # fmt: skip
    assert p.returncode == 0, p.stderr
    path = tmp_path / "c" / "pings.json"
    cassette = json.loads(path.read_text())
    sends = [s for s in cassette["steps"] if "send" in s]
    assert len(sends) == 2
    gap = 0.4  # the second ping recorded 0.4 s after the first (and what follows it)
    second = cassette["steps"].index(sends[1])
    for s in cassette["steps"][second:]:
        if isinstance(s.get("t"), int | float):
            s["t"] = round(s["t"] + gap, 6)
    path.write_text(json.dumps(cassette))
    for flags in ([], ["--real-time"]):
        wall = time.monotonic()
        r = simherdr_main("contract", "verify", str(tmp_path / "c"), "--target", "socket", *flags)
        wall = time.monotonic() - wall
        assert r.returncode == 0, r.stdout + r.stderr
        assert "1 passed" in r.stdout
        if flags:
            assert wall >= gap, f"--real-time took {wall:.2f} s for a {gap} s gap"
