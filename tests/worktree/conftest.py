"""Fixture repositories for the worktree tests, built with plain git (argv, never a shell).

Every test gets an isolated git environment: HOME is the simulator's home (the ``home``
fixture), GIT_CONFIG_GLOBAL an empty file in it, the system config off, a fixed identity and
fixed dates. Repositories live under ``<tmp>/w`` (resolved, so symlink-free unless a test
makes a symlink on purpose).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from simherdr.handlers import worktree as worktree_handlers

from .helpers import Gate, commit_readme, git

_REPO_LOCATING = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_CEILING_DIRECTORIES", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
    "GIT_TEST_ASSUME_DIFFERENT_OWNER",
)


@pytest.fixture(autouse=True)
def git_isolation(home, monkeypatch):
    gitconfig = Path(home) / ".gitconfig"
    gitconfig.write_text("")
    for name in _REPO_LOCATING:
        monkeypatch.delenv(name, raising=False)
    for name, value in {
        "HOME": home,
        "XDG_CONFIG_HOME": str(Path(home) / ".config"),
        "GIT_CONFIG_GLOBAL": str(gitconfig),
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


@pytest.fixture
def base(tmp_path) -> Path:
    path = tmp_path.resolve() / "w"
    path.mkdir()
    return path


@pytest.fixture
def repo(base) -> Path:
    """``<base>/proj``: a plain repository on ``main`` with one commit."""
    path = base / "proj"
    git(base, "init", "-q", "-b", "main", str(path))
    commit_readme(path)
    return path


@pytest.fixture
def linked(repo, base) -> Path:
    """``<base>/proj-feature``: a linked worktree of ``repo`` on ``feature``."""
    path = base / "proj-feature"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(path), "HEAD")
    return path


@dataclass(frozen=True)
class SepRepo:
    checkout: Path
    store: Path


@pytest.fixture
def sep_repo(base) -> SepRepo:
    """``git init --separate-git-dir <base>/store.git <base>/sep``: ``.git`` is a file."""
    checkout, store = base / "sep", base / "store.git"
    git(base, "init", "-q", "-b", "main", "--separate-git-dir", str(store), str(checkout))
    commit_readme(checkout)
    return SepRepo(checkout, store)


@pytest.fixture
def sep_linked(sep_repo, base) -> Path:
    path = base / "sep-feature"
    git(sep_repo.checkout, "worktree", "add", "-q", "-b", "feature", str(path), "HEAD")
    return path


@dataclass(frozen=True)
class BareRepo:
    bare: Path
    worktree: Path


@pytest.fixture
def bare_repo(repo, base) -> BareRepo:
    """``<base>/bare.git`` cloned bare from ``repo``, with a worktree ``<base>/bare-feature`` on ``topic``."""
    bare, worktree = base / "bare.git", base / "bare-feature"
    git(base, "clone", "-q", "--bare", str(repo), str(bare))
    git(bare, "worktree", "add", "-q", "-b", "topic", str(worktree), "HEAD")
    return BareRepo(bare, worktree)


@pytest.fixture
def link(repo, base) -> Path:
    """``<base>/link`` -> ``<base>/proj`` (a symlinked path to the repository)."""
    path = base / "link"
    path.symlink_to(repo, target_is_directory=True)
    return path


@pytest.fixture
def subdir(repo) -> Path:
    path = repo / "src" / "pkg"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def plain_dir(base) -> Path:
    from simherdr.git.layout import find_checkout_root

    if find_checkout_root(base) is not None:
        pytest.skip(f"the tmp dir {base} is itself inside a git checkout")
    path = base / "plain"
    path.mkdir()
    return path


@pytest.fixture
def gate(monkeypatch) -> Gate:
    """worktree.create/remove's git step waits until ``gate.release.set()``."""
    g = Gate()
    monkeypatch.setattr(worktree_handlers, "run_in_thread", g)
    yield g
    g.release.set()
