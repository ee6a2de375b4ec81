"""Helpers for the worktree tests (imported by conftest and the test modules)."""

from __future__ import annotations

import asyncio
import threading

from tests import herdr_reference as ref
from tests.gitrepos import commit_readme, git  # noqa: F401  (one implementation, re-exported)

# --- helpers ---------------------------------------------------------------------------------


def events(h, since: int = 0) -> list[tuple[str, dict]]:
    """Hub events after ``since``, each validated against herdr's event schema."""
    out = []
    for _, kind, data in h.sim.hub.after(since):
        ref.validate_reply({"event": kind, "data": data}, h.sim.version.name)
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
