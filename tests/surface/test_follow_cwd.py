"""cwd / foreground_cwd on simulated panes, and new terminals following them
(src/pane.rs:2952-3010, src/app/creation.rs:13-97; 0.9.3 workspace.create{source_workspace_id})."""

from __future__ import annotations

import os

import pytest

from simherdr import scenarios
from simherdr.simulator import Config
from simherdr.testing import Harness
from tests import herdr_reference as ref


@pytest.fixture
def dirs(tmp_path):
    for name in ("a", "a/sub", "b", "wt"):
        (tmp_path / name).mkdir()
    return tmp_path


@pytest.fixture
def ws(h, dirs):
    h.ok("workspace.create", cwd=str(dirs / "a"), focus=True)
    return h


def _cwd(h, pane_id="w1:p1"):
    return h.ok("pane.get", pane_id=pane_id)["pane"].get("cwd")


def _type(h, text, pane_id="w1:p1"):
    h.ok("pane.send_input", pane_id=pane_id, text=text, keys=["Enter"])


def test_cd_typed_into_the_simulated_shell_moves_cwd(ws, dirs, home):
    _type(ws, "cd sub")
    assert _cwd(ws) == str(dirs / "a" / "sub")
    _type(ws, "cd ../../b")
    assert _cwd(ws) == str(dirs / "b")
    _type(ws, "cd -")
    assert _cwd(ws) == str(dirs / "a" / "sub")
    _type(ws, "cd")
    assert _cwd(ws) == home
    _type(ws, "cd /nonexistent-dir")
    assert _cwd(ws) == home
    text = ws.ok("pane.read", pane_id="w1:p1", source="recent")["read"]["text"]
    assert "bash: cd: /nonexistent-dir: No such file or directory" in text


def test_split_tab_and_workspace_follow_the_live_cwd(ws, dirs):
    _type(ws, "cd sub")
    sub = str(dirs / "a" / "sub")
    assert ws.ok("pane.split", direction="right")["pane"]["cwd"] == sub
    assert ws.ok("tab.create")["root_pane"]["cwd"] == sub
    assert ws.ok("workspace.create")["root_pane"]["cwd"] == sub
    # a given cwd wins
    assert ws.ok("pane.split", direction="down", cwd=str(dirs / "b"))["pane"]["cwd"] == str(
        dirs / "b"
    )


def test_foreground_cwd_seam_and_follow(ws, dirs):
    assert "foreground_cwd" not in ws.ok("pane.get", pane_id="w1:p1")["pane"]
    scenarios.foreground_cwd(ws.sim, "w1:p1", str(dirs / "wt"))
    p = ws.ok("pane.get", pane_id="w1:p1")["pane"]
    assert p["cwd"] == str(dirs / "a") and p["foreground_cwd"] == str(dirs / "wt")
    # follow_cwd takes the foreground leader's cwd (src/pane.rs:2972-2985)
    assert ws.ok("pane.split", direction="right")["pane"]["cwd"] == str(dirs / "wt")
    scenarios.foreground_cwd(ws.sim, "w1:p1", None)
    assert "foreground_cwd" not in ws.ok("pane.get", pane_id="w1:p1")["pane"]


def test_agent_info_carries_foreground_cwd_until_the_prompt_returns(ws, dirs):
    ws.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    ws.advance(5)
    scenarios.foreground_cwd(ws.sim, "w1:p1", str(dirs / "wt"))
    a = ws.ok("agent.get", target="rev")["agent"]
    assert a["cwd"] == str(dirs / "a") and a["foreground_cwd"] == str(dirs / "wt")
    scenarios.agent_exits(ws.sim, "w1:p1")
    assert "foreground_cwd" not in ws.ok("pane.get", pane_id="w1:p1")["pane"]


def test_shell_cd_scenario_helper(ws, dirs):
    scenarios.shell_cd(ws.sim, "w1:p1", str(dirs / "b"))
    assert _cwd(ws) == str(dirs / "b")
    ws.ok("workspace.create", cwd=str(dirs / "a"), focus=False)
    assert ws.ok("workspace.create")["root_pane"]["cwd"] == str(dirs / "b")  # the active one


@pytest.mark.parametrize(
    "policy,expect",
    [("follow", "sub"), ("", "sub"), ("home", "home"), ("current", "server"), ("~/p", "home/p")],
)
def test_new_cwd_policy(version, tmp_path, dirs, policy, expect):
    home = tmp_path / "home"
    (home / "p").mkdir(parents=True)
    server = tmp_path / "server"
    server.mkdir()
    config = Config(home=str(home), server_cwd=str(server), new_cwd=policy)
    with Harness(version, config=config, validator=ref.validator(version)) as h:
        h.ok("workspace.create", cwd=str(dirs / "a"), focus=True)
        _type(h, "cd sub")
        want = {
            "sub": str(dirs / "a" / "sub"),
            "home": str(home),
            "server": str(server),
            "home/p": str(home / "p"),
        }[expect]
        assert h.ok("pane.split", direction="right")["pane"]["cwd"] == want
        assert h.ok("tab.create")["root_pane"]["cwd"] == want


@pytest.mark.parametrize("version", ["0.9.3"])
def test_workspace_create_source_workspace_id(ws, dirs, version):
    ws.ok("workspace.create", cwd=str(dirs / "b"), focus=True)  # w2 is active
    got = ws.ok("workspace.create", source_workspace_id="w1")["root_pane"]["cwd"]
    assert got == str(dirs / "a")
    assert ws.err("workspace.create", source_workspace_id="w9") == {
        "code": "workspace_not_found",
        "message": "workspace w9 not found",
    }
    # ignored when cwd is given, even an unknown id
    r = ws.ok("workspace.create", cwd=str(dirs / "wt"), source_workspace_id="w9")
    assert r["root_pane"]["cwd"] == str(dirs / "wt")


@pytest.mark.parametrize("version", ["0.8.2"])
def test_082_ignores_source_workspace_id(ws, dirs, version):
    ws.ok("workspace.create", cwd=str(dirs / "b"), focus=True)
    got = ws.ok("workspace.create", source_workspace_id="w9")["root_pane"]["cwd"]
    assert got == str(dirs / "b")  # follows the active workspace


def test_over_the_socket(sock, tmp_path):
    d = tmp_path / "proj"
    (d / "x").mkdir(parents=True)
    sock.ok("workspace.create", cwd=str(d), focus=True)
    sock.ok("pane.send_input", pane_id="w1:p1", text="cd x", keys=["Enter"])
    assert sock.ok("pane.get", pane_id="w1:p1")["pane"]["cwd"] == str(d / "x")
    assert sock.ok("pane.split", direction="right")["pane"]["cwd"] == str(d / "x")
    assert os.path.isdir(str(d / "x"))
