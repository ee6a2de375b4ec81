"""The installed-plugin registry (src/persist/plugin_registry.rs, src/app/api/plugins/mod.rs:28-66).

Two modes, as in herdr: without a session (herdr's ``no_session``; simherdr's in-memory
default) the registry lives in memory and manifests are read only at link time; with
persistence it is herdr's ``plugins.json`` in the config dir, re-read before every use, each
entry's manifest reloaded from disk (a manifest that is gone keeps its entry with a
``manifest unavailable: ...`` warning and is listed but not runnable).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable

from .manifest import PluginError, load_manifest

MANIFEST_UNAVAILABLE_WARNING_PREFIX = "manifest unavailable: "  # plugin_registry.rs:8
REGISTRY_FILE = "plugins.json"


def manifest_available(plugin: dict) -> bool:
    return not any(
        w.startswith(MANIFEST_UNAVAILABLE_WARNING_PREFIX) for w in plugin.get("warnings", ())
    )


# --- file I/O (plugin_registry.rs:32-100), for a file-backed registry ----------------------


def _load_strict(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise ValueError("invalid type: expected a sequence of InstalledPluginInfo")
    return data


def _save(path: str, entries: list[dict]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"  # herdr: path.with_extension("json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=2)
    os.replace(tmp, path)


class PluginRegistry:
    def __init__(self, herdr_version: str, path: str | None = None):
        self.herdr_version = herdr_version
        self.path = path  # plugins.json, or None: in memory
        self.plugins: dict[str, dict] = {}

    # --- herdr's refresh/update ------------------------------------------------------------

    def refresh(self) -> None:
        """Before each use (refresh_installed_plugins). Raises OSError/ValueError as herdr's
        ``plugin_registry_load_failed``."""
        if self.path is None:
            return
        self._replace(_load_strict(self.path))

    def update(self, mutation: Callable[[dict[str, dict]], object]) -> object:
        """Apply ``mutation`` to {plugin_id: info}; persisted when file-backed. Raises OSError
        as herdr's ``plugin_registry_save_failed``."""
        if self.path is None:
            return mutation(self.plugins)
        entries = {p["plugin_id"]: p for p in _load_strict(self.path)}
        result = mutation(entries)
        ordered = [entries[k] for k in sorted(entries)]
        _save(self.path, ordered)
        self._replace(ordered)
        return result

    def _replace(self, entries: list[dict]) -> None:
        """reload_manifests (plugin_registry.rs:108-130): fresh manifest, stored enabled and
        source kept; an unreadable manifest keeps the stored entry with a warning."""
        out: dict[str, dict] = {}
        for entry in entries:
            entry = dict(entry)
            entry.pop("warnings", None)
            try:
                fresh = load_manifest(entry["manifest_path"], entry["enabled"], self.herdr_version)
            except PluginError as e:
                entry["warnings"] = [f"{MANIFEST_UNAVAILABLE_WARNING_PREFIX}{e.message}"]
                out[entry["plugin_id"]] = entry
                continue
            fresh["enabled"] = entry["enabled"]
            fresh["source"] = entry.get("source", {"kind": "local"})
            out[entry["plugin_id"]] = fresh
        self.plugins = out
