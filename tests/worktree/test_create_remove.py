"""worktree.create / worktree.remove over real git (SOCKET.md §9.4), in-process."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess

from simherdr.facts.versions import resolve
from simherdr.testing import Harness
from tests import gitrepos as G
from tests import herdr_reference as ref

from .helpers import events, git, kinds, run

OPEN_EVENTS = ["workspace_created", "tab_created", "pane_created", "layout_updated"]
FOCUS = ["workspace_focused", "tab_focused", "pane_focused"]


def _branch_exists(repo, branch) -> bool:
    return (
        subprocess.run(
            ["git", "-C", str(repo), "show-ref", "--verify", "--quiet", f"refs/heads/{branch}"],
            stdin=subprocess.DEVNULL,
        ).returncode
        == 0
    )


# --- create ------------------------------------------------------------------------------------


def test_create_from_parent_workspace(h, repo, base):
    h.ok("workspace.create", cwd=str(repo))
    mark = h.sim.hub.seq
    path = base / "wt-one"
    r = h.ok("worktree.create", workspace_id="w1", branch="  topic  ", path=str(path))
    assert r["type"] == "worktree_created"
    assert (path / "README.md").exists()
    assert git(path, "branch", "--show-current").strip() == "topic"  # trimmed
    assert r["workspace"]["workspace_id"] == "w2" and r["workspace"]["focused"] is False
    assert r["workspace"]["label"] == "wt-one"
    assert r["workspace"]["worktree"] == {
        "repo_key": str(repo / ".git"),
        "repo_name": "proj",
        "repo_root": str(repo),
        "checkout_path": str(path),
        "is_linked_worktree": True,
    }
    assert r["tab"]["tab_id"] == "w2:t1" and r["root_pane"]["cwd"] == str(path)
    assert r["worktree"] == {
        "path": str(path),
        "branch": "topic",
        "is_bare": False,
        "is_detached": False,
        "is_prunable": False,
        "is_linked_worktree": True,
        "open_workspace_id": "w2",
        "label": "proj",
    }
    evs = events(h, mark)
    assert [k for k, _ in evs] == ["workspace_updated"] + OPEN_EVENTS + ["worktree_created"]
    assert evs[0][1]["workspace"]["workspace_id"] == "w1"
    assert evs[1][1]["workspace"]["worktree"]["is_linked_worktree"] is True
    assert evs[-1][1] == {
        "type": "worktree_created",
        "workspace": r["workspace"],
        "worktree": r["worktree"],
    }
    listed = h.ok("worktree.list", workspace_id="w1")["worktrees"]
    assert [e.get("open_workspace_id") for e in listed] == ["w1", "w2"]


def test_create_default_path_generated_branch_and_implicit_parent(h, repo, home):
    r = h.ok("worktree.create", cwd=str(repo), focus=True)
    branch = r["worktree"]["branch"]
    assert re.fullmatch(
        r"worktree/(brave|calm|clear|green|lucky|quiet|rapid|silver)-"
        r"(river|cloud|field|forest|harbor|meadow|stone|valley)-[0-9a-f]{4}",
        branch,
    )
    slug = branch.replace("/", "-")
    assert r["worktree"]["path"] == os.path.join(home, ".herdr", "worktrees", "proj", slug)
    assert os.path.isdir(r["worktree"]["path"])
    assert r["workspace"]["workspace_id"] == "w2" and r["workspace"]["focused"] is True
    parent = h.ok("workspace.get", workspace_id="w1")["workspace"]
    assert parent["worktree"]["is_linked_worktree"] is False
    # Parent open events (with membership), target open events, worktree_created, focus on w2
    # (the parent was focused inside the same batch, so only the final pair is announced).
    evs = events(h)
    assert [k for k, _ in evs] == OPEN_EVENTS + OPEN_EVENTS + ["worktree_created"] + FOCUS
    assert evs[0][1]["workspace"]["worktree"]["is_linked_worktree"] is False
    assert evs[-3][1] == {"type": "workspace_focused", "workspace_id": "w2"}


def test_create_checks_out_an_existing_branch_and_uses_base(h, repo, base):
    git(repo, "branch", "existing")
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    first = git(repo, "rev-parse", "HEAD~1").strip()
    h.ok("worktree.create", cwd=str(repo), branch="existing", path=str(base / "a"))
    assert git(base / "a", "branch", "--show-current").strip() == "existing"
    h.ok("worktree.create", cwd=str(repo), branch="from-base", base="HEAD~1", path=str(base / "b"))
    assert git(base / "b", "rev-parse", "HEAD").strip() == first


def test_create_uses_configured_worktrees_directory(h, repo, home):
    h.sim.config.worktrees_dir = "~/trees"
    r = h.ok("worktree.create", cwd=str(repo), branch="Feature/Big-_Thing.2")
    assert r["worktree"]["path"] == os.path.join(home, "trees", "proj", "feature-big-thing-2")


def test_create_reuses_a_workspace_already_at_the_path(h, repo, base):
    path = base / "prepared"
    path.mkdir()  # git worktree add accepts an empty directory
    h.ok("workspace.create", cwd=str(repo))
    h.ok("workspace.create", cwd=str(path))
    mark = h.sim.hub.seq
    r = h.ok(
        "worktree.create",
        workspace_id="w1",
        branch="prep",
        path=str(path),
        label="renamed",
        focus=True,
    )
    assert r["workspace"]["workspace_id"] == "w2" and r["workspace"]["label"] == "renamed"
    assert r["workspace"]["focused"] is True
    # Membership changes emit workspace_updated; the label emits no workspace_renamed.
    assert kinds(h, mark) == ["workspace_updated", "workspace_updated", "worktree_created"] + FOCUS
    assert len(h.ok("workspace.list")["workspaces"]) == 2


def test_create_errors_in_check_order(h, repo, linked, base, plain_dir):
    # The blank branch comes before the source errors.
    assert h.err("worktree.create", workspace_id="w1", cwd="x", branch="  ") == {
        "code": "invalid_request",
        "message": "branch is required",
    }
    assert h.err("worktree.create", workspace_id="w1", cwd="x")["message"] == (
        "only one of workspace_id or cwd may be supplied"
    )
    assert h.err("worktree.create", branch="b")["message"] == (
        "workspace_id or cwd is required when no workspace is active"
    )
    assert h.err("worktree.create", cwd=str(plain_dir))["code"] == "not_git_worktree"
    assert h.err("worktree.create", cwd=str(linked))["code"] == "linked_worktree_source"
    assert h.err("worktree.create", cwd=str(repo), path="rel/path") == {
        "code": "invalid_request",
        "message": "worktree path must be absolute",
    }
    # Git refuses: a branch checked out elsewhere. The message is git's.
    e = h.err("worktree.create", cwd=str(repo), branch="feature", path=str(base / "dup"))
    assert e["code"] == "worktree_create_failed" and "already checked out" in e["message"]
    # A failed create leaves nothing pending: the retry reaches git again.
    e2 = h.err("worktree.create", cwd=str(repo), branch="feature", path=str(base / "dup"))
    assert e2["code"] == "worktree_create_failed"
    assert h.ok("workspace.list")["workspaces"] == []


def test_concurrent_operations_on_one_checkout(h, repo, base, gate):
    path = str(base / "busy")
    h.ok("workspace.create", cwd=str(repo))
    task = h.spawn("worktree.create", workspace_id="w1", branch="busy", path=path)
    assert gate.entered.wait(10) and not task.done()
    # Other requests are served meanwhile; the same checkout is busy.
    assert len(h.ok("workspace.list")["workspaces"]) == 1
    busy = {
        "code": "worktree_operation_in_progress",
        "message": "worktree operation is already in progress for this checkout",
    }
    assert h.err("worktree.create", workspace_id="w1", branch="other", path=path) == busy
    gate.release.set()
    created = run(h, task)
    assert created["result"]["workspace"]["workspace_id"] == "w2"
    # Now a pending remove blocks another remove and a create at the same checkout.
    gate.release.clear()
    gate.entered.clear()
    removing = h.spawn("worktree.remove", workspace_id="w2")
    assert gate.entered.wait(10)
    assert h.err("worktree.remove", workspace_id="w2") == busy
    assert h.err("worktree.create", workspace_id="w1", branch="again", path=path) == busy
    gate.release.set()
    assert run(h, removing)["result"]["type"] == "worktree_removed"


# --- remove ------------------------------------------------------------------------------------


def _made(h, repo, base, name="wt", focus=False):
    if not h.ok("workspace.list")["workspaces"]:
        h.ok("workspace.create", cwd=str(repo))
    return h.ok(
        "worktree.create", workspace_id="w1", branch=name, path=str(base / name), focus=focus
    )


def _opened(h, repo, base, name="wt"):
    """w2: the linked checkout ``<base>/<name>`` (branch ``name``) made beforehand (replayed by
    tests/gitrepos.py, no git worktree add) and opened from w1 at ``repo``: what a remove test
    needs of a worktree; test_remove_clean_checkout removes one made by worktree.create."""
    h.ok("workspace.create", cwd=str(repo))
    G.make_linked(repo, base, name, name)
    return h.ok("worktree.open", workspace_id="w1", path=str(base / name))


def test_remove_clean_checkout(h, repo, base):
    made = _made(h, repo, base, focus=True)
    snapshot = h.ok("workspace.get", workspace_id="w2")["workspace"]
    mark = h.sim.hub.seq
    r = h.ok("worktree.remove", workspace_id="w2")
    assert r == {
        "type": "worktree_removed",
        "workspace_id": "w2",
        "path": str(base / "wt"),
        "forced": False,
    }
    assert not (base / "wt").exists()
    assert _branch_exists(repo, "wt")  # the branch is never deleted
    evs = events(h, mark)
    assert [k for k, _ in evs] == ["workspace_closed", "worktree_removed"] + FOCUS
    assert evs[0][1] == {"type": "workspace_closed", "workspace_id": "w2", "workspace": snapshot}
    assert evs[1][1] == {
        "type": "worktree_removed",
        "workspace_id": "w2",
        "workspace": snapshot,
        "worktree": {k: v for k, v in made["worktree"].items() if k != "open_workspace_id"},
        "forced": False,
    }
    # The removed workspace was active: focus goes to the parent.
    assert evs[2][1] == {"type": "workspace_focused", "workspace_id": "w1"}
    assert [w["workspace_id"] for w in h.ok("workspace.list")["workspaces"]] == ["w1"]


def test_remove_dirty_needs_force(h, repo, base):
    _opened(h, repo, base)
    (base / "wt" / "scratch.txt").write_text("untracked\n")
    e = h.err("worktree.remove", workspace_id="w2")
    assert e["code"] == "dirty_worktree_requires_force"
    assert "contains modified or untracked files" in e["message"]
    assert (base / "wt" / "scratch.txt").exists()
    assert h.ok("workspace.get", workspace_id="w2")["workspace"]["worktree"]["is_linked_worktree"]
    r = h.ok("worktree.remove", workspace_id="w2", force=True)
    assert r["forced"] is True and not (base / "wt").exists()
    assert h.err("workspace.get", workspace_id="w2")["code"] == "workspace_not_found"


def test_remove_other_git_failure(h, repo, base):
    _opened(h, repo, base)
    git(repo, "worktree", "lock", str(base / "wt"))
    e = h.err("worktree.remove", workspace_id="w2")
    assert e["code"] == "worktree_remove_failed" and "locked" in e["message"]


def test_remove_refusals(h, repo, base, plain_dir):
    assert h.err("worktree.remove", workspace_id="wZ") == {
        "code": "workspace_not_found",
        "message": "workspace wZ not found",
    }
    # A positional id out of range parses, then finds no workspace membership.
    assert h.err("worktree.remove", workspace_id="9") == {
        "code": "not_linked_worktree",
        "message": "workspace is not a Herdr-managed worktree checkout",
    }
    h.ok("workspace.create", cwd=str(plain_dir))
    assert h.err("worktree.remove", workspace_id="w1")["message"] == (
        "workspace is not a Herdr-managed worktree checkout"
    )
    h.ok("worktree.create", cwd=str(repo), branch="x", path=str(base / "x"))
    parent = next(
        w
        for w in h.ok("workspace.list")["workspaces"]
        if w.get("worktree", {}).get("is_linked_worktree") is False
    )
    assert h.err("worktree.remove", workspace_id=parent["workspace_id"]) == {
        "code": "not_linked_worktree",
        "message": "workspace is not a linked worktree checkout",
    }


def test_background_remove_keeps_focus_and_tag_profile_moves_it(version, config, repo, base):
    """HEAD / 0.9: a background removal keeps focus. The v0.8.2 *tag* always focused the parent
    (profile switch worktree_remove_focus_parent_only_if_active)."""
    for only_if_active, expected in ((True, "w3"), (False, "w1")):
        v = resolve(version)
        herdr = dataclasses.replace(
            v,
            rows=dataclasses.replace(
                v.rows, worktree_remove_focus_parent_only_if_active=only_if_active
            ),
        )
        config.worktrees_dir = str(base / f"trees-{only_if_active}")
        with Harness(herdr, config=config, validator=ref.validator(version)) as h:
            h.ok("workspace.create", cwd=str(repo))
            h.ok("worktree.create", workspace_id="w1", branch=f"bg-{only_if_active}")
            h.ok("workspace.create", cwd=str(base), focus=True)  # w3 active
            h.ok("worktree.remove", workspace_id="w2")
            focused = [
                w["workspace_id"] for w in h.ok("workspace.list")["workspaces"] if w["focused"]
            ]
            assert focused == [expected]


def test_remove_after_the_workspace_closed_meanwhile(h, repo, base, gate):
    gate.release.set()
    _made(h, repo, base)
    gate.release.clear()
    gate.entered.clear()
    task = h.spawn("worktree.remove", workspace_id="w2")
    assert gate.entered.wait(10)
    h.ok("workspace.close", workspace_id="w2")
    mark = h.sim.hub.seq
    gate.release.set()
    reply = run(h, task)
    assert reply["result"] == {
        "type": "worktree_removed",
        "workspace_id": "w2",
        "path": str(base / "wt"),
        "forced": False,
    }
    assert kinds(h, mark) == ["worktree_removed"]  # no workspace_closed: it is already gone


def test_remove_then_list_shows_the_branch_free(h, repo, base):
    _opened(h, repo, base)
    h.ok("worktree.remove", workspace_id="w2")
    assert [e["path"] for e in h.ok("worktree.list", workspace_id="w1")["worktrees"]] == [str(repo)]
    # The branch survived, so the same create checks it out again.
    again = h.ok("worktree.create", workspace_id="w1", branch="wt", path=str(base / "wt"))
    assert again["worktree"]["branch"] == "wt"
