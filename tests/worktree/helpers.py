"""Helpers for the worktree tests (imported by conftest and the test modules)."""

from __future__ import annotations

import asyncio
import subprocess
import threading
from pathlib import Path

from tests import herdr_reference as ref


def git(cwd, *args: str) -> str:
    """Run git for fixture setup; fail loudly; return stdout."""
    proc = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=30)
    assert proc.returncode == 0, f"git {' '.join(args)} failed: {proc.stderr}"
    return proc.stdout


def commit_readme(checkout: Path) -> None:
    (checkout / "README.md").write_text("hello\n")
    git(checkout, "add", "README.md")
    git(checkout, "commit", "-q", "-m", "initial")


# --- helpers ---------------------------------------------------------------------------------


def events(h, since: int = 0) -> list[tuple[str, dict]]:
    """Hub events after ``since``, each validated against herdr's event schema."""
    out = []
    for _, kind, data in h.sim.hub.after(since):
        ref.validate_reply({"event": kind, "data": data})
        out.append((kind, data))
    return out


def kinds(h, since: int = 0) -> list[str]:
    return [k for k, _ in events(h, since)]


def run(h, task):
    """Let a spawned request (create/remove) finish, git included, and return its reply."""
    h.loop.run_until_complete(task)
    return h.result(task)


class Gate:
    """Holds worktree.create/remove's git step until released (``run_in_thread`` seam)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.calls: list[str] = []

    async def __call__(self, fn, *args, **kwargs):
        def held():
            self.calls.append(fn.__name__)
            self.entered.set()
            assert self.release.wait(20), "gate never released"
            return fn(*args, **kwargs)

        return await asyncio.to_thread(held)
