"""PluginInvocationContext from the session (src/app/api/plugins/context.rs). Pure: reads the
state only. Fields that are absent are omitted (serde skip_serializing_if)."""

from __future__ import annotations

from .. import views as V
from ..model.state import Pane, Session, Tab, Workspace

CONTEXT_FIELDS = (
    "workspace_id",
    "workspace_label",
    "workspace_cwd",
    "worktree",
    "tab_id",
    "tab_label",
    "focused_pane_id",
    "focused_pane_cwd",
    "focused_pane_agent",
    "focused_pane_status",
    "selected_text",
    "invocation_source",
    "correlation_id",
    "clicked_url",
    "link_handler_id",
)


def empty(correlation_id: str) -> dict:
    return {"invocation_source": "api", "correlation_id": correlation_id}


def _clean(ctx: dict) -> dict:
    return {k: ctx[k] for k in CONTEXT_FIELDS if ctx.get(k) is not None}


def _tab_label(w: Workspace, t: Tab) -> str:
    return t.custom_label if t.custom_label is not None else str(w.tabs.index(t) + 1)


def _from_parts(s: Session, w: Workspace, t: Tab | None, pane: Pane | None, cid: str) -> dict:
    """plugin_context_from_parts (context.rs:347-381). A headless server has no selection:
    selected_text is never set."""
    info = V.workspace_info(s, w)
    pinfo = V.pane_info(s, pane) if pane is not None else None
    return _clean(
        {
            "workspace_id": w.workspace_id,
            "workspace_label": info["label"],
            # the focused pane's cwd, else the workspace's own cwd
            "workspace_cwd": (pinfo or {}).get("cwd") or w.cwd,
            "worktree": info.get("worktree"),
            "tab_id": t.tab_id if t else None,
            "tab_label": _tab_label(w, t) if t else None,
            "focused_pane_id": pinfo["pane_id"] if pinfo else None,
            "focused_pane_cwd": pinfo.get("cwd") if pinfo else None,
            "focused_pane_agent": pinfo.get("agent") if pinfo else None,
            "focused_pane_status": pinfo["agent_status"] if pinfo else None,
            "invocation_source": "api",
            "correlation_id": cid,
        }
    )


def for_workspace(s: Session, w: Workspace, cid: str) -> dict:
    t = w.active()
    pane = s.panes.get(t.focused_pane) if t else None
    return _from_parts(s, w, t, pane, cid)


def for_tab(s: Session, t: Tab, cid: str) -> dict:
    return _from_parts(s, s.ws_of(t), t, s.panes.get(t.focused_pane), cid)


def for_pane(s: Session, p: Pane, cid: str) -> dict:
    return _from_parts(s, s.ws_of(p), s.tab_of(p), p, cid)


def current(s: Session, cid: str) -> dict:
    w = s.active_ws()
    return for_workspace(s, w, cid) if w is not None else empty(cid)


def merge(s: Session, provided: dict | None, cid: str) -> dict:
    """merge_plugin_context (context.rs:5-30): each provided field wins over the current one."""
    ctx = current(s, cid)
    for k, v in (provided or {}).items():
        if v is not None and k in CONTEXT_FIELDS:
            ctx[k] = v
    return _clean(ctx)


def _ids_only(cid: str, **ids) -> dict:
    return _clean({**empty(cid), **ids})


def _by_workspace_id(s: Session, wid: str, cid: str) -> dict | None:
    w = s.ws(wid)
    return for_workspace(s, w, cid) if w is not None else None


def _workspace_snapshot(info: dict, cid: str) -> dict:
    wt = info.get("worktree")
    return _ids_only(
        cid,
        workspace_id=info["workspace_id"],
        workspace_label=info["label"],
        workspace_cwd=wt.get("checkout_path") if wt else None,
        worktree=wt,
        tab_id=info.get("active_tab_id"),
    )


def for_event(s: Session, kind: str, data: dict, cid: str) -> dict:
    """plugin_context_for_event (context.rs:38-191): the event's own target, as it is now."""
    if kind in (
        "workspace_created",
        "workspace_updated",
        "workspace_metadata_updated",
        "worktree_created",
        "worktree_opened",
    ):
        info = data["workspace"]
        return _by_workspace_id(s, info["workspace_id"], cid) or _workspace_snapshot(info, cid)
    if kind in ("workspace_closed", "worktree_removed"):
        wid = data["workspace_id"]
        if data.get("workspace"):
            if kind == "workspace_closed":
                info = data["workspace"]
                return _by_workspace_id(s, info["workspace_id"], cid) or _workspace_snapshot(
                    info, cid
                )
            return _workspace_snapshot(data["workspace"], cid)
        return _by_workspace_id(s, wid, cid) or _ids_only(cid, workspace_id=wid)
    if kind == "workspace_reordered":
        ids = data.get("workspace_ids") or []
        return (_by_workspace_id(s, ids[0], cid) if ids else None) or empty(cid)
    if kind in ("workspace_renamed", "workspace_moved", "workspace_focused"):
        wid = data["workspace_id"]
        return _by_workspace_id(s, wid, cid) or _ids_only(cid, workspace_id=wid)
    if kind in ("tab_created", "tab_renamed", "tab_moved", "tab_focused", "layout_updated"):
        src = data.get("tab") or data.get("layout") or data
        t = s.find_tab(src["tab_id"]) if src["tab_id"] in _tab_ids(s, src) else None
        if t is not None:
            return for_tab(s, t, cid)
        return _by_workspace_id(s, src["workspace_id"], cid) or _ids_only(
            cid, workspace_id=src["workspace_id"], tab_id=src["tab_id"]
        )
    if kind == "tab_closed":
        return _ids_only(cid, workspace_id=data["workspace_id"], tab_id=data["tab_id"])
    if kind in ("pane_created", "pane_updated", "pane_moved"):
        info = data["pane"]
        p = s.canonical_pane(info["pane_id"])
        if p is not None:
            return for_pane(s, p, cid)
        return _by_workspace_id(s, info["workspace_id"], cid) or _ids_only(
            cid,
            workspace_id=info["workspace_id"],
            tab_id=info["tab_id"],
            focused_pane_id=info["pane_id"],
            focused_pane_cwd=info.get("cwd"),
            focused_pane_agent=info.get("agent"),
            focused_pane_status=info.get("agent_status"),
        )
    if kind == "pane_closed":
        return _ids_only(cid, workspace_id=data["workspace_id"], focused_pane_id=data["pane_id"])
    if "pane_id" in data and "workspace_id" in data:
        p = s.canonical_pane(data["pane_id"])
        if p is not None:
            return for_pane(s, p, cid)
        return _by_workspace_id(s, data["workspace_id"], cid) or _ids_only(
            cid, workspace_id=data["workspace_id"], focused_pane_id=data["pane_id"]
        )
    return empty(cid)


def _tab_ids(s: Session, src: dict) -> set[str]:
    w = s.ws(src["workspace_id"])
    return {t.tab_id for t in w.tabs} if w is not None else set()
