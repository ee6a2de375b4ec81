"""pane.move, tab.move, workspace.move, workspace.move_block (src/app/api/panes.rs:624-1044,
src/app/api/tabs.rs:181-225, src/app/api/workspaces.rs:121-229)."""

from __future__ import annotations

from .. import params as P
from .. import views as V
from ..facts import errors as E
from ..model import moves as M
from .common import auto_label
from .registry import method

SPLIT = P.enum("right", "down")
DESTINATION = P.tagged(
    "PaneMoveDestination",
    tab={
        "tab_id": P.req(P.STR),
        "target_pane_id": P.opt(P.STR),
        "split": P.req(SPLIT),
        "ratio": P.opt(P.FLOAT),
    },
    new_tab={"workspace_id": P.opt(P.STR), "label": P.opt(P.STR)},
    new_workspace={"label": P.opt(P.STR), "tab_label": P.opt(P.STR)},
)


def _unchanged(s, reason, pane, prev, source_layout, target_layout) -> dict:
    out = {"changed": False, "reason": reason, **prev, "pane": V.pane_info(s, pane)}
    out.update(source_layout=source_layout, target_layout=target_layout)
    out["focused_pane_id"] = target_layout["focused_pane_id"]
    return {"type": "pane_move", "move_result": out}


@method(
    "pane.move", pane_id=P.req(P.STR), destination=P.req(DESTINATION), focus=P.dflt(P.BOOL, False)
)
def move(sim, p):
    s = sim.session
    pane = s.find_pane(p["pane_id"])
    if pane is None:
        raise E.source_pane_not_found()
    src_ws = s.ws(pane.workspace_id)
    src_tab = src_ws.tab(pane.tab_id)
    prev = {
        "previous_pane_id": pane.pane_id,
        "previous_workspace_id": src_ws.workspace_id,
        "previous_tab_id": src_tab.tab_id,
    }
    src_layout = V.layout_snapshot(s, src_ws, src_tab)
    if src_tab.zoomed:
        return _unchanged(s, "zoomed_tab", pane, prev, src_layout, src_layout)

    dest = p["destination"]
    kind = dest["type"]
    target_tab = target_ws = None
    if kind == "tab":
        target_tab = s.find_tab(dest["tab_id"])
        if target_tab is None:
            raise E.tab_not_found(dest["tab_id"])
        target_ws = s.ws(target_tab.workspace_id)
        if target_tab is src_tab:
            return _unchanged(s, "same_tab", pane, prev, src_layout, src_layout)
        if target_tab.zoomed:
            target_layout = V.layout_snapshot(s, target_ws, target_tab)
            return _unchanged(s, "zoomed_tab", pane, prev, src_layout, target_layout)
        if dest["target_pane_id"] is not None:
            raw = dest["target_pane_id"]
            anchor = s.find_pane(raw)
            if anchor is None:
                raise E.target_pane_not_found(raw)
            if (anchor.workspace_id, anchor.tab_id) != (target_ws.workspace_id, target_tab.tab_id):
                raise E.target_pane_not_in_tab(raw, dest["tab_id"])
            anchor_id = anchor.pane_id
        else:
            anchor_id = target_tab.focused_pane
        cross = target_ws is not src_ws
    elif kind == "new_tab":
        if dest["workspace_id"] is not None:
            target_ws = s.find_workspace(dest["workspace_id"])
            if target_ws is None:
                raise E.workspace_not_found(dest["workspace_id"])
        else:
            target_ws = src_ws
        cross = target_ws is not src_ws
    else:
        cross = True

    # Everything is resolved: from here on the move cannot fail.
    taken = M.take_pane(s, pane)
    closed_ws = None
    if taken.workspace_empty and cross:
        closed_ws = src_ws.workspace_id
        M.drop_empty_workspace(s, src_ws)
    created_ws = created_tab = None
    if kind == "new_workspace":
        cwd = pane.cwd or sim.config.server_cwd
        target_ws = M.new_workspace_for(s, cwd, auto_label(sim, cwd), dest["label"])
        created_ws = target_ws
    assert target_ws is not None  # every destination kind resolved its workspace above
    if cross:
        old = M.renumber(s, pane, target_ws)
        sim.on_pane_renamed(pane, old)
    if kind == "tab":
        assert target_tab is not None  # resolved (and checked) above
        ratio = dest["ratio"] if dest["ratio"] is not None else 0.5
        M.insert_into_tab(s, pane, target_tab, anchor_id, dest["split"], ratio, p["focus"])
    else:
        label = dest["label"] if kind == "new_tab" else dest["tab_label"]
        target_tab = M.new_tab_with(target_ws, pane, label)
        created_tab = target_tab
    if p["focus"] or s.active is None:
        s.switch_tab(target_ws, target_tab)  # the moved pane is already its tab's focus

    info = V.pane_info(s, pane)
    created_ws_info = V.workspace_info(s, created_ws) if created_ws is not None else None
    created_tab_info = V.tab_info(s, created_tab) if created_tab is not None else None
    closed_tab = taken.removed_tab.tab_id if taken.removed_tab is not None else None
    source_layout = None
    if closed_ws is None and taken.removed_tab is None:
        source_layout = V.layout_snapshot(s, src_ws, src_tab)
    target_layout = V.layout_snapshot(s, target_ws, target_tab)

    moved = {**prev, "pane": info}
    if created_ws_info is not None:
        moved["created_workspace"] = created_ws_info
    if created_tab_info is not None:
        moved["created_tab"] = created_tab_info
    if closed_ws is not None:
        moved["closed_workspace_id"] = closed_ws
    if closed_tab is not None:
        moved["closed_tab_id"] = closed_tab
    # src/app/api/panes.rs:999-1041 (SOCKET.md §8.3)
    if closed_tab is not None:
        sim.outbox.emit(
            "tab_closed", {"tab_id": closed_tab, "workspace_id": prev["previous_workspace_id"]}
        )
    if closed_ws is not None:
        sim.outbox.emit("workspace_closed", {"workspace_id": closed_ws})  # no final snapshot
    if created_ws_info is not None:
        sim.outbox.emit("workspace_created", {"workspace": created_ws_info})
    if created_tab_info is not None:
        sim.outbox.emit("tab_created", {"tab": created_tab_info})
    sim.outbox.emit("pane_moved", moved)
    if source_layout is not None:
        sim.outbox.emit("layout_updated", {"layout": source_layout})
    sim.outbox.emit("layout_updated", {"layout": target_layout})

    result = {"changed": True, **prev, "pane": info}
    if source_layout is not None:
        result["source_layout"] = source_layout
    result["target_layout"] = target_layout
    for key in ("created_workspace", "created_tab", "closed_workspace_id", "closed_tab_id"):
        if key in moved:
            result[key] = moved[key]
    result["focused_pane_id"] = target_layout["focused_pane_id"]
    return {"type": "pane_move", "move_result": result}


@method("tab.move", tab_id=P.req(P.STR), insert_index=P.req(P.U64))
def tab_move(sim, p):
    s = sim.session
    t = s.require_tab(p["tab_id"])
    w = s.ws(t.workspace_id)
    n = p["insert_index"]
    if n > len(w.tabs):
        raise E.tab_move_out_of_bounds(n)
    moved = M.move_tab(w, t, n)
    tabs = [V.tab_info(s, x) for x in w.tabs]
    if moved:
        sim.outbox.emit(
            "tab_moved",
            {"tab_id": t.tab_id, "workspace_id": w.workspace_id, "insert_index": n, "tabs": tabs},
        )
    return {"type": "tab_list", "tabs": tabs}


def _workspaces(s) -> list[dict]:
    return [V.workspace_info(s, w) for w in s.workspaces]


@method("workspace.move", workspace_id=P.req(P.STR), insert_index=P.req(P.U64))
def workspace_move(sim, p):
    s = sim.session
    w = s.require_workspace(p["workspace_id"])
    n = p["insert_index"]
    if n > len(s.workspaces):
        raise E.workspace_move_out_of_bounds(n)
    moved = M.move_workspace(s, w, n)
    infos = _workspaces(s)
    if moved:
        sim.outbox.emit(
            "workspace_moved",
            {"workspace_id": w.workspace_id, "insert_index": n, "workspaces": infos},
        )
    return {"type": "workspace_list", "workspaces": infos}


@method(
    "workspace.move_block",
    workspace_ids=P.req(P.LIST_STR),
    before_workspace_id=P.opt(P.STR),
)
def workspace_move_block(sim, p):
    s = sim.session
    if not p["workspace_ids"]:
        raise E.workspace_block_empty()
    chosen: list[str] = []
    for ref in p["workspace_ids"]:
        w = s.require_workspace(ref)
        if w.workspace_id in chosen:
            raise E.workspace_block_repeated(ref)
        chosen.append(w.workspace_id)
    before = None
    if p["before_workspace_id"] is not None:
        before = s.require_workspace(p["before_workspace_id"]).workspace_id
        if before in chosen:
            raise E.workspace_block_anchor_inside()
    moved = M.move_workspace_block(s, chosen, before)
    infos = _workspaces(s)
    if moved:
        event: dict[str, object] = {"workspace_ids": chosen}
        if before is not None:
            event["before_workspace_id"] = before
        event["workspaces"] = infos
        sim.outbox.emit("workspace_reordered", event)
    return {"type": "workspace_list", "workspaces": infos}
