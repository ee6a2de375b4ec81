"""tab.* (SOCKET.md §4.2; src/app/api/tabs.rs)."""

from __future__ import annotations

from .. import params as P
from .. import views as V
from ..facts import errors as E
from ..facts import ids
from ..model import groups
from .common import close_with_group, focused_launch_cwd, resolve_new_cwd
from .registry import method


@method(
    "tab.create",
    workspace_id=P.opt(P.STR),
    cwd=P.opt(P.STR),
    focus=P.dflt(P.BOOL, False),
    label=P.opt(P.STR),
    env=P.dflt(P.MAP_STR, dict),  # #[serde(default)] HashMap: null is a type error
)
def create(sim, p):
    s = sim.session
    ref = p["workspace_id"]
    if ref is None:
        w = s.active_ws()
        if w is None:
            raise E.no_active_workspace()
    else:
        kind = ids.parse_workspace_ref(ref)
        w = s.find_workspace(ref)
        if w is None:
            if kind is not None and kind[0] == "pos":
                # Quirk: a positional id out of range parses, then the index is gone
                # (src/app/api/tabs.rs:55-59,77-93).
                raise E.tab_create_workspace_gone()
            raise E.workspace_not_found(ref)
    E.validate_env(p["env"])
    follow = focused_launch_cwd(sim, w) if p["cwd"] is None else None
    cwd = resolve_new_cwd(sim, p["cwd"], follow)
    t, root = s.create_tab(w, cwd, p["label"], p["env"], p["focus"], sim.now_us())
    sim.on_pane_created(root)
    return {"type": "tab_created", "tab": V.tab_info(s, t), "root_pane": V.pane_info(s, root)}


@method("tab.list", workspace_id=P.opt(P.STR))
def list_(sim, p):
    s = sim.session
    if p["workspace_id"] is not None:
        wss = [s.require_workspace(p["workspace_id"])]
    else:
        wss = s.workspaces
    return {"type": "tab_list", "tabs": [V.tab_info(s, t) for w in wss for t in w.tabs]}


@method("tab.get", tab_id=P.req(P.STR))
def get(sim, p):
    s = sim.session
    return {"type": "tab_info", "tab": V.tab_info(s, s.require_tab(p["tab_id"]))}


@method("tab.focus", tab_id=P.req(P.STR))
def focus(sim, p):
    s = sim.session
    t = s.require_tab(p["tab_id"])
    s.switch_tab(s.ws(t.workspace_id), t)
    return {"type": "tab_info", "tab": V.tab_info(s, t)}


@method("tab.rename", tab_id=P.req(P.STR), label=P.req(P.STR))
def rename(sim, p):
    s = sim.session
    t = s.require_tab(p["tab_id"])
    s.rename_tab(t, p["label"])
    return {"type": "tab_info", "tab": V.tab_info(s, t)}


@method("tab.close", tab_id=P.req(P.STR))
def close(sim, p):
    s = sim.session
    t = s.require_tab(p["tab_id"])
    w = s.ws(t.workspace_id)
    if len(w.tabs) == 1 and groups.is_group_root(
        s, w, sim.version.rows.duplicate_parents_close_alone
    ):
        # The last tab of a worktree-group root (src/app/api/tabs.rs:246-273): refused while
        # ui.confirm_close is on; otherwise the whole group closes through
        # close_selected_workspace, with tab_closed + one workspace_closed for the target (also
        # in 0.9.3, where a duplicate parent is no group root: duplicate_parents_close_alone).
        if sim.config.confirm_close:
            raise E.confirmation_required("tab")
        snapshot = V.workspace_info(s, w)
        close_with_group(sim, w)
        sim.outbox.emit("tab_closed", {"tab_id": t.tab_id, "workspace_id": w.workspace_id})
        sim.outbox.emit("workspace_closed", {"workspace_id": w.workspace_id, "workspace": snapshot})
        return {"type": "ok"}
    if len(w.tabs) == 1:
        sim.before_workspace_close(w)  # every pane of the workspace: this tab's panes
    else:
        for pid in t.pane_ids():
            sim.before_pane_close(s.panes[pid])
    s.close_tab(t)
    return {"type": "ok"}
