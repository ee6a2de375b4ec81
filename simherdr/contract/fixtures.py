"""Fixtures a recorded flow built outside herdr (a git repository), built again on replay.

A recording holds herdr's conversation, not the files the client made; a cassette that needs
them says so with a ``{"fixture": kind, "path": "<tmp:n>"}`` step (the corpus builder adds it,
:data:`simherdr.contract.clientsuite.FIXTURES`). Fixed identities and dates: the same commit
ids on every run.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile

GIT_ENV = {
    "GIT_AUTHOR_NAME": "clientsuite",
    "GIT_AUTHOR_EMAIL": "clientsuite@example.invalid",
    "GIT_COMMITTER_NAME": "clientsuite",
    "GIT_COMMITTER_EMAIL": "clientsuite@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_ENV)
    return env


def git(*argv: str, cwd: str, env: dict[str, str] | None = None) -> None:
    env = env if env is not None else _env()
    subprocess.run(["git", *argv], cwd=cwd, env=env, check=True, capture_output=True)


# the environment git ran in (what of it git reads) -> a repository git_repo built in it
_BUILT: dict[tuple[tuple[str, str], ...], str] = {}


def git_repo(path: str) -> None:
    """A repository on branch main with one commit (README). Built by git once per process and
    git environment (its config follows HOME), then copied: the same bytes (fixed
    identities and dates; nothing in it names its path) but for the index's stat cache, which
    git refreshes (three git runs were ~13 ms of CPU and, on a busy disk, ~80 ms of wall)."""
    env = _env()
    if os.path.isdir(path) and os.listdir(path):  # something there already: git on it
        _git_init(path, env)
        return
    # what git's result depends on here: its config files (HOME, XDG_CONFIG_HOME) and which
    # git (PATH); its GIT_* are ours (not the whole environment: a test runner's changes per test)
    key = tuple((k, env.get(k, "")) for k in ("HOME", "XDG_CONFIG_HOME", "PATH"))
    built = _BUILT.get(key)
    if built is None or not os.path.isdir(built):
        built = tempfile.mkdtemp(prefix="simherdr-fixture-")
        atexit.register(shutil.rmtree, built, True)
        _git_init(built, env)
        _BUILT[key] = built
    shutil.copytree(built, path, symlinks=True, dirs_exist_ok=True)


def _git_init(path: str, env: dict[str, str]) -> None:
    os.makedirs(path, exist_ok=True)
    # --template=: no sample hooks (a replay reads none; they were most of the files written)
    git("init", "-q", "--template=", "-b", "main", cwd=path, env=env)
    with open(os.path.join(path, "README"), "w", encoding="utf-8") as f:
        f.write("clientsuite\n")
    git("add", "README", cwd=path, env=env)
    # no `git maintenance run --auto` child after the commit (git's housekeeping; nothing reads
    # it and herdr commits nothing): one git process less per fixture
    git("-c", "maintenance.auto=false", "commit", "-q", "-m", "init", cwd=path, env=env)


FIXTURES = {"git_repo": git_repo}


def build_fixture(kind: str, path: str) -> bool:
    fn = FIXTURES.get(kind)
    if fn is None:
        return False
    fn(path)
    return True
