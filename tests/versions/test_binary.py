"""The stand-in against the simulator, both profiles: `pane report-agent ... -- CMD` stores a
resume command that a server restart types into the new shell (0.9.x), and a 0.9 kind."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from simherdr.stub import install
from simherdr.testing import ThreadServer
from tests import herdr_reference as ref
from tests.releases import rows


@pytest.fixture
def cli(tmp_path, version, config):
    herdr = install.write_stub(str(tmp_path / "bin"), herdr_version=version)
    with ThreadServer(version, config=config) as srv:
        env = {**os.environ, "HERDR_SOCKET_PATH": srv.path}
        env.pop("HERDR_PANE_ID", None)

        def run(*args):
            p = subprocess.run([herdr, *args], env=env, capture_output=True, text=True, timeout=20)
            return p.returncode, p.stdout, p.stderr

        run.srv = srv
        yield run


def test_report_agent_resume_command_through_the_stand_in(cli, version, tmp_path):
    code, out, err = cli("workspace", "create", "--cwd", str(tmp_path))
    assert code == 0, err
    ref.validate_reply(json.loads(out), version)
    report = ("pane", "report-agent", "w1:p1", "--source", "custom:bot", "--agent", "bot")
    code, out, err = cli(*report, "--state", "working", "--", "bot", "--resume", "s 1")
    if not rows(version).report_resume_argv:
        assert (code, err.strip()) == (2, "unknown option: --")
        return
    assert (code, out, err) == (0, "", "")
    cli.srv.run(_restart)
    code, out, err = cli("pane", "read", "w1:p1", "--source", "visible")
    assert code == 0, err
    assert "$ bot --resume 's 1'" in out


async def _restart(sim):
    sim.restart()
