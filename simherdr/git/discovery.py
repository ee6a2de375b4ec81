"""Which git checkout a path belongs to (herdr's ``git_space_metadata``).

herdr: src/workspace/git/discovery.rs:21-105,249-267 and
src/app/api/worktrees.rs:685-703 at herdrdev/herdr 1c76079f. The filesystem walk
itself is in :mod:`simherdr.git.layout` (see its docstring for the rules).

Decisions, all read from herdr's source:

* **A path inside ``.git``** (e.g. ``repo/.git/refs``) belongs to ``repo``: a
  non-bare git dir is never a root, so the walk continues to the directory holding
  ``.git`` (discovery.rs:136-162,249-267; herdr's test
  ``git_repo_root_ignores_standalone_non_bare_git_dir_layout``). This differs from
  ``git rev-parse``, which would say "not inside a work tree".
* **A bare repository** (and any path inside it) *is* discovered: the bare git dir
  is its own ``checkout_root`` and ``repo_root``, ``is_bare=True``,
  ``is_linked_worktree=False`` (herdr tests ``git_space_metadata_supports_standalone_
  bare_repo``, ``git_space_metadata_marks_bare_dot_git_repo``). herdr therefore
  accepts a bare repo as a worktree source; ``not_git_worktree`` is only for None.
* **``--separate-git-dir``**: ``git_dir`` is the store, not linked; ``repo_name`` is
  the store's basename (e.g. ``store.git``), because herdr names a repository after
  its common dir unless that is ``.git`` or an embedded ``.bare``.
* **A linked worktree**: ``repo_root`` is found as herdr's list handler does: the
  first ``git worktree list`` entry that is itself a non-linked checkout of the same
  repository; if none (git lists a ``--separate-git-dir`` main worktree by its store
  path, which is not a checkout) or git fails, the linked checkout's own root.
"""

from __future__ import annotations

import os

from ..facts.record import record
from .layout import (
    FoundCheckout,
    StrPath,
    canonical_or_original,
    common_dir_for_git_dir,
    find_checkout,
    find_checkout_root,
    git_dir_for_root,
    path_file_name,
    read_git_config_value,
    repo_name_for,
)
from .runner import GitError, run_git


@record(frozen=True)
class Checkout:
    """The git checkout containing a path."""

    checkout_root: str  # the checkout's top directory, as walked (symlink spelling kept)
    repo_key: str  # canonical git common dir (WorkspaceInfo.worktree.repo_key)
    repo_root: str  # the repository's parent checkout (== checkout_root unless linked)
    repo_name: str  # herdr's repo name (from the common dir; see module docstring)
    is_linked_worktree: bool
    git_dir: str  # canonical
    common_dir: str  # canonical (same value as repo_key)
    is_bare: bool  # a bare repository is its own checkout_root
    checkout_key: str  # canonical checkout_root (herdr's checkout_key)


def discover(path: StrPath, *, trust: bool = False) -> Checkout | None:
    """The checkout containing ``path`` (file or directory, existing or not), or None.

    Runs no git for a main checkout or bare repository; for a linked worktree it runs
    ``git worktree list --porcelain`` in it to find the parent (``trust`` applies).
    A relative ``path`` is taken against the process cwd.
    """
    found = find_checkout(path)
    if found is None:
        return None
    repo_root = found.checkout_root
    if found.is_linked_worktree:
        repo_root = _parent_checkout(found, trust=trust)
    return _checkout(found, repo_root)


def space_keys(path: StrPath) -> tuple[str, str] | None:
    """(repo_key, checkout_key) of the checkout containing ``path``, or None: herdr's
    ``git_space_metadata`` (src/workspace/git/discovery.rs:58-99), which reads the filesystem
    and runs no git (a linked checkout's parent, :func:`discover`'s git run, is not part of it)."""
    found = find_checkout(path)
    return None if found is None else _keys(found)


def _keys(found: FoundCheckout) -> tuple[str, str]:
    return found.common_dir, canonical_or_original(found.checkout_root)


def _checkout(found: FoundCheckout, repo_root: str) -> Checkout:
    repo_key, checkout_key = _keys(found)
    return Checkout(
        checkout_root=found.checkout_root,
        repo_key=repo_key,
        repo_root=repo_root,
        repo_name=repo_name_for(found),
        is_linked_worktree=found.is_linked_worktree,
        git_dir=found.git_dir,
        common_dir=found.common_dir,
        is_bare=found.is_bare,
        checkout_key=checkout_key,
    )


def _parent_checkout(found: FoundCheckout, *, trust: bool) -> str:
    from .worktrees import worktree_list

    try:
        entries = worktree_list(found.checkout_root, trust=trust)
    except GitError:
        return found.checkout_root
    for entry in entries:
        entry_found = find_checkout(entry.path)
        if (
            entry_found is not None
            and entry_found.common_dir == found.common_dir
            and not entry_found.is_linked_worktree
        ):
            return entry_found.checkout_root
    return found.checkout_root


def label_for_cwd(cwd: StrPath, home: StrPath | None) -> str:
    """The automatic workspace label (SOCKET.md §3.1; discovery.rs:21-40,63-69).

    The basename of the checkout root containing ``cwd`` (a linked worktree's own
    root, a bare repo's dir); outside git, ``~`` when ``cwd`` equals ``home``
    (component-wise, so a trailing ``/`` does not matter), else ``cwd``'s basename,
    else ``cwd`` itself (e.g. ``/``). A repository *at* ``home`` is labelled by its
    basename, not ``~``. ``home=None`` means HOME is unset (no ``~`` rule).
    """
    cwd_text = os.fspath(cwd)
    root = find_checkout_root(cwd_text)
    if root is not None:
        name = path_file_name(root)
        if name:
            return name
    if home is not None and _components(cwd_text) == _components(os.fspath(home)):
        return "~"
    return path_file_name(cwd_text) or cwd_text


def _components(path: str) -> tuple[str, ...]:
    """Rust ``Path`` equality: repeated ``/`` and interior ``.`` do not count."""
    if path.startswith("/"):
        lead: tuple[str, ...] = ("/",)
    elif path.split("/")[0] == ".":
        lead = (".",)
    else:
        lead = ()
    return lead + tuple(part for part in path.split("/") if part not in ("", "."))


def head_branch(path: StrPath) -> str | None:
    """The branch checked out in the checkout containing ``path``, or None (herdr's
    ``git_branch``, discovery.rs:124-134,181-189).

    Read from the checkout's own ``HEAD`` file (``ref: refs/heads/<name>``; anything
    else, e.g. a detached HEAD, is None). A reftable repository asks
    ``git symbolic-ref --quiet --short HEAD`` instead. No trust override: herdr runs
    this without one.
    """
    root = find_checkout_root(path)
    if root is None:
        return None
    git_dir = git_dir_for_root(root)
    if git_dir is None:  # pragma: no cover - the walk just validated it
        return None
    refstorage = read_git_config_value(
        os.path.join(common_dir_for_git_dir(git_dir), "config"), "extensions", "refstorage"
    )
    if refstorage is not None and refstorage.lower() == "reftable":
        try:
            result = run_git(["symbolic-ref", "--quiet", "--short", "HEAD"], cwd=root)
        except GitError:
            return None
        out = result.stdout.strip()
        return out if result.ok and out else None
    try:
        with open(os.path.join(git_dir, "HEAD"), encoding="utf-8", errors="replace") as handle:
            head = handle.read().strip()
    except OSError:
        return None
    branch = head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else ""
    return branch or None
