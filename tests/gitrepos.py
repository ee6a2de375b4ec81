"""Fixture repositories built with plain git, shared by tests/git and tests/worktree.

Every builder runs git as argv (never a shell) and fails loudly. ``isolate(monkeypatch, home)``
gives a test its own HOME and global config (the user's is never read or written), the system
config off, and git identity and dates from the environment.
"""

from __future__ import annotations

import os
import shutil
import stat
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


# A fixture's commit runs no `git maintenance run --auto` child (git's housekeeping after a
# commit, nothing a fixture reads; herdr commits nothing): one git process less per commit.
NO_AUTO_MAINTENANCE = ("-c", "maintenance.auto=false")


def git(cwd, *args: str) -> str:
    """Run git for fixture setup; fail loudly; return stdout."""
    proc = subprocess.run(
        ["git", *NO_AUTO_MAINTENANCE, "-C", str(cwd), *args],
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
    """``<base>/proj``: a plain repository on ``main`` with one commit."""
    path = base / "proj"
    if not _replay(base, (), ("repo",)):
        _build_repo(base, path)
    return path


def _build_repo(base: Path, path: Path) -> None:
    # --template=: no sample hooks, description or info/exclude (nothing here reads them;
    # they were most of a repository's files)
    git(base, "init", "-q", "--template=", "-b", "main", str(path))
    commit_readme(path)


def make_linked(
    repo: Path, base: Path, name: str = "proj-feature", branch: str = "feature"
) -> Path:
    """``<base>/<name>``: a linked worktree of ``repo`` on a new ``branch``."""
    path = base / name
    prefixes = {base / "proj": _ON_REPO[:1], base / "sep": ((("sep",),),)}.get(Path(repo), ())
    if not _replay_any(base, prefixes, ("linked", repo.name, name, branch)):
        _add_linked(repo, path, branch)
    return path


def _add_linked(repo: Path, path: Path, branch: str) -> None:
    git(repo, "worktree", "add", "-q", "-b", branch, str(path), "HEAD")


@dataclass(frozen=True)
class SepRepo:
    checkout: Path
    store: Path


def make_sep_repo(base: Path) -> SepRepo:
    """``git init --separate-git-dir <base>/store.git <base>/sep`` (``.git`` is a file), one commit."""
    checkout, store = base / "sep", base / "store.git"
    if not _replay(base, (), ("sep",)):
        _build_sep_repo(base, checkout, store)
    return SepRepo(checkout=checkout, store=store)


def _build_sep_repo(base: Path, checkout: Path, store: Path) -> None:
    git(
        base,
        "init",
        "-q",
        "--template=",
        "-b",
        "main",
        "--separate-git-dir",
        str(store),
        str(checkout),
    )
    commit_readme(checkout)


@dataclass(frozen=True)
class BareRepo:
    bare: Path
    worktree: Path


def make_bare_repo(repo: Path, base: Path, branch: str = "feature") -> BareRepo:
    """``<base>/bare.git`` cloned bare from ``repo``, with a worktree ``<base>/bare-feature``."""
    bare, worktree = base / "bare.git", base / "bare-feature"
    prefixes = _ON_REPO if Path(repo) == base / "proj" else ()
    if not _replay_any(base, prefixes, ("bare", branch)):
        _build_bare(repo, bare, worktree, branch)
    return BareRepo(bare=bare, worktree=worktree)


def _build_bare(repo: Path, bare: Path, worktree: Path, branch: str) -> None:
    git(bare.parent, "clone", "-q", "--template=", "--bare", str(repo), str(bare))
    _add_linked(bare, worktree, branch)


# --- replaying the builders -------------------------------------------------------------------
#
# Under isolate() (fixed identity and dates, an empty global config, no system config) a
# builder's result is the same bytes every time but for the paths it writes (a linked
# worktree's ``gitdir``, a clone's remote url) and an index's stat cache (git re-reads the files
# it does not match). So each builder step runs with real git once per process (per isolated
# environment), in a scratch base, and what it added is recorded with the base path as a
# placeholder; a test's base gets those files written with its own path. A step is replayed only
# where the repository it reads is byte for byte (index aside) what the recording read, and
# nothing it adds exists yet; else git runs as before (a test may have changed the repository).
# Elsewhere (not isolated) git always runs, with the user's configuration.

# what a step on ``<base>/proj`` may find there: the repository, or (the bare clone) it and the
# default linked worktree (a test asking for both ``linked`` and ``bare_repo``)
_ON_REPO: tuple[tuple[tuple, ...], ...] = (
    (("repo",),),
    (("repo",), ("linked", "proj", "proj-feature", "feature")),
)
_PLACEHOLDER = b"\x00simherdr-base\x00"
_DIR = -1  # an entry's data for a directory


@dataclass(frozen=True)
class _Entry:
    mode: int
    data: bytes | int  # file contents or a symlink's target (placeholder for the base), or _DIR


# a step's record: the entries it added (rel path -> entry, parents first), the repository it
# read (a rel dir) and that directory's entries as the step found them
@dataclass(frozen=True)
class _Record:
    added: dict[str, _Entry]
    reads: str | None
    read_state: dict[str, _Entry]

    @property
    def tops(self) -> list[str]:
        """The added entries whose parent was there before."""
        return [rel for rel in self.added if os.path.dirname(rel) not in self.added]


_RECORDS: dict[tuple, _Record | None] = {}


def _snapshot(root: Path, base: Path) -> dict[str, _Entry]:
    """Every entry under ``root`` (rel to ``base``), the base path replaced by the placeholder."""
    out: dict[str, _Entry] = {}
    prefix = os.fsencode(base)
    stack = [root]
    while stack:
        top = stack.pop()
        with os.scandir(top) as it:
            for e in it:
                rel = os.path.relpath(e.path, base)
                st = e.stat(follow_symlinks=False)
                if e.is_symlink():
                    data: bytes | int = os.fsencode(os.readlink(e.path))
                elif e.is_dir(follow_symlinks=False):
                    out[rel] = _Entry(st.st_mode, _DIR)
                    stack.append(Path(e.path))
                    continue
                else:
                    with open(e.path, "rb") as f:
                        data = f.read()
                out[rel] = _Entry(st.st_mode, data.replace(prefix, _PLACEHOLDER))
    return out


def _build(chain: tuple[tuple, ...], base: Path) -> None:
    """``chain``'s builder steps in ``base``, each replayed where it can be."""
    for i, step in enumerate(chain):
        if not _replay(base, chain[:i], step):
            _steps((step,), base)


def _steps(chain: tuple[tuple, ...], base: Path) -> None:
    """Run ``chain``'s builder steps in ``base`` with real git."""
    for step in chain:
        if step[0] == "repo":
            _build_repo(base, base / "proj")
        elif step[0] == "sep":
            _build_sep_repo(base, base / "sep", base / "store.git")
        elif step[0] == "linked":
            _add_linked(base / step[1], base / step[2], step[3])
        else:
            _build_bare(base / "proj", base / "bare.git", base / "bare-feature", step[1])


def _reads(step: tuple) -> str | None:
    """The repository (its git dir, rel to the base) ``step`` reads, None when it reads none."""
    if step[0] == "linked":
        return {"proj": "proj/.git", "sep": "store.git"}[step[1]]
    if step[0] == "bare":
        return "proj/.git"
    return None


def _record(prefix: tuple[tuple, ...], step: tuple) -> _Record | None:
    import atexit
    import tempfile

    scratch = Path(tempfile.mkdtemp(prefix="simherdr-gitrepo-")).resolve()
    atexit.register(shutil.rmtree, scratch, True)
    base = scratch / "w"
    base.mkdir()
    try:
        _build(prefix, base)
        before = _snapshot(base, base)
        _steps((step,), base)
        after = _snapshot(base, base)
    except AssertionError:  # git refused: the test's own build will say why
        return None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if any(rel not in after for rel in before):
        return None  # a step that removes something is not replayed
    added = {rel: e for rel, e in sorted(after.items()) if before.get(rel) != e}
    if any(rel in before for rel in added):
        return None  # nor one that rewrites what was there
    reads = _reads(step)
    state = {}
    if reads is not None:
        state = _state(before, reads)
    return _Record(added, reads, state)


def _state(entries: dict[str, _Entry], gitdir: str) -> dict[str, _Entry]:
    """The entries of ``gitdir`` a builder step reads: all but the indexes (a step reads none;
    their stat cache differs from one build to the next)."""
    return {
        rel: e
        for rel, e in entries.items()
        if rel.startswith(gitdir + "/") and os.path.basename(rel) != "index"
    }


def _replay_any(base: Path, prefixes: tuple[tuple[tuple, ...], ...], step: tuple) -> bool:
    return any(_replay(base, prefix, step) for prefix in prefixes)


def _replay(base: Path, prefix: tuple[tuple, ...], step: tuple) -> bool:
    """Write ``step``'s recorded additions into ``base``; False where it cannot be replayed."""
    key = _isolated_key()
    if key is None:
        return False
    rkey = (key, prefix, step)
    if rkey not in _RECORDS:
        _RECORDS[rkey] = _record(prefix, step)
    rec = _RECORDS[rkey]
    if rec is None:
        return False
    base = Path(base)
    if not base.is_dir() or any(os.path.lexists(base / rel) for rel in rec.tops):
        return False
    if rec.reads is not None:
        root = base / rec.reads
        if not root.is_dir():
            return False
        if _state(_snapshot(root, base), rec.reads) != rec.read_state:
            return False
    path = os.fsencode(base)
    for rel, e in rec.added.items():
        target = base / rel
        if e.data == _DIR:
            os.mkdir(target, e.mode & 0o7777)
            continue
        assert isinstance(e.data, bytes)
        data = e.data.replace(_PLACEHOLDER, path)
        if stat.S_ISLNK(e.mode):
            os.symlink(os.fsdecode(data), target)
            continue
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, e.mode & 0o7777)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    return True


def _isolated_key() -> tuple | None:
    """The environment :func:`isolate` set (every variable a repository's bytes depend on),
    None when the environment is not isolated."""
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
    umask = _umask()
    if umask is None:
        return None
    return (key, umask)


def _umask() -> int | None:
    """The process's umask (the modes git gives what it writes), read without setting it."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    return None


def make_plain_dir(base: Path):
    """``<base>/plain``, outside any git checkout; None if the tmp dir itself is inside one."""
    from simherdr.git.layout import find_checkout_root

    if find_checkout_root(base) is not None:
        return None
    path = base / "plain"
    path.mkdir()
    return path
