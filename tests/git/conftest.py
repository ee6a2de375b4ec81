"""Fixture repositories for tests/git, built with plain git in tmp dirs.

Every test runs with an isolated environment: HOME and GIT_CONFIG_GLOBAL point into
the test's tmp dir (the user's global config is never read or written), the system
config is off, and git identity and dates come from the environment.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

_REPO_LOCATING = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_CEILING_DIRECTORIES",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_TEST_ASSUME_DIFFERENT_OWNER",
)

Git = Callable[..., str]


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """A real (symlink-free) working directory for one test."""
    path = tmp_path.resolve() / "w"
    path.mkdir()
    return path


@pytest.fixture(autouse=True)
def git_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path.resolve() / "home"
    home.mkdir()
    global_config = home / ".gitconfig"
    global_config.write_text("")
    for name in _REPO_LOCATING:
        monkeypatch.delenv(name, raising=False)
    for name, value in {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_GLOBAL": str(global_config),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Sim Herdr",
        "GIT_AUTHOR_EMAIL": "simherdr@example.invalid",
        "GIT_COMMITTER_NAME": "Sim Herdr",
        "GIT_COMMITTER_EMAIL": "simherdr@example.invalid",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
        "LC_ALL": "C",
    }.items():
        monkeypatch.setenv(name, value)
    return home


@pytest.fixture
def git() -> Git:
    """``git(cwd, *args)``: run git for fixture setup, fail loudly, return stdout."""

    def run(cwd: Path | str, *args: str) -> str:
        proc = subprocess.run(
            ["git", "-C", str(cwd), *args],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=30,
        )
        assert proc.returncode == 0, f"git {' '.join(args)} failed: {proc.stderr}"
        return proc.stdout

    return run


def _commit_readme(git: Git, checkout: Path) -> None:
    (checkout / "README.md").write_text("hello\n")
    git(checkout, "add", "README.md")
    git(checkout, "commit", "-q", "-m", "initial")


@pytest.fixture
def repo(base: Path, git: Git) -> Path:
    """``<base>/proj``: a plain repository on ``main`` with one commit."""
    path = base / "proj"
    git(base, "init", "-q", "-b", "main", str(path))
    _commit_readme(git, path)
    return path


@pytest.fixture
def linked(repo: Path, base: Path, git: Git) -> Path:
    """``<base>/proj-feature``: a linked worktree of ``repo`` on branch ``feature``."""
    path = base / "proj-feature"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(path), "HEAD")
    return path


@dataclass(frozen=True)
class SepRepo:
    checkout: Path
    store: Path


@pytest.fixture
def sep_repo(base: Path, git: Git) -> SepRepo:
    """``git init --separate-git-dir <base>/store.git <base>/sep`` with one commit."""
    checkout, store = base / "sep", base / "store.git"
    git(base, "init", "-q", "-b", "main", "--separate-git-dir", str(store), str(checkout))
    _commit_readme(git, checkout)
    return SepRepo(checkout=checkout, store=store)


@pytest.fixture
def sep_linked(sep_repo: SepRepo, base: Path, git: Git) -> Path:
    path = base / "sep-feature"
    git(sep_repo.checkout, "worktree", "add", "-q", "-b", "feature", str(path), "HEAD")
    return path


@dataclass(frozen=True)
class BareRepo:
    bare: Path
    worktree: Path


@pytest.fixture
def bare_repo(repo: Path, base: Path, git: Git) -> BareRepo:
    """``<base>/bare.git`` cloned bare from ``repo``, with a worktree ``<base>/bare-feature``."""
    bare, worktree = base / "bare.git", base / "bare-feature"
    git(base, "clone", "-q", "--bare", str(repo), str(bare))
    git(bare, "worktree", "add", "-q", "-b", "feature", str(worktree), "HEAD")
    return BareRepo(bare=bare, worktree=worktree)


@pytest.fixture
def symlink_to_repo(repo: Path, base: Path) -> Path:
    link = base / "link"
    link.symlink_to(repo, target_is_directory=True)
    return link


@pytest.fixture
def non_git_dir(base: Path) -> Path:
    from simherdr.git.layout import find_checkout_root

    if find_checkout_root(base) is not None:
        pytest.skip(f"the tmp dir {base} is itself inside a git checkout")
    path = base / "plain"
    path.mkdir()
    (path / "notes.txt").write_text("x\n")
    return path
