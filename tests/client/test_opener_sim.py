"""Flow A end to end: real fixture git repositories, the stand-in ``herdr`` binary, a real
simulator. Path classes, symlinks, reuse, refusals that need herdr, and the argv herdr saw."""

from __future__ import annotations

import os
import subprocess

import pytest
from simherdr_client import opener as O
from simherdr_client.opener import OpenRequest, open_session

from simherdr.scenarios.faults import Drop, WrongPane
from tests.client.helpers import run
from tests.gitrepos import NO_AUTO_MAINTENANCE

SID = "11111111-2222-4333-8444-555555555555"


def git(*args, cwd):
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
    }
    subprocess.run(
        ["git", *NO_AUTO_MAINTENANCE, *args], cwd=str(cwd), env=env, check=True, capture_output=True
    )


# session, not module: xdist interleaves this module's tests with others on a worker, and a
# module fixture was built again after each interleaving (3 builds on one worker, 7 git runs
# and 2 worktree adds each); no test writes into these repositories
@pytest.fixture(scope="session")
def repos(tmp_path_factory):
    root = tmp_path_factory.mktemp("repos")
    (root / "plain").mkdir()
    (root / "file.txt").write_text("x")
    # --template=: no sample hooks (nothing reads them; most of an init's files)
    git("init", "-q", "--template=", "-b", "main", "primary", cwd=root)
    git("commit", "-q", "--allow-empty", "-m", "init", cwd=root / "primary")
    (root / "primary" / "sub").mkdir()
    git("worktree", "add", "-q", "-b", "feat", str(root / "wt"), cwd=root / "primary")
    sep = str(root / "sep.git")
    git("init", "-q", "--template=", "-b", "trunk", "--separate-git-dir", sep, "sepwc", cwd=root)
    git("commit", "-q", "--allow-empty", "-m", "init", cwd=root / "sepwc")
    git("worktree", "add", "-q", "-b", "side", str(root / "sepwt"), cwd=root / "sepwc")
    git("init", "-q", "--template=", "--bare", "bare.git", cwd=root)
    (root / "links").mkdir()
    os.symlink(root / "plain", root / "links" / "My Plain Link")
    os.symlink(root / "primary", root / "links" / "prim")
    os.symlink(root / "wt", root / "links" / "wtlink")
    return root


@pytest.fixture
def opener(herdr_sim, repos):
    """open(path, **request) -> (result, recorder); the session's cwd is the repos root."""

    def go(path, cwd=None, env=None, rec=None, **kw):
        rec = rec or herdr_sim.recorder()
        result = run(
            open_session(
                OpenRequest(path, **kw),
                cwd=str(cwd or repos),
                env=env or herdr_sim.env,
                runner=rec,
                new_session_id=lambda: SID,
            )
        )
        return result, rec

    return go


def start_argv(name, pane, *session):
    return [
        "agent",
        "start",
        name,
        "--kind",
        "pi",
        "--pane",
        pane,
        "--timeout",
        "120000",
        "--",
        "--name",
        name,
        *(session or ("--session-id", SID)),
    ]


# --- the three path classes --------------------------------------------------------------------


def test_generic_directory_opens_a_normal_panel_and_starts_pi(herdr_sim, opener, repos):
    # through the binary (the file's other opens run the stand-in in process: InprocRunner)
    result, rec = opener(str(repos / "plain"), rec=herdr_sim.recorder(process=True))
    assert rec.calls == [
        ["workspace", "create", "--cwd", str(repos / "plain"), "--no-focus"],
        start_argv("plain", "w1:p1"),
    ]
    assert result == {
        "ok": True,
        "rows": [
            ["outcome", "opened"],
            ["path", str(repos / "plain")],
            ["panel", "normal"],
            ["session", SID],
            ["workspace", "w1"],
            ["pane", "w1:p1"],
            ["agent", "plain"],
        ],
        "content": "\n".join(
            [
                "outcome: opened",
                f"path: {repos / 'plain'}",
                "panel: normal",
                f"session: {SID}",
                "workspace: w1",
                "pane: w1:p1",
                "agent: plain",
            ]
        ),
        "details": {
            "path": str(repos / "plain"),
            "kind": "generic",
            "branch": None,
            "paneId": "w1:p1",
            "workspaceId": "w1",
            "sessionId": SID,
            "resumed": False,
            "agentName": "plain",
            "notify": True,
        },
    }
    agent = herdr_sim.ok("agent.get", target="plain")["agent"]
    assert (agent["pane_id"], agent["agent"], agent["cwd"]) == ("w1:p1", "pi", str(repos / "plain"))
    started = rec.results[1].stdout
    assert f'"argv":["pi","--name","plain","--session-id","{SID}"]' in started


def test_relative_path_resolves_against_the_session_cwd(opener, repos):
    result, rec = opener("plain/../primary/sub", cwd=repos)
    assert result["details"]["path"] == str(repos / "primary" / "sub")
    assert result["details"]["kind"] == "generic"  # a subdirectory: generic, no refusal
    assert rec.calls[0] == [
        "workspace",
        "create",
        "--cwd",
        str(repos / "primary" / "sub"),
        "--no-focus",
    ]
    assert "branch" not in dict(result["rows"])


@pytest.mark.parametrize(
    "path,kind,branch", [("primary", "primary", "main"), ("sepwc", "primary", "trunk")]
)
def test_primary_checkouts_open_a_normal_panel_with_a_branch_row(opener, repos, path, kind, branch):
    result, rec = opener(path)
    assert result["details"]["kind"] == kind and result["details"]["branch"] == branch
    assert dict(result["rows"])["panel"] == "normal" and dict(result["rows"])["branch"] == branch
    assert [r[0] for r in result["rows"]] == [
        "outcome",
        "path",
        "panel",
        "branch",
        "session",
        "workspace",
        "pane",
        "agent",
    ]
    assert rec.verbs() == ["workspace create", "agent start"]


@pytest.mark.parametrize("path", ["bare.git", "primary/.git"])
def test_no_work_tree_here_is_generic(opener, repos, path):
    result, rec = opener(path)
    assert result["ok"] is True and result["details"]["kind"] == "generic"


def test_linked_worktree_opens_a_worktree_panel(herdr_sim, opener, repos):
    herdr_sim.ok("workspace.create", cwd=str(repos / "primary"))  # the caller's own workspace (w1)
    result, rec = opener("wt")
    assert rec.calls == [
        ["worktree", "list", "--cwd", str(repos / "wt")],
        ["worktree", "open", "--path", str(repos / "wt"), "--no-focus"],
        start_argv("feat", "w2:p1"),  # a worktree panel's default name is its branch
    ]
    rows = dict(result["rows"])
    assert (rows["outcome"], rows["panel"], rows["branch"], rows["workspace"]) == (
        "opened",
        "worktree",
        "feat",
        "w2",
    )
    assert result["details"]["kind"] == "worktree"
    assert herdr_sim.ok("workspace.get", workspace_id="w2")["workspace"]["focused"] is False


def test_worktree_of_a_separate_git_dir_repo_is_a_worktree(herdr_sim, opener, repos):
    herdr_sim.ok("workspace.create", cwd=str(repos / "sepwc"))
    result, rec = opener("sepwt")
    assert result["details"]["kind"] == "worktree" and result["details"]["branch"] == "side"


def test_open_worktree_is_reused_without_an_open_call(herdr_sim, opener, repos):
    herdr_sim.ok("workspace.create", cwd=str(repos / "primary"))
    herdr_sim.ok(
        "worktree.open", workspace_id="w1", path=str(repos / "wt"), focus=False
    )  # w2, no agent
    result, rec = opener(str(repos / "links" / "wtlink"))  # through a symlink
    assert rec.calls == [
        ["worktree", "list", "--cwd", str(repos / "wt")],
        ["pane", "list", "--workspace", "w2"],
        start_argv("feat", "w2:p1"),
    ]
    assert dict(result["rows"])["outcome"] == "reused"
    assert result["details"]["workspaceId"] == "w2" and result["details"]["path"] == str(
        repos / "wt"
    )


def test_symlinked_generic_path_uses_the_requested_spelling_for_create_and_name(opener, repos):
    link = str(repos / "links" / "My Plain Link")
    result, rec = opener(link)
    assert rec.calls[0] == ["workspace", "create", "--cwd", link, "--no-focus"]
    assert result["details"]["agentName"] == "my-plain-link"
    assert result["details"]["path"] == str(repos / "plain") == dict(result["rows"])["path"]


def test_symlinked_primary_is_primary(opener, repos):
    result, rec = opener(str(repos / "links" / "prim"))
    assert result["details"]["kind"] == "primary" and result["details"]["path"] == str(
        repos / "primary"
    )


def test_resume_passes_the_session_and_says_so(opener, repos):
    result, rec = opener("plain", session="22222222-0000-4000-8000-000000000000", name="resumer")
    assert rec.calls[1] == start_argv(
        "resumer", "w1:p1", "--session", "22222222-0000-4000-8000-000000000000"
    )
    assert result["details"]["resumed"] is True and result["details"]["agentName"] == "resumer"
    assert dict(result["rows"])["session"] == "22222222-0000-4000-8000-000000000000 (resumed)"


# --- refusals before any herdr call --------------------------------------------------------------


@pytest.mark.parametrize(
    "path,kw,code",
    [
        ("nope", {}, "path-missing"),
        ("file.txt", {}, "path-not-directory"),
        ("plain", {"name": "Bad Name"}, "agent-name-invalid"),
        ("plain", {"name": ""}, "agent-name-invalid"),
        ("plain", {"name": "a" * 33}, "agent-name-invalid"),
    ],
)
def test_step_0_refusals_run_nothing(opener, path, kw, code):
    result, rec = opener(path, **kw)
    assert result["ok"] is False and result["code"] == code
    assert rec.calls == [] and "panel" not in result


def test_harness_guard_refuses_a_live_looking_binary(herdr_sim, opener, repos, tmp_path):
    live = "/usr/bin/env"
    harness = {
        **herdr_sim.env,
        "GENTLE_HERDR_SESSION_LIB_DIR": str(tmp_path),
        "HERDR_BIN_PATH": live,
    }
    result, rec = opener("plain", env=harness)
    assert result["code"] == "herdr-bin-refused" and rec.calls == []
    inherited = {**herdr_sim.env, "GENTLE_WORKTREE_LIB_DIR": str(tmp_path), "HERDR_BIN_PATH": live}
    assert opener("plain", env=inherited)[0]["code"] == "herdr-bin-refused"
    allowed = {**harness, "GENTLE_HERDR_ALLOW_LIVE_HERDR": "1"}
    assert opener("plain", env=allowed)[0]["ok"] is True  # honoured (the recorder runs the stub)
    assert O.harness_refuses(live, harness) is True
    assert O.harness_refuses(herdr_sim.stub, harness) is False  # a stub in the OS temp dir
    assert O.harness_refuses(str(tmp_path / "missing"), harness) is False
    # with TMPDIR elsewhere, the same stub is no longer "inside the OS temp dir"
    elsewhere = {**harness, "TMPDIR": str(tmp_path / "os-tmp")}
    assert O.harness_refuses(herdr_sim.stub, elsewhere) is True
    plain = tmp_path / "not-executable"
    plain.write_text("x")
    plain.chmod(0o644)
    assert O.harness_refuses(str(plain), elsewhere) is False  # not executable
    assert O.harness_refuses(live, herdr_sim.env) is False  # no harness: not our business


def test_harness_guard_spawns_the_stub_from_herdr_bin_path(herdr_sim, repos, tmp_path):
    env = {
        **herdr_sim.env,
        "GENTLE_HERDR_SESSION_LIB_DIR": str(tmp_path),
        "HERDR_BIN_PATH": herdr_sim.stub,
    }
    result = run(
        open_session(OpenRequest("plain"), cwd=str(repos), env=env, new_session_id=lambda: SID)
    )
    assert (
        result["ok"] is True
        and herdr_sim.ok("agent.get", target="plain")["agent"]["pane_id"] == "w1:p1"
    )


# --- refusals and failures that need herdr ---------------------------------------------------------


def test_worktree_open_refused_by_herdr_is_rechecked_once_then_herdr_failed(opener, repos):
    result, rec = opener("wt")  # no active workspace: herdr refuses the open
    assert rec.verbs() == ["worktree list", "worktree open", "worktree list"]
    assert result["ok"] is False and result["code"] == "herdr-failed"
    assert result["herdrErrorCode"] == "invalid_request" and "panel" not in result


def test_lost_worktree_open_reply_is_found_by_the_fresh_list_and_reused(herdr_sim, opener, repos):
    herdr_sim.ok("workspace.create", cwd=str(repos / "primary"))
    herdr_sim.run(lambda s: s.faults.add(Drop(method="worktree.open", stage="reply")))
    result, rec = opener("wt")
    assert rec.verbs() == [
        "worktree list",
        "worktree open",
        "worktree list",
        "pane list",
        "agent start",
    ]
    assert rec.results[1].status == 1
    assert result["ok"] is True and dict(result["rows"])["outcome"] == "reused"
    assert result["details"]["workspaceId"] == "w2"
    assert sum(c[:2] == ["worktree", "open"] for c in rec.calls) == 1  # never a second open


def test_pane_in_another_workspace_is_refused_and_the_panel_named(herdr_sim, opener, repos):
    herdr_sim.ok("workspace.create", cwd=str(repos))  # w1:p1 exists
    herdr_sim.run(
        lambda s: s.faults.add(
            WrongPane(method="workspace.create", to_pane="w1:p1", fields=("pane_id",))
        )
    )
    result, rec = opener("plain")
    assert result["code"] == "pane-workspace-mismatch"
    assert result["panel"] == {"workspaceId": "w2", "paneId": "w1:p1"}
    assert "w2" in result["message"]
    assert rec.verbs() == ["workspace create"]  # nothing started


def test_directory_gone_before_create_gives_a_pane_outside_the_path(
    herdr_sim, opener, repos, tmp_path
):
    victim = tmp_path / "vanishing"
    victim.mkdir()
    rec = herdr_sim.recorder().before(("workspace", "create"), lambda s: victim.rmdir())
    result, rec = opener(str(victim), rec=rec)
    # herdr silently falls back to its own cwd for a --cwd that does not exist (CLIENTS.md §1)
    assert result["code"] == "pane-cwd-outside"
    assert result["panel"] == {"workspaceId": "w1", "paneId": "w1:p1"}
    assert rec.verbs() == ["workspace create"]
    assert herdr_sim.ok("pane.get", pane_id="w1:p1")["pane"].get("agent") is None


def test_a_repeat_open_is_refused_by_herdrs_start_and_names_the_panel(herdr_sim, opener, repos):
    """Issue 25 item 5 (CLIENTS.md §2.8): the source asks nothing first; its second open makes
    a second panel, herdr refuses the second `agent start` with agent_name_taken
    (src/app/agents.rs start_agent) and the refusal names the panel it left; nothing retried."""
    first, _ = opener("plain")
    assert first["ok"] and first["details"]["paneId"] == "w1:p1"
    again, rec = opener("plain")
    assert again["ok"] is False and again["code"] == "agent-start-failed"
    assert again["herdrErrorCode"] == "agent_name_taken"
    assert again["panel"] == {"workspaceId": "w2", "paneId": "w2:p1"}
    assert "the panel stays open: workspace w2, pane w2:p1" in again["message"]
    assert rec.calls == [
        ["workspace", "create", "--cwd", str(repos / "plain"), "--no-focus"],
        start_argv("plain", "w2:p1"),
    ]
    workspaces = herdr_sim.ok("workspace.list")["workspaces"]
    assert [w["workspace_id"] for w in workspaces] == ["w1", "w2"]  # the panel herdr made
    assert herdr_sim.ok("pane.get", pane_id="w2:p1")["pane"].get("agent") is None
    other, _ = opener("plain", name="second")  # another name: a second agent, as asked
    assert other["ok"] and other["details"]["workspaceId"] == "w3"


def test_a_worktree_branch_is_sanitized_into_the_default_name():
    assert O.default_agent_name("/x/wt", "Feature/Login_Page") == "feature-login_page"
    assert O.default_agent_name("/x/wt", "123/") == "agent"
    assert O.default_agent_name("/x/My Dir", None) == "my-dir"


def test_agent_start_failure_names_the_panel(herdr_sim, opener, repos):
    from simherdr.scenarios.faults import ErrorReply

    herdr_sim.run(
        lambda sim: sim.faults.add(ErrorReply(method="agent.start", code="agent_pane_busy"))
    )
    result, rec = opener("plain")
    assert result["ok"] is False and result["code"] == "agent-start-failed"
    assert result["herdrErrorCode"] == "agent_pane_busy"
    assert result["panel"] == {"workspaceId": "w1", "paneId": "w1:p1"}
    assert "the panel stays open: workspace w1, pane w1:p1" in result["message"]


def test_sync_entry_for_threaded_code(herdr_sim, repos):
    result = O.open_session_sync(
        OpenRequest("plain", notify=False),
        cwd=str(repos),
        env=herdr_sim.env,
        herdr_bin=herdr_sim.stub,
        new_session_id=lambda: SID,
    )
    assert result["ok"] is True and result["details"]["notify"] is False and "watch" not in result
