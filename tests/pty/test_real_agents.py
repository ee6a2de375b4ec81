"""herdr's own agent detection on real panes, with fake agent scripts."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.pty


def test_pi_detected_by_process_name_status_by_screen(client):
    pane = client.workspace()
    client.run(pane, "pi --fake")
    # process name -> label pi; 3 s grace (150 ms here) -> "Working..." on screen -> working
    client.status_is(pane, "working")
    client.release()
    # the screen drops "Working...": pi's manifest has no idle rule, so the known-agent idle
    # fallback applies; the pane is focused, so the completion is idle, not done
    p = client.status_is(pane, "idle")
    assert p["agent"] == "pi"
    kinds = [k for k, d in client.events() if d.get("pane_id") == pane]
    assert "pane_agent_detected" in kinds and "pane_agent_status_changed" in kinds
    statuses = [d["agent_status"] for k, d in client.events(["pane_agent_status_changed"])]
    assert statuses[-2:] == ["working", "idle"]
    info = client.ok("pane.process_info", pane_id=pane)["process_info"]
    assert info["foreground_processes"][0]["name"] == "pi"

    # the agent exits: herdr publishes idle for the exited process (its label is hidden at
    # once), then clears the agent on the next probe: a plain shell is unknown
    client.run(pane, "/exit")
    client.status_is(pane, "unknown", agent=None)
    assert client.ok("agent.list")["agents"] == []


def test_done_when_unfocused_then_idle_on_focus(client):
    pane = client.workspace()
    client.ok("workspace.create", focus=True)  # another workspace takes the focus
    client.run(pane, "pi")
    client.status_is(pane, "working")
    client.release()
    # the first idle after a fresh process is no completion (SOCKET.md §6.2): idle, not done
    client.status_is(pane, "idle")
    client.run(pane, "next task")
    client.status_is(pane, "working")
    client.release()
    client.status_is(pane, "done")  # a completion while not focused
    client.ok("pane.focus", pane_id=pane)
    assert client.pane(pane)["agent_status"] == "idle"


def test_agent_start_types_the_command_and_becomes_ready(client):
    pane = client.workspace()
    started = client.ok(
        "agent.start",
        name="pia",
        kind="pi",
        pane_id=pane,
        args=["--model", "x y"],
        timeout_ms=300000,
    )
    assert started["argv"] == ["pi", "--model", "x y"]
    assert (
        started["agent"]["launch_pending"] is True and started["agent"]["agent_status"] == "unknown"
    )
    client.release()  # pi's start-up work
    agent = client.until(
        lambda: (a := client.ok("agent.get", target="pia")["agent"]).get("interactive_ready") and a,
        "interactive_ready",
    )
    # typed into the real shell, quoted for it: the fake pi echoes its arguments (read once
    # it is ready: its idle screen keeps them, whenever this client gets there)
    client.wait_output(pane, "pi (fake) --model x y")
    assert (
        agent["agent"] == "pi" and agent["agent_status"] == "idle" and "launch_pending" not in agent
    )
    # agent.prompt goes to the real process, which works and finishes
    client.ok("agent.prompt", target="pia", text="fix the bug")
    client.status_is(pane, "working")
    client.release()
    client.wait_output(pane, "done: fix the bug")
    client.status_is(pane, "idle")
    # a busy pane (an agent is there) refuses another start
    err = client.err("agent.start", name="pib", kind="pi", pane_id=pane)
    assert err["code"] == "agent_pane_busy"
    # agent.send_keys reaches the real foreground agent
    client.ok("agent.send_keys", target="pia", keys=["/", "e", "x", "i", "t", "Enter"])
    client.until(lambda: "agent" not in client.pane(pane), "the agent to exit")


def test_hook_report_from_inside_the_pane_takes_authority(client):
    pane = client.workspace()
    # the fake pi reports itself through $HERDR_BIN_PATH (the stand-in herdr) and
    # $HERDR_SOCKET_PATH before it draws anything
    client.run(pane, "FAKE_PI_REPORT=blocked pi")
    p = client.status_is(pane, "blocked")
    assert p["agent"] == "pi"
    client.release()
    # the screen goes idle, but the hook authority's state wins (SOCKET.md §6.3)
    client.wait_output(pane, r"^>", regex=True)
    assert client.pane(pane)["agent_status"] == "blocked"
    client.ok("pane.clear_agent_authority", pane_id=pane, source="custom:fake")
    client.status_is(pane, "idle")
    client.run(pane, "/exit")
    client.until(lambda: "agent" not in client.pane(pane), "the agent to exit")


def test_claude_screen_rules(client):
    script = r"""#!/bin/sh
printf 'claude (fake)\n'
# the spinner turns until the test lets it go (herdr clears a title when it identifies the
# agent: the titles drawn after that are what it reads)
while :; do printf '\033]0;\342\240\202 Thinking\007'; sleep 0.05; done &
IFS= read -r _ < "$FAKE_AGENT_GATE"
kill $!
printf '\033]0;\342\234\263 Claude\007\033[2J\033[H'
printf 'Do you want to proceed?\n\342\235\257 1. Yes\n  2. No\n\nEsc to cancel\n'
read answer
printf '\033[2J\033[H\342\224\200\342\224\200\342\224\200\342\224\200\n\342\235\257 \n\342\224\200\342\224\200\342\224\200\342\224\200\n'
read answer
"""
    with_claude = client
    path = with_claude.bindir + "/claude"
    with open(path, "w") as f:
        f.write(script)
    import os

    os.chmod(path, 0o755)
    pane = client.workspace()
    client.run(pane, "claude")
    # OSC title with a braille spinner: working (claude.toml:7-14)
    client.status_is(pane, "working", agent="claude")
    client.release()
    # a permission dialog: blocked (claude.toml:113-127)
    client.status_is(pane, "blocked", agent="claude")
    client.ok("pane.send_keys", pane_id=pane, keys=["Enter"])
    # the live prompt box: idle (claude.toml:68-81)
    client.status_is(pane, "idle", agent="claude")
    client.ok("pane.send_keys", pane_id=pane, keys=["Enter"])
    client.until(lambda: "agent" not in client.pane(pane), "claude to exit")
