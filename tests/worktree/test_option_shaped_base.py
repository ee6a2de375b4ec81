"""Issue 14 item 6: an option-shaped ``base`` never reaches git as an option."""

from __future__ import annotations

import subprocess

import pytest

pytestmark = pytest.mark.hostile


def _worktrees(repo) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "worktree", "list", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.mark.parametrize("opt", ["--lock", "--no-checkout", "--force", "-f", "--detach"])
def test_option_shaped_base_is_refused_before_git_runs(h, repo, opt, tmp_path):
    h.ok("workspace.create", cwd=str(repo))
    before = _worktrees(repo)
    path = tmp_path / "wt-opt"
    err = h.err("worktree.create", workspace_id="w1", branch="topic", base=opt, path=str(path))
    assert err == {"code": "worktree_create_failed", "message": f"fatal: invalid reference: {opt}"}
    assert _worktrees(repo) == before  # no worktree, locked or otherwise
    assert not path.exists()
    branches = subprocess.run(
        ["git", "-C", str(repo), "branch", "--list", "topic"], capture_output=True, text=True
    ).stdout
    assert branches == ""


def test_an_ordinary_base_still_works(h, repo, tmp_path):
    h.ok("workspace.create", cwd=str(repo))
    r = h.ok(
        "worktree.create",
        workspace_id="w1",
        branch="topic",
        base="main",
        path=str(tmp_path / "wt-ok"),
    )
    assert r["type"] == "worktree_created"
    assert "locked" not in _worktrees(repo)
