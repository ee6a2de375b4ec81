"""The stand-in ``herdr`` binary driving simulated agents: agent start/prompt/wait/get as
subprocesses against a ThreadServer on a 100x clock (CLI.md §5-§6)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

install = pytest.importorskip(
    "simherdr.stub.install", reason="the stand-in binary is not built yet"
)

from simherdr.clock import ScaledClock  # noqa: E402
from simherdr.testing import ThreadServer  # noqa: E402
from tests import herdr_reference as ref  # noqa: E402

SCALE = 100


@pytest.fixture
def cli(tmp_path, version, config):
    herdr = install.write_stub(str(tmp_path / "bin"), herdr_version=version)
    with ThreadServer(version, config=config, clock=ScaledClock(SCALE)) as srv:
        env = {**os.environ, "HERDR_SOCKET_PATH": srv.path, "SIMHERDR_TIME_SCALE": str(SCALE)}

        def run(*args, timeout=20):
            p = subprocess.run(
                [herdr, *args], env=env, capture_output=True, text=True, timeout=timeout
            )
            out = p.stdout if p.returncode == 0 else p.stderr
            return p.returncode, (json.loads(out) if out.strip().startswith("{") else out)

        run.srv = srv
        yield run


def test_start_prompt_wait_get(cli):
    code, out = cli("workspace", "create", "--cwd", cli.srv.sim.config.server_cwd)
    assert code == 0, out
    # react=0: the turn starts with the prompt (a stand-in call can take less than the default
    # 0.2 simulated seconds, 2 ms at 100x: the wait below then met the agent still idle, before
    # its turn); work=30: the turn lasts 0.3 s, over or not when the wait comes
    cli.srv.run(lambda sim: sim.agents.configure_pane("w1:p1", work=30, react=0))
    code, out = cli(
        "agent", "start", "rev", "--kind", "claude-code", "--pane", "w1:p1", "--", "--model", "x y"
    )
    assert code == 0, out
    ref.validate_reply(out, cli.srv.sim.version.name)
    assert out["id"] == "cli:agent:start"
    r = out["result"]
    assert r["type"] == "agent_started" and r["argv"] == ["claude", "--model", "x y"]
    assert r["agent"]["interactive_ready"] is True and r["agent"]["agent_status"] in (
        "idle",
        "done",
    )
    assert r["agent"]["agent"] == "claude" and r["agent"]["name"] == "rev"

    code, out = cli("agent", "prompt", "rev", "write the tests")
    assert code == 0, out
    assert out["result"]["type"] == "agent_prompted"

    # a CLI call costs ~5-100 ms of wall time, i.e. ~0.5-10 simulated seconds at 100x: wait for
    # the end of the turn, whether it is still running or already over
    code, out = cli("agent", "wait", "rev", "--timeout", "120000")
    assert code == 0, out
    assert out["id"] == "cli:agent:wait" and out["result"]["agent"]["agent_status"] == "idle"

    code, out = cli("agent", "get", "rev")
    assert code == 0 and out["result"]["agent"]["state_change_seq"] == 3


def test_start_errors_and_blocked_startup(cli):
    cli("workspace", "create", "--cwd", cli.srv.sim.config.server_cwd)
    code, out = cli(
        "agent", "start", "rev", "--kind", "claude", "--pane", "w1:p1", "--timeout", "3000"
    )
    assert code == 1 and out["error"]["code"] == "invalid_agent_timeout"
    cli.srv.run(lambda sim: sim.agents.configure_pane("w1:p1", startup_blocked=True))
    code, out = cli("agent", "start", "rev", "--kind", "claude", "--pane", "w1:p1")
    assert code == 1
    assert out["error"] == {
        "code": "agent_not_ready",
        "message": "agent rev is blocked during startup and is not ready for prompts",
    }
    code, out = cli("agent", "get", "rev")
    assert code == 0 and out["result"]["agent"]["launch_pending"] is True
