"""The contract loop's property: any sequence of CLI calls from the stand-in's command table,
recorded against simherdr V at time scale 1, 100 or 1000 with HOME a real directory, through
the proxy with the recorder (and the client) started in HOME or in the directory a workspace
is created in (``cd repo && simherdr record``: the recording's ``<cwd>``, issue 33), verifies
on the inprocess, socket and stub targets of V.

A few examples only (each records and replays three times); the named tests cover the
defects one by one."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import tempfile

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from simherdr.clock import ScaledClock
from simherdr.contract.recorder import ThreadRecorder
from simherdr.simulator import Config
from simherdr.stub.install import write_stub
from simherdr.testing import ThreadServer
from tests.budget import examples
from tests.contract.conftest import stub_in_process, verify_everywhere
from tests.releases import VERSIONS

# (group, verb, the rest): {ws} / {pane} / {dir} are filled from what earlier calls printed
CALLS: tuple[tuple[str, ...], ...] = (
    ("workspace", "create", "--no-focus"),
    ("workspace", "create", "--cwd", "{dir}", "--no-focus"),
    ("workspace", "create", "--cwd", "{cwd}", "--no-focus"),
    ("workspace", "list"),
    ("workspace", "get", "{ws}"),
    ("tab", "create", "--workspace", "{ws}", "--no-focus"),
    ("tab", "list", "--workspace", "{ws}"),
    ("pane", "list"),
    ("pane", "get", "{pane}"),
    ("pane", "split", "{pane}", "--direction", "right", "--no-focus"),
    ("pane", "close", "{pane}"),
    ("agent", "list"),
    ("api", "snapshot"),
)
# every call is a row group of the stand-in's command table (simherdr/stub/cli/rows_<group>.py)
assert all(importlib.util.find_spec(f"simherdr.stub.cli.rows_{c[0]}") for c in CALLS)


def _fill(call: tuple[str, ...], state: dict) -> list[str]:
    return [a.format(**state) for a in call]


def _learn(state: dict, out: str) -> None:
    try:
        result = json.loads(out).get("result") or {}
    except (ValueError, AttributeError):
        return
    for key in ("root_pane", "pane"):
        p = result.get(key)
        if isinstance(p, dict) and "pane_id" in p:
            state["pane"], state["ws"] = p["pane_id"], p["workspace_id"]


@example(  # the issue-33 shape: a workspace created in the recorder's own directory
    calls=[CALLS[2], ("workspace", "list")], scale=1000, version="0.9.3", started_in="workspace"
)
@settings(
    max_examples=examples(6),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    calls=st.lists(st.sampled_from(CALLS), min_size=2, max_size=6),
    scale=st.sampled_from([1, 100, 1000]),
    version=st.sampled_from(VERSIONS),
    started_in=st.sampled_from(["home", "workspace"]),
)
def test_any_cli_sequence_recorded_at_any_scale_with_a_real_home_verifies(
    calls, scale, version, started_in, real_home, tmp_path_factory
):
    tmp = tmp_path_factory.mktemp("prop")
    home = tempfile.mkdtemp(dir=real_home)
    work = tmp / "work"
    work.mkdir()
    # the recorder's directory: HOME, or a real directory a workspace is created in
    cwd = home
    if started_in == "workspace":
        cwd = os.path.join(tempfile.mkdtemp(dir=real_home), "repo")
        os.mkdir(cwd)
    real = write_stub(str(tmp / "realbin"), herdr_version=version)
    cfg = Config(home=home, server_cwd=home)
    with ThreadServer(version, config=cfg, clock=ScaledClock(scale)) as srv:
        rec = ThreadRecorder(
            srv.path,
            str(tmp / "proxy.sock"),
            tmp / "corpus",
            "prop",
            time_scale=scale,
            herdr_bin=real,
            home=home,
            cwd=cwd,
        )
        env = dict(rec.env(), HOME=home)
        state = {"ws": "w1", "pane": "w1:p1", "dir": str(work), "cwd": cwd}
        try:
            for call in calls:
                p = subprocess.run(
                    ["herdr", *_fill(call, state)],
                    env=env,
                    cwd=cwd,
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                _learn(state, p.stdout)
        finally:
            c = rec.stop()
    for kind, r in verify_everywhere(c, version, stub_in_process=stub_in_process(version)).items():
        where = f"{kind} at scale {scale}, started in {started_in}, {calls}"
        assert r.status == "pass", f"{where}:\n{r.report()}"
