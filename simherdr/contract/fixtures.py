"""Fixtures a recorded flow built outside herdr (a git repository), built again on replay.

A recording holds herdr's conversation, not the files the client made; a cassette that needs
them says so with a ``{"fixture": kind, "path": "<tmp:n>"}`` step (the corpus builder adds it,
:data:`simherdr.contract.clientsuite.FIXTURES`). Fixed identities and dates: the same commit
ids on every run.
"""

from __future__ import annotations

import os
import subprocess

GIT_ENV = {
    "GIT_AUTHOR_NAME": "clientsuite",
    "GIT_AUTHOR_EMAIL": "clientsuite@example.invalid",
    "GIT_COMMITTER_NAME": "clientsuite",
    "GIT_COMMITTER_EMAIL": "clientsuite@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


def git(*argv: str, cwd: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_ENV)
    subprocess.run(["git", *argv], cwd=cwd, env=env, check=True, capture_output=True)


def git_repo(path: str) -> None:
    """A repository on branch main with one commit (README)."""
    os.makedirs(path, exist_ok=True)
    # --template=: no sample hooks (a replay reads none; they were most of the files written)
    git("init", "-q", "--template=", "-b", "main", cwd=path)
    with open(os.path.join(path, "README"), "w", encoding="utf-8") as f:
        f.write("clientsuite\n")
    git("add", "README", cwd=path)
    git("commit", "-q", "-m", "init", cwd=path)


FIXTURES = {"git_repo": git_repo}


def build_fixture(kind: str, path: str) -> bool:
    fn = FIXTURES.get(kind)
    if fn is None:
        return False
    fn(path)
    return True
