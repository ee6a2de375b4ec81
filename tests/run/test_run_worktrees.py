"""`simherdr run` and the user's repositories (issue 33 item 2): herdr's worktrees go to
``~/.herdr/worktrees`` (src/config/model.rs:1096), and the server's HOME is the run's private
root; a worktree created in the user's repository must not be left pointing into the removed
root, nor the branch the run made for it. Workspaces without ``--cwd`` open in the server's
HOME (herdr's rule, src/app/creation.rs:13-31), the private one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from tests.gitrepos import NO_AUTO_MAINTENANCE
from tests.run.test_run import simherdr_run

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

GIT = ["git", *NO_AUTO_MAINTENANCE, "-c", "user.email=t@example.com", "-c", "user.name=t"]

SCRIPT = r"""
set -e
echo "$SIMHERDR_RUN_ROOT" > "$1/root"
herdr workspace create > "$1/bare.json"
herdr workspace create --cwd "$2" >/dev/null
herdr worktree create --workspace w2 --branch feat >/dev/null
herdr worktree create --workspace w2 --branch kept > "$1/kept.json"
herdr worktree create --workspace w2 --branch old >/dev/null
kept=$("$3" -S -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"]["worktree"]["path"])' "$1/kept.json")
git -C "$kept" -c maintenance.auto=false -c user.email=t@example.com -c user.name=t commit -q --allow-empty -m mine
git -C "$2" worktree list --porcelain > "$1/during.txt"
"""


def _git(repo, *args, env=None):
    return subprocess.run(
        [*GIT, "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env
    ).stdout


def test_no_worktree_of_the_users_repository_points_into_the_removed_root(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "--template=", "-b", "main")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "init")
    # the user's own branch (made an hour ago), checked out by the suite
    _git(
        repo,
        "branch",
        "old",
        env=dict(os.environ, GIT_COMMITTER_DATE="@%d +0000" % (time.time() - 3600)),
    )
    out = tmp_path / "out"
    out.mkdir()
    script = tmp_path / "suite.sh"
    script.write_text(SCRIPT)
    # $3: this interpreter (a `python3` on PATH may be a version manager's shell shim)
    p = simherdr_run("--", "sh", str(script), str(out), str(repo), sys.executable, cwd=str(repo))
    assert p.returncode == 0, p.stderr
    root = (out / "root").read_text().strip()
    during = (out / "during.txt").read_text()
    assert during.count("worktree ") == 4 and root in during  # they were under the root
    import json

    bare = json.loads((out / "bare.json").read_text())["result"]["root_pane"]
    assert bare["cwd"] == os.path.join(root, "home")  # the server's (private) HOME
    assert not os.path.exists(root)
    listed = _git(repo, "worktree", "list", "--porcelain")
    assert listed.count("worktree ") == 1 and "prunable" not in listed
    branches = set(_git(repo, "branch", "--format=%(refname:short)").split())
    # feat: made by the run, no commits of its own -> gone; kept: the run's commit on it;
    # old: the user's
    assert branches == {"main", "old", "kept"}
    assert "kept branch kept in %s: the run made it and committed on it" % repo in p.stderr
