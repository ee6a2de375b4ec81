"""pane.* (SOCKET.md §4.3; src/app/api/panes.rs) and pane.wait_for_output (§7.4)."""

from __future__ import annotations

from .. import params as P
from .. import views as V
from ..facts import errors as E
from ..model import groups
from ..model.paneread import READ_FORMATS, READ_SOURCES, first_matching_line
from .common import (
    close_with_group,
    key_bytes,
    launch_cwd,
    optional_pane,
    paste_bytes,
    read_pane,
    resolve_new_cwd,
)
from .matching import compile_match
from .registry import method


@method(
    "pane.split",
    direction=P.req(P.enum("right", "down")),
    target_pane_id=P.opt(P.STR),
    workspace_id=P.opt(P.STR),
    ratio=P.opt(P.FLOAT),
    cwd=P.opt(P.STR),
    focus=P.dflt(P.BOOL, False),
    # 0.8.0 has no right_click (10974c82 added it with pane.input.set): an unknown key there.
    right_click=P.versioned(
        P.dflt(P.enum("herdr", "pane"), "herdr"),
        lambda rows: rows.split_right_click,
    ),
    env=P.dflt(P.MAP_STR, dict),  # #[serde(default)] HashMap: null is a type error
)
def split(sim, p):
    s = sim.session
    if p["target_pane_id"] is not None:
        target = s.find_pane(p["target_pane_id"])
    elif p["workspace_id"] is not None:
        w = s.find_workspace(p["workspace_id"])
        t = w.active() if w else None
        target = s.panes.get(t.focused_pane) if t else None
    else:
        target = s.focused_pane()
    if target is None:
        raise E.pane_not_found()
    E.validate_env(p["env"])
    cwd = resolve_new_cwd(sim, p["cwd"], None if p["cwd"] is not None else launch_cwd(sim, target))
    new = s.split_pane(target, p["direction"], p["ratio"], cwd, p["env"], p["focus"], sim.now_us())
    sim.on_pane_created(new)
    return {"type": "pane_info", "pane": V.pane_info(s, new)}


@method("pane.list", workspace_id=P.opt(P.STR))
def list_(sim, p):
    s = sim.session
    if p["workspace_id"] is not None:
        w = s.require_workspace(p["workspace_id"])
        panes = [s.panes[pid] for t in w.tabs for pid in t.pane_ids()]
    else:
        panes = list(s.all_panes())
    focus = s.focus_ids()  # is_focused of each pane, from one lookup
    return {
        "type": "pane_list",
        "panes": [V.pane_info(s, x, (x.workspace_id, x.tab_id, x.pane_id) == focus) for x in panes],
    }


@method("pane.get", pane_id=P.req(P.STR))
def get(sim, p):
    s = sim.session
    return {"type": "pane_info", "pane": V.pane_info(s, s.require_pane(p["pane_id"]))}


@method("pane.current", caller_pane_id=P.opt(P.STR))
def current(sim, p):
    s = sim.session
    return {"type": "pane_current", "pane": V.pane_info(s, optional_pane(s, p["caller_pane_id"]))}


@method("pane.focus", pane_id=P.req(P.STR))
def focus(sim, p):
    s = sim.session
    pane = s.require_pane(p["pane_id"])
    s.focus_pane(pane)
    return {"type": "pane_info", "pane": V.pane_info(s, pane)}


@method("pane.rename", pane_id=P.req(P.STR), label=P.opt(P.STR))
def rename(sim, p):
    s = sim.session
    pane = s.require_pane(p["pane_id"])
    label = (p["label"] or "").strip()
    pane.label = label or None  # trimmed; empty or omitted clears; no event
    return {"type": "pane_info", "pane": V.pane_info(s, pane)}


@method("pane.close", pane_id=P.req(P.STR))
def close(sim, p):
    s = sim.session
    pane = s.require_pane(p["pane_id"])
    w = s.ws(pane.workspace_id)
    last_pane_of_ws = len(w.tabs) == 1 and len(w.tabs[0].pane_ids()) == 1
    if last_pane_of_ws and groups.is_group_root(
        s, w, sim.version.rows.duplicate_parents_close_alone
    ):
        # The last pane of a worktree-group root (src/app/api/panes.rs:1562-1595): refused
        # while ui.confirm_close is on; otherwise the whole group closes through
        # close_selected_workspace, with pane_closed + one workspace_closed for the target
        # (0.9.3: a duplicate parent is no group root, profile row duplicate_parents_close_alone).
        if sim.config.confirm_close:
            raise E.confirmation_required("pane")
        snapshot = V.workspace_info(s, w)
        close_with_group(sim, w)
        sim.outbox.emit("pane_closed", {"pane_id": pane.pane_id, "workspace_id": w.workspace_id})
        sim.outbox.emit("workspace_closed", {"workspace_id": w.workspace_id, "workspace": snapshot})
        return {"type": "ok"}
    sim.before_pane_close(pane)
    s.close_pane(pane)
    return {"type": "ok"}


@method(
    "pane.read",
    pane_id=P.req(P.STR),
    source=P.req(P.enum(*READ_SOURCES)),
    lines=P.opt(P.U32),
    format=P.dflt(P.enum(*READ_FORMATS), "text"),
    strip_ansi=P.dflt(P.BOOL, True),
)
def read(sim, p):
    s = sim.session
    pane = s.require_pane(p["pane_id"])
    # strip_ansi is accepted and has no effect: format decides (SOCKET.md §4.3).
    return {"type": "pane_read", "read": read_pane(sim, pane, p["source"], p["lines"], p["format"])}


@method("pane.send_text", pane_id=P.req(P.STR), text=P.req(P.STR))
def send_text(sim, p):
    pane = sim.session.require_pane(p["pane_id"])
    sim.write_input(pane, p["text"].encode())  # verbatim: no bracketed paste, no Enter
    return {"type": "ok"}


@method("pane.send_keys", pane_id=P.req(P.STR), keys=P.req(P.LIST_STR))
def send_keys(sim, p):
    pane = sim.session.require_pane(p["pane_id"])
    data = key_bytes(sim, p["keys"], pane)
    sim.write_input(pane, data)
    return {"type": "ok"}


@method(
    "pane.send_input", pane_id=P.req(P.STR), text=P.dflt(P.STR, ""), keys=P.dflt(P.LIST_STR, list)
)
def send_input(sim, p):
    pane = sim.session.require_pane(p["pane_id"])
    data = paste_bytes(pane, p["text"]) + key_bytes(sim, p["keys"], pane)
    sim.write_input(pane, data)  # one write
    return {"type": "ok"}


@method("pane.process_info", pane_id=P.opt(P.STR))
def process_info(sim, p):
    pane = optional_pane(sim.session, p["pane_id"])
    return {"type": "pane_process_info", "process_info": sim.backend.process_info(pane)}


@method("pane.layout", pane_id=P.opt(P.STR))
def layout(sim, p):
    s = sim.session
    pane = optional_pane(s, p["pane_id"])
    w = s.ws(pane.workspace_id)
    return {"type": "pane_layout", "layout": V.layout_snapshot(s, w, w.tab(pane.tab_id))}


MATCH = P.struct(type=P.req(P.enum("substring", "regex")), value=P.req(P.STR))


def first_match(sim, pane, source: str, lines, pred):
    """Line by line with Rust's ``str::lines`` semantics; the first match wins
    (src/api/subscriptions.rs:20-37)."""
    read = read_pane(sim, pane, source, lines, "text")
    return first_matching_line(read["text"], pred), read


@method(
    "pane.wait_for_output",
    kind="wait",
    pane_id=P.req(P.STR),
    source=P.req(P.enum(*READ_SOURCES)),
    lines=P.opt(P.U32),
    match=P.req(MATCH),
    timeout_ms=P.opt(P.U64),
    strip_ansi=P.dflt(P.BOOL, True),
)
async def wait_for_output(sim, p, rid, conn):
    pred = compile_match(p["match"])
    source = "recent_unwrapped" if p["source"] == "recent" else p["source"]
    deadline = None if p["timeout_ms"] is None else sim.now() + p["timeout_ms"] / 1000
    while True:
        sim.run_due()
        pane = sim.session.find_pane(p["pane_id"])
        if pane is None:
            raise E.pane_not_found(p["pane_id"])
        line, read = first_match(sim, pane, source, p["lines"], pred)
        if line is not None:
            return {
                "type": "output_matched",
                "pane_id": pane.pane_id,
                "revision": 0,
                "matched_line": line,
                "read": read,
            }
        if deadline is not None and sim.now() >= deadline:
            raise E.timeout("output match")
        if conn is not None and conn.cancelled():
            return None
        await sim.wait_change(deadline, conn)
