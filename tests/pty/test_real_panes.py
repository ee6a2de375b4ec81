"""Real panes: a shell in a PTY, driven through the socket API and the stand-in binary."""

from __future__ import annotations

import os
import re
import threading

import pytest

from tests.pty.conftest import SCALE, request

pytestmark = pytest.mark.pty


def test_env_cwd_and_process_info(client, workdir):
    cwd = os.path.join(workdir, "proj")
    os.mkdir(cwd)
    pane = client.workspace(
        cwd=cwd, env={"FOO": "bar", "HERDR_PANE_ID": "spoofed", "TERM": "vt100"}
    )
    client.run(
        pane,
        'printf "[%s|%s|%s|%s|%s|%s]\\n" "$FOO" "$HERDR_PANE_ID" "$HERDR_ENV" '
        '"$HERDR_SOCKET_PATH" "$TERM" "$PWD"',
    )
    line = client.wait_output(pane, r"^\[bar\|", regex=True)
    # the caller's env is applied first; herdr's own variables win (SOCKET.md §1.1)
    assert line == f"[bar|{pane}|1|{client.path}|vt100|{cwd}]"
    client.run(pane, 'echo "ids:$HERDR_WORKSPACE_ID:$HERDR_TAB_ID:${HERDR_BIN_PATH##*/}"')
    client.wait_output(pane, "ids:w1:w1:t1:herdr")

    info = client.ok("pane.process_info", pane_id=pane)["process_info"]
    shell = info["shell_pid"]
    assert info["foreground_process_group_id"] == shell
    [proc] = info["foreground_processes"]
    assert proc["pid"] == shell and proc["name"] == "bash" and proc["cwd"] == cwd
    assert (
        proc["argv"] == ["bash", "--norc", "--noprofile"]
        and proc["cmdline"] == "bash --norc --noprofile"
    )
    assert "argv0" not in proc and "tty" not in info  # never set on Linux

    client.run(pane, "sleep 30")
    # (between jobs the group may have no live member yet: herdr then omits the fields)
    # (and right after the fork the new group's leader is still a bash child until it execs; its
    # /proc cmdline can be briefly unreadable around the exec)
    info = client.until(
        lambda: (
            (i := client.ok("pane.process_info", pane_id=pane)["process_info"]).get(
                "foreground_process_group_id", shell
            )
            != shell
            and [(p.get("name"), p.get("argv")) for p in i.get("foreground_processes", [])]
            == [("sleep", ["sleep", "30"])]
            and i
        ),
        "sleep in the foreground",
    )
    [proc] = info["foreground_processes"]
    assert proc["pid"] == info["foreground_process_group_id"] and proc["name"] == "sleep"
    assert proc["argv"] == ["sleep", "30"]
    # a running command is not an available shell (SOCKET.md §6.5 step 8)
    err = client.err("agent.start", name="a1", kind="pi", pane_id=pane)
    assert err == {
        "code": "agent_pane_busy",
        "message": f"agent target pane {pane} is not an available shell",
    }
    # Ctrl-C ends the job and the shell takes the foreground back (the pane's shell starts with
    # default signal handling, even when the test runner ignores SIGINT: see below)
    client.ok("pane.send_keys", pane_id=pane, keys=["ctrl+c"])
    client.until(
        lambda: (
            client.ok("pane.process_info", pane_id=pane)["process_info"].get(
                "foreground_process_group_id"
            )
            == shell
        ),
        "the shell back in the foreground",
    )


def test_pane_run_read_and_wait_via_the_stand_in_binary(client):
    pane = client.workspace()
    code, out, err = client.herdr("pane", "run", pane, "echo", "hello", "$((6*7))")
    assert (code, out, err) == (0, "", "")
    client.wait_output(pane, "hello 42")
    code, out, _ = client.herdr("pane", "read", pane, "--source", "visible")
    assert code == 0 and "$ echo hello $((6*7))\nhello 42\n$" in out

    # pane.wait_for_output: waiting first, the output comes later (a real sleep)
    got = {}
    t = threading.Thread(
        target=lambda: got.update(
            request(
                client.path,
                "pane.wait_for_output",
                {
                    "pane_id": pane,
                    "source": "recent",
                    "match": {"type": "regex", "value": r"^late \d+$"},
                    "timeout_ms": int(10 * SCALE * 1000),
                },
            )
        )
    )
    t.start()
    client.run(pane, "sleep 0.2; echo late $((1+1))")
    t.join(15)
    result = got["result"]
    assert result["type"] == "output_matched" and result["matched_line"] == "late 2"
    assert result["read"]["source"] == "recent_unwrapped"

    # recent reads scrollback that left the screen; visible does not
    client.run(pane, "seq 1 60")
    client.wait_output(pane, r"^60$", regex=True)
    visible = client.ok("pane.read", pane_id=pane, source="visible")["read"]
    recent = client.ok("pane.read", pane_id=pane, source="recent", lines=100)["read"]
    assert "\n5\n" not in visible["text"] and "\n5\n6\n" in recent["text"]


def test_bracketed_paste_follows_the_shell(client):
    pane = client.workspace()
    # bash's readline enables bracketed paste (DECSET 2004) while it reads a line (the prompt
    # can show a moment before the mode switch reaches the screen)
    client.until(
        lambda: client.srv.run(lambda sim: sim.session.panes[pane].screen.bracketed_paste),
        "bracketed paste on",
    )
    client.ok("pane.send_input", pane_id=pane, text="echo one\necho two", keys=["Enter"])
    # a paste is literal: both lines arrive as one edit, then Enter runs them (wait for the
    # command's own output line, not the echoed command line)
    client.wait_output(pane, r"^two$", source="recent", regex=True)
    text = client.ok("pane.read", pane_id=pane, source="recent")["read"]["text"]
    assert re.search(r"^one$", text, re.M) and re.search(r"^two$", text, re.M)


def test_shell_exit_emits_pane_exited(client):
    first = client.workspace()
    second = client.ok("pane.split", target_pane_id=first, direction="right")["pane"]["pane_id"]
    client.wait_output(second, r"^\$", regex=True)
    client.run(second, "sleep 1000 & exit")
    client.until(lambda: "error" in client.call("pane.get", pane_id=second), "the pane to go away")
    kinds = [k for k, d in client.events() if d.get("pane_id") == second]
    assert "pane_exited" in kinds and "pane_closed" not in kinds
    assert client.ok("pane.list")["panes"][0]["pane_id"] == first
    # the last pane's shell exits: its workspace disappears silently
    client.run(first, "exit")
    client.until(lambda: client.ok("workspace.list")["workspaces"] == [], "the workspace to go")
    assert "workspace_closed" not in [k for k, _ in client.events()]


def test_closing_kills_every_process_group(client):
    pane = client.workspace()
    # a background job in its own group, a job that ignores SIGHUP, and a foreground job
    client.run(pane, "sleep 1001 & (trap '' HUP; exec sleep 1002) & sleep 1003")
    client.until(
        lambda: (
            client.ok("pane.process_info", pane_id=pane)["process_info"]
            .get("foreground_processes", [{}])[0]
            .get("name")
            == "sleep"
        ),
        "sleep in the foreground",
    )
    other = client.ok("tab.create", workspace_id="w1")["root_pane"]["pane_id"]
    client.wait_output(other, r"^\$", regex=True)
    client.run(other, "sleep 1004 &")
    client.ok("pane.close", pane_id=pane)
    client.ok("workspace.close", workspace_id="w1")
    # no_leaks checks that nothing of either pane survives


def test_server_close_kills_and_reaps(make_client):
    c = make_client()
    pane = c.workspace()
    c.run(pane, "sleep 1005 & sleep 1006")
    c.until(
        lambda: (
            c.ok("pane.process_info", pane_id=pane)["process_info"]
            .get("foreground_processes", [{}])[0]
            .get("name")
            == "sleep"
        ),
        "sleep in the foreground",
    )
    c.srv.stop()  # no_leaks checks the rest


def test_mixed_mode_chooses_per_pane(make_client):
    c = make_client(pane_mode="mixed")
    sim_pane = c.ok("workspace.create")["root_pane"]["pane_id"]
    real_pane = c.workspace(env={"SIMHERDR_PANE_MODE": "pty"})
    simulated = c.ok("pane.process_info", pane_id=sim_pane)["process_info"]
    real = c.ok("pane.process_info", pane_id=real_pane)["process_info"]
    assert simulated["shell_pid"] != real["shell_pid"]
    assert os.path.exists(f"/proc/{real['shell_pid']}")
    assert c.srv.run(
        lambda sim: (
            sim.backend.is_real(sim.session.panes[real_pane]),
            sim.backend.is_real(sim.session.panes[sim_pane]),
        )
    ) == (True, False)
    # the simulated pane still runs simulated agents
    c.run(sim_pane, "pi")
    c.until(lambda: c.pane(sim_pane).get("agent") == "pi", "the simulated pi")


def test_serve_pane_mode_pty_cleans_up_on_sigterm(workdir, monkeypatch):
    import signal
    import time

    from simherdr.testing import spawn_server

    monkeypatch.setenv("PS1", "$ ")
    monkeypatch.setenv("SHELL", "/bin/sh")  # no configured shell: $SHELL (src/pane.rs:1348-1368)
    path = os.path.join(workdir, "s.sock")
    proc = spawn_server(path, time_scale=SCALE, extra=["--pane-mode", "pty", "--cwd", workdir])
    try:
        pane = request(path, "workspace.create", {"cwd": workdir})["result"]["root_pane"]["pane_id"]
        request(
            path,
            "pane.send_input",
            {"pane_id": pane, "text": "sleep 1007 & sleep 1008", "keys": ["Enter"]},
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            info = request(path, "pane.process_info", {"pane_id": pane})["result"]["process_info"]
            # right after the spawn the shell may not own its terminal yet: no foreground job
            if info.get("foreground_processes", [{}])[0].get("name") == "sleep":
                break
            time.sleep(0.01)
        assert info["foreground_processes"][0]["argv"] == ["sleep", "1008"]
        shell = request(path, "pane.process_info", {"pane_id": pane})["result"]["process_info"][
            "shell_pid"
        ]
        assert open(f"/proc/{shell}/comm").read().strip() == "sh"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
        proc.stderr.close()


def test_shell_starts_with_default_signals_even_if_the_server_ignores_sigint(client):
    """Ctrl-C must stop a job even when the server process ignores SIGINT (a shell cannot reset
    a signal ignored on entry): the pane's shell starts with every signal at its default."""
    import signal as _signal

    previous = _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    try:
        pane = client.workspace()
    finally:
        _signal.signal(_signal.SIGINT, previous)
    shell = client.ok("pane.process_info", pane_id=pane)["process_info"]["shell_pid"]
    with open(f"/proc/{shell}/status") as f:
        ignored = int(next(x for x in f if x.startswith("SigIgn:")).split()[1], 16)
    # bash itself ignores some signals while interactive, but its jobs must not inherit SIGINT
    client.run(pane, "sleep 30")
    info = client.until(
        lambda: (
            (i := client.ok("pane.process_info", pane_id=pane)["process_info"]).get(
                "foreground_process_group_id", shell
            )
            != shell
            and [p.get("name") for p in i.get("foreground_processes", [])] == ["sleep"]
            and i
        ),
        "sleep in the foreground",
    )
    sleep_pid = info["foreground_processes"][0]["pid"]
    with open(f"/proc/{sleep_pid}/status") as f:
        sleep_ignored = int(next(x for x in f if x.startswith("SigIgn:")).split()[1], 16)
    assert not sleep_ignored & (1 << (_signal.SIGINT - 1)), (hex(ignored), hex(sleep_ignored))
    client.ok("pane.send_keys", pane_id=pane, keys=["ctrl+c"])
    client.until(
        lambda: (
            client.ok("pane.process_info", pane_id=pane)["process_info"].get(
                "foreground_process_group_id"
            )
            == shell
        ),
        "the shell back in the foreground",
    )
