"""Worktree groups and closing workspaces (SOCKET.md §9.1, §4.1; VERSIONS.md §1.2).

A workspace may carry membership ``{repo_key, repo_name, repo_root, checkout_path,
is_linked_worktree}``. The group is every workspace whose membership has the same ``repo_key``.
A workspace is a *group root* when its own membership is not linked and the group has two or
more members (herdr's ``workspace_close_indices``, src/app/actions.rs:1673-1697; the same rule
in the #2874 branch that became 0.9.0, commit 549d58b6 ``workspace_close_indices``).

:func:`close_workspaces` is herdr's ``close_selected_workspace`` (src/app/actions.rs:1673-1741):
every closing path that goes through it in herdr (workspace.close, the last tab / last pane of
a workspace when it closes a group, worktree.remove) uses it here, so focus follows herdr.
"""

from __future__ import annotations

from collections.abc import Callable

from .state import Session, Workspace


def group_members(s: Session, w: Workspace) -> list[Workspace]:
    """Every workspace (sidebar order) whose membership shares ``w``'s repo_key."""
    if not w.worktree:
        return [w]
    key = w.worktree.repo_key
    return [x for x in s.workspaces if x.worktree and x.worktree.repo_key == key]


def _is_primary(w: Workspace) -> bool:
    """A group member that is not a linked worktree checkout (a repo parent)."""
    return w.worktree is not None and not w.worktree.is_linked_worktree


def close_set(s: Session, w: Workspace, duplicates_alone: bool = False) -> list[Workspace]:
    """What closing ``w`` closes, in sidebar order: the whole group when ``w`` is a non-linked
    member of a group of two or more, else just ``w``.

    ``duplicates_alone`` (profile row ``duplicate_parents_close_alone``, 0.9.3
    ``workspace_close_indices``): a primary whose group holds another primary (a duplicate
    parent of the same repository) closes by itself, on every implicit closing path
    (workspace.close without close_group, the last tab or pane: [H093] test
    ``duplicate_repo_parents_close_independently_unless_group_is_explicit``)."""
    if w.worktree and not w.worktree.is_linked_worktree:
        members = group_members(s, w)
        if len(members) >= 2:
            if duplicates_alone and any(x is not w and _is_primary(x) for x in members):
                return [w]
            return members
    return [w]


def explicit_close_set(
    s: Session, w: Workspace, close_group: bool, duplicates_alone: bool
) -> list[Workspace]:
    """0.9.x ``workspace.close`` ([H093] src/app/api/workspaces.rs handle_workspace_close,
    VERSIONS.md §1.2): with ``close_group`` the whole group (other primaries included; just
    ``w`` on a linked member or a non-member), else the implicit close set."""
    return close_set(s, w, duplicates_alone and not close_group)


def is_group_root(s: Session, w: Workspace, duplicates_alone: bool = False) -> bool:
    """Closing ``w`` would close two or more workspaces."""
    return len(close_set(s, w, duplicates_alone)) >= 2


def closed_event_per_workspace(close_group_required: bool) -> bool:
    """Does an explicit group close emit one ``workspace_closed`` per closed workspace?

    0.8.2: no, one event for the target only (src/app/api/workspaces.rs:298-331).
    0.9.x: CHOICE read from the #2874 branch (commit 549d58b6, ``handle_workspace_close`` and
    the docs line "An explicit group close emits one workspace.closed event for each workspace
    it closes"): one event per closed workspace, each with its snapshot taken before the
    close, in sidebar order. Tied to the same profile switch as the refusal
    (``close_group_required``) because both came with #2874. VERSIONS.md §1.2 assumed the
    0.8.2 single event instead.
    """
    return close_group_required


def close_workspaces(
    s: Session,
    w: Workspace,
    targets: list[Workspace],
    before_close: Callable[[Workspace], object],
) -> list[Workspace]:
    """Close ``targets`` (:func:`close_set`, ``w`` among them) without any event, calling
    ``before_close`` on each first (the runtime stops their panes' processes).

    Focus, as herdr's ``close_selected_workspace`` leaves it (actions.rs:1707-1733): the
    workspace that was active before the close stays active if it survived; otherwise the
    workspace now at ``w``'s former index (clamped) becomes active; nothing is active when no
    workspace is left. Returns the closed workspaces, in sidebar order.
    """
    index = s.ws_index(w)
    active_before = s.active
    for x in targets:
        before_close(x)
    for x in targets:
        s.close_workspace(x, emit=False)
    if not s.workspaces:
        s.active = None
    else:
        survivor = s.ws(active_before) if active_before is not None else None
        if survivor is None:
            survivor = s.workspaces[min(index, len(s.workspaces) - 1)]
        if s.active != survivor.workspace_id:
            s.active = survivor.workspace_id
    return targets
