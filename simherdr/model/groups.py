"""Worktree groups (SOCKET.md §9.1; VERSIONS.md §1.2).

A workspace may carry membership ``{repo_key, repo_name, repo_root, checkout_path,
is_linked_worktree}``. The group is every workspace with the same ``repo_key``; its root is the
member whose checkout is the repository parent (``is_linked_worktree: false``).
"""

from __future__ import annotations

from .state import Session, Workspace


def group_members(s: Session, w: Workspace) -> list[Workspace]:
    if not w.worktree:
        return [w]
    key = w.worktree.get("repo_key")
    return [x for x in s.workspaces if x.worktree and x.worktree.get("repo_key") == key]


def is_group_root(s: Session, w: Workspace) -> bool:
    """A non-linked member of a group of two or more workspaces."""
    return bool(w.worktree) and not w.worktree.get("is_linked_worktree") and len(group_members(s, w)) >= 2


def group_close_members(s: Session, w: Workspace) -> list[Workspace]:
    """The *other* workspaces that close with ``w`` when ``w`` is a group root."""
    if not is_group_root(s, w):
        return []
    return [x for x in group_members(s, w) if x is not w]
