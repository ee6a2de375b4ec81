"""server.reload_config, server.agent_manifests, server.reload_agent_manifests (SOCKET.md §4.0;
herdr src/server/headless.rs:1533-1547,3759-3776, src/app/api.rs:957-998,1339-1356,
src/detect/manifest.rs:272-323,555-666).

herdr's config and its agent-detection overrides are read by :mod:`simherdr.hostconfig`; a
reload injects the new values into the simulator's Config. CHOICE (NO_REMOTE_MANIFESTS): the
simulator never downloads manifests, so ``last_check_unix`` / ``last_result`` and every
``remote_*`` / ``cached_remote_version`` field are absent (herdr with no update run yet), and
``local_override_shadowing_remote`` is always false.
"""

from __future__ import annotations

import os

from .. import dirs, hostconfig
from ..facts import kinds as K
from ..model.surface import TOAST_SECONDS
from ..panes import manifests as MF
from .registry import method

# Agent::SCREEN_MANIFEST_AGENTS (src/detect/mod.rs:94-115): the order summaries are listed in.
SCREEN_MANIFEST_AGENTS = (
    "pi",
    "claude",
    "codex",
    "gemini",
    "cursor",
    "devin",
    "agy",
    "cline",
    "opencode",
    "copilot",
    "kimi",
    "kiro",
    "droid",
    "amp",
    "grok",
    "hermes",
    "kilo",
    "qodercli",
    "qwen",
    "maki",
)


def _bundled(table: str) -> list[tuple[str, str | None]]:
    """(agent, bundled manifest version) of the version's manifests (simherdr.panes.manifests:
    0.9.3's own where read, CHOICE MANIFESTS_093_UNREAD there), in SCREEN_MANIFEST_AGENTS
    order; 0.9's muse (VERSIONS.md §5 row 25) last."""
    bundled = {a: m.version for a, m in MF.load(table).items()}
    order = SCREEN_MANIFEST_AGENTS + tuple(a for a in bundled if a not in SCREEN_MANIFEST_AGENTS)
    return [(a, bundled.get(a)) for a in order]


@method("server.reload_config")
def reload_config(sim, p):
    path = sim.config.config_path
    if path is None:
        # CHOICE (NO_CONFIG_FILE): a simulator started without a config path reloads herdr's
        # defaults from "no file", which herdr answers as applied.
        loaded = hostconfig.Loaded(values=dict(hostconfig.DEFAULTS))
    else:
        loaded = hostconfig.load_live(path, sim.version)
    hostconfig.apply(sim.config, loaded)
    sim.surface.config_diagnostics = loaded.diagnostics
    # reload_server_config(notify_success=true): a "reloaded config" toast occupies the in-app
    # toast like any other; a failed reload clears it (src/app/mod.rs:1399-1415,1612-1633).
    sim.surface.toast_until = None if loaded.failed else sim.now() + TOAST_SECONDS
    return {"type": "config_reload", "status": loaded.status, "diagnostics": loaded.diagnostics}


def _matches(table: dict, agent: str) -> bool:
    """manifest_matches_agent (src/detect/manifest.rs:1110-1120)."""
    names = [table.get("id")] + [a for a in table.get("aliases") or [] if isinstance(a, str)]
    return any(n == agent or (isinstance(n, str) and K.parse_kind(n) == agent) for n in names)


def _summaries(sim) -> list[dict]:
    out = []
    base = dirs.config_dir(sim.config)
    for agent, version in _bundled(sim.version.tables.manifests):
        info: dict = {"agent": agent, "source": "bundled", "source_kind": "bundled"}
        active, warning = version, None
        path = os.path.join(base, "agent-detection", f"{agent}.toml")  # override_path
        table, error = hostconfig.read_override(path, agent)
        if table is not None and _matches(table, agent):
            info["source"], info["source_kind"] = path, "local override"
            v = table.get("version")
            active = v if isinstance(v, str) else None
        elif table is not None:
            warning = (
                f"ignored override {path} because manifest id {table['id']} does not match {agent}"
            )
        elif error is not None:
            warning = f"ignored override {path} because it could not be loaded: {error}"
        if active is not None:
            info["active_version"] = active
        info["local_override_shadowing_remote"] = False
        if warning is not None:
            info["warning"] = warning
        out.append(info)
    return out


@method("server.agent_manifests")
def agent_manifests(sim, p):
    if sim.surface.manifests is None:  # herdr's manifest cache: loaded once, on first use
        sim.surface.manifests = _summaries(sim)
    return {"type": "agent_manifest_status", "manifests": [dict(m) for m in sim.surface.manifests]}


@method("server.reload_agent_manifests")
def reload_agent_manifests(sim, p):
    sim.surface.manifests = _summaries(sim)
    return {"type": "agent_manifest_reload", "manifests": [dict(m) for m in sim.surface.manifests]}
