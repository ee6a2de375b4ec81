"""Agent-facing 0.8.2 -> 0.9.3 deltas side by side: completion_seq, resume_argv and the
restart that uses it, self-reported agents cleared at an idle shell, new panes' environment."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from simherdr.agents.layer import RESTORE_ERROR_NO_DIRECTORY, SELF_REPORTED_SHELL_RECHECK
from simherdr.simulator import Config, Simulator
from tests.agents.conftest import start_ready
from tests.releases import distinguishing, rows


def _agent(h, target="rev"):
    return h.ok("agent.get", target=target)["agent"]


def test_completion_seq_side_by_side(ws, version):
    start_ready(ws, session_after=1.0)  # claude's session before the prompt (see below)
    assert "completion_seq" not in _agent(ws)  # the first idle after a start is no completion
    ws.sim.agents.configure_pane("w1:p1", work=2.0)
    task = ws.spawn("agent.prompt", target="rev", text="go", wait={})
    ws.advance(10)
    assert ws.result(task)["result"]["agent"]["agent_status"] == "idle"
    agent = _agent(ws)
    if not rows(version).agent_completion_seq:
        assert "completion_seq" not in agent
    else:
        assert agent["completion_seq"] == agent["state_change_seq"]
        snap = ws.ok("session.snapshot")["snapshot"]
        assert snap["agents"][0]["completion_seq"] == agent["completion_seq"]


def test_resume_argv_side_by_side(ws, version):
    """0.9.2 stores the command and types it into the new shell after a restart; 0.8.2 does
    not know the field (serde ignores it)."""
    r = ws.call(
        "pane.report_agent",
        pane_id="w1:p1",
        source="custom:bot",
        agent="bot",
        state="working",
        resume_argv=["bot", "--resume", "s 1"],
    )
    assert r["result"] == {"type": "ok"}
    ws.sim.restart()
    ws.settle()
    text = ws.ok("pane.read", pane_id="w1:p1", source="visible")["read"]["text"]
    if not rows(version).report_resume_argv:
        assert "bot" not in text
    else:
        assert "$ bot --resume 's 1'" in text


def test_resume_needs_its_directory(ws, version, tmp_path):
    d = tmp_path / "gone"
    d.mkdir()
    ws.ok("tab.create", workspace_id="w1", cwd=str(d))
    pane = ws.ok("pane.list", workspace_id="w1")["panes"][-1]["pane_id"]
    ws.ok(
        "pane.report_agent",
        pane_id=pane,
        source="custom:bot",
        agent="bot",
        state="idle",
        resume_argv=["bot"],
    )
    os.rmdir(d)
    ws.sim.restart()
    ws.settle()
    info = ws.ok("pane.get", pane_id=pane)["pane"]
    if not rows(version).restore_keeps_unavailable_panes:
        assert "restore_error" not in info
    else:
        assert info["restore_error"] == RESTORE_ERROR_NO_DIRECTORY
        assert info["revision"] == 1


def test_resume_argv_type_checked_only_where_known(ws, version):
    r = ws.call(
        "pane.report_agent", pane_id="w1:p1", source="s", agent="bot", state="idle", resume_argv=5
    )
    if not rows(version).report_resume_argv:
        assert r["result"] == {"type": "ok"}
    else:
        assert r["error"]["code"] == "invalid_request"


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "resume_argv must not be empty"),
        (["bot"] * 65, "resume_argv allows at most 64 arguments"),
        (["bot", "x" * 8190], "resume_argv allows at most 8192 bytes"),
        (["bot", "bad\nline"], "resume_argv must not contain control characters"),
        (["bot", "--name", "can's session"], "resume_argv must not contain apostrophes"),
        (["/usr/bin/bot"], "resume_argv must start with a plain command name, not a path"),
        (["-bot"], "resume_argv must start with a plain command name, not a path"),
        (["bot agent"], "resume_argv must start with a plain command name, not a path"),
        (["bötta"], "resume_argv must start with a plain command name, not a path"),
    ],
)
@pytest.mark.parametrize("method", ["pane.report_agent", "pane.report_agent_session"])
def test_resume_argv_validated(ws, version, method, argv, message):
    """0.9.3 validate_resume_argv ([H093] src/agent_resume.rs) before the report is applied:
    nothing changes on a refusal. 0.8.2 ignores the unknown key."""
    extra = {"state": "working"} if method == "pane.report_agent" else {}
    r = ws.call(
        method, pane_id="w1:p1", source="custom:bot", agent="bot", resume_argv=argv, **extra
    )
    if not rows(version).report_resume_argv:
        assert r["result"] == {"type": "ok"}
        return
    assert r["error"] == {"code": "invalid_resume_argv", "message": message}
    assert "agent" not in ws.ok("pane.get", pane_id="w1:p1")["pane"]
    assert ws.sim.session.find_pane("w1:p1").agent.resume_argv is None


def test_resume_argv_plain_names_accepted(ws, version):
    for argv in (["cursor-agent.cmd", "--resume", "id"], ["prime_agent.v2", "--model", "gpt 6"]):
        r = ws.call(
            "pane.report_agent",
            pane_id="w1:p1",
            source="custom:bot",
            agent="bot",
            state="working",
            resume_argv=argv,
        )
        assert r["result"] == {"type": "ok"}
        if rows(version).report_resume_argv:
            assert ws.sim.session.find_pane("w1:p1").agent.resume_argv == argv


def test_resume_argv_needs_the_reporter_to_hold_the_pane(ws, version):
    """report_agent_resume: a session report from a source without the pane's authority is
    applied, then its resume command is refused (resume_not_accepted)."""
    r = ws.call(
        "pane.report_agent_session",
        pane_id="w1:p1",
        source="custom:bot",
        agent="bot",
        resume_argv=["bot", "--resume"],
    )
    if not rows(version).report_resume_argv:
        assert r["result"] == {"type": "ok"}
        return
    assert r["error"] == {
        "code": "resume_not_accepted",
        "message": "resume_argv requires the reporter to hold the pane; report its state with "
        "pane.report_agent first",
    }
    ws.ok("pane.report_agent", pane_id="w1:p1", source="custom:bot", agent="bot", state="idle")
    r = ws.call(
        "pane.report_agent_session",
        pane_id="w1:p1",
        source="custom:bot",
        agent="bot",
        resume_argv=["bot", "--resume"],
    )
    assert r["result"] == {"type": "ok"}
    assert ws.sim.session.find_pane("w1:p1").agent.resume_argv == ["bot", "--resume"]
    # Another reporter's command is refused while custom:bot holds the pane.
    r = ws.call(
        "pane.report_agent_session",
        pane_id="w1:p1",
        source="custom:other",
        agent="bot",
        resume_argv=["other"],
    )
    assert r["error"]["code"] == "resume_not_accepted"
    assert ws.sim.session.find_pane("w1:p1").agent.resume_argv == ["bot", "--resume"]


def test_resume_argv_of_a_stale_report_is_dropped(ws, version):
    """A report older than its source's last sequence is ignored, and its resume command with
    it, without an error."""
    base = dict(pane_id="w1:p1", source="custom:bot", agent="bot", state="working")
    ws.ok("pane.report_agent", seq=5, resume_argv=["bot", "one"], **base)
    r = ws.call("pane.report_agent", seq=4, resume_argv=["bot", "two"], **base)
    assert r["result"] == {"type": "ok"}
    kept = ws.sim.session.find_pane("w1:p1").agent.resume_argv
    assert kept == (None if not rows(version).report_resume_argv else ["bot", "one"])


def test_self_reported_agent_cleared_at_idle_shell(ws, version):
    ws.ok("pane.report_agent", pane_id="w1:p1", source="custom:bot", agent="bot", state="working")
    assert ws.ok("pane.get", pane_id="w1:p1")["pane"]["agent"] == "bot"
    ws.advance(SELF_REPORTED_SHELL_RECHECK + 0.01)
    pane = ws.ok("pane.get", pane_id="w1:p1")["pane"]
    if not rows(version).clear_reported_agent_at_idle_shell:
        assert pane["agent"] == "bot" and pane["agent_status"] == "working"
    else:
        assert "agent" not in pane and pane["agent_status"] == "unknown"
        assert ws.ok("agent.list")["agents"] == []


def test_a_recognized_label_is_not_watched(ws, version):
    """shell_return_keeps_agents_herdr_recognizes_by_process: a known kind's label stays."""
    ws.ok("pane.report_agent", pane_id="w1:p1", source="custom:x", agent="pi", state="working")
    ws.advance(5 * SELF_REPORTED_SHELL_RECHECK)
    assert ws.ok("pane.get", pane_id="w1:p1")["pane"]["agent"] == "pi"


def test_self_reported_agent_kept_while_a_program_runs(ws, version):
    start_ready(ws, name="a", kind="claude")
    ws.ok("pane.report_agent", pane_id="w1:p1", source="custom:bot", agent="bot", state="working")
    ws.advance(5 * SELF_REPORTED_SHELL_RECHECK)
    assert ws.ok("pane.get", pane_id="w1:p1")["pane"]["agent"] == "bot"


@pytest.mark.parametrize("version_", distinguishing("term_program_env", "pane_env_removed"))
def test_new_pane_environment_side_by_side(version_, monkeypatch):
    pytest.importorskip("pyte")
    for key in ("TMUX", "CLAUDECODE", "CODEX_THREAD_ID"):
        monkeypatch.setenv(key, "x")
    sim = Simulator(version_, config=Config(pane_mode="mixed"))
    pane = SimpleNamespace(
        env={},
        workspace_id="w1",
        tab_id="w1:t1",
        pane_id="w1:p1",
    )
    env = sim.backend.pane_env(pane)
    assert "CODEX_THREAD_ID" not in env
    if not rows(version_).term_program_env:
        assert env.get("TERM_PROGRAM") == os.environ.get("TERM_PROGRAM")  # inherited as is
    else:
        assert env["TERM_PROGRAM"] == "herdr" and env["TERM_PROGRAM_VERSION"] == version_
    for key in ("TMUX", "CLAUDECODE"):  # the outer terminal's and a parent agent's markers
        assert (env.get(key) == "x") == (key not in rows(version_).pane_env_removed)
    pane.env = {"TERM_PROGRAM": "mine"}  # the caller's env comes after
    assert sim.backend.pane_env(pane)["TERM_PROGRAM"] == "mine"


def test_session_file_written_after_startup_is_backed_up(version, config, tmp_path):
    """0.9.x: a session file the server did not load is copied into session-backups/ before
    the server first replaces it (src/persist/writer.rs); 0.8.2 overwrites it."""
    import dataclasses
    import json

    from simherdr import persist
    from simherdr.testing import Harness
    from tests import herdr_reference as ref

    cfg = dataclasses.replace(config, persist=True)
    path = persist.session_path(cfg)
    with Harness(version, config=cfg, validator=ref.validator(version)) as h:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        foreign = '{"written": "after start-up by another herdr"}'
        with open(path, "w") as f:
            f.write(foreign)
        h.ok("workspace.create", cwd=str(tmp_path))
        h.advance(persist.SAVE_DEBOUNCE)  # herdr's debounced save
        h.ok("workspace.create", cwd=str(tmp_path))  # the second save protects nothing more
        h.advance(persist.SAVE_DEBOUNCE)  # herdr's debounced save
        backups_dir = os.path.join(os.path.dirname(path), "session-backups")
        assert json.load(open(path))["workspaces"]  # replaced by this server's session
        if not rows(version).session_backups:
            assert not os.path.exists(backups_dir)
            return
        [name] = os.listdir(backups_dir)
        stamp, pid, seq = name.removeprefix("session-").removesuffix(".json").split("-")
        assert len(stamp) == 39 and pid == str(os.getpid()) and seq == "0"
        assert open(os.path.join(backups_dir, name)).read() == foreign


def test_session_backups_keep_three_and_a_loaded_session_is_not_copied(config, tmp_path):
    import dataclasses

    from simherdr import persist
    from simherdr.testing import Harness

    cfg = dataclasses.replace(config, persist=True)
    path = persist.session_path(cfg)
    backups_dir = os.path.join(os.path.dirname(path), "session-backups")
    os.makedirs(backups_dir)
    old = [f"session-{i:039d}-1-0.json" for i in (1, 2, 3)]
    for name in old:
        open(os.path.join(backups_dir, name), "w").write("old")
    with Harness("0.9.3", config=cfg) as h:
        open(path, "w").write("{}")  # not a session herdr loads
        h.ok("workspace.create", cwd=str(tmp_path))
        h.advance(persist.SAVE_DEBOUNCE)  # herdr's debounced save
    kept = sorted(os.listdir(backups_dir))
    assert len(kept) == 3 and kept[:2] == old[1:]  # the oldest went
    with Harness("0.9.3", config=cfg) as h:  # this one loads the saved session
        h.ok("workspace.create", cwd=str(tmp_path))
        h.advance(persist.SAVE_DEBOUNCE)  # herdr's debounced save
    assert sorted(os.listdir(backups_dir)) == kept


def test_session_snapshots_history_side_by_side(version, config, tmp_path):
    """0.9.x keeps session-snapshots/: the first saved session, then at most one copy per 15
    minutes of wall time, and none for an unchanged layout (src/persist/writer.rs)."""
    import dataclasses

    from simherdr import persist
    from simherdr.testing import Harness

    cfg = dataclasses.replace(config, persist=True)
    directory = os.path.join(os.path.dirname(persist.session_path(cfg)), "session-snapshots")
    with Harness(version, config=cfg) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        h.advance(persist.SAVE_DEBOUNCE)  # herdr's debounced save
        h.ok("workspace.create", cwd=str(tmp_path))  # within 15 minutes: no second copy
        h.advance(persist.SAVE_DEBOUNCE)  # herdr's debounced save
        if not rows(version).session_backups:
            assert not os.path.exists(directory)
            return
        [first] = os.listdir(directory)
        os.utime(os.path.join(directory, first), (0, 0))  # the copy is now old
        h.ok("workspace.create", cwd=str(tmp_path))
        h.advance(persist.SAVE_DEBOUNCE)  # herdr's debounced save
        assert len(os.listdir(directory)) == 2


def test_new_pane_gets_the_published_ssh_agent(tmp_path):
    pytest.importorskip("pyte")
    sock = str(tmp_path / "herdr.sock")
    sim = Simulator("0.9.3", config=Config(pane_mode="mixed", socket_path=sock))
    pane = SimpleNamespace(env={}, workspace_id="w1", tab_id="w1:t1", pane_id="w1:p1")
    assert sim.backend.pane_env(pane).get("SSH_AUTH_SOCK") == os.environ.get("SSH_AUTH_SOCK")
    os.symlink(str(tmp_path / "agent"), sock + ".agent")
    assert sim.backend.pane_env(pane)["SSH_AUTH_SOCK"] == sock + ".agent"
    pane.env = {"SSH_AUTH_SOCK": "/mine"}  # the caller's env comes after
    assert sim.backend.pane_env(pane)["SSH_AUTH_SOCK"] == "/mine"
    old = Simulator("0.8.2", config=Config(pane_mode="mixed", socket_path=sock))
    pane.env = {}
    assert old.backend.pane_env(pane).get("SSH_AUTH_SOCK") == os.environ.get("SSH_AUTH_SOCK")
