from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from simherdr.git import (
    GitError,
    WorktreeEntry,
    branch_exists,
    build_add_args,
    build_remove_args,
    dirty_remove_message,
    is_dirty,
    is_dirty_remove_error,
    parse_worktree_porcelain,
    remove_error_code,
    worktree_add,
    worktree_list,
    worktree_remove,
)

if TYPE_CHECKING:  # fixture types only; conftest is not imported at run time
    from conftest import BareRepo, Git

SHA1 = "1" * 40
SHA2 = "2" * 40


def _entry(path: str, **kw: object) -> WorktreeEntry:
    fields: dict[str, object] = dict(
        branch=None, head=None, is_bare=False, is_detached=False, is_prunable=False, is_locked=False
    )
    fields.update(kw)
    return WorktreeEntry(path=path, **fields)  # type: ignore[arg-type]


# ------------------------------------------------------------------- parser


def test_parse_branch_detached_prunable_locked() -> None:
    text = (
        f"worktree /repo/main\nHEAD {SHA1}\nbranch refs/heads/main\n\n"
        f"worktree /repo/issue\nHEAD {SHA2}\nbranch refs/heads/worktree/issue\nlocked\n\n"
        f"worktree /repo/detached\nHEAD {SHA1}\ndetached\nprunable gitdir file points to non-existent location\n\n"
        f"worktree /repo/held\nHEAD {SHA2}\ndetached\nlocked on a usb stick\n\n"
    )
    assert parse_worktree_porcelain(text) == [
        _entry("/repo/main", branch="main", head=SHA1),
        _entry("/repo/issue", branch="worktree/issue", head=SHA2, is_locked=True),
        _entry("/repo/detached", head=SHA1, is_detached=True, is_prunable=True),
        _entry("/repo/held", head=SHA2, is_detached=True, is_locked=True),
    ]


def test_parse_bare_entry_has_no_head() -> None:
    text = f"worktree /srv/x.git\nbare\n\nworktree /srv/x-dev\nHEAD {SHA1}\nbranch refs/heads/dev\n"
    assert parse_worktree_porcelain(text) == [
        _entry("/srv/x.git", is_bare=True),
        _entry("/srv/x-dev", branch="dev", head=SHA1),  # last record needs no blank line
    ]


def test_parse_edge_cases() -> None:
    assert parse_worktree_porcelain("") == []
    assert parse_worktree_porcelain("\n\n") == []
    # A non-heads ref is kept whole; CRLF and whitespace-only separators are tolerated;
    # spaces inside paths survive; a record without a worktree line is dropped.
    text = (
        f"worktree /a b/c\r\nHEAD {SHA1}\r\nbranch refs/remotes/origin/x\r\n \r\n"
        "HEAD 333\nbranch refs/heads/orphan\n\n"
        f"worktree /d\nHEAD {SHA2}\nbranch refs/heads/d\nlockedish\n"
    )
    assert parse_worktree_porcelain(text) == [
        _entry("/a b/c", branch="refs/remotes/origin/x", head=SHA1),
        _entry("/d", branch="d", head=SHA2),
    ]


def test_entries_are_frozen() -> None:
    entry = _entry("/x")
    with pytest.raises(AttributeError):
        entry.path = "/y"  # type: ignore[misc]


# ------------------------------------------------------------------- list


def test_list_real_repo_in_git_order(repo: Path, linked: Path, base: Path, git: Git) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "worktree", "add", "-q", "--detach", str(base / "det"))
    git(repo, "worktree", "lock", "--reason", "hold", str(base / "det"))
    git(repo, "worktree", "add", "-q", "-b", "gone", str(base / "gone"))
    shutil.rmtree(base / "gone")
    entries = worktree_list(repo)
    assert entries == [
        _entry(str(repo), branch="main", head=head),
        _entry(str(base / "det"), head=head, is_detached=True, is_locked=True),
        _entry(str(base / "gone"), branch="gone", head=head, is_prunable=True),
        _entry(str(linked), branch="feature", head=head),
    ]
    assert worktree_list(linked) == entries  # same list from any checkout


def test_list_bare_repo(bare_repo: BareRepo) -> None:
    entries = worktree_list(bare_repo.bare)
    assert [(e.path, e.is_bare, e.branch) for e in entries] == [
        (str(bare_repo.bare), True, None),
        (str(bare_repo.worktree), False, "feature"),
    ]


def test_list_outside_git_raises_git_message(non_git_dir: Path) -> None:
    with pytest.raises(GitError) as info:
        worktree_list(non_git_dir)
    assert "not a git repository" in info.value.message
    assert info.value.returncode == 128


def test_list_untrusted_then_trusted(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    with pytest.raises(GitError, match="dubious ownership"):
        worktree_list(repo)
    assert [e.branch for e in worktree_list(repo, trust=True)] == ["main"]


# ------------------------------------------------------------------- branches


def test_branch_exists(repo: Path, git: Git) -> None:
    assert branch_exists(repo, "main")
    assert not branch_exists(repo, "topic")
    git(repo, "branch", "topic")
    assert branch_exists(repo, "topic")
    git(repo, "tag", "v1")
    assert not branch_exists(repo, "v1")  # only refs/heads counts


def test_branch_exists_error_is_git_error(non_git_dir: Path) -> None:
    with pytest.raises(GitError, match="not a git repository"):
        branch_exists(non_git_dir, "main")


# ------------------------------------------------------------------- add


def test_build_add_args_match_socket_spec() -> None:
    assert build_add_args("/w/p", "topic", "HEAD", existing_branch=True) == [
        "worktree", "add", "/w/p", "topic",
    ]  # fmt: skip
    assert build_add_args("/w/p", "topic", "v1", existing_branch=False) == [
        "worktree", "add", "-b", "topic", "/w/p", "v1",
    ]  # fmt: skip


def test_add_new_branch_creates_parents_and_branch(repo: Path, base: Path, git: Git) -> None:
    path = base / "worktrees" / "proj" / "worktree-brave-river-0000"
    added = worktree_add(repo, path, "worktree/brave-river-0000")
    assert added.created_branch
    assert added.argv == ("worktree", "add", "-b", "worktree/brave-river-0000", str(path), "HEAD")
    assert (path / "README.md").read_text() == "hello\n"
    assert git(path, "branch", "--show-current").strip() == "worktree/brave-river-0000"
    assert branch_exists(repo, "worktree/brave-river-0000")
    assert [e.path for e in worktree_list(repo)][-1] == str(path)


def test_add_new_branch_from_base(repo: Path, base: Path, git: Git) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    git(repo, "commit", "-q", "-m", "second")
    worktree_add(repo, base / "old", "old", first)
    assert git(base / "old", "rev-parse", "HEAD").strip() == first
    assert not (base / "old" / "b.txt").exists()


def test_add_existing_branch_checks_it_out_and_ignores_base(
    repo: Path, base: Path, git: Git
) -> None:
    git(repo, "branch", "topic")
    added = worktree_add(repo, base / "topic", "topic", "no-such-base")
    assert not added.created_branch
    assert added.argv == ("worktree", "add", str(base / "topic"), "topic")
    assert git(base / "topic", "branch", "--show-current").strip() == "topic"


def test_add_failures_carry_git_stderr(repo: Path, linked: Path, base: Path) -> None:
    with pytest.raises(GitError) as info:
        worktree_add(repo, base / "again", "feature")  # checked out in `linked`
    assert "is already checked out" in info.value.message or "already used" in info.value.message
    existing = base / "occupied"
    existing.mkdir()
    (existing / "f").write_text("x")
    with pytest.raises(GitError, match="already exists"):
        worktree_add(repo, existing, "fresh")
    with pytest.raises(GitError) as bad_base:
        worktree_add(repo, base / "x", "x", "no-such-base")
    assert "no-such-base" in bad_base.value.message
    assert not branch_exists(repo, "x")


def test_add_parent_creation_failure_is_os_error_text(repo: Path, base: Path) -> None:
    blocker = base / "file"
    blocker.write_text("")
    with pytest.raises(GitError) as info:
        worktree_add(repo, blocker / "sub" / "wt", "wt")
    assert "(os error " in info.value.message


def test_add_from_bare_repo(bare_repo: BareRepo, base: Path, git: Git) -> None:
    worktree_add(bare_repo.bare, base / "bare-second", "second")
    assert git(base / "bare-second", "branch", "--show-current").strip() == "second"


def test_add_untrusted_then_trusted(
    repo: Path, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    with pytest.raises(GitError, match="dubious ownership"):
        worktree_add(repo, base / "t", "t")
    assert worktree_add(repo, base / "t", "t", trust=True).created_branch
    assert (base / "t" / "README.md").exists()


# ------------------------------------------------------------------- dirty / remove


def test_build_remove_args() -> None:
    assert build_remove_args("/w/p", False) == ["worktree", "remove", "/w/p"]
    assert build_remove_args("/w/p", True) == ["worktree", "remove", "--force", "/w/p"]


def test_is_dirty(repo: Path, linked: Path, git: Git) -> None:
    assert not is_dirty(linked)
    (linked / ".gitignore").write_text("*.log\n")
    assert is_dirty(linked)  # untracked
    git(linked, "add", ".gitignore")
    git(linked, "commit", "-q", "-m", "ignore logs")
    assert not is_dirty(linked)
    (linked / "build.log").write_text("ignored\n")
    assert not is_dirty(linked)  # ignored files do not count
    (linked / "README.md").write_text("changed\n")
    assert is_dirty(linked)  # modified
    git(linked, "checkout", "--", "README.md")
    (linked / "deep" / "er").mkdir(parents=True)
    (linked / "deep" / "er" / "new.txt").write_text("n\n")
    assert is_dirty(linked)  # untracked, nested


def test_is_dirty_outside_git(non_git_dir: Path) -> None:
    with pytest.raises(GitError, match="not a git repository"):
        is_dirty(non_git_dir)


def test_remove_clean_keeps_branch(repo: Path, linked: Path) -> None:
    worktree_remove(repo, linked)
    assert not linked.exists()
    assert branch_exists(repo, "feature")
    assert [e.path for e in worktree_list(repo)] == [str(repo)]


@pytest.mark.parametrize("change", ["modified", "untracked"])
def test_remove_dirty_without_force_refuses(repo: Path, linked: Path, change: str) -> None:
    target = linked / ("README.md" if change == "modified" else "new.txt")
    target.write_text("dirty\n")
    with pytest.raises(GitError) as info:
        worktree_remove(repo, linked, force=False)
    message = info.value.message
    assert message == dirty_remove_message(linked)
    assert is_dirty_remove_error(message)
    assert remove_error_code(message, force=False) == "dirty_worktree_requires_force"
    assert linked.exists() and target.exists()


def test_remove_dirty_with_force(repo: Path, linked: Path) -> None:
    (linked / "new.txt").write_text("dirty\n")
    worktree_remove(repo, linked, force=True)
    assert not linked.exists()
    assert branch_exists(repo, "feature")


def test_remove_untrusted_then_trusted(
    repo: Path, linked: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    with pytest.raises(GitError) as info:
        worktree_remove(repo, linked)
    assert remove_error_code(info.value.message, force=False) == "worktree_remove_failed"
    worktree_remove(repo, linked, trust=True)
    assert not linked.exists()


def test_remove_not_a_worktree_without_force(repo: Path, non_git_dir: Path) -> None:
    with pytest.raises(GitError, match="is not a working tree") as info:
        worktree_remove(repo, non_git_dir)
    assert remove_error_code(info.value.message, force=False) == "worktree_remove_failed"


def test_forced_remove_recovers_leftover_checkout(repo: Path, linked: Path, base: Path) -> None:
    worktree_remove(repo, linked, force=True)
    linked.mkdir()
    (linked / ".git").write_text(f"gitdir: {repo / '.git' / 'worktrees' / 'stale'}\n")
    (linked / "leftover").write_text("x\n")
    worktree_remove(repo, linked, force=True)
    assert not linked.exists()


def test_forced_remove_keeps_unrelated_directory(repo: Path, linked: Path) -> None:
    worktree_remove(repo, linked, force=True)
    linked.mkdir()
    (linked / "unrelated").write_text("keep\n")
    with pytest.raises(GitError, match="is not a working tree"):
        worktree_remove(repo, linked, force=True)
    assert (linked / "unrelated").exists()


def test_forced_remove_of_vanished_unregistered_path_succeeds(repo: Path, base: Path) -> None:
    worktree_remove(repo, base / "never-existed", force=True)


def test_dirty_error_classifier() -> None:
    assert is_dirty_remove_error(
        "fatal: '/w/herdr' contains modified or untracked files, use --force to delete it"
    )
    assert not is_dirty_remove_error(
        "fatal: '/w/herdr' is a missing but already registered worktree"
    )
    assert not is_dirty_remove_error(
        "fatal: '/w/herdr' contains a locked worktree, use --force only if you know why"
    )
    dirty = dirty_remove_message("/w/x")
    assert remove_error_code(dirty, force=True) == "worktree_remove_failed"
