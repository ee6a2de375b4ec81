"""Moving panes, tabs and workspaces (pure): herdr's take/insert rules for `pane.move`
(src/workspace.rs:985-1063, src/workspace/tab.rs:464-529, src/app/api/panes.rs:624-1044) and
the reorders of `tab.move` / `workspace.move` / `workspace.move_block` (src/workspace.rs:644-668,
src/app/actions.rs:1370-1460).
"""

from __future__ import annotations

from ..facts import ids
from ..facts.record import record
from . import layout as L
from .state import Pane, Session, Tab, Workspace


@record
class Taken:
    removed_tab: Tab | None  # the source tab, when the pane was its only pane
    workspace_empty: bool  # the source workspace has no tab left


def take_pane(s: Session, p: Pane) -> Taken:
    """Take a pane out of its tab without ending its terminal. A tab left empty is removed
    (active tab rule of a close, src/workspace.rs:228-236); the workspace may be left with
    no tab, for the caller to close or refill."""
    w = s.ws_of(p)
    t = s.tab_of(p)
    if L.pane_count(t.root) > 1:
        s.detach_from_tab(t, p.pane_id)
        return Taken(None, False)
    idx = w.tabs.index(t)
    w.tabs.remove(t)
    if w.active_tab == t.tab_id:
        w.active_tab = w.tabs[max(idx - 1, 0)].tab_id if w.tabs else None
    return Taken(t, not w.tabs)


def renumber(s: Session, p: Pane, w: Workspace) -> str:
    """A pane crossing into workspace ``w`` gets its next pane number; its old public id
    becomes an alias of the new one (src/app/api/panes.rs:834-841). Returns the old id."""
    old = p.pane_id
    n = w.next_pane_number
    w.next_pane_number += 1
    new = ids.pane_id(w.workspace_id, n)
    del s.panes[old]
    p.pane_id, p.number, p.workspace_id = new, n, w.workspace_id
    s.panes[new] = p
    for alias, target in list(s.aliases.items()):
        if target == old:
            s.aliases[alias] = new
    s.aliases[old] = new
    return old


def drop_empty_workspace(s: Session, w: Workspace) -> None:
    """The source workspace emptied by a cross-workspace move goes (src/app/api/panes.rs:
    843-866): the workspace now at its index becomes active if it was active."""
    idx = s.ws_index(w)
    was_active = s.active == w.workspace_id
    s.workspaces.remove(w)
    if was_active:
        s.active = (
            s.workspaces[min(idx, len(s.workspaces) - 1)].workspace_id if s.workspaces else None
        )


def insert_into_tab(
    s: Session, p: Pane, t: Tab, target: str, direction: str, ratio: float, focus: bool
) -> None:
    """src/layout.rs insert_pane_near: the moved pane becomes the second child of a new split
    around the target; focus moves to it only when asked."""
    p.tab_id = t.tab_id
    t.root = L.split_leaf(t.root, target, p.pane_id, direction, L.valid_split_ratio(ratio))
    t.zoomed = False
    if focus:
        s.focus_in_tab(t, p.pane_id)


def new_tab_with(w: Workspace, p: Pane, label: str | None) -> Tab:
    """src/workspace.rs create_tab_from_existing_pane: a new last tab holding the pane."""
    n = w.next_tab_number
    w.next_tab_number += 1
    t = Tab(
        tab_id=ids.tab_id(w.workspace_id, n),
        number=n,
        workspace_id=w.workspace_id,
        root=L.Leaf(p.pane_id),
        focused_pane=p.pane_id,
        root_pane=p.pane_id,
        custom_label=label,
    )
    p.tab_id = t.tab_id
    w.tabs.append(t)
    if w.active_tab is None:
        w.active_tab = t.tab_id
    return t


def new_workspace_for(s: Session, cwd: str, auto_label: str, label: str | None) -> Workspace:
    """src/workspace.rs:238-275 from_existing_pane: a new last workspace, numbered like a
    created one; its tab and pane numbers start at 1."""
    wid = ids.workspace_id(s.next_workspace_number)
    s.next_workspace_number += 1
    w = Workspace(workspace_id=wid, cwd=cwd, auto_label=auto_label, custom_label=label)
    s.workspaces.append(w)
    return w


# --- reorders ---------------------------------------------------------------------------------


def move_tab(w: Workspace, t: Tab, insert_index: int) -> bool:
    """src/workspace.rs:644-668: ``insert_index`` counts positions before the move; the active
    tab stays the same tab."""
    source = w.tabs.index(t)
    target = insert_index - 1 if source < insert_index else insert_index
    target = min(target, len(w.tabs) - 1)
    if source == target:
        return False
    w.tabs.pop(source)
    w.tabs.insert(target, t)
    return True


def move_workspace(s: Session, w: Workspace, insert_index: int) -> bool:
    """src/app/actions.rs:1370-1401: the same rule for the sidebar order."""
    source = s.ws_index(w)
    target = insert_index - 1 if source < insert_index else insert_index
    if source == target:
        return False
    s.workspaces.pop(source)
    s.workspaces.insert(target, w)
    return True


def move_workspace_block(s: Session, moved: list[str], before: str | None) -> bool:
    """src/app/actions.rs:1403-1460: the listed workspaces, in the given order, go before
    ``before`` (or last); False when the order would not change."""
    chosen = set(moved)
    rest = [w.workspace_id for w in s.workspaces if w.workspace_id not in chosen]
    at = rest.index(before) if before is not None and before in rest else len(rest)
    desired = rest[:at] + list(moved) + rest[at:]
    if [w.workspace_id for w in s.workspaces] == desired:
        return False
    position = {wid: i for i, wid in enumerate(desired)}
    s.workspaces.sort(key=lambda w: position[w.workspace_id])
    return True
