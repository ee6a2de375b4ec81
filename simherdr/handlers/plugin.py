"""plugin.* (src/app/api/plugins/mod.rs, panes.rs; schema src/api/schema/plugins.rs).

The registry, command logs and processes live in ``sim.plugins`` (simherdr.plugins). Every
error is herdr's (code, message) pair; the same surface on 0.8.2 and 0.9.3 (VERSIONS.md lists
no plugin delta).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex

from .. import dirs
from .. import params as P
from .. import views as V
from ..facts import errors as E
from ..plugins import PluginError
from ..plugins import context as C
from ..plugins.manifest import (
    INVALID_PLUGIN_ID_MESSAGE,
    effective_platforms,
    ensure_platform_supported,
    load_manifest,
    normalize_action_id,
    normalize_plugin_id,
)
from ..plugins.registry import manifest_available
from .common import resolve_new_cwd
from .pane import close as close_pane
from .registry import method

DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT = 50, 200  # mod.rs:318
PLACEMENTS = ("overlay", "popup", "split", "tab", "zoomed")
# Keys a caller's env cannot override in a plugin pane (panes.rs:342-356).
PROTECTED_PANE_ENV = frozenset(
    {
        "HERDR_SOCKET_PATH",
        "HERDR_ENV",
        "HERDR_PLUGIN_ID",
        "HERDR_PLUGIN_ROOT",
        "HERDR_PLUGIN_CONFIG_DIR",
        "HERDR_PLUGIN_STATE_DIR",
        "HERDR_PLUGIN_ENTRYPOINT_ID",
        "HERDR_PLUGIN_CONTEXT_JSON",
        "HERDR_BIN_PATH",
    }
)


def _err(e: PluginError) -> E.HerdrError:
    return E.HerdrError(e.code, e.message)


def _invalid_plugin_id() -> E.HerdrError:
    return E.HerdrError("invalid_plugin_id", INVALID_PLUGIN_ID_MESSAGE)


def _optional_plugin_id(value: str | None) -> str | None:
    if value is None:
        return None
    pid = normalize_plugin_id(value)
    if pid is None:
        raise _invalid_plugin_id()
    return pid


def _refresh(sim) -> None:
    try:
        sim.plugins.registry.refresh()
    except (OSError, ValueError) as e:
        raise E.plugin_registry_failed("plugin_registry_load_failed", str(e)) from None


def _update(sim, mutation):
    try:
        return sim.plugins.registry.update(mutation)
    except (OSError, ValueError) as e:
        raise E.plugin_registry_failed("plugin_registry_save_failed", str(e)) from None


def _popup_size(v):
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 65535:
        return v
    if isinstance(v, str) and re.fullmatch(r"[0-9]{1,3}%", v) and 1 <= int(v[:-1]) <= 100:
        return v
    raise P.ParamError("must be a number of cells or a percentage like 80%")


SOURCE = P.struct(
    kind=P.dflt(P.enum("local", "github"), "local"),
    owner=P.opt(P.STR),
    repo=P.opt(P.STR),
    subdir=P.opt(P.STR),
    requested_ref=P.opt(P.STR),
    resolved_commit=P.opt(P.STR),
    managed_path=P.opt(P.STR),
    installed_unix_ms=P.opt(P.U64),
)
CONTEXT = P.struct(
    **{k: P.opt(P.STR) for k in C.CONTEXT_FIELDS if k not in ("worktree", "focused_pane_status")},
    worktree=P.opt(P.OBJ),
    focused_pane_status=P.opt(P.enum("idle", "working", "blocked", "done", "unknown")),
)


def _managed_component(value: str) -> str:
    """plugin_managed_path_component (src/api/schema/plugins.rs:103-135)."""
    slug = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "-" for c in value)
    while "--" in slug:
        slug = slug.replace("--", "-")
    slug = slug.strip("-_.")[:80] or "plugin"
    if slug.split(".")[0].upper() in {"CON", "PRN", "AUX", "NUL"} | {
        f"{p}{i}" for p in ("COM", "LPT") for i in range(1, 10)
    }:
        slug = slug.replace(".", "-")
    return f"{slug}-{hashlib.sha256(value.encode()).hexdigest()[:12]}"


def _source(sim, plugin: dict, source: dict) -> dict:
    """normalize_plugin_source (manifest.rs:255-289)."""
    src = {k: v for k, v in source.items() if v is not None}
    if src["kind"] == "local":
        return src
    if "managed_path" not in src:
        raise E.invalid_plugin_source(E.GITHUB_SOURCE_NEEDS_MANAGED_PATH)
    expected = os.path.join(
        dirs.config_dir(sim.config), "plugins", "github", _managed_component(plugin["plugin_id"])
    )
    for p in (src["managed_path"], plugin["plugin_root"], expected):
        if not os.path.exists(p):
            raise E.invalid_plugin_source(E.no_such_file(p))
    managed = os.path.realpath(src["managed_path"])
    if managed != os.path.realpath(expected):
        raise E.invalid_plugin_source(E.GITHUB_MANAGED_PATH_MISMATCH)
    root = os.path.realpath(plugin["plugin_root"])
    if not (root == managed or root.startswith(managed.rstrip("/") + "/")):
        raise E.invalid_plugin_source(E.MANIFEST_OUTSIDE_CHECKOUT)
    return src


@method("plugin.link", path=P.req(P.STR), enabled=P.dflt(P.BOOL, True), source=P.opt(SOURCE))
def link(sim, p):
    # A relative path is the server process's: its cwd (Config.server_cwd).
    path = os.path.join(sim.config.server_cwd, p["path"])
    try:
        plugin = load_manifest(path, p["enabled"], sim.version.name)
    except PluginError as e:
        raise _err(e) from None
    if p["source"] is not None:
        plugin["source"] = _source(sim, plugin, p["source"])
    try:
        sim.plugins.ensure_user_dirs(plugin["plugin_id"])
    except PluginError as e:
        raise _err(e) from None
    _update(sim, lambda reg: reg.__setitem__(plugin["plugin_id"], plugin))
    return {"type": "plugin_linked", "plugin": plugin}


@method("plugin.list", plugin_id=P.opt(P.STR))
def list_(sim, p):
    pid = _optional_plugin_id(p["plugin_id"])
    _refresh(sim)
    reg = sim.plugins.registry.plugins
    plugins = [reg[k] for k in sorted(reg) if pid is None or k == pid]
    return {"type": "plugin_list", "plugins": plugins}


@method("plugin.unlink", plugin_id=P.req(P.STR))
def unlink(sim, p):
    pid = normalize_plugin_id(p["plugin_id"])
    if pid is None:
        raise _invalid_plugin_id()
    removed = _update(sim, lambda reg: reg.pop(pid, None) is not None)
    if removed:  # its panes keep running, no longer plugin panes
        host = sim.plugins
        host.panes = {k: v for k, v in host.panes.items() if v["plugin_id"] != pid}
    return {"type": "plugin_unlinked", "plugin_id": pid, "removed": removed}


def _set_enabled(sim, raw_id: str, enabled: bool) -> dict:
    pid = normalize_plugin_id(raw_id)
    if pid is None:
        raise _invalid_plugin_id()

    def mutate(reg):
        if pid in reg:
            reg[pid]["enabled"] = enabled
            return True
        return False

    if not _update(sim, mutate) or pid not in sim.plugins.registry.plugins:
        raise E.plugin_not_found()
    return sim.plugins.registry.plugins[pid]


@method("plugin.enable", plugin_id=P.req(P.STR))
def enable(sim, p):
    return {"type": "plugin_enabled", "plugin": _set_enabled(sim, p["plugin_id"], True)}


@method("plugin.disable", plugin_id=P.req(P.STR))
def disable(sim, p):
    return {"type": "plugin_disabled", "plugin": _set_enabled(sim, p["plugin_id"], False)}


def _action_info(plugin: dict, action: dict) -> dict:
    """PluginActionInfo (mod.rs:675-689): platforms are the effective ones."""
    info = {"plugin_id": plugin["plugin_id"], "action_id": action["id"], "title": action["title"]}
    if action.get("description"):
        info["description"] = action["description"]
    if action.get("contexts"):
        info["contexts"] = action["contexts"]
    info["command"] = action["command"]
    platforms = effective_platforms(action, plugin)
    if platforms is not None:
        info["platforms"] = platforms
    return info


def _all_actions(sim) -> list[tuple[dict, dict]]:
    reg = sim.plugins.registry.plugins
    return [
        (plugin, _action_info(plugin, a))
        for plugin in reg.values()
        if manifest_available(plugin)
        for a in plugin.get("actions", ())
    ]


@method("plugin.action.list", plugin_id=P.opt(P.STR))
def action_list(sim, p):
    pid = _optional_plugin_id(p["plugin_id"])
    _refresh(sim)
    actions = [a for _, a in _all_actions(sim) if pid is None or a["plugin_id"] == pid]
    actions.sort(key=lambda a: f"{a['plugin_id']}.{a['action_id']}")
    return {"type": "plugin_action_list", "actions": actions}


def _find_action(sim, plugin_id: str | None, action_id: str) -> tuple[dict, dict]:
    """find_plugin_action (mod.rs:502-562)."""
    reg = sim.plugins.registry.plugins
    if plugin_id is not None:
        pid = normalize_plugin_id(plugin_id)
        if pid is None:
            raise E.invalid_plugin_id()
        aid = normalize_action_id(action_id)
        if aid is None:
            raise E.invalid_plugin_action_id()
        plugin = reg.get(pid)
        if plugin is None:
            raise E.plugin_not_found()
        if not manifest_available(plugin):
            raise E.plugin_manifest_unavailable(pid)
        for a in plugin.get("actions", ()):
            if a["id"] == aid:
                return plugin, _action_info(plugin, a)
        raise E.plugin_action_not_found()
    want = action_id.strip()
    matches = [
        (plugin, a)
        for plugin, a in _all_actions(sim)
        if a["action_id"] == want or f"{a['plugin_id']}.{a['action_id']}" == want
    ]
    if not matches:
        raise E.plugin_action_not_found()
    if len(matches) > 1:
        raise E.ambiguous_plugin_action()
    return matches[0]


@method(
    "plugin.action.invoke",
    kind="wait",  # a "wait" only to learn the request id: the context's correlation_id
    action_id=P.req(P.STR),
    plugin_id=P.opt(P.STR),
    context=P.opt(CONTEXT),
)
async def action_invoke(sim, p, rid: str, conn=None):
    try:
        return _action_invoke(sim, p, rid)
    finally:
        sim.commit()


def _action_invoke(sim, p, rid: str) -> dict:
    _refresh(sim)
    plugin, action = _find_action(sim, p["plugin_id"], p["action_id"])
    if not plugin["enabled"]:
        raise E.plugin_disabled(plugin["plugin_id"])
    qualified = f"{action['plugin_id']}.{action['action_id']}"
    try:
        ensure_platform_supported(action.get("platforms"), f"action '{qualified}'")
        ctx = C.merge(sim.session, p["context"], rid)
        log = sim.plugins.start_command(plugin, action["command"], ctx, action["action_id"])
    except PluginError as e:
        raise _err(e) from None
    return {"type": "plugin_action_invoked", "action": action, "context": ctx, "log": log}


@method("plugin.log.list", plugin_id=P.opt(P.STR), limit=P.opt(P.U64))
def log_list(sim, p):
    pid = _optional_plugin_id(p["plugin_id"])
    limit = min(max(p["limit"] if p["limit"] is not None else DEFAULT_LOG_LIMIT, 1), MAX_LOG_LIMIT)
    logs = [dict(x) for x in sim.plugins.logs if pid is None or x["plugin_id"] == pid]
    return {"type": "plugin_log_list", "logs": logs[-limit:]}


# --- plugin panes (panes.rs) ---------------------------------------------------------------------


@method(
    "plugin.pane.open",
    plugin_id=P.req(P.STR),
    entrypoint=P.req(P.STR),
    placement=P.opt(P.enum(*PLACEMENTS)),
    width=P.opt(_popup_size),
    height=P.opt(_popup_size),
    workspace_id=P.opt(P.STR),
    target_pane_id=P.opt(P.STR),
    direction=P.opt(P.enum("right", "down")),
    cwd=P.opt(P.STR),
    focus=P.dflt(P.BOOL, False),
    env=P.dflt(P.MAP_STR, dict),
)
def pane_open(sim, p):
    _refresh(sim)
    pid = normalize_plugin_id(p["plugin_id"])
    if pid is None:
        raise _invalid_plugin_id()
    plugin = sim.plugins.registry.plugins.get(pid)
    if plugin is None:
        raise E.plugin_not_found()
    if not manifest_available(plugin):
        raise E.plugin_manifest_unavailable(pid)
    if not plugin["enabled"]:
        raise E.plugin_disabled(pid)
    entrypoint = normalize_action_id(p["entrypoint"])
    if entrypoint is None:
        raise E.invalid_plugin_entrypoint()
    pane = next((x for x in plugin.get("panes", ()) if x["id"] == entrypoint), None)
    if pane is None:
        raise E.plugin_entrypoint_not_found(entrypoint)
    try:
        ensure_platform_supported(effective_platforms(pane, plugin), "plugin pane")
    except PluginError as e:
        raise _err(e) from None
    placement = p["placement"] or pane["placement"]
    if placement != "popup" and (p["width"] is not None or p["height"] is not None):
        raise E.plugin_pane_size_needs_popup()
    targeted = p["target_pane_id"] is not None or p["direction"] is not None
    if placement in ("overlay", "popup") and (p["workspace_id"] is not None or targeted):
        raise E.plugin_pane_targets_active()
    if placement in ("split", "zoomed") and p["workspace_id"] is not None:
        raise E.plugin_pane_needs_target_pane()
    if placement == "tab" and targeted:
        raise E.plugin_tab_pane_targets_workspace()
    if placement == "popup" and sim.version.rows.plugin_popup_tracked and sim.surface.popup:
        raise E.popup_already_open()
    if placement == "popup":
        # CHOICE: a headless server's popup is not a pane of the session (nothing to list);
        # herdr answers ok (panes.rs:11-42). Its process is not started. 0.9.x keeps it open
        # until popup.close (Profile.plugin_popup_tracked).
        if sim.version.rows.plugin_popup_tracked:
            sim.surface.popup = {"plugin_id": pid, "entrypoint": entrypoint}
        return {"type": "ok"}
    s = sim.session
    cwd = p["cwd"] if p["cwd"] is not None else plugin["plugin_root"]
    # herdr labels the terminal (and zooms the tab) before announcing them
    # (finish_plugin_pane_open, panes.rs:271-320): the events carry the final state.
    with sim.outbox.deferred():
        if placement == "tab":
            if p["workspace_id"] is not None:
                w = s.find_workspace(p["workspace_id"])
                if w is None:
                    raise E.workspace_not_found()
            else:
                w = s.active_ws()
                if w is None:
                    raise E.plugin_no_active_workspace()
            ctx = C.for_workspace(s, w, "plugin-pane")
            env = _pane_env(sim, plugin, entrypoint, cwd, p["env"], ctx)
            cwd = resolve_new_cwd(sim, cwd, None)
            _, new = s.create_tab(w, cwd, None, env, p["focus"], sim.now_us())
        else:
            # CHOICE: an overlay is opened as a focused split of the active pane (a headless
            # server draws no overlay; the pane exists, is listed and can be focused/closed).
            if placement == "overlay":
                target = s.focused_pane()
                if target is None:
                    raise E.no_active_pane()
            else:
                ref = p["target_pane_id"]
                target = s.find_pane(ref) if ref is not None else s.focused_pane()
                if target is None:
                    if ref is None:
                        raise E.no_active_pane()
                    raise E.pane_not_found_named(ref)
            ctx = C.for_pane(s, target, "plugin-pane")
            env = _pane_env(sim, plugin, entrypoint, cwd, p["env"], ctx)
            cwd = resolve_new_cwd(sim, cwd, None)
            focus = p["focus"] or placement in ("zoomed", "overlay")
            new = s.split_pane(
                target, p["direction"] or "right", None, cwd, env, focus, sim.now_us()
            )
            if placement == "zoomed":
                s.tab_of(new).zoomed = True  # panes.rs:160-168
        new.label = pane["title"]
    sim.plugins.panes[new.pane_id] = {"plugin_id": pid, "entrypoint": entrypoint}
    sim.on_pane_created(new)
    # CHOICE (as layout.apply's pane commands, handlers/layout.py _launch): the entrypoint's
    # argv is typed into the new pane's shell, in the plugin root, as one shell-quoted line;
    # herdr execs it as the pane's process (create_tab_argv_command / split_pane_argv_command).
    new.launch_argv = list(pane["command"])
    sim.write_input(new, (shlex.join(pane["command"]) + "\r").encode())
    return {"type": "plugin_pane_opened", "plugin_pane": _plugin_pane(sim, new)}


def _pane_env(sim, plugin, entrypoint, cwd, env, ctx) -> dict:
    """plugin_pane_launch_env (panes.rs:234-270): the new pane's environment (a simulated
    shell, or a real one in pty mode, gets it like any pane's env)."""
    E.validate_env(env)
    out = {k: v for k, v in env.items() if k not in PROTECTED_PANE_ENV}
    out.setdefault("PWD", cwd)
    try:
        sim.plugins.ensure_user_dirs(plugin["plugin_id"])
    except PluginError as e:
        raise _err(e) from None
    out.update(sim.plugins.base_env(plugin, ctx))
    out["HERDR_PLUGIN_ENTRYPOINT_ID"] = entrypoint
    return out


def _plugin_pane(sim, pane) -> dict:
    rec = sim.plugins.panes[pane.pane_id]
    return {
        "plugin_id": rec["plugin_id"],
        "entrypoint": rec["entrypoint"],
        "pane": V.pane_info(sim.session, pane),
    }


def _require_plugin_pane(sim, ref: str):
    pane = sim.session.find_pane(ref)
    if pane is None or pane.pane_id not in sim.plugins.panes:
        raise E.plugin_pane_not_found()
    return pane


@method("plugin.pane.focus", pane_id=P.req(P.STR))
def pane_focus(sim, p):
    pane = _require_plugin_pane(sim, p["pane_id"])
    sim.session.focus_pane(pane)
    return {"type": "plugin_pane_focused", "plugin_pane": _plugin_pane(sim, pane)}


@method("plugin.pane.close", pane_id=P.req(P.STR))
def pane_close(sim, p):
    pane = _require_plugin_pane(sim, p["pane_id"])
    close_pane(sim, {"pane_id": pane.pane_id})  # pane.close's rules, cascades included
    sim.plugins.panes.pop(pane.pane_id, None)
    return {"type": "plugin_pane_closed", "pane_id": p["pane_id"]}
