"""A self-reported agent on a real pane stays while the pane's shell runs any foreground job
(issue 33 item 9; herdr's pane_shell_is_idle, 0.9.3 src/platform/mod.rs), and goes once the
shell is idle again, on the releases with row clear_reported_agent_at_idle_shell."""

from __future__ import annotations

import time

import pytest

from simherdr.agents.layer import SELF_REPORTED_SHELL_RECHECK
from tests.pty.conftest import SCALE
from tests.releases import releases_where

pytestmark = pytest.mark.pty

CLEARING = releases_where(lambda v: v.rows.clear_reported_agent_at_idle_shell)


@pytest.mark.parametrize("version", CLEARING[-1:])
def test_reported_agent_kept_while_sleep_runs_in_a_real_pane(make_client, version):
    client = make_client(version=version)
    pane = client.workspace()
    client.run(pane, "sleep 300")

    def sleeping():
        info = client.ok("pane.process_info", pane_id=pane)["process_info"]
        return any(p.get("name") == "sleep" for p in info.get("foreground_processes", []))

    client.until(sleeping, "sleep in the foreground")
    client.ok(
        "pane.report_agent",
        pane_id=pane,
        source="custom:shep",
        agent="shepherd-compat-agent",
        state="working",
    )
    time.sleep(3 * SELF_REPORTED_SHELL_RECHECK / SCALE)  # three checks of the busy shell
    assert client.pane(pane).get("agent") == "shepherd-compat-agent"
    assert [a["agent"] for a in client.ok("agent.list")["agents"]] == ["shepherd-compat-agent"]
    client.ok("pane.send_keys", pane_id=pane, keys=["C-c"])  # the shell is idle again
    client.until(lambda: "agent" not in client.pane(pane), "the reported agent to be cleared")
    assert client.ok("agent.list")["agents"] == []
