"""workspace.* (SOCKET.md §4.1; src/app/api/workspaces.rs)."""

from __future__ import annotations

from .. import params as P
from .. import views as V
from ..facts import errors as E
from ..model import groups
from .common import auto_label, focused_launch_cwd, resolve_new_cwd
from .registry import method


@method(
    "workspace.create",
    cwd=P.opt(P.STR),
    focus=P.dflt(P.BOOL, False),
    label=P.opt(P.STR),
    env=P.dflt(P.MAP_STR, dict),  # #[serde(default)] HashMap: null is a type error
    # 0.9.3 (VERSIONS.md §5 row 20): the workspace whose focused pane the new one follows.
    source_workspace_id=P.versioned(P.opt(P.STR), lambda pr: pr.workspace_create_source),
)
def create(sim, p):
    s = sim.session
    source = None
    if p["cwd"] is None:  # a given cwd ignores source_workspace_id, even an unknown one
        if p["source_workspace_id"] is not None:
            source = s.find_workspace(p["source_workspace_id"])
            if source is None:
                raise E.workspace_not_found(p["source_workspace_id"])
        else:
            source = s.active_ws()  # workspace_creation_source (src/app/creation.rs:84-97)
    E.validate_env(p["env"])
    follow = focused_launch_cwd(sim, source) if source is not None else None
    cwd = resolve_new_cwd(sim, p["cwd"], follow)
    w, t, root = s.create_workspace(
        cwd, auto_label(sim, cwd), p["label"], p["env"], p["focus"], sim.now_us()
    )
    sim.on_pane_created(root)
    return {
        "type": "workspace_created",
        "workspace": V.workspace_info(s, w),
        "tab": V.tab_info(s, t),
        "root_pane": V.pane_info(s, root),
    }


@method("workspace.list")
def list_(sim, p):
    s = sim.session
    return {"type": "workspace_list", "workspaces": [V.workspace_info(s, w) for w in s.workspaces]}


@method("workspace.get", workspace_id=P.req(P.STR))
def get(sim, p):
    s = sim.session
    return {
        "type": "workspace_info",
        "workspace": V.workspace_info(s, s.require_workspace(p["workspace_id"])),
    }


@method("workspace.focus", workspace_id=P.req(P.STR))
def focus(sim, p):
    s = sim.session
    w = s.require_workspace(p["workspace_id"])
    s.switch_workspace(w)
    return {"type": "workspace_info", "workspace": V.workspace_info(s, w)}


@method("workspace.rename", workspace_id=P.req(P.STR), label=P.req(P.STR))
def rename(sim, p):
    s = sim.session
    w = s.require_workspace(p["workspace_id"])
    s.rename_workspace(w, p["label"])  # not validated; "" allowed
    return {"type": "workspace_info", "workspace": V.workspace_info(s, w)}


#: ``close_group`` exists from 0.9.0 (#2874); 0.8.2 ignores it as an unknown key.
CLOSE_GROUP = P.versioned(P.dflt(P.BOOL, False), lambda rows: rows.close_group_required)


@method("workspace.close", workspace_id=P.req(P.STR), close_group=CLOSE_GROUP)
def close(sim, p):
    s = sim.session
    close_group = p["close_group"]
    w = s.require_workspace(p["workspace_id"])
    if sim.version.rows.close_group_required:
        targets = groups.explicit_close_set(
            s, w, close_group, sim.version.rows.duplicate_parents_close_alone
        )
    else:
        targets = groups.close_set(s, w)
    if len(targets) >= 2 and sim.version.rows.close_group_required and not close_group:
        # 0.9: explicit group intent required; nothing is closed, no event, focus kept
        # ([H093] src/app/api/workspaces.rs handle_workspace_close: refused when the close
        # set without close_group has two or more workspaces; VERSIONS.md §1.2).
        raise E.workspace_group_close_required()
    if groups.closed_event_per_workspace(sim.version.rows.close_group_required):
        closed = [(x.workspace_id, V.workspace_info(s, x)) for x in targets]
    else:
        # 0.8.2: the whole group closes silently, one workspace_closed for the target.
        closed = [(w.workspace_id, V.workspace_info(s, w))]
    groups.close_workspaces(s, w, targets, sim.before_workspace_close)
    for workspace_id, info in closed:
        sim.outbox.emit("workspace_closed", {"workspace_id": workspace_id, "workspace": info})
    return {"type": "ok"}
