"""herdr's plugins (src/app/api/plugins/, src/persist/plugin_registry.rs).

- :mod:`.manifest`: ``herdr-plugin.toml`` loaded and normalised as herdr does (tomllib);
- :mod:`.registry`: the installed-plugin registry (in memory, or herdr's ``plugins.json``);
- :mod:`.context`: the invocation context (``HERDR_PLUGIN_CONTEXT_JSON``) from the session;
- :mod:`.runtime`: actions and ``[[events]]`` hooks run as real processes off the event loop,
  with herdr's plugin environment, and their command logs.
"""

from __future__ import annotations

from .manifest import PluginError
from .runtime import PluginHost

__all__ = ["PluginError", "PluginHost"]
