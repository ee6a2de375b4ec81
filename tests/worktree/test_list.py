"""worktree.list over real git (SOCKET.md §9.1-9.2), in-process on both profiles."""

from __future__ import annotations

import os

from .helpers import git


def _entry(reply, path):
    return next(e for e in reply["worktrees"] if e["path"] == str(path))


def test_list_from_cwd_plain_repo(h, repo, linked):
    r = h.ok("worktree.list", cwd=str(repo))
    assert r["type"] == "worktree_list"
    assert r["source"] == {
        "repo_key": str(repo / ".git"),
        "repo_name": "proj",
        "repo_root": str(repo),
        "source_checkout_path": str(repo),
    }  # no workspace holds the repository: no source_workspace_id
    assert [e["path"] for e in r["worktrees"]] == [str(repo), str(linked)]  # git's order
    main, feature = r["worktrees"]
    assert main == {
        "path": str(repo),
        "branch": "main",
        "is_bare": False,
        "is_detached": False,
        "is_prunable": False,
        "is_linked_worktree": False,
        "label": "proj",
    }
    assert feature["branch"] == "feature" and feature["is_linked_worktree"] is True
    assert "open_workspace_id" not in feature


def test_list_from_linked_checkout_lists_the_parent(h, repo, linked):
    r = h.ok("worktree.list", cwd=str(linked))
    assert r["source"]["repo_root"] == str(repo)
    assert r["source"]["source_checkout_path"] == str(repo)
    assert [e["is_linked_worktree"] for e in r["worktrees"]] == [False, True]


def test_list_from_subdirectory_and_from_inside_dot_git(h, repo, subdir):
    for cwd in (subdir, repo / ".git" / "refs"):
        r = h.ok("worktree.list", cwd=str(cwd))
        assert r["source"]["repo_root"] == str(repo)


def test_open_workspace_id_and_source_workspace_id(h, repo, linked, subdir):
    # A workspace whose cwd is a subdirectory holds the checkout (its git checkout key).
    h.ok("workspace.create", cwd=str(subdir))
    h.ok("workspace.create", cwd=str(linked))
    r = h.ok("worktree.list", workspace_id="w1")
    assert r["source"]["source_workspace_id"] == "w1"
    assert _entry(r, repo)["open_workspace_id"] == "w1"
    assert _entry(r, linked)["open_workspace_id"] == "w2"
    # From the linked workspace (no membership): its parent's holder is the source workspace.
    r2 = h.ok("worktree.list", workspace_id="w2")
    assert r2["source"]["source_workspace_id"] == "w1"
    assert r2["worktrees"] == r["worktrees"]
    # Without a source the active workspace is used.
    assert h.ok("worktree.list")["source"]["source_workspace_id"] == "w1"


def test_separate_git_dir_repo(h, sep_repo, sep_linked):
    r = h.ok("worktree.list", cwd=str(sep_repo.checkout))
    assert r["source"]["repo_key"] == str(sep_repo.store)
    assert r["source"]["repo_name"] == "store.git"  # named after the common dir
    assert r["source"]["repo_root"] == str(sep_repo.checkout)
    paths = [e["path"] for e in r["worktrees"]]
    assert str(sep_linked) in paths
    # git lists the main worktree of a --separate-git-dir repository by its store, not its
    # checkout; herdr compares canonically against the repo root, so that entry is "linked".
    main = r["worktrees"][0]
    assert main["path"] == str(sep_repo.store) and main["is_linked_worktree"] is True
    # From the linked checkout herdr cannot find a parent checkout in that listing and falls
    # back to the linked checkout itself.
    r2 = h.ok("worktree.list", cwd=str(sep_linked))
    assert r2["source"]["repo_root"] == str(sep_linked)
    assert _entry(r2, sep_linked)["is_linked_worktree"] is False


def test_bare_repo(h, bare_repo):
    r = h.ok("worktree.list", cwd=str(bare_repo.bare))
    assert r["source"]["repo_root"] == str(bare_repo.bare)
    assert r["source"]["repo_name"] == "bare.git"
    bare, feature = r["worktrees"]
    assert bare["is_bare"] is True and "branch" not in bare and bare["is_linked_worktree"] is False
    assert feature["path"] == str(bare_repo.worktree) and feature["is_linked_worktree"] is True


def test_symlinked_cwd_keeps_its_spelling_entries_are_git_spelling(h, repo, link, linked):
    r = h.ok("worktree.list", cwd=str(link))
    assert r["source"]["repo_root"] == str(link)
    assert r["source"]["source_checkout_path"] == str(link)
    assert r["source"]["repo_key"] == str(repo / ".git")  # keys are canonical
    main = r["worktrees"][0]
    assert main["path"] == str(repo) and main["is_linked_worktree"] is False
    # A workspace opened at the symlinked path holds the canonical checkout.
    h.ok("workspace.create", cwd=str(link))
    assert h.ok("worktree.list", cwd=str(repo))["worktrees"][0]["open_workspace_id"] == "w1"


def test_detached_and_prunable_entries(h, repo, linked, base):
    git(linked, "checkout", "-q", "--detach")
    gone = base / "gone"
    git(repo, "worktree", "add", "-q", "-b", "gone", str(gone), "HEAD")
    import shutil

    shutil.rmtree(gone)
    r = h.ok("worktree.list", cwd=str(repo))
    assert _entry(r, linked)["is_detached"] is True and "branch" not in _entry(r, linked)
    assert _entry(r, gone)["is_prunable"] is True


def test_source_errors_in_check_order(h, repo, plain_dir):
    both = h.err("worktree.list", workspace_id="w1", cwd="relative")
    assert both == {
        "code": "invalid_request",
        "message": "only one of workspace_id or cwd may be supplied",
    }
    assert h.err("worktree.list") == {
        "code": "invalid_request",
        "message": "workspace_id or cwd is required when no workspace is active",
    }
    assert h.err("worktree.list", cwd="proj") == {
        "code": "invalid_request",
        "message": "worktree path must be absolute",
    }
    assert h.err("worktree.list", cwd=str(plain_dir)) == {
        "code": "not_git_worktree",
        "message": "Herdr worktree actions require a path inside a Git work tree",
    }
    assert h.err("worktree.list", workspace_id="w9")["message"] == "workspace w9 not found"
    h.ok("workspace.create", cwd=str(plain_dir))
    assert h.err("worktree.list", workspace_id="5") == {
        "code": "workspace_not_found",
        "message": "workspace not found",
    }
    assert h.err("worktree.list", workspace_id="w1") == {
        "code": "not_git_worktree",
        "message": "Herdr worktree actions require a workspace inside a Git work tree",
    }
    assert h.err("worktree.list")["code"] == "not_git_worktree"  # the active workspace


def test_tilde_cwd_expands_to_home(h, home):
    repo = os.path.join(home, "code")
    git(home, "init", "-q", "--template=", "-b", "main", repo)
    r = h.ok("worktree.list", cwd="~/code")
    assert r["source"]["repo_root"] == repo


def test_git_failure_is_worktree_list_failed(h, repo, monkeypatch):
    # An untrusted repository: git refuses to list it (dubious ownership).
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    e = h.err("worktree.list", cwd=str(repo))
    assert e["code"] == "worktree_list_failed"
    assert "dubious ownership" in e["message"]


def test_cwd_spelling_is_kept_as_given(h, repo, subdir):
    # herdr joins and pops paths, it never normalises them: `herdr worktree list --cwd .`
    # sends "<cwd>/." and gets that spelling back.
    for spelled in (f"{repo}/.", f"{repo}/", f"{repo}//"):
        source = h.ok("worktree.list", cwd=spelled)["source"]
        assert source["repo_root"] == source["source_checkout_path"] == spelled
    # A walk that climbs drops the trailing "." and separators, as Rust's Path::parent does.
    assert h.ok("worktree.list", cwd=f"{subdir}/.")["source"]["repo_root"] == str(repo)
