"""Fixture repositories built with plain git, shared by tests/git and tests/worktree.

Every builder runs git as argv (never a shell) and fails loudly. ``isolate(monkeypatch, home)``
gives a test its own HOME and global config (the user's is never read or written), the system
config off, and git identity and dates from the environment.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO_LOCATING = (
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


def git(cwd, *args: str) -> str:
    """Run git for fixture setup; fail loudly; return stdout."""
    proc = subprocess.run(
        ["git", "-C", str(cwd), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    assert proc.returncode == 0, f"git {' '.join(args)} failed: {proc.stderr}"
    return proc.stdout


def isolate(monkeypatch, home: Path) -> None:
    home = Path(home)
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("")
    for name in REPO_LOCATING:
        monkeypatch.delenv(name, raising=False)
    for name, value in _isolated_env(home).items():
        monkeypatch.setenv(name, value)


def _isolated_env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Sim Herdr",
        "GIT_AUTHOR_EMAIL": "simherdr@example.invalid",
        "GIT_COMMITTER_NAME": "Sim Herdr",
        "GIT_COMMITTER_EMAIL": "simherdr@example.invalid",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
        "LC_ALL": "C",
    }


# what a repository's bytes depend on among the variables isolate() sets (HOME,
# XDG_CONFIG_HOME and GIT_CONFIG_GLOBAL only locate the empty config)
_LOCATING_CONFIG = ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL")
_ISOLATED = tuple(k for k in _isolated_env(Path("/")) if k not in _LOCATING_CONFIG)


def make_base(tmp_path: Path) -> Path:
    """A real (symlink-free) working directory for one test."""
    path = Path(tmp_path).resolve() / "w"
    path.mkdir()
    return path


def commit_readme(checkout: Path) -> None:
    (checkout / "README.md").write_text("hello\n")
    git(checkout, "add", "README.md")
    git(checkout, "commit", "-q", "-m", "initial")


def make_repo(base: Path) -> Path:
    """``<base>/proj``: a plain repository on ``main`` with one commit.

    Under :func:`isolate` (fixed identity and dates, an empty global config, no system
    config) every such repository is byte for byte the same but for the index's stat cache
    (git re-reads the files it does not match): it is built once per process and copied (a
    plain repository holds no path of its own; linked, separate-dir and bare ones do and are
    built each time). Elsewhere it is built with the user's git."""
    path = base / "proj"
    template = _isolated_template()
    if template is not None:
        shutil.copytree(template, path, symlinks=True)
        return path
    _build_repo(base, path)
    return path


def _build_repo(base: Path, path: Path) -> None:
    git(base, "init", "-q", "-b", "main", str(path))
    commit_readme(path)


_TEMPLATES: dict[tuple, Path] = {}


def _isolated_template() -> Path | None:
    """The process's template of :func:`make_repo` for the environment :func:`isolate` set
    (keyed by every variable it sets), None when the environment is not isolated."""
    import os
    import tempfile

    if os.environ.get("GIT_CONFIG_NOSYSTEM") != "1":
        return None
    if any(os.environ.get(name) for name in REPO_LOCATING):
        return None
    cfg = os.environ.get("GIT_CONFIG_GLOBAL")
    if not cfg or Path(cfg).read_bytes() != b"":
        return None
    key = tuple(os.environ.get(name) for name in _ISOLATED)
    if None in key:
        return None
    if key not in _TEMPLATES:
        import atexit

        base = Path(tempfile.mkdtemp(prefix="simherdr-gitrepo-")).resolve()
        atexit.register(shutil.rmtree, base, True)
        _build_repo(base, base / "proj")
        _TEMPLATES[key] = base / "proj"
    return _TEMPLATES[key]


def make_linked(
    repo: Path, base: Path, name: str = "proj-feature", branch: str = "feature"
) -> Path:
    """``<base>/<name>``: a linked worktree of ``repo`` on a new ``branch``."""
    path = base / name
    git(repo, "worktree", "add", "-q", "-b", branch, str(path), "HEAD")
    return path


@dataclass(frozen=True)
class SepRepo:
    checkout: Path
    store: Path


def make_sep_repo(base: Path) -> SepRepo:
    """``git init --separate-git-dir <base>/store.git <base>/sep`` (``.git`` is a file), one commit."""
    checkout, store = base / "sep", base / "store.git"
    git(base, "init", "-q", "-b", "main", "--separate-git-dir", str(store), str(checkout))
    commit_readme(checkout)
    return SepRepo(checkout=checkout, store=store)


@dataclass(frozen=True)
class BareRepo:
    bare: Path
    worktree: Path


def make_bare_repo(repo: Path, base: Path, branch: str = "feature") -> BareRepo:
    """``<base>/bare.git`` cloned bare from ``repo``, with a worktree ``<base>/bare-feature``."""
    bare, worktree = base / "bare.git", base / "bare-feature"
    git(base, "clone", "-q", "--bare", str(repo), str(bare))
    git(bare, "worktree", "add", "-q", "-b", branch, str(worktree), "HEAD")
    return BareRepo(bare=bare, worktree=worktree)


def make_plain_dir(base: Path):
    """``<base>/plain``, outside any git checkout; None if the tmp dir itself is inside one."""
    from simherdr.git.layout import find_checkout_root

    if find_checkout_root(base) is not None:
        return None
    path = base / "plain"
    path.mkdir()
    return path
