"""``herdr-plugin.toml``: loaded and normalised as herdr's load_plugin_manifest does
(src/app/api/plugins/manifest.rs:118-220), into the InstalledPluginInfo herdr reports
(src/api/schema/plugins.rs:37-66). Check order, codes and messages follow the source.

Shape errors that herdr's serde/toml layer reports (a missing field, a wrong type, an unknown
platform/context/placement) are ``plugin_manifest_parse_failed``; CHOICE: the message is our
own text in serde's style (the code is what clients match on).
"""

from __future__ import annotations

import os
import re
from typing import Any

MANIFEST_FILE = "herdr-plugin.toml"
PLUGIN_ID_MAX_CHARS = 120  # manifest.rs:8-9
ACTION_ID_MAX_CHARS = 120
PLATFORMS = ("linux", "macos", "windows")
ACTION_CONTEXTS = ("global", "workspace", "tab", "pane", "selection")
PANE_PLACEMENTS = ("overlay", "popup", "split", "tab", "zoomed")
# The simulator runs on Linux (herdr's current_platform(), manifest.rs:508-517).
HOST_PLATFORM = "linux"
UNDECLARED_PLATFORMS_WARNING = "manifest does not declare platforms; platform support unknown"

# Event names an [[events]] hook may name (src/api/schema/events.rs:286-309); others load with
# an "unknown event" warning and never fire.
HOOK_EVENTS = (
    "workspace.created",
    "workspace.updated",
    "workspace.closed",
    "workspace.renamed",
    "workspace.moved",
    "workspace.reordered",
    "workspace.focused",
    "worktree.created",
    "worktree.opened",
    "worktree.removed",
    "tab.created",
    "tab.closed",
    "tab.renamed",
    "tab.moved",
    "tab.focused",
    "pane.created",
    "pane.closed",
    "pane.focused",
    "pane.moved",
    "pane.exited",
    "pane.agent_detected",
    "pane.agent_status_changed",
)


class PluginError(Exception):
    """A plugin failure with herdr's (code, message) pair."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _parse_failed(message: str) -> PluginError:
    return PluginError("plugin_manifest_parse_failed", message)


# --- identifiers (manifest.rs:580-610) ---------------------------------------------------------

_PLUGIN_ID = re.compile(r"[A-Za-z0-9:._-]+")
_LOCAL_ID = re.compile(r"[A-Za-z0-9:_-]+")


def normalize_plugin_id(value: str) -> str | None:
    v = value.strip()
    ok = v and len(v) <= PLUGIN_ID_MAX_CHARS and _PLUGIN_ID.fullmatch(v)
    return v if ok else None


def normalize_action_id(value: str) -> str | None:
    """Action, pane and link-handler ids: no dots (they qualify as ``<plugin>.<action>``)."""
    v = value.strip()
    ok = v and len(v) <= ACTION_ID_MAX_CHARS and _LOCAL_ID.fullmatch(v)
    return v if ok else None


INVALID_PLUGIN_ID_MESSAGE = (
    "plugin id must be non-empty, <= 120 characters, and contain only ASCII letters, digits, "
    "colon, dot, underscore, or hyphen"
)  # src/app/api/plugins/mod.rs:646-652


# --- raw shape checks (serde's part) -------------------------------------------------------------


def _field(table: dict, name: str, kind: type, required: bool = True) -> Any:
    if name not in table:
        if required:
            raise _parse_failed(f"missing field `{name}`")
        return None
    v = table[name]
    if kind is list:
        if not isinstance(v, list):
            raise _parse_failed(f"invalid type for `{name}`, expected a sequence")
    elif not isinstance(v, kind) or (isinstance(v, bool) and kind is not bool):
        raise _parse_failed(f"invalid type for `{name}`, expected {kind.__name__}")
    return v


def _strings(table: dict, name: str, required: bool = True) -> list[str] | None:
    v = _field(table, name, list, required)
    if v is not None and not all(isinstance(x, str) for x in v):
        raise _parse_failed(f"invalid type in `{name}`, expected a string")
    return v


def _tables(raw: dict, name: str) -> list[dict]:
    v = raw.get(name, [])
    if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
        raise _parse_failed(f"invalid type for `{name}`, expected a sequence of tables")
    return v


def _enum_values(table: dict, name: str, allowed: tuple[str, ...], what: str) -> list[str] | None:
    vals = _strings(table, name, required=False)
    for v in vals or ():
        if v not in allowed:
            if what == "platform":  # RawPlatform::try_from (manifest.rs:103-116)
                raise _parse_failed(f"invalid_plugin_platform: unknown platform '{v}'")
            names = ", ".join(f"`{x}`" for x in allowed)
            raise _parse_failed(f"unknown variant `{v}`, expected one of {names}")
    return vals


def _popup_size(table: dict, name: str) -> int | str | None:
    """PopupSize: a number of cells (u16) or a percentage string like "80%" (src/popup_size.rs)."""
    v = table.get(name)
    if v is None:
        return None
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 65535:
        return v
    if isinstance(v, str) and v.endswith("%") and v[:-1].isdigit() and 1 <= int(v[:-1]) <= 100:
        return v
    raise _parse_failed(f"invalid value for `{name}`: must be a number of cells or a percentage")


# --- normalisation (herdr's own checks) ----------------------------------------------------------


def _trimmed(value: str, code: str, message: str) -> str:
    v = value.strip()
    if not v:
        raise PluginError(code, message)
    return v


def _description(table: dict) -> str | None:
    d = _field(table, "description", str, required=False)
    d = d.strip() if d is not None else None
    return d or None


def _platforms(table: dict) -> list[str] | None:
    vals = _enum_values(table, "platforms", PLATFORMS, "platform")
    if vals is not None and not vals:
        raise PluginError(
            "invalid_plugin_platform",
            "platforms must not be an empty array; omit the field to leave platforms undeclared",
        )
    return vals


def _command(table: dict) -> list[str]:
    cmd = _strings(table, "command")
    if not cmd or any(arg == "" for arg in cmd):
        raise PluginError("invalid_plugin_command", "command must contain non-empty argv strings")
    return cmd


def _version_tuple(value: str) -> tuple[int, int, int] | None:
    """crate::update::Version::parse: optional ``v``, exactly three numeric parts."""
    parts = (value.removeprefix("v")).split(".")
    if len(parts) != 3 or not all(re.fullmatch(r"\+?[0-9]+", p) for p in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


def _min_herdr_version(raw: dict, herdr_version: str) -> str:
    value = _field(raw, "min_herdr_version", str, required=False)
    code = "invalid_plugin_min_herdr_version"
    if value is None:
        raise PluginError(code, "plugin min_herdr_version is required")
    value = _trimmed(value, code, "plugin min_herdr_version is required")
    required = _version_tuple(value)
    if required is None:
        raise PluginError(
            code, f"plugin min_herdr_version must be a semantic version like {herdr_version}"
        )
    current = _version_tuple(herdr_version) or (0, 0, 0)
    req_s = ".".join(map(str, required))
    if required > current:
        raise PluginError(
            "plugin_requires_newer_herdr",
            f"plugin requires Herdr {req_s} or newer; current Herdr is {herdr_version}",
        )
    return req_s


def _item(table: dict) -> dict:
    out: dict = {}
    platforms = _platforms(table)
    if platforms is not None:
        out["platforms"] = platforms
    out["command"] = _command(table)
    return out


def _action(t: dict) -> dict:
    raw_id = _field(t, "id", str)
    title = _field(t, "title", str)
    contexts = _enum_values(t, "contexts", ACTION_CONTEXTS, "context") or []
    _strings(t, "command")  # shape first (serde), then herdr's checks
    aid = normalize_action_id(raw_id)
    if aid is None:
        raise PluginError("invalid_plugin_action_id", "invalid action id")
    out: dict[str, Any] = {
        "id": aid,
        "title": _trimmed(title, "invalid_plugin_action_title", "action title is required"),
    }
    desc = _description(t)
    if desc:
        out["description"] = desc
    if contexts:
        out["contexts"] = contexts
    out.update(_item(t))
    return out


def _event(t: dict) -> dict:
    on = _field(t, "on", str)
    _strings(t, "command")
    out = {"on": _trimmed(on, "invalid_plugin_event", "event name is required")}
    out.update(_item(t))
    return out


def _pane(t: dict) -> dict:
    raw_id = _field(t, "id", str)
    title = _field(t, "title", str)
    placement = t.get("placement", "overlay")
    if placement not in PANE_PLACEMENTS:
        names = ", ".join(f"`{x}`" for x in PANE_PLACEMENTS)
        raise _parse_failed(f"unknown variant `{placement}`, expected one of {names}")
    width, height = _popup_size(t, "width"), _popup_size(t, "height")
    _strings(t, "command")
    pid = normalize_action_id(raw_id)
    if pid is None:
        raise PluginError("invalid_plugin_pane_id", "invalid pane id")
    out: dict[str, Any] = {
        "id": pid,
        "title": _trimmed(title, "invalid_plugin_pane_title", "pane title is required"),
    }
    desc = _description(t)
    if desc:
        out["description"] = desc
    item = _item(t)
    if "platforms" in item:
        out["platforms"] = item["platforms"]
    if placement != "popup" and (width is not None or height is not None):
        raise PluginError(
            "invalid_plugin_pane_size",
            "pane width and height are only supported when placement is popup",
        )
    out["placement"] = placement
    if width is not None:
        out["width"] = width
    if height is not None:
        out["height"] = height
    out["command"] = item["command"]
    return out


def _link_handler(t: dict) -> dict:
    raw_id, title = _field(t, "id", str), _field(t, "title", str)
    pattern, action = _field(t, "pattern", str), _field(t, "action", str)
    hid = normalize_action_id(raw_id)
    if hid is None:
        raise PluginError("invalid_plugin_link_handler_id", "invalid link handler id")
    title = _trimmed(title, "invalid_plugin_link_handler_title", "link handler title is required")
    code = "invalid_plugin_link_handler_pattern"
    pattern = _trimmed(pattern, code, "link handler pattern is required")
    try:
        # CHOICE: Python's re stands in for Rust's regex crate (same code, our message).
        re.compile(pattern)
    except re.error as e:
        raise PluginError(code, str(e)) from None
    aid = normalize_action_id(action)
    if aid is None:
        raise PluginError("invalid_plugin_link_handler_action", "invalid link handler action")
    out: dict[str, Any] = {"id": hid, "title": title, "pattern": pattern, "action": aid}
    platforms = _platforms(t)
    if platforms is not None:
        out["platforms"] = platforms
    return out


def _no_duplicates(items: list[dict], code: str, what: str) -> None:
    seen: set[str] = set()
    for it in items:
        if it["id"] in seen:
            raise PluginError(code, f"duplicate {what} id '{it['id']}'")
        seen.add(it["id"])


def manifest_path_for(path: str) -> str:
    """A directory means its herdr-plugin.toml; the result is canonical (symlinks resolved)."""
    p = os.path.join(path, MANIFEST_FILE) if os.path.isdir(path) else path
    if not os.path.exists(p):
        raise PluginError(
            "plugin_manifest_not_found", "No such file or directory (os error 2)"
        )  # Rust io::Error text of canonicalize()
    return os.path.realpath(p)


def load_manifest(path: str, enabled: bool, herdr_version: str) -> dict:
    """InstalledPluginInfo for the manifest at ``path`` (a file or a plugin directory)."""
    manifest_path = manifest_path_for(path)
    try:
        with open(manifest_path, "rb") as f:
            content = f.read()
        text = content.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise PluginError("plugin_manifest_read_failed", str(e)) from None
    import tomllib  # here, not at the top: a server without plugins never needs it

    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _parse_failed(str(e)) from None

    raw_id = _field(raw, "id", str)
    name, version = _field(raw, "name", str), _field(raw, "version", str)
    raw_sections = {k: _tables(raw, k) for k in ("build", "startup", "actions", "events", "panes")}
    raw_links = _tables(raw, "link_handlers")

    plugin_id = normalize_plugin_id(raw_id)
    if plugin_id is None:
        raise PluginError("invalid_plugin_id", "invalid plugin id")
    info: dict = {
        "plugin_id": plugin_id,
        "name": _trimmed(name, "invalid_plugin_name", "plugin name is required"),
        "version": _trimmed(version, "invalid_plugin_version", "plugin version is required"),
        "min_herdr_version": _min_herdr_version(raw, herdr_version),
    }
    desc = _description(raw)
    platforms = _platforms(raw)
    build = [_item(t) for t in raw_sections["build"]]
    startup = [_item(t) for t in raw_sections["startup"]]
    actions = [_action(t) for t in raw_sections["actions"]]
    _no_duplicates(actions, "duplicate_plugin_action_id", "action")
    actions.sort(key=lambda a: a["id"])
    events = [_event(t) for t in raw_sections["events"]]
    events.sort(key=lambda e: (e["on"], [a.strip() for a in e["command"]]))
    panes = [_pane(t) for t in raw_sections["panes"]]
    _no_duplicates(panes, "duplicate_plugin_pane_id", "pane")
    panes.sort(key=lambda p: p["id"])
    links = [_link_handler(t) for t in raw_links]
    _no_duplicates(links, "duplicate_plugin_link_handler_id", "link handler")
    action_ids = {a["id"] for a in actions}
    for h in links:
        if h["action"] not in action_ids:
            raise PluginError(
                "invalid_plugin_link_handler_action",
                f"link handler '{h['id']}' references unknown action '{h['action']}'",
            )
    warnings = [f"unknown event '{e['on']}'" for e in events if e["on"] not in HOOK_EVENTS]
    if platforms is None:
        warnings.append(UNDECLARED_PLATFORMS_WARNING)

    if desc:
        info["description"] = desc
    info["manifest_path"] = manifest_path
    info["plugin_root"] = os.path.dirname(manifest_path)
    info["enabled"] = enabled
    if platforms is not None:
        info["platforms"] = platforms
    for key, items in (
        ("build", build),
        ("startup", startup),
        ("actions", actions),
        ("events", events),
        ("panes", panes),
        ("link_handlers", links),
    ):
        if items:
            info[key] = items
    info["source"] = {"kind": "local"}
    if warnings:
        info["warnings"] = warnings
    return info


def effective_platforms(item: dict, plugin: dict) -> list[str] | None:
    """An item's own platforms, else the plugin's (manifest.rs:522-531)."""
    return item["platforms"] if "platforms" in item else plugin.get("platforms")


def ensure_platform_supported(platforms: list[str] | None, subject: str) -> None:
    if platforms is not None and HOST_PLATFORM not in platforms:
        raise PluginError(
            "platform_unsupported",
            f"{subject} does not support the current platform ({HOST_PLATFORM})",
        )
