"""worktree.open over real git (SOCKET.md §9.1, §9.3), in-process on both profiles."""

from __future__ import annotations

from .helpers import events, git, kinds

OPEN_EVENTS = ["workspace_created", "tab_created", "pane_created", "layout_updated"]


def test_open_with_no_workspace_creates_parent_and_target(h, repo, linked):
    r = h.ok("worktree.open", cwd=str(repo), path=str(linked))
    assert r["type"] == "worktree_opened" and r["already_open"] is False
    # Implicit parent w1 (the first workspace, so it is focused), then the target w2.
    ws = {w["workspace_id"]: w for w in h.ok("workspace.list")["workspaces"]}
    assert ws["w1"]["focused"] is True and ws["w2"]["focused"] is False
    assert ws["w1"]["label"] == "proj" and ws["w2"]["label"] == "proj-feature"
    assert ws["w1"]["worktree"] == {
        "repo_key": str(repo / ".git"),
        "repo_name": "proj",
        "repo_root": str(repo),
        "checkout_path": str(repo),
        "is_linked_worktree": False,
    }
    assert ws["w2"]["worktree"] == {
        "repo_key": str(repo / ".git"),
        "repo_name": "proj",
        "repo_root": str(repo),
        "checkout_path": str(linked),
        "is_linked_worktree": True,
    }
    assert r["workspace"] == ws["w2"]
    assert r["tab"]["tab_id"] == "w2:t1" and r["root_pane"]["pane_id"] == "w2:p1"
    assert r["root_pane"]["cwd"] == str(linked)
    assert r["worktree"] == {
        "path": str(linked),
        "branch": "feature",
        "is_bare": False,
        "is_detached": False,
        "is_prunable": False,
        "is_linked_worktree": True,
        "open_workspace_id": "w2",
        "label": "proj",
    }
    # Parent open events (with membership), target open events, worktree_opened, focus trio.
    evs = events(h)
    assert [k for k, _ in evs] == OPEN_EVENTS + OPEN_EVENTS + [
        "worktree_opened",
        "workspace_focused",
        "tab_focused",
        "pane_focused",
    ]
    assert evs[0][1]["workspace"]["worktree"]["is_linked_worktree"] is False
    assert evs[4][1]["workspace"]["worktree"]["is_linked_worktree"] is True
    assert evs[8][1] == {
        "type": "worktree_opened",
        "workspace": ws["w2"],
        "worktree": r["worktree"],
        "already_open": False,
    }


def test_open_from_existing_parent_marks_it_with_workspace_updated(h, repo, linked):
    h.ok("workspace.create", cwd=str(repo))
    mark = h.sim.hub.seq
    r = h.ok("worktree.open", path=str(linked), label="feat", focus=True)  # active = source
    assert r["workspace"]["workspace_id"] == "w2" and r["workspace"]["label"] == "feat"
    assert r["workspace"]["focused"] is True
    evs = events(h, mark)
    assert [k for k, _ in evs] == ["workspace_updated"] + OPEN_EVENTS + [
        "worktree_opened",
        "workspace_focused",
        "tab_focused",
        "pane_focused",
    ]
    assert evs[0][1]["workspace"]["workspace_id"] == "w1"
    assert evs[0][1]["workspace"]["worktree"]["is_linked_worktree"] is False
    assert evs[1][1]["workspace"]["label"] == "feat"  # a created workspace: no workspace_renamed
    # The parent already has the same membership: no second workspace_updated.
    mark = h.sim.hub.seq
    r = h.ok("worktree.open", workspace_id="w1", branch="feature")
    assert r["already_open"] is True and r["workspace"]["workspace_id"] == "w2"
    assert kinds(h, mark) == ["worktree_opened"]


def test_reopen_reuses_and_label_renames_with_event(h, repo, linked):
    h.ok("worktree.open", cwd=str(repo), path=str(linked))
    mark = h.sim.hub.seq
    r = h.ok("worktree.open", cwd=str(repo), path=str(linked), label="again", focus=True)
    assert r["already_open"] is True and r["workspace"]["workspace_id"] == "w2"
    assert r["workspace"]["label"] == "again" and r["workspace"]["focused"] is True
    evs = events(h, mark)
    assert [k for k, _ in evs] == [
        "workspace_renamed",
        "worktree_opened",
        "workspace_focused",
        "tab_focused",
        "pane_focused",
    ]
    assert evs[0][1] == {"type": "workspace_renamed", "workspace_id": "w2", "label": "again"}
    assert evs[1][1]["already_open"] is True
    assert len(h.ok("workspace.list")["workspaces"]) == 2


def test_existing_plain_workspace_gets_membership_first_in_sidebar_wins(h, repo, linked):
    h.ok("workspace.create", cwd=str(repo))
    h.ok("workspace.create", cwd=str(linked))  # w2: made with workspace.create --cwd
    h.ok("workspace.create", cwd=str(linked / "."))  # w3: the same checkout again
    mark = h.sim.hub.seq
    r = h.ok("worktree.open", workspace_id="w1", path=str(linked))
    assert r["already_open"] is True and r["workspace"]["workspace_id"] == "w2"
    assert [k for k, _ in events(h, mark)] == [
        "workspace_updated",
        "workspace_updated",
        "worktree_opened",
    ]
    ws = {w["workspace_id"]: w for w in h.ok("workspace.list")["workspaces"]}
    assert ws["w2"]["worktree"]["is_linked_worktree"] is True
    assert "worktree" not in ws["w3"]  # the other workspace is left alone
    listed = h.ok("worktree.list", cwd=str(repo))["worktrees"]
    assert listed[1]["open_workspace_id"] == "w2"


def test_open_the_source_checkout_itself(h, repo):
    r = h.ok("worktree.open", cwd=str(repo), branch="main")
    assert r["already_open"] is False and r["workspace"]["workspace_id"] == "w1"
    assert r["workspace"]["worktree"]["is_linked_worktree"] is False
    assert r["worktree"]["is_linked_worktree"] is False
    # The created parent's open events come once, after its membership is set.
    assert kinds(h) == OPEN_EVENTS + [
        "worktree_opened",
        "workspace_focused",
        "tab_focused",
        "pane_focused",
    ]
    again = h.ok("worktree.open", cwd=str(repo), path=str(repo))
    assert again["already_open"] is True and again["workspace"]["workspace_id"] == "w1"


def test_selection_errors_in_check_order(h, repo, linked, plain_dir, base):
    e = h.err("worktree.open", cwd="relative", path="x", branch="y")
    assert e == {"code": "invalid_request", "message": "exactly one of path or branch is required"}
    assert h.err("worktree.open", cwd="relative")["message"] == (
        "exactly one of path or branch is required"
    )  # checked before the source
    assert h.err("worktree.open", cwd=str(linked), branch="main") == {
        "code": "linked_worktree_source",
        "message": "New and open worktree actions start from the repo parent workspace.",
    }
    assert h.err("worktree.open", cwd=str(plain_dir), branch="main")["code"] == "not_git_worktree"
    assert h.err("worktree.open", cwd=str(repo), path="proj-feature") == {
        "code": "invalid_request",
        "message": "worktree path must be absolute",
    }
    assert h.err("worktree.open", cwd=str(repo), path=str(base / "nope")) == {
        "code": "worktree_not_found",
        "message": "worktree path not found",
    }
    assert h.err("worktree.open", cwd=str(repo), branch="nope") == {
        "code": "worktree_not_found",
        "message": "worktree branch not found",
    }
    assert h.ok("workspace.list")["workspaces"] == []  # nothing was created by any of these


def test_linked_workspace_is_not_a_source(h, repo, linked):
    h.ok("worktree.open", cwd=str(repo), path=str(linked))
    assert h.err("worktree.open", workspace_id="w2", branch="main")["code"] == (
        "linked_worktree_source"
    )
    # list allows it and lists the parent repository
    r = h.ok("worktree.list", workspace_id="w2")
    assert r["source"]["source_workspace_id"] == "w1"
    assert r["source"]["source_checkout_path"] == str(repo)


def test_branch_ambiguity_and_detached_prunable_bare(h, repo, linked, base, bare_repo):
    # Two worktrees on one branch (git needs --force for that).
    other = base / "other"
    git(repo, "worktree", "add", "-q", "--force", str(other), "feature")
    assert h.err("worktree.open", cwd=str(repo), branch="feature") == {
        "code": "ambiguous_worktree_branch",
        "message": "multiple worktrees matched branch",
    }
    # Detached entries never match a branch; a path still finds them.
    git(other, "checkout", "-q", "--detach")
    assert h.ok("worktree.open", cwd=str(repo), branch="feature")["worktree"]["path"] == str(linked)
    assert h.ok("worktree.open", cwd=str(repo), path=str(other))["worktree"]["is_detached"] is True
    # Prunable: the directory is gone.
    gone = base / "gone"
    git(repo, "worktree", "add", "-q", "-b", "gone", str(gone), "HEAD")
    import shutil

    shutil.rmtree(gone)
    assert h.err("worktree.open", cwd=str(repo), path=str(gone)) == {
        "code": "worktree_not_found",
        "message": "worktree cannot be opened",
    }
    assert h.err("worktree.open", cwd=str(repo), branch="gone")["message"] == (
        "worktree branch not found"
    )
    # Bare: the bare entry of a bare repository cannot be opened.
    assert h.err("worktree.open", cwd=str(bare_repo.bare), path=str(bare_repo.bare))["message"] == (
        "worktree cannot be opened"
    )


def test_bare_repository_source_opens_its_worktree(h, bare_repo):
    r = h.ok("worktree.open", cwd=str(bare_repo.bare), branch="topic")
    ws = h.ok("workspace.list")["workspaces"]
    assert [w["worktree"]["checkout_path"] for w in ws] == [
        str(bare_repo.bare),
        str(bare_repo.worktree),
    ]
    assert r["worktree"]["is_linked_worktree"] is True and r["worktree"]["label"] == "bare.git"


def test_separate_git_dir_repository(h, sep_repo, sep_linked):
    r = h.ok("worktree.open", cwd=str(sep_repo.checkout), path=str(sep_linked))
    assert r["workspace"]["worktree"]["repo_key"] == str(sep_repo.store)
    assert r["workspace"]["worktree"]["repo_name"] == "store.git"
    assert r["worktree"]["is_linked_worktree"] is True
    parent = h.ok("workspace.get", workspace_id="w1")["workspace"]
    assert parent["worktree"]["checkout_path"] == str(sep_repo.checkout)
    assert parent["label"] == "sep"


def test_symlinked_source_and_path(h, repo, link, linked, base):
    # The source keeps the symlink spelling; the entry (found canonically) is git's spelling.
    flink = base / "flink"
    flink.symlink_to(linked, target_is_directory=True)
    r = h.ok("worktree.open", cwd=str(link), path=str(flink))
    assert r["workspace"]["worktree"]["repo_root"] == str(link)
    assert r["workspace"]["worktree"]["checkout_path"] == str(linked)
    assert r["root_pane"]["cwd"] == str(linked)
    parent = h.ok("workspace.get", workspace_id="w1")["workspace"]
    assert parent["worktree"]["checkout_path"] == str(link)
    # The same checkout through another spelling is already open.
    assert h.ok("worktree.open", cwd=str(repo), path=str(linked))["already_open"] is True


def test_subdirectory_workspace_is_the_parent(h, repo, subdir, linked):
    h.ok("workspace.create", cwd=str(subdir))
    r = h.ok("worktree.open", path=str(linked))
    assert r["workspace"]["workspace_id"] == "w2"
    parent = h.ok("workspace.get", workspace_id="w1")["workspace"]
    assert parent["worktree"]["checkout_path"] == str(repo)  # membership names the repo root


def test_membership_paths_compare_by_components(h, repo, linked):
    # The parent's membership is recorded with the spelling of the first request; a later
    # request spelling the same checkout differently does not change it (herdr compares
    # PathBufs by components) and emits no workspace_updated.
    h.ok("worktree.open", cwd=f"{repo}/.", branch="main")
    assert h.ok("workspace.get", workspace_id="w1")["workspace"]["worktree"]["checkout_path"] == (
        f"{repo}/."
    )
    mark = h.sim.hub.seq
    r = h.ok("worktree.open", cwd=str(repo), path=str(linked))
    assert kinds(h, mark) == [
        "workspace_created",
        "tab_created",
        "pane_created",
        "layout_updated",
        "worktree_opened",
    ]
    assert r["workspace"]["worktree"]["repo_root"] == str(repo)
    assert h.ok("workspace.get", workspace_id="w1")["workspace"]["worktree"]["checkout_path"] == (
        f"{repo}/."
    )
