"""herdr's session file as data (src/persist/snapshot.rs, restore.rs): the session to and from
the dicts of ``session.json`` (format 3) and ``session-history.json``. Pure: the caller does
the file I/O and passes in what comes from the host (``cwd_exists``, ``home``, labels).

Restore keeps workspace ids, tab and pane numbers, labels, layouts, focus and each pane's
persisted agent session (restore.rs:541-545,640-642, test restore_carries_persisted_agent_
session_metadata); terminals are new (restore.rs:537,630); the workspace counter restarts past
the largest restored id, so a closed workspace's id above every survivor can come back
(restore.rs:302). CHOICE: the new processes are fresh shells — no agent, no name, no hook
authority, revision 0; herdr's native agent resume (``session.resume_agents_on_restore``) is
not simulated — and the global state_change_seq starts again at 0 (a new process). herdr's raw
pane ids are internal: CHOICE simherdr writes the public pane number as the raw id
(``public_pane_numbers`` maps n -> n), which real herdr reads back to the same public ids.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from ..facts import ids
from . import geometry as G
from . import layout as L
from .membership import Membership
from .state import Pane, Session, Tab, Workspace

SNAPSHOT_VERSION = 3  # snapshot.rs:12
# 0.8.2's sidebar defaults when no file gave them: [ui].sidebar_width's default (CHOICE: the
# config key is not read) and the section split (src/app/mod.rs:448).
DEFAULT_SIDEBAR_WIDTH, DEFAULT_SIDEBAR_SECTION_SPLIT = 26, 0.5


class SnapshotError(ValueError):
    """A session file herdr would ignore (it logs a warning and starts empty)."""


# --- capture -------------------------------------------------------------------------------------


def _layout(node: L.Node, numbers: dict[str, int]) -> dict:
    # iterative (simherdr.model.layout): a tab may hold any number of nested splits
    return L.to_saved(node, numbers.__getitem__)


def _agent_resume(p: Pane) -> dict | None:
    """PaneAgentResumeSnapshot ([H093] capture_tab, terminal.reported_resume()): the reported
    resume command with the source and agent of the hook that reported it (after a restore,
    those the file gave)."""
    a = p.agent
    argv = a.resume_argv
    hook = a.hook
    if a.resume_source is not None and a.resume_agent is not None:
        owner: tuple[str, str] | None = (a.resume_source, a.resume_agent)  # who recorded it
    else:
        owner = (hook["source"], hook["label"]) if hook is not None else p.resume_owner
    if not argv or owner is None:
        return None
    return {"source": owner[0], "agent": owner[1], "argv": list(argv)}


def _pane(p: Pane, w: Workspace, agent_resume: bool = False) -> dict:
    """PaneSnapshot (snapshot.rs:98-111, capture_tab :310-360): the agent's name and managed
    kind once its launch is no longer pending, and its session (the live hook authority's,
    else the persisted one). CHOICE (restore): they are written as herdr writes them but a
    restored pane starts a fresh shell with none of them (see the module docstring)."""
    a = p.agent
    snap: dict = {"cwd": p.cwd or w.cwd}
    if p.label:
        snap["label"] = p.label
    if not a.launch_pending:
        if a.name:
            snap["agent_name"] = a.name
        if a.managed:
            snap["managed_agent_kind"] = a.managed["kind"]
    if a.session:
        snap["agent_session"] = dict(a.session)
    resume = _agent_resume(p) if agent_resume else None
    if resume is not None:
        snap["agent_resume"] = resume
    if p.launch_argv:  # a layout pane's command (snapshot.rs:340; both versions)
        snap["launch_argv"] = list(p.launch_argv)
    return snap


def capture(s: Session, agent_resume: bool = False, sidebar: bool = False) -> dict:
    """SessionSnapshot (snapshot.rs:16-29, capture at :237-266); ``agent_resume``: panes save
    their reported resume command (0.9.2, #4687, with profile row report_resume_argv);
    ``sidebar``: the sidebar fields are the server's (0.8.2, row session_saves_sidebar)."""
    workspaces = []
    for w in s.workspaces:
        tabs = []
        numbers: dict[str, int] = {}
        for t in w.tabs:
            panes = {}
            for pid in t.pane_ids():
                p = s.panes[pid]
                numbers[pid] = p.number
                panes[str(p.number)] = _pane(p, w, agent_resume)
            tabs.append(
                {
                    "custom_name": t.custom_label,
                    "layout": _layout(t.root, numbers),
                    "panes": panes,
                    "zoomed": t.zoomed,
                    "focused": s.panes[t.focused_pane].number,
                    "root_pane": s.panes[t.root_pane].number,
                }
            )
        ws = {
            "id": w.workspace_id,
            "custom_name": w.custom_label,
            # resolved_identity_cwd_from (0.8.2 snapshot.rs:290-292; [H093] capture_workspace)
            "identity_cwd": s.identity_cwd(w),
        }
        if w.worktree is not None:  # herdr's WorktreeSpaceMembership (src/workspace.rs:35-41)
            ws["worktree_space"] = w.worktree.saved()
        ws.update(
            public_pane_numbers={str(n): n for n in numbers.values()},
            next_public_pane_number=w.next_pane_number,
            public_tab_numbers=[t.number for t in w.tabs],
            next_public_tab_number=w.next_tab_number,
            tabs=tabs,
            active_tab=next((i for i, t in enumerate(w.tabs) if t.tab_id == w.active_tab), 0),
        )
        workspaces.append(ws)
    active = s.active_ws()
    index = s.ws_index(active) if active is not None else None
    return {
        "version": SNAPSHOT_VERSION,
        "workspaces": workspaces,
        "active": index,
        "selected": index or 0,
        "sidebar_width": s.sidebar.get("sidebar_width", DEFAULT_SIDEBAR_WIDTH) if sidebar else None,
        "sidebar_section_split": (
            s.sidebar.get("sidebar_section_split", DEFAULT_SIDEBAR_SECTION_SPLIT)
            if sidebar
            else None
        ),
        "collapsed_space_keys": sorted(s.sidebar.get("collapsed_space_keys", ()))
        if sidebar
        else [],
    }


def capture_history(
    s: Session, read_history: Callable[[Pane], str | None], fingerprint: str | None = None
) -> dict:
    """SessionHistorySnapshot (snapshot.rs:385-428): each pane's scrollback as ANSI; with
    ``fingerprint`` (0.9.3, profile row history_layout_fingerprint) its layout_fingerprint."""
    out = []
    for w in s.workspaces:
        tabs = []
        for t in w.tabs:
            panes = {}
            for pid in t.pane_ids():
                p = s.panes[pid]
                ansi = read_history(p)
                if ansi is not None:
                    panes[str(p.number)] = {"ansi": ansi, "lines": len(ansi.splitlines())}
            tabs.append({"panes": panes})
        out.append({"tabs": tabs})
    history: dict = {"version": SNAPSHOT_VERSION}
    if fingerprint is not None:
        history["layout_fingerprint"] = fingerprint
    history["workspaces"] = out
    return history


# --- layout_fingerprint (0.9.3) --------------------------------------------------------------

_PANE_OPTIONAL = ("label", "agent_name", "managed_agent_kind", "agent_session", "agent_resume")


def _canonical_layout(node: object) -> object:
    """LayoutSnapshot as serde writes it back: the ratio an f32 (depth <= 128: parse's limit)."""
    if isinstance(node, dict) and isinstance(node.get("Split"), dict):
        sp = node["Split"]
        ratio = sp.get("ratio")
        return {
            "Split": {
                "direction": sp.get("direction"),
                "ratio": L.f32_value(ratio) if isinstance(ratio, (int, float)) else ratio,
                "first": _canonical_layout(sp.get("first")),
                "second": _canonical_layout(sp.get("second")),
            }
        }
    return node


def _canonical_pane(raw: dict) -> dict:
    out = {"cwd": raw.get("cwd")}
    for key in (*_PANE_OPTIONAL, "launch_argv"):
        if raw.get(key) is not None:
            out[key] = raw[key]
    return out


def _canonical_workspace(ws: dict) -> dict:
    out = {"id": ws.get("id"), "custom_name": ws.get("custom_name")}
    out["identity_cwd"] = ws.get("identity_cwd")
    if ws.get("worktree_space") is not None:
        out["worktree_space"] = ws["worktree_space"]
    out.update(
        public_pane_numbers={str(k): v for k, v in (ws.get("public_pane_numbers") or {}).items()},
        next_public_pane_number=ws.get("next_public_pane_number", 0),
        public_tab_numbers=list(ws.get("public_tab_numbers") or []),
        next_public_tab_number=ws.get("next_public_tab_number", 0),
        tabs=[
            {
                "custom_name": t.get("custom_name"),
                "layout": _canonical_layout(t.get("layout")),
                "panes": {str(k): _canonical_pane(v) for k, v in (t.get("panes") or {}).items()},
                "zoomed": t.get("zoomed"),
                "focused": t.get("focused"),
                "root_pane": t.get("root_pane"),
            }
            for t in ws.get("tabs") or []
        ],
        active_tab=ws.get("active_tab", 0),
    )
    return out


def layout_fingerprint(snap: dict) -> str | None:
    """[H093] src/persist/snapshot.rs layout_fingerprint: the SHA-256 (lower-case hex) of the
    session snapshot as herdr serialises its parsed struct (every field, defaults filled in,
    unknown keys dropped) through a JSON value: object keys sorted, compact, the set
    collapsed_space_keys sorted. Works on a capture or on :func:`parse`'s result."""
    split = snap.get("sidebar_section_split")
    value = {
        "version": snap.get("version", 0),
        "workspaces": [_canonical_workspace(w) for w in snap.get("workspaces") or []],
        "active": snap.get("active"),
        "selected": snap.get("selected", 0),
        "sidebar_width": snap.get("sidebar_width"),
        "sidebar_section_split": L.f32_value(split) if isinstance(split, float) else split,
        "collapsed_space_keys": sorted(snap.get("collapsed_space_keys") or []),
    }
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (RecursionError, TypeError, ValueError):
        return None  # a file herdr could not have parsed back
    import hashlib  # (here: a server's start loads no OpenSSL; 0.8.x never fingerprints)

    return hashlib.sha256(text.encode()).hexdigest()


# --- migration (snapshot.rs:181-218) ------------------------------------------------------------


def _first_pane(layout: dict) -> int | None:
    raws = _raw_ids(layout)
    return raws[0] if raws else None


def _migrate_workspace(raw: dict) -> dict:
    if not isinstance(raw, dict):
        raise SnapshotError("workspace snapshot is neither current nor legacy format")
    if "identity_cwd" in raw:
        return raw
    if "layout" in raw:
        # A pre-tabs workspace is one tab; its identity cwd is the root pane's cwd
        # (legacy_identity_cwd, snapshot.rs:220-243).
        panes = raw.get("panes") or {}
        first = _first_pane(raw["layout"])
        candidates = [raw.get("root_pane"), first]
        candidates += [min((int(k) for k in panes), default=None)]
        cwd = next(
            (panes[str(c)]["cwd"] for c in candidates if c is not None and str(c) in panes), "/"
        )
        tab = {
            "custom_name": None,
            "layout": raw["layout"],
            "panes": panes,
            "zoomed": raw.get("zoomed", False),
            "focused": raw.get("focused"),
            "root_pane": raw.get("root_pane"),
        }
        return {
            "id": None,
            "custom_name": raw.get("custom_name"),
            "identity_cwd": cwd,
            "tabs": [tab],
        }
    raise SnapshotError("workspace snapshot is neither current nor legacy format")


def _check_layout(layout: object) -> None:
    """serde's LayoutSnapshot: a u32 pane key or a split with a direction and a numeric ratio;
    anything else fails parse_snapshot, and herdr ignores the whole file."""

    def key(raw: object) -> str:
        if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= 0xFFFFFFFF:
            raise ValueError(f"bad pane key: {raw!r}")
        return str(raw)

    L.from_saved(layout, key)


def parse(raw: object) -> dict:
    """A loaded session.json, migrated to the current shape (legacy workspaces included)."""
    if not isinstance(raw, dict):
        raise SnapshotError("session file is not a JSON object")
    version = raw.get("version", 0)
    if isinstance(version, int) and version > SNAPSHOT_VERSION:
        raise SnapshotError(f"session file version {version} is newer than {SNAPSHOT_VERSION}")
    try:
        workspaces = [_migrate_workspace(w) for w in raw.get("workspaces") or []]
        for w in workspaces:
            for tab in w["tabs"]:
                _check_layout(tab["layout"])
    except SnapshotError:
        raise
    except (KeyError, TypeError, ValueError) as e:
        raise SnapshotError(f"malformed session file: {e}") from None
    return {
        "version": version,
        "workspaces": workspaces,
        "active": raw.get("active"),
        "selected": raw.get("selected", 0),
        "sidebar_width": raw.get("sidebar_width"),
        "sidebar_section_split": raw.get("sidebar_section_split"),
        "collapsed_space_keys": raw.get("collapsed_space_keys") or [],
    }


def parse_history(raw: object) -> dict:
    """A loaded session-history.json (parse_history_snapshot, snapshot.rs:461-471): herdr's
    SessionHistorySnapshot shape, a version no newer than SNAPSHOT_VERSION; else the whole
    history is ignored."""
    if not isinstance(raw, dict) or not isinstance(raw.get("workspaces"), list):
        raise SnapshotError("history file is not a session history")
    version = raw.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise SnapshotError(f"malformed history file: version {version!r}")
    if version > SNAPSHOT_VERSION:
        raise SnapshotError(f"history file version {version} is newer than {SNAPSHOT_VERSION}")
    fingerprint = raw.get("layout_fingerprint")
    if fingerprint is not None and not isinstance(fingerprint, str):
        raise SnapshotError("malformed history file: layout_fingerprint")
    for ws in raw["workspaces"]:
        tabs = ws.get("tabs") if isinstance(ws, dict) else None
        if not isinstance(tabs, list):
            raise SnapshotError("malformed history file: a workspace without tabs")
        for tab in tabs:
            panes = tab.get("panes") if isinstance(tab, dict) else None
            if not isinstance(panes, dict) or not all(
                k.isascii()
                and k.isdigit()
                and isinstance(v, dict)
                and isinstance(v.get("ansi"), str)
                and isinstance(v.get("lines"), int)
                for k, v in panes.items()
            ):
                raise SnapshotError("malformed history file: a tab's panes")
    return raw


# --- restore (restore.rs:257-560) ----------------------------------------------------------------


def _node(layout: dict, pane_ids: dict[int, str]) -> L.Node:
    return L.from_saved(layout, pane_ids.__getitem__)


def _raw_ids(layout: dict) -> list[int]:
    """The stored pane keys in layout order, without recursion."""
    out: list[int] = []
    stack = [layout]
    while stack:
        node = stack.pop()
        if "Pane" in node:
            out.append(node["Pane"])
        else:
            stack.append(node["Split"]["second"])
            stack.append(node["Split"]["first"])
    return out


def _persisted_session(raw: object, hooks: str) -> dict | None:
    """persisted_agent_session_from_snapshot (restore.rs:795-804, src/agent_resume.rs:97-116):
    an official source's ``path`` ref (pi, omp only) or ``id`` ref, valid as a report's."""
    from .terminal import session_ref  # the agent model, imported with the first restore

    if not isinstance(raw, dict) or not all(
        isinstance(raw.get(k), str) for k in ("source", "agent", "kind", "value")
    ):
        return None
    source, agent, kind, value = raw["source"], raw["agent"], raw["kind"], raw["value"]
    ref = session_ref(
        source, agent, value if kind == "id" else None, value if kind == "path" else None, hooks
    )
    return {"source": source, "agent": agent, **ref} if ref is not None else None


def _restored_sidebar(snap: dict) -> dict:
    """The file's sidebar fields as the 0.8.2 server keeps them (src/app/mod.rs:453-466):
    width (u16) and split (f32) when set, the collapsed keys (a set of strings)."""
    out: dict = {}
    width = snap.get("sidebar_width")
    if isinstance(width, int) and not isinstance(width, bool) and 0 <= width <= 0xFFFF:
        out["sidebar_width"] = width
    split = snap.get("sidebar_section_split")
    if isinstance(split, (int, float)) and not isinstance(split, bool):
        out["sidebar_section_split"] = L.f32_value(split)
    keys = snap.get("collapsed_space_keys") or []
    if isinstance(keys, list) and keys and all(isinstance(k, str) for k in keys):
        out["collapsed_space_keys"] = set(keys)
    return out


def _saved_resume(raw: object, valid: Callable[[list], bool] | None) -> dict | None:
    if valid is None or not isinstance(raw, dict):
        return None
    argv = raw.get("argv")
    if not (
        isinstance(raw.get("source"), str)
        and isinstance(raw.get("agent"), str)
        and isinstance(argv, list)
        and all(isinstance(a, str) for a in argv)
        and valid(argv)
    ):
        return None
    return {"source": raw["source"], "agent": raw["agent"], "argv": list(argv)}


def restore(
    s: Session,
    snap: dict,
    history: dict | None,
    now_us: int,
    *,
    cwd_exists: Callable[[str], bool],
    home: str,
    auto_label: Callable[[str], str],
    hooks: str,
    unavailable_error: str | None = None,
    membership_kept: Callable[[dict], bool] | None = None,
    resume_valid: Callable[[list], bool] | None = None,
) -> list[Pane]:
    """Replace ``s``'s workspaces with the snapshot's; returns the restored panes (each needs a
    backend attach by the caller). A saved cwd that no longer exists falls back to HOME, else
    "/" (0.8.2, restore.rs:476-493); with ``unavailable_error`` (0.9.3, profile row
    restore_keeps_unavailable_panes) the pane keeps its saved cwd and reports that error as
    PaneInfo.restore_error. CHOICE: the simulator still attaches its shell to such a pane
    (herdr has no runtime for it; input to it is not modelled). ``membership_kept`` decides
    whether a saved worktree membership (herdr's WorktreeSpaceMembership) comes back; by
    default, when its checkout path still exists. With ``resume_valid`` (0.9.2's saved
    agent_resume), a pane gets back a saved resume command that passes it (restore.rs
    saved_reported_resume), unless its agent session was a duplicate."""
    if membership_kept is None:

        def membership_kept(m: dict) -> bool:
            return cwd_exists(m["checkout_path"])

    s.workspaces = []
    s.sidebar = _restored_sidebar(snap)
    s.panes.clear()
    s.aliases.clear()
    s.active = None
    s.state_change_seq = 0
    generated = 1  # a fresh process's generate_workspace_id counter (src/workspace.rs:106-112)
    restored: list[Pane] = []
    # CHOICE: a session already restored to a pane is not restored to a later one; herdr drops
    # such a duplicate when it resumes the session natively (restore.rs:739-782, with
    # session.resume_agents_on_restore on, its default).
    sessions_seen: set[tuple] = set()
    history_ws = (history or {}).get("workspaces") or []
    for wi, ws in enumerate(snap["workspaces"]):
        wid = ws.get("id")
        if not wid:
            wid = ids.workspace_id(generated)
            generated += 1
        saved_numbers = {int(k): v for k, v in (ws.get("public_pane_numbers") or {}).items()}
        next_pane = max(
            [v + 1 for v in saved_numbers.values()] + [1, ws.get("next_public_pane_number", 0)]
        )
        numbers = dict(saved_numbers)
        for tab in ws["tabs"]:
            for raw in _raw_ids(tab["layout"]):
                if raw not in numbers:
                    numbers[raw] = next_pane
                    next_pane += 1
        tab_numbers = ws.get("public_tab_numbers") or []
        next_tab = max([n + 1 for n in tab_numbers] + [1, ws.get("next_public_tab_number", 0)])
        w = Workspace(
            workspace_id=wid,
            cwd=ws["identity_cwd"],
            auto_label=auto_label(ws["identity_cwd"]),
            custom_label=ws.get("custom_name"),
        )
        membership = ws.get("worktree_space")
        if membership and membership_kept(membership):
            w.worktree = Membership.from_saved(membership)
        tab_history = (history_ws[wi].get("tabs") if wi < len(history_ws) else None) or []
        for ti, tab in enumerate(ws["tabs"]):
            number = tab_numbers[ti] if ti < len(tab_numbers) else ti + 1
            next_tab = max(next_tab, number + 1)
            tid = ids.tab_id(wid, number)
            raws = _raw_ids(tab["layout"])
            pane_ids = {raw: ids.pane_id(wid, numbers[raw]) for raw in raws}
            saved = tab.get("panes") or {}
            hist = (tab_history[ti].get("panes") if ti < len(tab_history) else None) or {}
            for raw in raws:
                entry = saved.get(str(raw)) or {}
                cwd = entry.get("cwd") or "/"
                restore_error = None
                if not cwd_exists(cwd):
                    if unavailable_error is not None:
                        restore_error = unavailable_error
                    else:
                        cwd = home if cwd_exists(home) else "/"
                s.terminal_counter += 1
                p = Pane(
                    pane_id=pane_ids[raw],
                    number=numbers[raw],
                    terminal_id=ids.terminal_id(now_us, s.terminal_counter),
                    workspace_id=wid,
                    tab_id=tid,
                    cwd=cwd,
                    env={},
                    screen=s._screen_factory(*G.spawn_size(s)),
                    agent=s.new_agent_slot(),
                    label=entry.get("label"),
                    restore_error=restore_error,
                )
                persisted = _persisted_session(entry.get("agent_session"), hooks)
                duplicate = False
                if restore_error is not None:  # unavailable: kept as saved, reserves nothing
                    p.agent.persisted = persisted
                    argv = entry.get("launch_argv")  # unavailable_restored_terminal keeps it
                    if isinstance(argv, list) and all(isinstance(a, str) for a in argv):
                        p.launch_argv = list(argv)
                elif persisted is not None and tuple(persisted.values()) not in sessions_seen:
                    sessions_seen.add(tuple(persisted.values()))
                    p.agent.persisted = persisted
                else:
                    duplicate = persisted is not None
                resume = _saved_resume(entry.get("agent_resume"), resume_valid)
                if resume is not None and not duplicate:
                    p.resume_owner = (resume["source"], resume["agent"])
                    # restore_reported_resume: the command with its reporter, as recorded
                    from .terminal import record_resume  # with the first agent slot

                    record_resume(p.agent, resume["source"], resume["agent"], resume["argv"])
                saved_history = hist.get(str(raw))
                # A pane that resumes its agent gets no replayed history, the agent owns it
                # (restore.rs pane_restore_startup, duplicates included). CHOICE: only the
                # reported resume counts; native session resume is not simulated.
                if resume is not None:
                    saved_history = None
                if restore_error is None and saved_history and saved_history.get("ansi"):
                    p.screen.feed(saved_history["ansi"])
                    p.replay = saved_history["ansi"]
                s.panes[p.pane_id] = p
                restored.append(p)
            focused = pane_ids.get(tab.get("focused"), pane_ids[raws[0]])
            root = pane_ids.get(tab.get("root_pane"), pane_ids[raws[0]])
            w.tabs.append(
                Tab(
                    tab_id=tid,
                    number=number,
                    workspace_id=wid,
                    root=_node(tab["layout"], pane_ids),
                    focused_pane=focused,
                    root_pane=root,
                    custom_label=tab.get("custom_name"),
                    zoomed=bool(tab.get("zoomed", False)),  # restore.rs:726
                )
            )
        if not w.tabs:
            continue
        active_tab = min(ws.get("active_tab", 0), len(w.tabs) - 1)
        w.active_tab = w.tabs[active_tab].tab_id
        w.next_tab_number = next_tab
        w.next_pane_number = next_pane
        s.workspaces.append(w)
    active = snap.get("active")
    if isinstance(active, int) and 0 <= active < len(s.workspaces):
        s.active = s.workspaces[active].workspace_id
    # reserve_workspace_ids (src/workspace.rs:153-170): new ids continue past the largest
    s.next_workspace_number = (
        max([ids.decode(w.workspace_id[1:]) or 0 for w in s.workspaces] + [generated - 1]) + 1
    )
    return restored
