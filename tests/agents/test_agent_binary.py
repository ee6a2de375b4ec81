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
    # work=30: the turn lasts 0.3 s of wall time at 100x
    cli.srv.run(lambda sim: sim.agents.configure_pane("w1:p1", work=30))
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

    # herdr's agent.prompt answers before the turn starts: it types the text and sends Enter
    # 300 ms later (src/app/api/agents.rs:13,126), and agent.wait answers at once when the agent
    # already matches (src/api/wait.rs:141-151): a bare prompt then wait met the agent still
    # idle when the wait came within the Enter's delay (a fast stand-in call). `--wait --until
    # working` holds the prompt until its turn started (the prompt gate, src/api/wait.rs:229-275)
    code, out = cli("agent", "prompt", "rev", "write the tests", "--wait", "--until", "working")
    assert code == 0, out
    assert out["result"]["type"] == "agent_prompted"
    assert out["result"]["agent"]["agent_status"] == "working"

    # the turn is running or already over: the wait answers at its end
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
