"""Recording a command for the contract tests (no pytest: a background job's process runs
these too, tests/background.py): ``record_script`` records ``sh -c script`` through the proxy,
``sock`` is a raw-socket client line of such a script, ``stub_gaps`` the recorded gaps between
CLI runs replayed on the stub target (tests/contract/test_replay_fixes.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from simherdr.contract.recorder import ThreadRecorder
from simherdr.stub.install import write_stub


def record_script(
    upstream: str,
    tmp: Path,
    script: str,
    version: str,
    *,
    home: str | None = None,
    cwd: str | None = None,
    name: str = "s",
    keep_journal: bool = False,
    **recorder,
):
    """Record ``sh -c script`` (the stand-in as the real ``herdr``) through the proxy;
    ``keep_journal``: its journal is kept as ``tmp/journal.jsonl``."""
    real = write_stub(str(tmp / "realbin"), herdr_version=version)
    rec = ThreadRecorder(
        upstream,
        str(tmp / "proxy.sock"),
        tmp / "corpus",
        name,
        herdr_bin=real,
        cwd=cwd,
        home=home,
        **recorder,
    )
    env = rec.env()
    if home:
        env["HOME"] = home
    p = subprocess.run(
        ["sh", "-c", script], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )
    if keep_journal:  # what the recorder wrote (stop removes it)
        shutil.copy(rec.path, tmp / "journal.jsonl")
    cassette = rec.stop()
    assert p.returncode == 0, p.stdout + p.stderr
    return cassette, rec


#: a raw-socket client of a recorded script: one request line, its reply printed. Isolated, no
#: site, the C socket module (`socket`'s enum members cost a start ~10 ms): ~36M instructions
#: a call, not ~85M
CALL = (
    f"{sys.executable} -I -S -c 'import _socket,os,sys;s=_socket.socket(_socket.AF_UNIX);"
    's.connect(os.environ["HERDR_SOCKET_PATH"]);s.sendall(sys.argv[1].encode()+b"\\n");'
    'print(os.fdopen(s.detach(),"rb").readline().decode().strip())\''
)


def sock(method: str, **params) -> str:
    line = json.dumps({"id": "t", "method": method, "params": params})
    return f"{CALL} '{line}'"


def stub_gaps() -> dict:
    """test_the_stub_target_replays_the_recorded_gaps_between_cli_runs's run: a script
    recorded on a 100x clock (an agent started over the socket, read through the CLI a
    recorded 0.6 s later), replayed on the stub target with its gaps skipped and slept; what
    the test checks of each."""
    import tempfile

    from simherdr.clock import ScaledClock
    from simherdr.contract import verify as V
    from simherdr.contract.targets import simherdr_target
    from simherdr.testing import ThreadServer

    version = "0.9.3"
    tmp_path = Path(tempfile.mkdtemp(prefix="stub-gaps-"))
    try:
        work = tmp_path / "w"
        work.mkdir()
        script = (
            f"herdr workspace create --cwd {work} --no-focus >/dev/null; "
            f"{sock('agent.start', name='job', kind='pi', pane_id='w1:p1', timeout_ms=45000)}; "
            "sleep 0.6; herdr agent get job"
        )
        with ThreadServer(version, clock=ScaledClock(100)) as srv:
            c, _ = record_script(srv.path, tmp_path, script, version, time_scale=100)
        runs = [s for s in c.steps if "cli_run" in s]
        out: dict = {
            "recorded_status": runs[-1]["cli_run"]["stdout"]["json"]["result"]["agent"][
                "agent_status"
            ],
            "gap": runs[-1]["t"] - runs[0]["t"],
            "replays": {},
        }
        for skip_gaps in (True, False):
            t = simherdr_target("stub", version, time_scale=100, skip_gaps=skip_gaps)
            try:
                start = t.elapsed()
                r = V.run_cassette(c, t)
                elapsed = t.elapsed() - start
            finally:
                t.close()
            out["replays"][str(skip_gaps)] = {
                "status": r.status,
                "report": r.report(),
                "waits": r.waits,
                "elapsed": elapsed,
                "skipped": t.skipped,
            }
        return out
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)
