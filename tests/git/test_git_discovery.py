from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from simherdr.git import Checkout, discover, label_for_cwd

if TYPE_CHECKING:  # fixture types only; conftest is not imported at run time
    from conftest import BareRepo, Git, SepRepo


def _main_checkout(repo: Path) -> Checkout:
    return Checkout(
        checkout_root=str(repo),
        repo_key=str(repo / ".git"),
        repo_root=str(repo),
        repo_name=repo.name,
        is_linked_worktree=False,
        git_dir=str(repo / ".git"),
        common_dir=str(repo / ".git"),
        is_bare=False,
        checkout_key=str(repo),
    )


def test_plain_repo_root(repo: Path) -> None:
    assert discover(repo) == _main_checkout(repo)


def test_subdirectory_and_file_and_missing_path(repo: Path) -> None:
    sub = repo / "src" / "deep"
    sub.mkdir(parents=True)
    expected = _main_checkout(repo)
    assert discover(sub) == expected
    assert discover(repo / "README.md") == expected
    assert discover(sub / "not-yet-created.txt") == expected  # herdr walks from the parent


def test_relative_path_is_taken_against_cwd(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    assert discover(".") == _main_checkout(repo)


def test_path_inside_dot_git_belongs_to_the_checkout(repo: Path) -> None:
    # Decision (herdr discovery.rs): a non-bare git dir is not a root; keep walking.
    assert discover(repo / ".git") == _main_checkout(repo)
    assert discover(repo / ".git" / "refs" / "heads") == _main_checkout(repo)
    assert discover(repo / ".git" / "HEAD") == _main_checkout(repo)


def test_symlink_keeps_spelling_but_keys_are_canonical(repo: Path, symlink_to_repo: Path) -> None:
    found = discover(symlink_to_repo / "README.md")
    assert found is not None
    assert found.checkout_root == str(symlink_to_repo)
    assert found.repo_root == str(symlink_to_repo)
    assert found.checkout_key == str(repo)
    assert found.repo_key == str(repo / ".git")
    assert found.git_dir == str(repo / ".git")
    assert found.repo_name == "proj"  # from the canonical common dir, not "link"


def test_linked_worktree(repo: Path, linked: Path) -> None:
    found = discover(linked)
    assert found == Checkout(
        checkout_root=str(linked),
        repo_key=str(repo / ".git"),
        repo_root=str(repo),
        repo_name="proj",
        is_linked_worktree=True,
        git_dir=str(repo / ".git" / "worktrees" / linked.name),
        common_dir=str(repo / ".git"),
        is_bare=False,
        checkout_key=str(linked),
    )
    sub = linked / "a"
    sub.mkdir()
    assert discover(sub) == found


def test_linked_worktree_repo_root_survives_untrusted_git(
    repo: Path, linked: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    untrusted = discover(linked)
    assert untrusted is not None and untrusted.repo_root == str(linked)  # herdr's fallback
    trusted = discover(linked, trust=True)
    assert trusted is not None and trusted.repo_root == str(repo)


def test_separate_git_dir_checkout(sep_repo: SepRepo) -> None:
    found = discover(sep_repo.checkout / "README.md")
    assert found == Checkout(
        checkout_root=str(sep_repo.checkout),
        repo_key=str(sep_repo.store),
        repo_root=str(sep_repo.checkout),
        repo_name="store.git",  # herdr names the repo after its common dir
        is_linked_worktree=False,
        git_dir=str(sep_repo.store),
        common_dir=str(sep_repo.store),
        is_bare=False,
        checkout_key=str(sep_repo.checkout),
    )


def test_separate_git_dir_store_alone_is_not_git(sep_repo: SepRepo) -> None:
    assert discover(sep_repo.store) is None
    assert discover(sep_repo.store / "refs") is None


def test_linked_worktree_of_separate_git_dir(sep_repo: SepRepo, sep_linked: Path) -> None:
    found = discover(sep_linked)
    assert found is not None
    assert found.is_linked_worktree
    assert found.repo_key == str(sep_repo.store)
    assert found.git_dir == str(sep_repo.store / "worktrees" / sep_linked.name)
    # git lists the main worktree as the store path, which is no checkout, so herdr
    # falls back to the linked checkout itself (app/api/worktrees.rs:685-703).
    assert found.repo_root == str(sep_linked)


def test_bare_repo_is_its_own_root(bare_repo: BareRepo) -> None:
    expected = Checkout(
        checkout_root=str(bare_repo.bare),
        repo_key=str(bare_repo.bare),
        repo_root=str(bare_repo.bare),
        repo_name="bare.git",
        is_linked_worktree=False,
        git_dir=str(bare_repo.bare),
        common_dir=str(bare_repo.bare),
        is_bare=True,
        checkout_key=str(bare_repo.bare),
    )
    assert discover(bare_repo.bare) == expected
    assert discover(bare_repo.bare / "refs" / "heads") == expected


def test_worktree_of_bare_repo(bare_repo: BareRepo) -> None:
    found = discover(bare_repo.worktree)
    assert found is not None
    assert found.is_linked_worktree and not found.is_bare
    assert found.repo_key == str(bare_repo.bare)
    assert found.repo_root == str(bare_repo.bare)
    assert found.repo_name == "bare.git"


def test_embedded_dot_bare_is_named_after_its_container(base: Path, repo: Path, git: Git) -> None:
    container = base / "reported-repo"
    container.mkdir()
    git(base, "clone", "-q", "--bare", str(repo), str(container / ".bare"))
    (container / ".git").write_text("gitdir: ./.bare\n")
    git(container / ".bare", "worktree", "add", "-q", "-b", "dev", str(container / "dev"))
    source, checkout = discover(container), discover(container / "dev")
    assert source is not None and checkout is not None
    assert source.repo_name == checkout.repo_name == "reported-repo"
    assert source.is_bare and not source.is_linked_worktree
    assert checkout.is_linked_worktree


def test_non_git_dir_and_missing_path(non_git_dir: Path) -> None:
    assert discover(non_git_dir) is None
    assert discover(non_git_dir / "notes.txt") is None
    assert discover(non_git_dir / "nope" / "deeper") is None


def test_invalid_markers_are_ignored(non_git_dir: Path) -> None:
    (non_git_dir / ".git").mkdir()  # empty .git: no HEAD
    assert discover(non_git_dir) is None
    layout = non_git_dir / "standalone"
    (layout / "objects").mkdir(parents=True)
    (layout / "refs").mkdir()
    (layout / "HEAD").write_text("ref: refs/heads/main\n")
    (layout / "config").write_text("[core]\n\tbare = false\n")
    assert discover(layout / "refs") is None
    (layout / "config").write_text("[core]\n\tbare = true ; comment\n")
    found = discover(layout / "refs")
    assert found is not None and found.is_bare and found.checkout_root == str(layout)


def test_gitdir_file_with_relative_path(base: Path, sep_repo: SepRepo) -> None:
    (sep_repo.checkout / ".git").write_text("gitdir: ../store.git\n")
    found = discover(sep_repo.checkout)
    assert found is not None and found.git_dir == str(sep_repo.store)


# ------------------------------------------------------------------- labels


def test_label_is_checkout_root_basename(repo: Path, linked: Path, git_env: Path) -> None:
    sub = repo / "sub"
    sub.mkdir()
    assert label_for_cwd(sub, git_env) == "proj"
    assert label_for_cwd(linked, git_env) == "proj-feature"


def test_label_outside_git(non_git_dir: Path) -> None:
    assert label_for_cwd(non_git_dir, "/elsewhere") == "plain"
    assert label_for_cwd(non_git_dir, non_git_dir) == "~"
    assert label_for_cwd(f"{non_git_dir}/", str(non_git_dir)) == "~"
    assert label_for_cwd(non_git_dir, None) == "plain"
    assert label_for_cwd("/", None) == "/"


def test_label_for_repo_at_home_is_its_name(repo: Path) -> None:
    assert label_for_cwd(repo, repo) == "proj"


def test_label_for_bare_repo(bare_repo: BareRepo) -> None:
    assert label_for_cwd(bare_repo.bare / "refs", None) == "bare.git"


def test_label_home_match_is_by_components_not_realpath(non_git_dir: Path, base: Path) -> None:
    alias = base / "home-alias"
    alias.symlink_to(non_git_dir, target_is_directory=True)
    assert label_for_cwd(alias, non_git_dir) == "home-alias"  # herdr: Path ==, no resolve
    assert label_for_cwd(f"{non_git_dir}/.", non_git_dir) == "~"
