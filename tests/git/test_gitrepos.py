"""The fixture builders (tests/gitrepos.py) replay a step recorded once per process: what they
write must be what git writes, and a repository a test changed must get real git again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import gitrepos as G


def _scene(base: Path, *, replay: bool) -> None:
    """repo, its linked worktree, a bare clone with its worktree, a separate-dir repo and its
    linked worktree: replayed (``replay``) or built with git step by step."""
    if replay:
        repo = G.make_repo(base)
        G.make_linked(repo, base)
        sep = G.make_sep_repo(base)
        G.make_linked(sep.checkout, base, "sep-feature")
        # the bare clone reads a repository without a linked worktree: its own base
        (base / "b").mkdir()
        G.make_bare_repo(G.make_repo(base / "b"), base / "b", branch="topic")
        (base / "c").mkdir()  # a test asking for both linked and bare_repo
        G.make_linked(G.make_repo(base / "c"), base / "c")
        G.make_bare_repo(base / "c" / "proj", base / "c", branch="topic")
        return
    G._build_repo(base, base / "proj")
    G._add_linked(base / "proj", base / "proj-feature", "feature")
    G._build_sep_repo(base, base / "sep", base / "store.git")
    G._add_linked(base / "sep", base / "sep-feature", "feature")
    (base / "b").mkdir()
    G._build_repo(base / "b", base / "b" / "proj")
    G._build_bare(
        base / "b" / "proj", base / "b" / "bare.git", base / "b" / "bare-feature", "topic"
    )
    (base / "c").mkdir()
    G._build_repo(base / "c", base / "c" / "proj")
    G._add_linked(base / "c" / "proj", base / "c" / "proj-feature", "feature")
    G._build_bare(
        base / "c" / "proj", base / "c" / "bare.git", base / "c" / "bare-feature", "topic"
    )


def _base(path: Path) -> Path:
    path.mkdir(parents=True)
    return G.make_base(path)


def _files(base: Path) -> dict[str, tuple[int, bytes | int]]:
    """Every entry under ``base`` (the base path made neutral), indexes by their staged entries
    (their stat cache is the one part that differs)."""
    out: dict[str, tuple[int, bytes | int]] = {}
    for rel, e in G._snapshot(base, base).items():
        data = e.data
        if os.path.basename(rel) == "index":
            gitdir = base / os.path.dirname(rel)
            data = G.git(base, f"--git-dir={gitdir}", "ls-files", "--stage").encode()
        out[rel] = (e.mode, data)
    return out


def test_replayed_repositories_are_what_git_builds(tmp_path: Path) -> None:
    _scene(_base(tmp_path / "warm"), replay=True)  # records what is not yet (runs git)
    by_git, replayed = _base(tmp_path / "git"), _base(tmp_path / "replay")
    _scene(by_git, replay=False)
    real_git = G.git
    G.git = None  # type: ignore[assignment]  # a replay runs no git at all
    try:
        _scene(replayed, replay=True)
    finally:
        G.git = real_git
    assert _files(replayed) == _files(by_git)
    checkouts = ("proj", "proj-feature", "sep", "sep-feature", "b/bare-feature", "c/bare-feature")
    for checkout in checkouts:
        # the stale stat cache is only re-read: nothing shows as changed
        assert G.git(replayed / checkout, "status", "--porcelain") == ""


def test_a_changed_repository_gets_real_git(base: Path) -> None:
    warm = _base(base / "warm")
    G.make_linked(G.make_repo(warm), warm)  # recorded
    repo = G.make_repo(base)
    G.git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    head = G.git(repo, "rev-parse", "HEAD").strip()
    linked = G.make_linked(repo, base)
    assert G.git(linked, "rev-parse", "HEAD").strip() == head
    assert G.git(linked, "log", "--format=%s").splitlines() == ["second", "initial"]


def test_an_existing_path_gets_real_git(base: Path) -> None:
    (base / "proj").mkdir()
    (base / "proj" / "notes.txt").write_text("x\n")
    repo = G.make_repo(base)  # git init in an existing directory keeps what it holds
    assert (repo / "notes.txt").read_text() == "x\n"
    assert G.git(repo, "status", "--porcelain") == "?? notes.txt\n"


def test_not_isolated_no_replay(base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GIT_CONFIG_NOSYSTEM")
    assert G._isolated_key() is None


def test_a_fixture_commit_starts_no_auto_maintenance(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # git's `maintenance run --auto` child after a commit is housekeeping no fixture needs
    repo = G.make_repo(base)
    trace = base / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    G.git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    started = [line for line in trace.read_text().splitlines() if "run_command:" in line]
    assert started == []
    assert G.git(repo, "log", "--format=%s").splitlines() == ["second", "initial"]
