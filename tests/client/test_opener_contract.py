"""Flow A pieces that a stateful herdr cannot be made to produce (two workspaces claiming one
worktree, garbled replies, a pane reporting another workspace) plus the pure rules: allowlist,
name sanitizer, containment, git classification edge cases (with a fake git)."""

from __future__ import annotations

import os
import shlex

import pytest
from simherdr_client import opener as O
from simherdr_client.opener import OpenRequest, checked_argv, open_session
from simherdr_client.runner import RunResult

from tests.client import scripted as S
from tests.client.helpers import run, write_exe

SID = "33333333-2222-4333-8444-555555555555"


@pytest.fixture
def plain(tmp_path):
    d = tmp_path / "plain"
    d.mkdir()
    return d


def fake_git(tmp_path, body):
    return write_exe(tmp_path / "git", "import os, sys\n" + body)


def fake_sh_git(tmp_path, body):
    """A fake git as a shell script: no interpreter start (~1 ms of CPU a run, not ~10)."""
    path = tmp_path / "git"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def git_says_worktree(tmp_path, checkout):
    """A fake git that classifies ``checkout`` as a linked worktree (no real repository needed)."""
    common = tmp_path / "common.git"
    gitdir = common / "worktrees" / "x"
    gitdir.mkdir(parents=True, exist_ok=True)
    lines = " ".join(shlex.quote(str(p)) for p in (checkout, common, gitdir))
    return fake_sh_git(
        tmp_path,
        f"""
if [ "$1" = rev-parse ]; then printf '%s\\n' {lines}; exit 0; fi
echo feat
""",
    )


def opened(script, path, tmp_path, git_bin="git", **kw):
    return run(
        open_session(
            OpenRequest(str(path), **kw),
            cwd=str(tmp_path),
            env={"PATH": os.environ["PATH"]},
            runner=script,
            git_bin=git_bin,
            new_session_id=lambda: SID,
        )
    )


def wt_list(*entries):
    return S.ok(
        "cli:worktree:list",
        {
            "source": {
                "repo_key": "k",
                "repo_name": "r",
                "repo_root": "/r",
                "source_checkout_path": "/r",
            },
            "type": "worktree_list",
            "worktrees": list(entries),
        },
    )


def entry(path, ws=None):
    e = {
        "path": str(path),
        "branch": "feat",
        "is_bare": False,
        "is_detached": False,
        "is_prunable": False,
        "is_linked_worktree": True,
        "label": "r",
    }
    if ws:
        e["open_workspace_id"] = ws
    return e


def ws_created(pane_id="w2:p1", cwd="/", workspace_id="w2", **root):
    p = S.pane(pane_id, "term_x", workspace_id, workspace_id + ":t1", cwd=cwd, **root)
    return S.ok(
        "cli:workspace:create",
        {
            "root_pane": {k: v for k, v in p.items() if v is not None},
            "tab": {"tab_id": workspace_id + ":t1", "workspace_id": workspace_id},
            "type": "workspace_created",
            "workspace": {"workspace_id": workspace_id},
        },
    )


PI_STARTED = S.ok(
    "cli:agent:start",
    {
        "agent": {"pane_id": "w2:p1", "terminal_id": "term_x", "agent": "pi"},
        "argv": ["pi"],
        "type": "agent_started",
    },
)


# --- the allowlist ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["worktree", "list", "--cwd", "/x"],
        ["worktree", "open", "--path", "/x", "--no-focus"],
        ["workspace", "create", "--cwd", "/x", "--no-focus"],
        ["pane", "list", "--workspace", "w1"],
        [
            "agent",
            "start",
            "n",
            "--kind",
            "pi",
            "--pane",
            "w1:p1",
            "--timeout",
            "120000",
            "--",
            "--name",
            "n",
            "--focus",
            "--trust-repository",
        ],
        ["agent", "get", "w1:p1"],
    ],
)
def test_allowlist_accepts_exactly_the_documented_operations(argv):
    assert checked_argv(argv) == argv


@pytest.mark.parametrize(
    "argv",
    [
        ["worktree", "open", "--path", "/x", "--trust-repository"],
        ["worktree", "open", "--path", "/x", "--focus"],
        ["workspace", "create", "--cwd", "/x", "--focus"],
        ["workspace", "create", "--label", "x"],
        ["agent", "start", "n", "--kind", "pi", "--pane", "p", "--focus"],
        ["tab", "create"],
        ["pane", "close", "w1:p1"],
        ["agent", "list"],
        ["worktree", "remove", "--workspace", "w1"],
        ["agent", "get"],
        ["agent", "get", "a", "b"],
        ["pane", "list", "--workspace"],
        ["worktree", "list", "--cwd", "/x", "--", "y"],
        ["agent"],
    ],
)
def test_allowlist_throws_on_anything_else(argv):
    with pytest.raises(O.AllowlistError):
        checked_argv(argv)


# --- pure rules ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "base,name",
    [
        ("plain", "plain"),
        ("My Repo.v2", "my-repo-v2"),
        ("123abc", "abc"),
        ("---", "agent"),
        ("", "agent"),
        ("ünïcode", "n-code"),
        ("a" * 40, "a" * 32),
        ("x" + "-" * 40, "x"),
        ("snake_case-ok", "snake_case-ok"),
    ],
)
def test_default_name_sanitizer(base, name):
    got = O.default_agent_name("/some/where/" + base)
    assert got == name
    assert O.AGENT_NAME_RE.fullmatch(got)


def test_containment_is_component_wise():
    assert O.is_within("/x/repo", "/x/repo") and O.is_within("/x/repo/a/b", "/x/repo")
    assert not O.is_within("/x/repo-other", "/x/repo") and not O.is_within("/x", "/x/repo")


def test_requested_spelling_is_absolute_and_lexically_normal():
    assert O.requested_spelling("a/../b/", "/cwd") == "/cwd/b"
    assert O.requested_spelling("/abs//x/./y/", "/cwd") == "/abs/x/y"
    assert O.requested_spelling("//x", "/") == "/x"


def test_session_uuid_from_a_pi_session_path():
    v = "/h/.pi/agent/sessions/2026-09-14T05-17-03-979Z_0b0c5e1f-aaaa-4bbb-8ccc-123456789abc.jsonl"
    assert O.session_uuid(v) == "0b0c5e1f-aaaa-4bbb-8ccc-123456789abc"
    assert (
        O.session_uuid("0b0c5e1f-aaaa-4bbb-8ccc-123456789abc")
        == "0b0c5e1f-aaaa-4bbb-8ccc-123456789abc"
    )
    assert O.session_uuid("") is None and O.session_uuid(None) is None


# --- git classification edge cases (fake git) ----------------------------------------------------------


def test_git_that_cannot_name_its_directories_is_unproven(tmp_path, plain):
    git = fake_sh_git(
        tmp_path, f"printf '%s\\n' {shlex.quote(str(plain))} /nonexistent/common .git\n"
    )
    never = S.NeverRun()
    result = opened(never, plain, tmp_path, git_bin=git)
    assert result["code"] == "kind-unproven" and never.calls == []


@pytest.mark.parametrize(
    "body",
    [
        "sys.stderr.write('fatal: detected dubious ownership in repository\\n'); sys.exit(128)\n",
        "print('/only/one/line')\n",
    ],
)
def test_other_git_failures_are_unproven(tmp_path, plain, body):
    never = S.NeverRun()
    assert (
        opened(never, plain, tmp_path, git_bin=fake_git(tmp_path, body))["code"] == "kind-unproven"
    )
    assert never.calls == []


def test_missing_git_is_unproven(tmp_path, plain):
    assert (
        opened(S.NeverRun(), plain, tmp_path, git_bin=str(tmp_path / "no-git"))["code"]
        == "kind-unproven"
    )


def test_git_runs_with_a_fixed_argv_in_the_canonical_path_and_a_clean_env(tmp_path, plain):
    log = tmp_path / "git.log"
    git = fake_git(
        tmp_path,
        f"""
import json
open({str(log)!r}, 'a').write(json.dumps([sys.argv[1:], os.getcwd(), os.environ.get('GIT_DIR'),
                                         os.environ.get('LC_ALL')]) + '\\n')
sys.stderr.write('fatal: not a git repository (or any of the parent directories): .git\\n'); sys.exit(128)
""",
    )
    link = tmp_path / "link"
    os.symlink(plain, link)
    script = S.OpenerScript(ws_created(cwd=str(plain)), PI_STARTED)
    result = run(
        open_session(
            OpenRequest(str(link)),
            cwd="/",
            env={"PATH": os.environ["PATH"], "GIT_DIR": "/evil"},
            runner=script,
            git_bin=git,
            new_session_id=lambda: SID,
        )
    )
    assert result["ok"] is True and result["details"]["kind"] == "generic"
    import json

    assert [json.loads(line) for line in log.read_text().splitlines()] == [
        [["rev-parse", "--show-toplevel", "--git-common-dir", "--git-dir"], str(plain), None, "C"]
    ]


# --- step 2 and 3 with scripted herdr ------------------------------------------------------------------


def test_two_workspaces_claiming_the_worktree_fail_closed(tmp_path, plain):
    git = git_says_worktree(tmp_path, plain)
    script = S.OpenerScript(
        wt_list(entry(plain, "w2"), entry(tmp_path / "other", "w9"), entry(plain, "w3"))
    )
    result = opened(script, plain, tmp_path, git_bin=git)
    assert result["code"] == "worktree-claimed-twice"
    assert script.calls == [["worktree", "list", "--cwd", str(plain)]]


def test_same_workspace_claiming_twice_is_one_claim(tmp_path, plain):
    git = git_says_worktree(tmp_path, plain)
    panes = S.ok(
        "cli:pane:list",
        {"panes": [S.pane("w2:p1", "t", "w2", "w2:t1", cwd=str(plain))], "type": "pane_list"},
    )
    script = S.OpenerScript(wt_list(entry(plain, "w2"), entry(plain, "w2")), panes, PI_STARTED)
    result = opened(script, plain, tmp_path, git_bin=git)
    assert result["ok"] is True and dict(result["rows"])["outcome"] == "reused"


def test_failed_open_with_a_double_claim_on_the_fresh_list_fails_closed(tmp_path, plain):
    git = git_says_worktree(tmp_path, plain)
    script = S.OpenerScript(
        wt_list(entry(plain)),
        S.err("cli:worktree:open", "worktree_open_failed"),
        wt_list(entry(plain, "w2"), entry(plain, "w3")),
    )
    result = opened(script, plain, tmp_path, git_bin=git)
    assert result["code"] == "worktree-claimed-twice"
    assert [c[:2] for c in script.calls] == [
        ["worktree", "list"],
        ["worktree", "open"],
        ["worktree", "list"],
    ]


def test_failed_open_and_failed_relist_is_herdr_failed_with_the_opens_code(tmp_path, plain):
    git = git_says_worktree(tmp_path, plain)
    script = S.OpenerScript(
        wt_list(entry(plain)),
        S.err("cli:worktree:open", "worktree_open_failed"),
        S.err("cli:worktree:list", "worktree_list_failed"),
    )
    result = opened(script, plain, tmp_path, git_bin=git)
    assert (result["code"], result["herdrErrorCode"]) == ("herdr-failed", "worktree_open_failed")
    assert len(script.calls) == 3


@pytest.mark.parametrize(
    "reply", [RunResult(0, "garbled", ""), S.ok("cli:worktree:list", {"type": "worktree_list"})]
)
def test_unparsable_list_is_refused(tmp_path, plain, reply):
    git = git_says_worktree(tmp_path, plain)
    assert (
        opened(S.OpenerScript(reply), plain, tmp_path, git_bin=git)["code"]
        == "herdr-reply-unparsable"
    )


def test_unparsable_create_reply(tmp_path, plain):
    script = S.OpenerScript(RunResult(0, "{", ""))
    assert opened(script, plain, tmp_path)["code"] == "herdr-reply-unparsable"


@pytest.mark.parametrize(
    "reply,code",
    [
        (
            S.ok(
                "cli:workspace:create",
                {"type": "workspace_created", "workspace": {"workspace_id": "w2"}},
            ),
            "pane-missing",
        ),
        ("reported-workspace", "pane-workspace-mismatch"),
        ("no-prefix", "pane-workspace-mismatch"),
        ("sibling-cwd", "pane-cwd-outside"),
        ("no-cwd", "pane-cwd-outside"),
    ],
)
def test_pane_verification_refusals_name_the_panel(tmp_path, plain, reply, code):
    replies = {
        "reported-workspace": ws_created(cwd=str(plain), workspace_id="w2"),
        "no-prefix": ws_created(pane_id="p1", cwd=str(plain)),
        "sibling-cwd": ws_created(cwd=str(plain) + "-other"),
        "no-cwd": ws_created(cwd=None),
    }
    r = replies.get(reply, reply)
    if reply == "reported-workspace":  # prefix w2 matches, the pane reports w9
        r = S.ok(
            "cli:workspace:create",
            {
                "root_pane": S.pane("w2:p1", "t", "w9", "w9:t1", cwd=str(plain)),
                "type": "workspace_created",
                "workspace": {"workspace_id": "w2"},
            },
        )
    script = S.OpenerScript(r)
    result = opened(script, plain, tmp_path)
    assert result["code"] == code and result["panel"]["workspaceId"] == "w2"
    assert len(script.calls) == 1  # nothing started, never a second panel


def test_reused_workspace_prefers_a_free_verified_pane(tmp_path, plain):
    git = git_says_worktree(tmp_path, plain)
    panes = S.ok(
        "cli:pane:list",
        {
            "type": "pane_list",
            "panes": [
                S.pane("w2:p1", "t1", "w2", "w2:t1", cwd="/elsewhere"),
                S.pane("w2:p2", "t2", "w2", "w2:t1", cwd=str(plain), agent="pi"),
                S.pane(
                    "w2:p3",
                    "t3",
                    "w2",
                    "w2:t1",
                    cwd=str(plain / "sub") if (plain / "sub").mkdir() is None else "",
                ),
            ],
        },
    )
    script = S.OpenerScript(wt_list(entry(plain, "w2")), panes, PI_STARTED)
    result = opened(script, plain, tmp_path, git_bin=git)
    assert script.calls[2][6] == "w2:p3" and result["details"]["paneId"] == "w2:p3"


def test_reused_workspace_without_a_passing_pane_is_refused(tmp_path, plain):
    git = git_says_worktree(tmp_path, plain)
    panes = S.ok(
        "cli:pane:list",
        {"type": "pane_list", "panes": [S.pane("w2:p1", "t1", "w2", "w2:t1", cwd="/elsewhere")]},
    )
    script = S.OpenerScript(wt_list(entry(plain, "w2")), panes)
    result = opened(script, plain, tmp_path, git_bin=git)
    assert result["code"] == "pane-cwd-outside" and result["panel"] == {
        "workspaceId": "w2",
        "paneId": "w2:p1",
    }
    empty = S.OpenerScript(
        wt_list(entry(plain, "w2")), S.ok("cli:pane:list", {"type": "pane_list", "panes": []})
    )
    assert opened(empty, plain, tmp_path, git_bin=git)["code"] == "pane-missing"


def test_unparsable_start_reply_names_the_panel(tmp_path, plain):
    script = S.OpenerScript(ws_created(cwd=str(plain)), RunResult(0, "", ""))
    result = opened(script, plain, tmp_path)
    assert result["code"] == "herdr-reply-unparsable" and result["panel"] == {
        "workspaceId": "w2",
        "paneId": "w2:p1",
    }


# --- issue 25 item 5: the call sequence with a stub that answers every `agent get` ---------------

PANEL_CALLS = (["workspace", "create"], ["worktree", "list"], ["worktree", "open"])


def _refusal_case(case, tmp_path, plain):
    """(script, path, kwargs for opened) for one row of CLIENTS.md §2.8's refusal table."""
    wt_git = git_says_worktree(tmp_path, plain)
    no_git = str(tmp_path / "no-git")
    taken = S.err("cli:agent:start", "agent_name_taken", "agent name plain is already taken")
    return {
        "path-missing": ([], tmp_path / "nope", {}),
        "path-not-directory": ([], tmp_path / "f", {}),
        "agent-name-invalid": ([], plain, {"name": "Bad Name"}),
        "kind-unproven": ([], plain, {"git_bin": no_git}),
        "worktree-claimed-twice": (
            [wt_list(entry(plain, "w2"), entry(plain, "w3"))],
            plain,
            {"git_bin": wt_git},
        ),
        "herdr-failed": ([S.err("cli:workspace:create", "workspace_create_failed")], plain, {}),
        "herdr-reply-unparsable": ([RunResult(0, "{", "")], plain, {}),
        "pane-missing": (
            [
                S.ok(
                    "cli:workspace:create",
                    {"type": "workspace_created", "workspace": {"workspace_id": "w2"}},
                )
            ],
            plain,
            {},
        ),
        "pane-workspace-mismatch": ([ws_created(pane_id="w9:p1", cwd=str(plain))], plain, {}),
        "pane-cwd-outside": ([ws_created(cwd="/elsewhere")], plain, {}),
        "agent-start-failed": ([ws_created(cwd=str(plain)), taken], plain, {}),
    }[case]


@pytest.mark.parametrize(
    "case",
    [
        "path-missing",
        "path-not-directory",
        "agent-name-invalid",
        "kind-unproven",
        "worktree-claimed-twice",
        "herdr-failed",
        "herdr-reply-unparsable",
        "pane-missing",
        "pane-workspace-mismatch",
        "pane-cwd-outside",
        "agent-start-failed",
    ],
)
def test_a_stub_answering_every_agent_get_changes_nothing_before_the_first_panel_call(
    tmp_path, plain, case
):
    """The source asks herdr nothing before its first panel call: with a stub that answers any
    `agent get` with a live agent of that name (the source's own tests' stub does), every row of
    the refusal table still refuses with its own code, and the first call is a panel call."""
    (tmp_path / "f").write_text("x")
    replies, path, kw = _refusal_case(case, tmp_path, plain)
    script = S.OpenerScript(*replies)
    result = opened(script, path, tmp_path, **kw)
    assert result["ok"] is False and result["code"] == case, result
    assert all(c[:2] != ["agent", "get"] for c in script.calls), script.calls
    if replies:
        assert script.calls[0][:2] in PANEL_CALLS, script.calls
    else:
        assert script.calls == []
    if case == "agent-start-failed":  # herdr's code, the panel it left named
        assert result["herdrErrorCode"] == "agent_name_taken"
        assert result["panel"] == {"workspaceId": "w2", "paneId": "w2:p1"}
        assert [c[:2] for c in script.calls] == [["workspace", "create"], ["agent", "start"]]


def test_a_stub_answering_every_agent_get_still_opens(tmp_path, plain):
    script = S.OpenerScript(ws_created(cwd=str(plain)), PI_STARTED)
    result = opened(script, plain, tmp_path)
    assert result["ok"] is True, result
    assert [c[:2] for c in script.calls] == [["workspace", "create"], ["agent", "start"]]
