"""Geometry and layouts: pane.neighbor|edges|focus_direction|resize|swap|zoom and
layout.export|apply|set_split_ratio (src/app/api/panes.rs:251-620,1086-1138;
src/app/api/layouts.rs), on the tab's split tree (simherdr.model.layout).
"""

from __future__ import annotations

import math
import shlex

from .. import params as P
from .. import views as V
from ..facts import errors as E
from ..model import events as ev
from ..model import layout as L
from ..model.state import Pane, Session, Tab, Workspace
from .common import optional_pane, resolve_new_cwd
from .registry import method

DIRECTION = P.enum(*L.DIRECTIONS)
DEFAULT_RESIZE_AMOUNT, MAX_RESIZE_AMOUNT = 0.05, 0.5  # src/app/api/panes.rs:411-416
MAX_LAYOUT_PANES, MAX_LAYOUT_DEPTH = 24, 16  # src/app/api/layouts.rs:15-16


def _where(s: Session, pane: Pane) -> tuple[Workspace, Tab]:
    w = s.ws(pane.workspace_id)
    return w, w.tab(pane.tab_id)


def _snapshot(s: Session, w: Workspace, t: Tab) -> dict:
    return V.layout_snapshot(s, w, t)


def focus_in_workspace(s: Session, pane: Pane) -> bool:
    """herdr's focus_pane_in_workspace (src/app/actions.rs:318-350): no-op when the pane is
    already the active workspace's focused pane; otherwise switch to its tab and focus it."""
    focused = s.focused_pane()
    if focused is pane:
        return False
    s.focus_pane(pane)
    return True


# --- directions -------------------------------------------------------------------------------


@method("pane.neighbor", pane_id=P.opt(P.STR), direction=P.req(DIRECTION))
def neighbor(sim, p):
    s = sim.session
    pane = optional_pane(s, p["pane_id"])
    w, t = _where(s, pane)
    out = {"pane_id": pane.pane_id, "direction": p["direction"]}
    found = L.find_in_direction(t.root, pane.pane_id, p["direction"], s.area)
    if found is not None:
        out["neighbor_pane_id"] = found
    out["layout"] = _snapshot(s, w, t)
    return {"type": "pane_neighbor", "neighbor": out}


@method("pane.edges", pane_id=P.opt(P.STR))
def edges(sim, p):
    s = sim.session
    pane = optional_pane(s, p["pane_id"])
    w, t = _where(s, pane)
    sides = L.edges(t.root, pane.pane_id, s.area)
    return {
        "type": "pane_edges",
        "edges": {"pane_id": pane.pane_id, **sides, "layout": _snapshot(s, w, t)},
    }


@method("pane.focus_direction", pane_id=P.opt(P.STR), direction=P.req(DIRECTION))
def focus_direction(sim, p):
    """No layout_updated: the focus trio follows from the batch (SOCKET.md §8.4)."""
    s = sim.session
    pane = optional_pane(s, p["pane_id"])
    w, t = _where(s, pane)
    target = L.find_in_direction(t.root, pane.pane_id, p["direction"], s.area)
    out: dict = {"changed": target is not None}
    if target is None:
        out["reason"] = "no_neighbor"
    else:
        focus_in_workspace(s, s.panes[target])
        s.switch_tab(w, t)
    out.update(source_pane_id=pane.pane_id, focused_pane_id=t.focused_pane)
    out["layout"] = _snapshot(s, w, t)
    return {"type": "pane_focus_direction", "focus": out}


@method("pane.resize", pane_id=P.opt(P.STR), direction=P.req(DIRECTION), amount=P.opt(P.FLOAT))
def resize(sim, p):
    s = sim.session
    pane = optional_pane(s, p["pane_id"])
    w, t = _where(s, pane)
    amount = p["amount"]
    amount = L.f32(amount) if amount is not None else math.nan
    amount = min(abs(amount if math.isfinite(amount) else DEFAULT_RESIZE_AMOUNT), MAX_RESIZE_AMOUNT)
    changed = L.resize_pane(t.root, pane.pane_id, p["direction"], amount, s.area)
    layout = _snapshot(s, w, t)
    if changed:
        sim.outbox.emit("layout_updated", {"layout": layout})
    out: dict = {"changed": changed}
    if not changed:
        out["reason"] = "unchanged"
    out.update(pane_id=pane.pane_id, focused_pane_id=t.focused_pane, layout=layout)
    return {"type": "pane_resize", "resize": out}


# --- swap and zoom ----------------------------------------------------------------------------


@method(
    "pane.swap",
    pane_id=P.opt(P.STR),
    direction=P.opt(DIRECTION),
    source_pane_id=P.opt(P.STR),
    target_pane_id=P.opt(P.STR),
)
def swap(sim, p):
    """src/app/api/panes.rs:451-622: a directional swap with the neighbour, or two explicit
    panes of one tab; refusals that are not errors answer changed=false with a reason."""
    s = sim.session
    directional = p["direction"] is not None
    explicit = p["source_pane_id"] is not None or p["target_pane_id"] is not None
    if directional == explicit:
        raise E.swap_usage()
    reason = None
    if directional:
        source = s.find_pane(p["pane_id"]) if p["pane_id"] is not None else s.focused_pane()
        if source is None:
            raise E.source_pane_not_found()
        w, t = _where(s, source)
        found = L.find_in_direction(t.root, source.pane_id, p["direction"], s.area)
        target = s.panes[found] if found is not None else None
        if target is None:
            reason = "no_neighbor"
        source_id = source.pane_id
    else:
        if p["source_pane_id"] is None:
            raise E.swap_missing("source_pane_id")
        if p["target_pane_id"] is None:
            raise E.swap_missing("target_pane_id")
        source = s.find_pane(p["source_pane_id"])
        target = s.find_pane(p["target_pane_id"])
        anchor = source or target
        if anchor is not None:
            w, t = _where(s, anchor)
        else:
            w = s.active_ws()
            t = w.active() if w is not None else None
            if t is None:
                raise E.pane_layout_unavailable()
        if source is None or target is None:
            reason = "not_found"
        elif source is target:
            reason = "same_pane"
        elif (source.workspace_id, source.tab_id) != (target.workspace_id, target.tab_id):
            reason = "cross_tab"
        source_id = source.pane_id if source is not None else t.focused_pane
    changed = False
    if reason is None and target is not None:
        changed = L.swap_leaves(t.root, source_id, target.pane_id)
        s.focus_in_tab(t, source_id)
        if changed:
            s.switch_tab(w, t)
    if p["source_pane_id"] is not None:
        source_public = source.pane_id if source is not None else p["source_pane_id"]
    else:
        source_public = source_id
    if p["target_pane_id"] is not None:
        target_public = target.pane_id if target is not None else p["target_pane_id"]
    else:
        target_public = target.pane_id if target is not None else None
    layout = _snapshot(s, w, t)
    if changed:
        sim.outbox.emit("layout_updated", {"layout": layout})
    out: dict = {"changed": changed}
    if reason is not None:
        out["reason"] = reason
    out["source_pane_id"] = source_public
    if target_public is not None:
        out["target_pane_id"] = target_public
    out.update(focused_pane_id=t.focused_pane, layout=layout)
    return {"type": "pane_swap", "swap": out}


@method("pane.zoom", pane_id=P.opt(P.STR), mode=P.dflt(P.enum("toggle", "on", "off"), "toggle"))
def zoom(sim, p):
    """src/app/actions.rs:1918-1970 apply_pane_zoom: the pane is focused first; a single-pane
    tab cannot zoom; on/off that are already so answer a reason."""
    s = sim.session
    pane = optional_pane(s, p["pane_id"])
    w, t = _where(s, pane)
    focus_changed = focus_in_workspace(s, pane)
    mode = p["mode"]
    reason = None
    if L.pane_count(t.root) <= 1:
        reason = "single_pane"
    elif mode == "on" and t.zoomed:
        reason = "already_zoomed"
    elif mode == "off" and not t.zoomed:
        reason = "already_unzoomed"
    zoom_changed = reason is None
    if zoom_changed:
        t.zoomed = (not t.zoomed) if mode == "toggle" else (mode == "on")
    layout = _snapshot(s, w, t)
    if zoom_changed or focus_changed:
        sim.outbox.emit("layout_updated", {"layout": layout})
    out: dict = {
        "changed": zoom_changed or focus_changed,
        "zoom_changed": zoom_changed,
        "focus_changed": focus_changed,
    }
    if reason is not None:
        out["reason"] = reason
    out.update(pane_id=pane.pane_id, focused_pane_id=t.focused_pane, zoomed=t.zoomed)
    out["layout"] = layout
    return {"type": "pane_zoom", "zoom": out}


# --- layout descriptions ----------------------------------------------------------------------


def _layout_target(s: Session, tab_id: str | None, pane_id: str | None) -> tuple[Workspace, Tab]:
    """src/app/api/layouts.rs resolve_layout_export_target."""
    t = None
    if tab_id is not None and pane_id is not None:
        t = None
    elif tab_id is not None:
        t = s.find_tab(tab_id)
    elif pane_id is not None:
        pane = s.find_pane(pane_id)
        t = s.tab_of(pane) if pane is not None else None
    else:
        w = s.active_ws()
        t = w.active() if w is not None else None
    if t is None:
        raise E.layout_target_not_found()
    return s.ws(t.workspace_id), t


def _pane_description(s: Session, pane_id: str) -> dict:
    """LayoutPane: pane_id, the manual label, the cwd, the launch argv (env is never
    exported)."""
    pane = s.panes[pane_id]
    out: dict = {"type": "pane", "pane_id": pane_id}
    if pane.label:
        out["label"] = pane.label
    if pane.cwd:
        out["cwd"] = pane.cwd
    if pane.launch_argv:
        out["command"] = list(pane.launch_argv)
    return out


def describe(s: Session, w: Workspace, t: Tab) -> dict:
    """LayoutDescription (src/app/api/layouts.rs layout_description)."""
    root = L.fold(
        t.root,
        lambda leaf: _pane_description(s, leaf.pane),
        lambda split, a, b: {
            "type": "split",
            "direction": split.direction,
            "ratio": split.ratio,
            "first": a,
            "second": b,
        },
    )
    return {
        "workspace_id": w.workspace_id,
        "tab_id": t.tab_id,
        "zoomed": t.zoomed,
        "focused_pane_id": t.focused_pane,
        "root": root,
    }


@method("layout.export", tab_id=P.opt(P.STR), pane_id=P.opt(P.STR))
def export(sim, p):
    s = sim.session
    w, t = _layout_target(s, p["tab_id"], p["pane_id"])
    return {"type": "layout_export", "layout": describe(s, w, t)}


@method(
    "layout.set_split_ratio",
    tab_id=P.opt(P.STR),
    pane_id=P.opt(P.STR),
    path=P.req(P.list_of(P.BOOL)),
    ratio=P.req(P.FLOAT),
)
def set_split_ratio(sim, p):
    s = sim.session
    ratio = L.f32(p["ratio"])
    if not math.isfinite(ratio):
        raise E.ratio_not_finite()
    w, t = _layout_target(s, p["tab_id"], p["pane_id"])
    if not L.set_ratio_at(t.root, p["path"], ratio):
        raise E.split_not_found()
    desc = describe(s, w, t)
    s.record_layout(w, t)
    return {"type": "layout_split_ratio_set", "layout": desc}


# --- layout.apply -----------------------------------------------------------------------------

_LEAF_FIELDS = {
    "pane_id": P.opt(P.STR),
    "label": P.opt(P.STR),
    "cwd": P.opt(P.STR),
    "command": P.opt(P.LIST_STR),
    "env": P.dflt(P.MAP_STR, dict),
}
_SPLIT_FIELDS = {"direction": P.req(P.enum("right", "down")), "ratio": P.req(P.FLOAT)}


def layout_node(v):
    """A LayoutNode (``type`` "pane" with the LayoutPane fields flattened, or "split"),
    checked without recursion: a client's tree can be as deep as the JSON parser allows."""
    head = P.tagged("LayoutNode", pane=_LEAF_FIELDS, split=_SPLIT_FIELDS)

    def children(d):
        if head(d)["type"] == "pane":
            return None
        for side in ("first", "second"):
            if side not in d:
                raise P.ParamError(f"missing field `{side}`")
        return d["first"], d["second"]

    def make(d, a, b):
        node = head(d)
        if a is not None:
            node["first"], node["second"] = a, b
        return node

    return L.build(v, children, make)


def _first_leaf(node: dict) -> dict:
    while node["type"] == "split":
        node = node["first"]
    return node


def _validate_tree(root: dict) -> None:
    """src/app/api/layouts.rs validate_layout_tree: depth and pane limits, commands and env
    checked depth-first before anything is created."""
    panes = 0
    max_depth = 0
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        max_depth = max(max_depth, depth)
        if depth > MAX_LAYOUT_DEPTH:
            raise E.layout_too_deep(depth, MAX_LAYOUT_DEPTH)
        if node["type"] == "pane":
            panes += 1
            if panes > MAX_LAYOUT_PANES:
                raise E.layout_too_many_panes(MAX_LAYOUT_PANES)
            if node["command"] is not None and not node["command"]:
                raise E.layout_empty_command()
            try:
                E.validate_env(node["env"])
            except E.HerdrError as e:
                raise E.invalid_layout(e.message) from None
            continue
        if not math.isfinite(L.f32(node["ratio"])):
            raise E.layout_split_ratio_not_finite()
        stack.append((node["second"], depth + 1))
        stack.append((node["first"], depth + 1))


def _label(pane: Pane, leaf: dict) -> None:
    label = (leaf["label"] or "").strip()
    if label:
        pane.label = label


def _launch(sim, pane: Pane, leaf: dict) -> None:
    """CHOICE: a layout pane's ``command`` is typed into the pane's shell as one shell-quoted
    line (herdr execs the argv itself, src/workspace.rs create_tab_argv_command). The
    simulated shell then hands an agent command to the agent layer, as a typed one would."""
    argv = leaf["command"]
    if argv:
        pane.launch_argv = list(argv)
        sim.write_input(pane, (shlex.join(argv) + "\r").encode())


@method(
    "layout.apply",
    workspace_id=P.opt(P.STR),
    tab_id=P.opt(P.STR),
    tab_label=P.opt(P.STR),
    focus=P.dflt(P.BOOL, False),
    root=P.req(layout_node),
)
def apply(sim, p):
    """src/app/api/layouts.rs:34-216: a new tab built from the tree (pre-order splits, focus
    on the first leaf), replacing ``tab_id`` when given (the new tab goes last)."""
    s = sim.session
    replace = None
    if p["tab_id"] is not None:
        replace = s.find_tab(p["tab_id"])
        if replace is None:
            raise E.tab_not_found(p["tab_id"])
        if p["workspace_id"] is not None:
            raise E.layout_target_conflict()
        w = s.ws(replace.workspace_id)
    elif p["workspace_id"] is not None:
        w = s.find_workspace(p["workspace_id"])
        if w is None:
            raise E.workspace_not_found(p["workspace_id"])
    else:
        w = s.active_ws()
        if w is None:
            raise E.no_active_workspace()
    root = p["root"]
    _validate_tree(root)
    label = p["tab_label"] if p["tab_label"] is not None else (replace and replace.custom_label)
    replace_was_active = (
        replace is not None and s.active == w.workspace_id and w.active_tab == replace.tab_id
    )
    leaf = _first_leaf(root)
    follow_tab = replace if replace is not None else w.active()
    follow = s.panes[follow_tab.focused_pane].cwd if follow_tab is not None else None
    cwd = resolve_new_cwd(sim, leaf["cwd"], follow)

    t, first = s.add_tab(w, cwd, leaf["env"], label, sim.now_us())
    created = [first]
    sim.on_pane_created(first)
    _label(first, leaf)
    _launch(sim, first, leaf)
    # Pre-order: split the pane for a split node (its second child's first leaf gets the new
    # pane), then lay out the first child in the same pane and the second in the new one.
    stack = [(root, first)]
    while stack:
        node, pane = stack.pop()
        if node["type"] == "pane":
            continue
        second_leaf = _first_leaf(node["second"])
        new_cwd = resolve_new_cwd(sim, second_leaf["cwd"], pane.cwd)
        new = s.add_split_pane(
            t,
            pane.pane_id,
            node["direction"],
            node["ratio"],
            new_cwd,
            second_leaf["env"],
            sim.now_us(),
        )
        created.append(new)
        sim.on_pane_created(new)
        _label(new, second_leaf)
        _launch(sim, new, second_leaf)
        stack.append((node["second"], new))
        stack.append((node["first"], pane))
    if replace is not None:
        for pid in replace.pane_ids():
            sim.before_pane_close(s.panes[pid])
        s.remove_tab(w, replace)
        s.record(ev.TabClosed(w.workspace_id, replace.tab_id))
    if p["focus"] or replace_was_active:
        s.switch_tab(w, t)
    s.record(ev.TabCreated(w.workspace_id, t.tab_id))
    for pid in t.pane_ids():
        s.record(ev.PaneCreated(pid))
    s.record_layout(w, t)
    return {"type": "layout_apply", "layout": describe(s, w, t)}
