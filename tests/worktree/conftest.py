"""Fixture repositories for the worktree tests, built with plain git (argv, never a shell).

Every test gets an isolated git environment: HOME is the simulator's home (the ``home``
fixture), GIT_CONFIG_GLOBAL an empty file in it, the system config off, a fixed identity and
fixed dates. Repositories live under ``<tmp>/w`` (resolved, so symlink-free unless a test
makes a symlink on purpose).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simherdr.handlers import worktree as worktree_handlers
from tests import gitrepos as G
from tests.gitrepos import BareRepo, SepRepo

from .helpers import Gate


@pytest.fixture(autouse=True)
def git_isolation(home, monkeypatch):
    G.isolate(monkeypatch, Path(home))


@pytest.fixture
def base(tmp_path) -> Path:
    return G.make_base(tmp_path)


@pytest.fixture
def repo(base) -> Path:
    """``<base>/proj``: a plain repository on ``main`` with one commit."""
    return G.make_repo(base)


@pytest.fixture
def linked(repo, base) -> Path:
    """``<base>/proj-feature``: a linked worktree of ``repo`` on ``feature``."""
    return G.make_linked(repo, base)


@pytest.fixture
def sep_repo(base) -> SepRepo:
    """``git init --separate-git-dir <base>/store.git <base>/sep``: ``.git`` is a file."""
    return G.make_sep_repo(base)


@pytest.fixture
def sep_linked(sep_repo, base) -> Path:
    return G.make_linked(sep_repo.checkout, base, "sep-feature")


@pytest.fixture
def bare_repo(repo, base) -> BareRepo:
    """``<base>/bare.git`` cloned bare from ``repo``, with a worktree ``<base>/bare-feature`` on ``topic``."""
    return G.make_bare_repo(repo, base, branch="topic")


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
    path = G.make_plain_dir(base)
    if path is None:
        pytest.skip(f"the tmp dir {base} is itself inside a git checkout")
    return path


@pytest.fixture
def gate(monkeypatch) -> Gate:
    """worktree.create/remove's git step waits until ``gate.release.set()``."""
    g = Gate()
    monkeypatch.setattr(worktree_handlers, "run_in_thread", g)
    yield g
    g.release.set()
