"""Fixture repositories for tests/git, built with plain git in tmp dirs.

Every test runs with an isolated environment: HOME and GIT_CONFIG_GLOBAL point into
the test's tmp dir (the user's global config is never read or written), the system
config is off, and git identity and dates come from the environment.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests import gitrepos as G
from tests.gitrepos import BareRepo, SepRepo

Git = Callable[..., str]


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """A real (symlink-free) working directory for one test."""
    return G.make_base(tmp_path)


@pytest.fixture(autouse=True)
def git_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path.resolve() / "home"
    home.mkdir()
    G.isolate(monkeypatch, home)
    return home


@pytest.fixture
def git() -> Git:
    """``git(cwd, *args)``: run git for fixture setup, fail loudly, return stdout."""
    return G.git


@pytest.fixture
def repo(base: Path) -> Path:
    """``<base>/proj``: a plain repository on ``main`` with one commit."""
    return G.make_repo(base)


@pytest.fixture
def linked(repo: Path, base: Path) -> Path:
    """``<base>/proj-feature``: a linked worktree of ``repo`` on branch ``feature``."""
    return G.make_linked(repo, base)


@pytest.fixture
def sep_repo(base: Path) -> SepRepo:
    """``git init --separate-git-dir <base>/store.git <base>/sep`` with one commit."""
    return G.make_sep_repo(base)


@pytest.fixture
def sep_linked(sep_repo: SepRepo, base: Path) -> Path:
    return G.make_linked(sep_repo.checkout, base, "sep-feature")


@pytest.fixture
def bare_repo(repo: Path, base: Path) -> BareRepo:
    """``<base>/bare.git`` cloned bare from ``repo``, with a worktree ``<base>/bare-feature``."""
    return G.make_bare_repo(repo, base)


@pytest.fixture
def symlink_to_repo(repo: Path, base: Path) -> Path:
    link = base / "link"
    link.symlink_to(repo, target_is_directory=True)
    return link


@pytest.fixture
def non_git_dir(base: Path) -> Path:
    path = G.make_plain_dir(base)
    if path is None:
        pytest.skip(f"the tmp dir {base} is itself inside a git checkout")
    (path / "notes.txt").write_text("x\n")
    return path
