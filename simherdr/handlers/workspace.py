"""workspace.* (SOCKET.md §4.1; src/app/api/workspaces.rs)."""

from __future__ import annotations

from .. import params as P
from ..facts import errors as E
from ..model import views as V
from ..model import groups
from .common import auto_label, resolve_new_cwd
from .registry import method


@method("workspace.create", cwd=P.opt(P.STR), focus=P.dflt(P.BOOL, False), label=P.opt(P.STR),
        env=P.opt(P.MAP_STR))
def create(sim, p):
    E.validate_env(p["env"])
    s = sim.session
    focused = s.focused_pane()
    cwd = resolve_new_cwd(sim, p["cwd"], focused.cwd if focused else None)
    w, t, root = s.create_workspace(cwd, auto_label(sim, cwd), p["label"], p["env"], p["focus"], sim.now_us())
    sim.on_pane_created(root)
    return {"type": "workspace_created", "workspace": V.workspace_info(s, w),
            "tab": V.tab_info(s, t), "root_pane": V.pane_info(s, root)}


@method("workspace.list")
def list_(sim, p):
    s = sim.session
    return {"type": "workspace_list", "workspaces": [V.workspace_info(s, w) for w in s.workspaces]}


@method("workspace.get", workspace_id=P.req(P.STR))
def get(sim, p):
    s = sim.session
    return {"type": "workspace_info", "workspace": V.workspace_info(s, s.require_workspace(p["workspace_id"]))}


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


@method("workspace.close", workspace_id=P.req(P.STR), close_group=P.dflt(P.BOOL, False))
def close(sim, p):
    s = sim.session
    w = s.require_workspace(p["workspace_id"])
    members = groups.group_close_members(s, w)
    if members and sim.profile.close_group_required and not p["close_group"]:
        # 0.9: explicit group intent required; nothing is closed (VERSIONS.md §1.2).
        raise E.workspace_group_close_required()
    # 0.8.2 (and 0.9 with close_group): the whole group closes, one workspace_closed event.
    for other in members:
        sim.before_workspace_close(other)
        s.close_workspace(other, emit=False)
    sim.before_workspace_close(w)
    s.close_workspace(w)
    return {"type": "ok"}
