"""The contract loop's property: any sequence of CLI calls from the stand-in's command table,
recorded against simherdr V at time scale 1, 100 or 1000 with HOME a real directory, verifies
on the inprocess, socket and stub targets of V.

A few examples only (each records and replays three times); the named tests cover the
defects one by one."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simherdr.clock import ScaledClock
from simherdr.contract.recorder import ThreadRecorder
from simherdr.simulator import Config
from simherdr.stub.install import write_stub
from simherdr.testing import ThreadServer
from tests.contract.conftest import verify_everywhere
from tests.releases import VERSIONS

# (group, verb, the rest): {ws} / {pane} / {dir} are filled from what earlier calls printed
CALLS: tuple[tuple[str, ...], ...] = (
    ("workspace", "create", "--no-focus"),
    ("workspace", "create", "--cwd", "{dir}", "--no-focus"),
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


@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    calls=st.lists(st.sampled_from(CALLS), min_size=2, max_size=6),
    scale=st.sampled_from([1, 100, 1000]),
    version=st.sampled_from(VERSIONS),
)
def test_any_cli_sequence_recorded_at_any_scale_with_a_real_home_verifies(
    calls, scale, version, real_home, tmp_path_factory
):
    tmp = tmp_path_factory.mktemp("prop")
    home = tempfile.mkdtemp(dir=real_home)
    work = tmp / "work"
    work.mkdir()
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
            cwd=home,
        )
        env = dict(rec.env(), HOME=home)
        state = {"ws": "w1", "pane": "w1:p1", "dir": str(work)}
        try:
            for call in calls:
                p = subprocess.run(
                    ["herdr", *_fill(call, state)],
                    env=env,
                    cwd=home,
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                _learn(state, p.stdout)
        finally:
            c = rec.stop()
    for kind, r in verify_everywhere(c, version).items():
        assert r.status == "pass", f"{kind} at scale {scale}, {calls}:\n{r.report()}"
