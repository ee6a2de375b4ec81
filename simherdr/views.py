"""herdr's info objects, built from the state (SOCKET.md §3). Optional fields are omitted when
empty, never null; ``launch_pending``/``interactive_ready``/``screen_detection_skipped`` are
omitted when false."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .model import layout as L
from .model.status import rollup
from .model.titles import stripped_terminal_title

if TYPE_CHECKING:
    from .model.state import Pane, Session, Tab, Workspace


def tab_status(s: Session, t: Tab) -> str:
    """A tab's agent_status: the rollup of its panes' (src/workspace/aggregate.rs:75-100)."""
    return rollup(s.panes[p].status for p in t.pane_ids())


def workspace_status(s: Session, w: Workspace) -> str:
    return rollup(s.panes[p].status for t in w.tabs for p in t.pane_ids())


def workspace_info(s: Session, w: Workspace) -> dict:
    return _workspace_info(s, w, sum(len(t.pane_ids()) for t in w.tabs), workspace_status(s, w))


def _workspace_info(s: Session, w: Workspace, pane_count: int, status: str) -> dict:
    info = {
        "workspace_id": w.workspace_id,
        "number": s.ws_index(w) + 1 if w in s.workspaces else 0,
        "label": s.label_of(w),
        "focused": s.active == w.workspace_id,
        "pane_count": pane_count,
        "tab_count": len(w.tabs),
        "active_tab_id": w.active_tab or "",
        "agent_status": status,
    }
    if w.tokens:
        info["tokens"] = dict(w.tokens)
    if w.worktree:
        info["worktree"] = w.worktree.info()
    return info


def tab_info(s: Session, t: Tab) -> dict:
    return _tab_info(s, t, len(t.pane_ids()), tab_status(s, t))


def _tab_info(s: Session, t: Tab, pane_count: int, status: str) -> dict:
    w = s.ws_of(t)
    return {
        "tab_id": t.tab_id,
        "workspace_id": t.workspace_id,
        "number": t.number,
        # default label: the 1-based position (src/workspace.rs:495-502)
        "label": t.custom_label if t.custom_label is not None else str(_position(w.tabs, t) + 1),
        "focused": s.active == w.workspace_id and w.active_tab == t.tab_id,
        "pane_count": pane_count,
        "agent_status": status,
    }


def _position(items: list, item: object) -> int:
    """``items.index(item)`` by identity: ``index`` compares records field by field (a tab's
    whole tree) with every one before it, quadratic over a workspace of many tabs."""
    for i, x in enumerate(items):
        if x is item:
            return i
    raise ValueError(f"{item!r} is not in list")


def _presentation(p: Pane, out: dict) -> None:
    a = p.agent
    if a.label:
        out["agent"] = a.label
    if a.title:
        out["title"] = a.title
    title = p.screen.title
    if title:
        out["terminal_title"] = title
        stripped = stripped_terminal_title(title)
        if stripped:
            out["terminal_title_stripped"] = stripped
    if a.display_agent:
        out["display_agent"] = a.display_agent


def status_payload(p: Pane, agent_status: str | None = None, label: str | None = None) -> dict:
    """The pane_agent_status_changed payload (SOCKET.md §8.2): pane_id, workspace_id,
    agent_status, then agent/title/display_agent/state_labels when present."""
    a = p.agent
    d: dict[str, Any] = {
        "pane_id": p.pane_id,
        "workspace_id": p.workspace_id,
        "agent_status": agent_status if agent_status is not None else p.status,
    }
    label = label if label is not None else a.label
    if label:
        d["agent"] = label
    if a.title:
        d["title"] = a.title
    if a.display_agent:
        d["display_agent"] = a.display_agent
    if a.state_labels:
        d["state_labels"] = dict(a.state_labels)
    return d


def pane_info(s: Session, p: Pane, focused: bool | None = None) -> dict:
    """``focused``: s.is_focused(p), when the caller knows it (a walk of many panes)."""
    info = {
        "pane_id": p.pane_id,
        "terminal_id": p.terminal_id,
        "workspace_id": p.workspace_id,
        "tab_id": p.tab_id,
        "focused": s.is_focused(p) if focused is None else focused,
    }
    if p.cwd:
        info["cwd"] = p.cwd
    if p.foreground_cwd:
        info["foreground_cwd"] = p.foreground_cwd
    if p.restore_error:
        info["restore_error"] = p.restore_error
    if p.label:
        info["label"] = p.label
    _presentation(p, info)
    info["agent_status"] = p.status
    if p.agent.state_labels:
        info["state_labels"] = dict(p.agent.state_labels)
    if p.tokens:
        info["tokens"] = dict(p.tokens)
    if p.agent.session:
        info["agent_session"] = dict(p.agent.session)
    scroll = scroll_info(p, s.scroll_metrics_always)
    if scroll is not None:
        info["scroll"] = scroll
    info["revision"] = p.revision
    return info


def scroll_info(p: Pane, always: bool) -> dict | None:
    """PaneScrollInfo (src/app/creation.rs:430-438 pane_info, runtime.scroll_metrics(): the
    scrollbar's offset from the bottom, its maximum, the viewport's rows). ``always`` (row
    pane_info_scroll_always): every pane has it (0.8.x); else only once pane.scroll moved the
    viewport (Pane.scroll_offset set; 0.9 measured without it)."""
    if not always and p.scroll_offset is None:
        return None
    top = p.screen.scroll_max()
    return {
        "offset_from_bottom": min(p.scroll_offset or 0, top),
        "max_offset_from_bottom": top,
        "viewport_rows": p.screen.rows,
    }


def agent_info(
    s: Session, p: Pane, completion_seq: bool = False, focused: bool | None = None
) -> dict:
    """AgentInfo; ``completion_seq``: the profile knows the field (0.9, profile row);
    ``focused``: s.is_focused(p), when the caller knows it."""
    a = p.agent
    info: dict[str, Any] = {"terminal_id": p.terminal_id}
    if a.name:
        info["name"] = a.name
    _presentation(p, info)
    info["agent_status"] = p.status
    if a.screen_detection_skipped:
        info["screen_detection_skipped"] = True
    if a.state_labels:
        info["state_labels"] = dict(a.state_labels)
    if p.tokens:
        info["tokens"] = dict(p.tokens)
    if a.session:
        info["agent_session"] = dict(a.session)
    info.update(
        workspace_id=p.workspace_id,
        tab_id=p.tab_id,
        pane_id=p.pane_id,
        focused=s.is_focused(p) if focused is None else focused,
    )
    if a.launch_pending:
        info["launch_pending"] = True
    if a.interactive_ready:
        info["interactive_ready"] = True
    info["state_change_seq"] = a.state_change_seq
    if a.completion_seq is not None and completion_seq:
        info["completion_seq"] = a.completion_seq
    if p.cwd:
        info["cwd"] = p.cwd
    if p.foreground_cwd:
        info["foreground_cwd"] = p.foreground_cwd
    info["revision"] = p.revision
    return info


def layout_snapshot(s: Session, w: Workspace, t: Tab) -> dict:
    panes, splits = L.snapshot(t.root, s.area, t.focused_pane)  # entries {pane_id, focused, rect}
    x, y, width, height = s.area
    return {
        "workspace_id": w.workspace_id,
        "tab_id": t.tab_id,
        "zoomed": t.zoomed,
        "area": {"x": x, "y": y, "width": width, "height": height},
        "focused_pane_id": t.focused_pane,
        "panes": panes,
        "splits": splits,
    }


def session_snapshot(s: Session, version: str, protocol: int, completion_seq: bool) -> dict:
    """``completion_seq``: the release's AgentInfo has the field (row agent_completion_seq)."""
    snap: dict = {"version": version, "protocol": protocol}
    w = s.active_ws()
    if w is not None:
        snap["focused_workspace_id"] = w.workspace_id
        t = w.active()
        if t is not None:
            snap["focused_tab_id"] = t.tab_id
            snap["focused_pane_id"] = t.focused_pane
    # The same entries as workspace_info / tab_info / pane_info / layout_snapshot / agent_info
    # of each item in turn (tests/model/test_snapshot_walk.py compares them), from one walk
    # of the tree (issue 26): each tab's pane order, each pane's status and whether it is the
    # focused one are read once and shared by the workspace, tab, pane and agent entries.
    # Item by item they were read again per entry: six passes over every pane and layout,
    # each of them missing the CPU caches once the session is large.
    focus = s.focus_ids()
    workspaces, tabs, panes, layouts, agents = [], [], [], [], []
    for x in s.workspaces:
        ws_count, ws_status = 0, []
        for t in x.tabs:
            members = [s.panes[pid] for pid in t.pane_ids()]
            statuses = [p.status for p in members]
            status = rollup(statuses)
            tabs.append(_tab_info(s, t, len(members), status))
            ws_count += len(members)
            ws_status.append(status)
            for p in members:
                focused = (p.workspace_id, p.tab_id, p.pane_id) == focus
                panes.append(pane_info(s, p, focused))
                if p.agent.is_agent_terminal():
                    agents.append(agent_info(s, p, completion_seq, focused))
            layouts.append(layout_snapshot(s, x, t))
        # a workspace's rollup is its tabs' rollups' (rollup keeps the most urgent status)
        workspaces.append(_workspace_info(s, x, ws_count, rollup(ws_status)))
    snap["workspaces"] = workspaces
    snap["tabs"] = tabs
    snap["panes"] = panes
    snap["layouts"] = layouts
    snap["agents"] = agents
    return snap
