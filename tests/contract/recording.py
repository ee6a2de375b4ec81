"""Recording a command for the contract tests (no pytest: a background job's process runs
these too, tests/background.py): ``record_script`` records ``sh -c script`` through the proxy,
``sock`` is a raw-socket client line of such a script, ``stub_gaps`` the recorded gaps between
CLI runs replayed on the stub target (tests/contract/test_replay_fixes.py), ``client_session``
a small socket client recorded through the proxy and ``changed_upstream`` its replay against an
upstream that changed (tests/contract/test_record.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from simherdr.contract.recorder import ThreadRecorder
from simherdr.stub.install import write_stub
from tests.core.socketclient import Subscription, raw


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


def call(path: str, method: str, params: dict, rid: str = "c") -> dict:
    line = json.dumps({"id": rid, "method": method, "params": params}).encode() + b"\n"
    return json.loads(raw(path, line))


def client_session(path: str, work: str) -> list[bytes]:
    """A small client: subscribe, create, split, read, fail; returns the raw replies."""
    sub = Subscription(path, [{"type": "pane.created"}, {"type": "pane.closed"}])
    assert sub.next()["result"]["type"] == "subscription_started"
    out = [raw(path, b'{"id":"p","method":"ping","params":{}}\n')]
    ws = call(path, "workspace.create", {"cwd": work, "focus": False})["result"]
    p1 = ws["root_pane"]["pane_id"]
    p2 = call(path, "pane.split", {"target_pane_id": p1, "direction": "right"})["result"]
    assert sub.next()["event"] in ("pane_created", "pane.created")
    out.append(
        raw(
            path,
            json.dumps(
                {"id": "g", "method": "pane.get", "params": {"pane_id": p2["pane"]["pane_id"]}}
            ).encode()
            + b"\n",
        )
    )
    call(path, "pane.close", {"pane_id": p2["pane"]["pane_id"]})
    sub.next()
    out.append(raw(path, b'{"id":"x","method":"pane.get","params":{"pane_id":"w9:p9"}}\n'))
    out.append(raw(path, b"not json\n"))
    sub.close()
    return out


def changed_upstream(version: str) -> dict:
    """test_a_changed_upstream_is_caught_with_a_clear_miss_report's run: ``client_session``
    recorded, then replayed against an upstream whose pane.get of a gone pane says another
    message and whose pane.split fails; the result's status, report and misses."""
    import tempfile

    from simherdr.contract import verify as V
    from simherdr.contract.targets import external_target
    from simherdr.scenarios.faults import fault_from_spec
    from simherdr.simulator import Config
    from simherdr.testing import ThreadServer

    tmp_path = Path(tempfile.mkdtemp(prefix="changed-upstream-"))
    try:
        (tmp_path / "home").mkdir()
        (tmp_path / "server-cwd").mkdir()
        config = Config(home=str(tmp_path / "home"), server_cwd=str(tmp_path / "server-cwd"))
        work = tmp_path / "w"
        work.mkdir()
        with ThreadServer(version, config=config) as upstream:
            rec = ThreadRecorder(
                upstream.path, str(tmp_path / "proxy.sock"), tmp_path / "corpus", "s"
            )
            client_session(str(tmp_path / "proxy.sock"), str(work))
            cassette = rec.stop()
        changed = ThreadServer(version)
        try:
            changed.run(
                lambda sim: sim.faults.add(
                    fault_from_spec(
                        {
                            "type": "error",
                            "method": "pane.get",
                            "code": "pane_not_found",
                            "params": {"pane_id": "w9:*"},
                            "message": "gone",
                        }
                    )
                )
            )
            changed.run(
                lambda sim: sim.faults.add(
                    fault_from_spec(
                        {"type": "error", "method": "pane.split", "code": "server_unavailable"}
                    )
                )
            )
            # a read that differs is asked again for at least read_wait (targets.WAIT_FLOOR:
            # 1 s), at most the timeout: these two never catch up (the faults stay); a stream's
            # event the changed split never makes is awaited for the timeout: 0.5 s, not 1
            with external_target("socket", changed.path) as t:
                result = V.run_cassette(cassette, t, timeout=0.5, read_wait=0.1)
        finally:
            changed.stop()
        return {
            "status": result.status,
            "report": result.report(),
            "misses": [
                {
                    "path": m.path,
                    "where": m.where,
                    "step": m.step,
                    "expected": m.expected,
                    "actual": m.actual,
                    "closest": m.closest,
                }
                for m in result.misses
            ],
        }
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)
