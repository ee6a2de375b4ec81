"""Generated branch names, checkout path slugs and default checkout paths.

herdr: src/worktree.rs:4,21-54,56-93,139-156 and src/app/api/worktrees.rs:27-37,
src/app/api/worktrees/deferred.rs:100-139, src/app/mod.rs:499-500,
src/config/model.rs:1093-1098 at herdrdev/herdr 1c76079f. Unix rules only.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from .layout import StrPath

WORKTREE_PREFIX = "worktree"
ADJECTIVES: tuple[str, ...] = (
    "brave", "calm", "clear", "green", "lucky", "quiet", "rapid", "silver",
)  # fmt: skip
NOUNS: tuple[str, ...] = (
    "river", "cloud", "field", "forest", "harbor", "meadow", "stone", "valley",
)  # fmt: skip
#: ``[worktrees].directory`` default (config/model.rs:1093-1098).
DEFAULT_WORKTREE_DIRECTORY = "~/.herdr/worktrees"
#: invalid_request message for a relative path (app/api/worktrees.rs:27-37).
PATH_MUST_BE_ABSOLUTE = "worktree path must be absolute"

_U64 = (1 << 64) - 1


def micros_since_epoch() -> int:
    """herdr's seed: microseconds since the Unix epoch (deferred.rs:103-106)."""
    return time.time_ns() // 1000


def generated_branch_name(seed: int) -> str:
    """``worktree/<adj>-<noun>-<4 hex>`` from a u64 seed, with herdr's arithmetic.

    adjective = seed % 8, noun = (seed // 8) % 8, suffix = seed & 0xffff
    (worktree.rs:21-32); so ``0 -> worktree/brave-river-0000`` and
    ``9 -> worktree/calm-cloud-0009``.
    """
    seed &= _U64
    adjective = ADJECTIVES[seed % len(ADJECTIVES)]
    noun = NOUNS[(seed // len(ADJECTIVES)) % len(NOUNS)]
    return f"{WORKTREE_PREFIX}/{adjective}-{noun}-{seed & 0xFFFF:04x}"


def new_branch_name(seed_source: Callable[[], int] = micros_since_epoch) -> str:
    """A generated branch name; inject ``seed_source`` for determinism."""
    return generated_branch_name(seed_source())


def resolve_branch(branch: str | None, seed_source: Callable[[], int] = micros_since_epoch) -> str:
    """``worktree.create``'s branch: given or generated, then trimmed (deferred.rs:100-110).

    An empty result means herdr's ``invalid_request`` "branch is required".
    """
    if branch is None:
        branch = new_branch_name(seed_source)
    return branch.strip()


def branch_path_slug(branch: str) -> str:
    """Checkout folder name for a branch (worktree.rs:34-54).

    ASCII letters and digits are kept, lowercased; every run of other characters
    (any non-ASCII character included) becomes one ``-``; leading and trailing ``-``
    are trimmed; an empty result is ``worktree``.
    """
    out: list[str] = []
    last_was_dash = False
    for ch in branch:
        if ch.isascii() and ch.isalnum():
            out.append(ch.lower())
            last_was_dash = False
        elif not last_was_dash:
            out.append("-")
            last_was_dash = True
    return "".join(out).strip("-") or WORKTREE_PREFIX


def expand_tilde(path: str, home: StrPath | None) -> str:
    """``~`` -> home, ``~/rest`` -> home/rest; anything else unchanged (worktree.rs:60-93).

    ``home=None`` (HOME unset) leaves the path unchanged. ``~user`` is not expanded.
    """
    if home is None:
        return path
    home_text = os.fspath(home)
    if path == "~":
        return home_text
    if path.startswith("~/"):
        return os.path.join(home_text, path[2:])
    return path


def absolute_user_path(path: str, home: StrPath | None) -> str | None:
    """A request path after ``~`` expansion, or None when it is not absolute.

    The socket rule for ``cwd`` and ``path`` (app/api/worktrees.rs:27-37): None means
    ``invalid_request`` :data:`PATH_MUST_BE_ABSOLUTE`. Not normalised, not resolved.
    """
    expanded = expand_tilde(path, home)
    return expanded if os.path.isabs(expanded) else None


def expand_tilde_absolute(path: str, home: StrPath | None, cwd: StrPath | None = None) -> str:
    """``~`` expansion, then a relative result joined to ``cwd`` (worktree.rs:139-148).

    The CLI and config rule (``--cwd``/``--path``, ``[worktrees].directory``).
    ``cwd`` defaults to the process cwd.
    """
    expanded = expand_tilde(path, home)
    if os.path.isabs(expanded):
        return expanded
    return os.path.join(os.fspath(cwd) if cwd is not None else os.getcwd(), expanded)


def worktree_directory(
    home: StrPath | None,
    directory: str = DEFAULT_WORKTREE_DIRECTORY,
    cwd: StrPath | None = None,
) -> str:
    """The configured worktrees directory, expanded as herdr does at startup (mod.rs:499)."""
    return expand_tilde_absolute(directory, home, cwd)


def default_checkout_path(
    repo_name: str,
    branch: str,
    *,
    home: StrPath | None,
    directory: str = DEFAULT_WORKTREE_DIRECTORY,
    cwd: StrPath | None = None,
) -> str:
    """``<directory>/<repo_name>/<branch slug>`` (worktree.rs:154-156, deferred.rs:134-138)."""
    root = worktree_directory(home, directory, cwd)
    return os.path.join(root, repo_name, branch_path_slug(branch))
