"""herdr's integration install / uninstall / status core (src/integration/*.rs), stdlib-only.

One implementation for both callers: the stand-in's `herdr integration install|uninstall|status`
(simherdr/stub/cli/integration.py) and the server's ``integration.install`` /
``integration.uninstall`` (simherdr/handlers/integrations.py; herdr's server runs the same
``install_target`` as its CLI, src/app/api/integrations.rs), in ``hostcore``, the package both
may import; it does file I/O under the directories ``env`` names (``HOME`` and the agents'
overrides), nothing else of the host. The targets are package data (``data/integration.json``).

herdr installs its own hook scripts and plugins into each agent's config directory and
registers them in the agent's config (src/cli/integration.rs, src/integration/*.rs). The
assets are herdr's code, so the stand-in writes simherdr's OWN minimal files instead: a shell
hook that reports the agent session to herdr, or a comment-only plugin stub, each carrying
herdr's markers (``HERDR_INTEGRATION_ID=`` / ``HERDR_INTEGRATION_VERSION=``, read by
``parse_integration_version``, src/integration/registry.rs:474-488). The paths, versions,
preconditions and printed messages are herdr's; the config registrations are simplified
(CHOICE, see :data:`TARGETS`' ``config`` kinds).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from ..facts.paths import join as _join
from ..facts.record import field, record

MARKER = "HERDR_INTEGRATION_VERSION="  # src/integration/mod.rs:266
ID_MARKER = "HERDR_INTEGRATION_ID="
WARNING_PREFIX = "warning:"  # src/integration/mod.rs:299
KIMI_MIN_VERSION = "0.14.0"  # src/integration/mod.rs:69
KIMI_BLOCK = ("# >>> herdr kimi integration", "# <<< herdr kimi integration")  # :67-68
HERMES_BLOCK = ("# >>> herdr hermes integration", "# <<< herdr hermes integration")  # CHOICE
OPENCODE_TUI_SPEC = "./herdr-tui-session.js"  # src/integration/mod.rs:180


# --- where each agent keeps its config (src/integration/env.rs) ------------------------------


def _home(env: Mapping[str, str]) -> str:
    home = env.get("HOME")
    if not home:
        raise OSError("could not determine home directory")  # CHOICE: wording
    return home


def _tilde(env: Mapping[str, str], value: str) -> str:
    """expand_tilde_path (env.rs:96-115)."""
    if value == "~":
        return _home(env)
    for prefix in ("~/", "~\\", "~"):
        if value.startswith(prefix):
            return _join(_home(env), value[len(prefix) :])
    return value


def _env_or_home(env: Mapping[str, str], var: str, *segments: str) -> str:
    """config_dir_from_env_or_home (env.rs:82-94)."""
    value = env.get(var)
    if value:
        return _tilde(env, value)
    return os.path.join(_home(env), *segments)


def _omp_dir(env: Mapping[str, str]) -> str:
    """omp_extension_dir (env.rs:44-58)."""
    pi = env.get("PI_CODING_AGENT_DIR")
    if pi:
        return _join(_tilde(env, pi), "extensions")
    return os.path.join(_home(env), env.get("PI_CONFIG_DIR") or ".omp", "agent", "extensions")


def _devin_dir(env: Mapping[str, str]) -> str:
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg:
        return _join(_tilde(env, xdg), "devin")
    return os.path.join(_home(env), ".config", "devin")


def _grok_dir(env: Mapping[str, str]) -> str:
    value = env.get("GROK_CONFIG_DIR")
    if value:
        return _tilde(env, value)
    return _env_or_home(env, "GROK_HOME", ".grok")


_DIRS = {
    "pi": lambda e: _join(_env_or_home(e, "PI_CODING_AGENT_DIR", ".pi", "agent"), "extensions"),
    "omp": _omp_dir,
    "claude": lambda e: _env_or_home(e, "CLAUDE_CONFIG_DIR", ".claude"),
    "codex": lambda e: _env_or_home(e, "CODEX_HOME", ".codex"),
    "copilot": lambda e: _env_or_home(e, "COPILOT_HOME", ".copilot"),
    "devin": _devin_dir,
    "droid": lambda e: os.path.join(_home(e), ".factory"),
    "kimi": lambda e: _env_or_home(e, "KIMI_CODE_HOME", ".kimi-code"),
    "opencode": lambda e: os.path.join(_home(e), ".config/opencode"),
    "kilo": lambda e: os.path.join(_home(e), ".config/kilo"),
    "hermes": lambda e: _env_or_home(e, "HERMES_HOME", ".hermes"),
    "qodercli": lambda e: _env_or_home(e, "QODER_CONFIG_DIR", ".qoder"),
    "qwen": lambda e: _env_or_home(e, "QWEN_HOME", ".qwen"),
    "letta": lambda e: os.path.join(_home(e), ".letta"),  # fork env.rs letta_dir
    "cursor": lambda e: _env_or_home(e, "CURSOR_CONFIG_DIR", ".cursor"),
    "mastracode": lambda e: os.path.join(_home(e), ".mastracode"),
    "antigravity-cli": lambda e: _env_or_home(e, "ANTIGRAVITY_CLI_CONFIG_DIR", ".gemini", "config"),
    "grok": _grok_dir,
}


# --- the target table ---------------------------------------------------------------------------


@record(frozen=True)
class Config:
    """A config file herdr edits to register its hook.

    ``kind`` (CHOICE: simherdr's own minimal registrations, not herdr's full edits):
    ``hooks`` a JSON file whose ``hooks.<event>`` list gets one command entry; ``owned`` a JSON
    file herdr owns outright (grok's hooks/herdr.json, herdr's exact content); ``block`` a
    marker-delimited block appended to a TOML/YAML file; ``plugin-list`` opencode's tui.jsonc
    ``plugin`` array; ``asset`` a second asset file carrying the marker; ``untouched`` a file
    herdr reports but the stand-in leaves alone (codex config.toml: herdr only flips hook
    feature flags there).
    """

    path: str  # relative to the agent's directory
    kind: str
    install: str | None  # message template, {path}
    removed: str | None = None
    absent: str | None = None
    event: str = "SessionStart"
    always: bool = True  # install message printed even when nothing changed


@record(frozen=True)
class Target:
    """One row of data/integration.json ``targets`` (or ``experimental``), made by keyword."""

    label: str
    asset: str  # the marker file, relative to the agent's directory
    versions: Mapping[str, int]  # integration table key -> *_INTEGRATION_VERSION
    missing: str | None  # error when the directory is absent, {dir}; None: created
    install: str  # first install message, {path}
    removed: str  # uninstall messages for the asset, {path}
    absent: str
    configs: tuple[Config, ...] = ()
    extension_dir: bool = False  # pi/omp: created when its parent exists (targets.rs:62-73)
    plugin_dir: str | None = None  # hermes: the installed directory reported by messages
    experimental: bool = False


@record(frozen=True)
class Table:
    """One integration table (a release's ``tables.integration`` key) of data/integration.json."""

    source: str
    status_checks_registration: bool  # status also checks each config registration (0.9)


def _target(row: dict) -> Target:
    configs = tuple(Config(**c) for c in row.get("configs", ()))
    return Target(**{**row, "configs": configs})


def _load() -> tuple[tuple[Target, ...], Target, dict[str, Table]]:
    """data/integration.json: the targets (herdr's order), letta, the tables (read once)."""
    with open(os.path.join(os.path.dirname(__file__), "data", "integration.json"), "rb") as f:
        doc = json.load(f)
    (letta,) = doc["experimental"]
    tables = {key: Table(**value) for key, value in doc["tables"].items()}
    return tuple(_target(row) for row in doc["targets"]), _target(letta), tables


#: The targets in herdr's IntegrationTarget::ALL order; LETTA: 0.9.x's experimental CLI-only
#: target (fork src/cli/integration.rs, registry.rs, actions.rs; CHOICE: its missing-directory
#: message follows the other targets' pattern, not read).
TARGETS, LETTA, TABLES = _load()
_ALIASES = {"antigravity_cli": "antigravity-cli"}
#: The socket's IntegrationTarget (src/api/schema/integrations.rs:13-33, serde snake_case; the
#: same 17 on 0.9.3: letta is CLI-only there).
SOCKET_TARGETS: tuple[str, ...] = tuple(t.label.replace("-", "_") for t in TARGETS)


def _kinds(version: str) -> tuple[str, ...]:
    """The agent kinds of the release (its table ``agent_kinds``): an integration target exists
    with its kind (qwen from 0.8.2, a4d52ab6 #2743; letta from 0.9.1, #3106)."""
    from ..facts.kinds import kind_names_in
    from ..facts.versions import resolve

    return kind_names_in(resolve(version).tables.agent_kinds)


def has_letta(version: str) -> bool:
    return "letta" in _kinds(version)


def targets(version: str) -> list[Target]:
    """The builtin targets, in herdr's order (registry.rs integration_specs)."""
    kinds = _kinds(version)
    return [t for t in TARGETS if t.label != "qwen" or "qwen" in kinds]


def cli_labels(version: str) -> list[str]:
    """The target words of the usage line, in herdr's order (letta after qwen from 0.9.1)."""
    labels = [t.label for t in targets(version) if t.label != "antigravity-cli"]
    if has_letta(version):
        labels.insert(labels.index("qwen") + 1, "letta")
    return labels


def help_labels(version: str) -> list[str]:
    """The group help's target order (src/cli/integration.rs print_integration_help)."""
    labels = [t.label for t in targets(version)]
    if has_letta(version):
        labels.insert(labels.index("qwen") + 1, "letta")
    return labels


def _table_key(version: str) -> str:
    """The release's integration table key (its ``tables.integration``)."""
    from ..facts.versions import resolve

    return resolve(version).tables.integration


def expected_version(target: Target, version: str) -> int:
    """The target's asset version in the release's integration table."""
    return target.versions[_table_key(version)]


# --- simherdr's own asset files -----------------------------------------------------------------


def hook_command(hook: str) -> str:
    """hook_command (src/integration/command.rs:7-31): bash '<path>' session."""
    return "bash '%s' session" % hook.replace("'", "'\"'\"'")


def _grok_command(hook: str) -> str:
    return "sh '%s' session" % hook.replace("'", "'\"'\"'")  # targets.rs:1407-1419


def grok_config(hook: str) -> dict:
    """grok_hook_config (targets.rs:1421-1438): herdr's exact owned file."""
    entry = {"type": "command", "command": _grok_command(hook), "timeout": 10}
    return {"hooks": {"SessionStart": [{"hooks": [entry]}]}}


def asset_text(target: Target, version: str, name: str) -> str:
    """simherdr's own minimal asset (never herdr's): markers first, then a tiny body."""
    number = expected_version(target, version)
    head = "simherdr stand-in %s integration for herdr %s (not herdr's own asset)" % (
        target.label,
        version,
    )
    if name.endswith(".sh"):
        return (
            "#!/bin/sh\n# %s\n# %s%s\n# %s%d\n"
            "# Reports this agent session to herdr; simulated agents report on their own.\n"
            '[ -n "$HERDR_PANE_ID" ] || exit 0\n'
            'exec "${HERDR_BIN_PATH:-herdr}" pane report-agent-session "$HERDR_PANE_ID" '
            '--source "simherdr:%s" --agent %s >/dev/null 2>&1\n'
            % (head, ID_MARKER, target.label, MARKER, number, target.label, target.label)
        )
    if name.endswith(".py"):
        return '# %s\n# %s%s\n# %s%d\n"""Marker-only plugin."""\n' % (
            head,
            ID_MARKER,
            target.label,
            MARKER,
            number,
        )
    if name.endswith(".yaml"):
        return "# %s\nname: herdr-agent-state\nversion: %d\n" % (head, number)
    return "// %s\n// %s%s\n// %s%d\nexport default {};\n" % (
        head,
        ID_MARKER,
        target.label,
        MARKER,
        number,
    )


def parse_version(text: str) -> int | None:
    """parse_integration_version (registry.rs:474-488)."""
    for line in text.splitlines():
        stripped = line.strip().lstrip("/").lstrip("#").strip()
        if stripped.startswith(MARKER):
            rest = stripped[len(MARKER) :].strip()
            if rest.isdigit():
                return int(rest)
    return None


# --- config registrations -------------------------------------------------------------------


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _load_json(path: str, text: str | None) -> dict:
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(_strip_jsonc(text))
    except ValueError as exc:
        raise OSError("failed to parse %s: %s" % (path, exc)) from None
    if not isinstance(value, dict):
        raise OSError("%s must contain a JSON object" % path)
    return value


def _strip_jsonc(text: str) -> str:
    """Drop // line comments outside strings (tui.jsonc). CHOICE: no /* */ or trailing commas."""
    out, in_string, escaped, i = [], False, False, 0
    while i < len(text):
        ch = text[i]
        if in_string:
            out.append(ch)
            escaped = ch == "\\" and not escaped
            if ch == '"' and not escaped:
                in_string = False
        elif ch == '"':
            in_string, escaped = True, False
            out.append(ch)
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _dump_json(value: dict) -> str:
    return json.dumps(value, indent=2) + "\n"


def _hook_entries(settings: dict, hook: str) -> int:
    count = 0
    for entries in (settings.get("hooks") or {}).values():
        for entry in entries if isinstance(entries, list) else ():
            for inner in entry.get("hooks", []) if isinstance(entry, dict) else ():
                if isinstance(inner, dict) and hook in str(inner.get("command", "")):
                    count += 1
    return count


def _without_hook(settings: dict, hook: str) -> dict:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return settings
    kept = {}
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            kept[event] = entries
            continue
        left = [
            e
            for e in entries
            if not (
                isinstance(e, dict)
                and any(
                    hook in str(h.get("command", ""))
                    for h in e.get("hooks", [])
                    if isinstance(h, dict)
                )
            )
        ]
        if left:
            kept[event] = left
    out = dict(settings)
    if kept:
        out["hooks"] = kept
    else:
        out.pop("hooks", None)
    return out


def _block(begin_end: tuple[str, str], body: str) -> str:
    return "%s\n%s%s\n" % (begin_end[0], body, begin_end[1])


def _strip_block(text: str, begin_end: tuple[str, str]) -> tuple[str, bool]:
    begin, end = begin_end
    start = text.find(begin)
    if start < 0:
        return text, False
    stop = text.find(end, start)
    stop = len(text) if stop < 0 else stop + len(end)
    if stop < len(text) and text[stop] == "\n":
        stop += 1
    return (text[:start].rstrip("\n") + "\n" if text[:start].strip() else "") + text[stop:], True


def _block_for(target: Target, hook_or_plugin: str) -> tuple[tuple[str, str], str]:
    if target.label == "kimi":
        # CHOICE: one SessionStart hook (herdr registers 12 events, mod.rs:72-96).
        body = '[[hooks]]\nevent = "SessionStart"\ncommand = %s\n' % json.dumps(
            hook_command(hook_or_plugin)
        )
        return KIMI_BLOCK, body
    return HERMES_BLOCK, "plugins:\n  enabled:\n    - herdr-agent-state\n"


def _register(target: Target, cfg: Config, path: str, hook: str) -> bool:
    """Install-side edit; True when the file changed."""
    text = _read(path)
    if cfg.kind == "untouched" or cfg.event == "legacy":
        return False
    if cfg.kind == "owned":
        new = _dump_json(grok_config(hook))
    elif cfg.kind == "hooks":
        settings = _without_hook(_load_json(path, text), hook)
        entry = {"hooks": [{"type": "command", "command": hook_command(hook)}]}
        hooks = dict(settings.get("hooks") or {})
        hooks[cfg.event] = list(hooks.get(cfg.event) or []) + [entry]
        new = _dump_json(dict(settings, hooks=hooks))
    elif cfg.kind == "plugin-list":
        config = _load_json(path, text)
        plugins = [p for p in config.get("plugin") or [] if p != OPENCODE_TUI_SPEC]
        new = _dump_json(dict(config, plugin=plugins + [OPENCODE_TUI_SPEC]))
    else:  # block
        markers, body = _block_for(target, hook)
        base, _ = _strip_block(text or "", markers)
        new = (base.rstrip("\n") + "\n\n" if base.strip() else "") + _block(markers, body)
    if new == text:
        return False
    _write(path, new)
    return True


def _unregister(target: Target, cfg: Config, path: str, hook: str) -> bool:
    text = _read(path)
    if text is None or cfg.kind == "untouched":
        return False
    if cfg.kind == "owned":
        os.remove(path)
        return True
    if cfg.kind == "hooks":
        settings = _load_json(path, text)
        if not _hook_entries(settings, hook):
            return False
        _write(path, _dump_json(_without_hook(settings, hook)))
        return True
    if cfg.kind == "plugin-list":
        config = _load_json(path, text)
        plugins = config.get("plugin") or []
        if OPENCODE_TUI_SPEC not in plugins:
            return False
        _write(
            path, _dump_json(dict(config, plugin=[p for p in plugins if p != OPENCODE_TUI_SPEC]))
        )
        return True
    markers, _ = _block_for(target, hook)
    new, found = _strip_block(text, markers)
    if found:
        _write(path, new)
    return found


def _registered(target: Target, cfg: Config, path: str, hook: str, version: str) -> bool:
    """Whether the agent's config points at the hook (0.9's hook_registration_is_current)."""
    text = _read(path)
    if cfg.kind in ("untouched",) or cfg.event == "legacy":
        return True
    if text is None:
        return False
    try:
        if cfg.kind == "owned":
            return json.loads(text) == grok_config(hook)
        if cfg.kind == "hooks":
            return _hook_entries(_load_json(path, text), hook) > 0
        if cfg.kind == "plugin-list":
            return OPENCODE_TUI_SPEC in (_load_json(path, text).get("plugin") or [])
    except (OSError, ValueError):
        return False
    return _block_for(target, hook)[0][0] in text


# --- install / uninstall / status ---------------------------------------------------------------


class IntegrationError(Exception):
    pass


def _kimi_version_warning(env: Mapping[str, str]) -> str | None:
    """enforce_agent_version (src/integration/version.rs:46-88) for `kimi --version`."""
    import subprocess

    probe = "kimi --version"
    try:
        done = subprocess.run(
            ["kimi", "--version"], capture_output=True, text=True, env=dict(env), timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        done = None
    if done is None or done.returncode != 0:
        return (
            "%s could not run `%s` to verify the installed version; hooks require kimi code %s "
            "or newer" % (WARNING_PREFIX, probe, KIMI_MIN_VERSION)
        )
    found = _version_triple(done.stdout)
    if found is None:
        return (
            "%s could not parse the kimi code version from `%s` output; hooks require kimi code "
            "kimi code %s or newer" % (WARNING_PREFIX, probe, KIMI_MIN_VERSION)
        )
    if found < _version_triple(KIMI_MIN_VERSION):
        raise IntegrationError(
            "kimi code %d.%d.%d is too old: herdr hooks require kimi code %s or newer. upgrade "
            "kimi code, then re-run install" % (*found, KIMI_MIN_VERSION)
        )
    return None


def _version_triple(text: str):
    """extract_version_triple (version.rs:23-41)."""
    for token in text.split():
        parts = token.lstrip("v").split(".", 2)
        if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
            continue
        patch = ""
        for ch in parts[2] if len(parts) > 2 else "":
            if not ch.isdigit():
                break
            patch += ch
        return int(parts[0]), int(parts[1]), int(patch or 0)
    return None


def _at(base: str, rel: str) -> str:
    return os.path.join(base, *rel.split("/"))


def install(target: Target, env: Mapping[str, str], version: str) -> list[str]:
    base = _DIRS[target.label](env)
    warning = _kimi_version_warning(env) if target.label == "kimi" else None
    messages: list[str] = []
    if target.extension_dir:
        if target.label == "omp" and os.path.normpath(base) == os.path.normpath(_DIRS["pi"](env)):
            raise IntegrationError(
                "Pi and OMP resolve to the same extension directory at %s; configure separate "
                "agent directories before installing OMP" % base
            )
        if not os.path.isdir(base):
            if not os.path.isdir(os.path.dirname(base.rstrip("/"))):
                raise IntegrationError(
                    "%s extension directory not found at %s. install %s first"
                    % (target.label, base, target.label)
                )
            os.makedirs(base, exist_ok=True)
        if target.label == "omp":
            legacy = os.path.join(base, "herdr-agent-state.ts")
            if ID_MARKER + "pi" in (_read(legacy) or ""):
                os.remove(legacy)
                messages.append(
                    "removed legacy pi integration from omp extension directory at %s" % legacy
                )
    elif target.missing and not os.path.isdir(base):
        raise IntegrationError(target.missing.format(dir=base))
    asset = _at(base, target.asset)
    _write(asset, asset_text(target, version, asset))
    if asset.endswith(".sh"):
        os.chmod(asset, 0o755)
    if target.plugin_dir:
        manifest = _at(base, target.plugin_dir + "/plugin.yaml")
        _write(manifest, asset_text(target, version, manifest))
    shown = _at(base, target.plugin_dir) if target.plugin_dir else asset
    messages.append(target.install.format(path=shown))
    # droid reports its legacy hooks.json clean-up last (actions.rs:135-153).
    for cfg in sorted(target.configs, key=lambda c: c.event == "legacy"):
        path = _at(base, cfg.path)
        if cfg.kind == "asset":
            _write(path, asset_text(target, version, path))
            changed = True
        elif cfg.kind == "untouched":
            changed = False
        else:
            changed = _register(target, cfg, path, asset)
        if cfg.event == "legacy":
            # droid's legacy hooks.json entries: removed on install when present.
            if _unregister(target, cfg, path, asset) and cfg.removed:
                messages.append(cfg.removed.format(path=path))
            continue
        if cfg.install and (cfg.always or changed):
            messages.append(cfg.install.format(path=path))
    if target.label == "kimi":
        messages.append("requires kimi code %s or newer" % KIMI_MIN_VERSION)
    if warning:
        messages.append(warning)
    return messages


def uninstall(target: Target, env: Mapping[str, str], version: str) -> list[str]:
    import shutil

    base = _DIRS[target.label](env)
    asset = _at(base, target.asset)
    messages: list[str] = []
    if target.plugin_dir:
        folder = _at(base, target.plugin_dir)
        removed = os.path.isdir(folder)
        shutil.rmtree(folder, ignore_errors=True)
        messages.append((target.removed if removed else target.absent).format(path=folder))
    else:
        removed = os.path.isfile(asset)
        if removed:
            os.remove(asset)
        messages.append((target.removed if removed else target.absent).format(path=asset))
    for cfg in target.configs:
        path = _at(base, cfg.path)
        if cfg.kind == "asset":
            gone = os.path.isfile(path)
            if gone:
                os.remove(path)
        else:
            gone = _unregister(target, cfg, path, asset)
        template = cfg.removed if gone else cfg.absent
        if template:
            messages.append(template.format(path=path))
    return messages


@record
class Status:
    target: Target
    path: str
    state: str  # not_installed | current | outdated
    installed: int | None
    expected: int
    extra: list = field(default_factory=list)


def status(target: Target, env: Mapping[str, str], version: str) -> Status:
    """integration_status_at (registry.rs:404-460) plus 0.9's registration check."""
    base = _DIRS[target.label](env)
    path = _at(base, target.asset)
    expected = expected_version(target, version)
    checks_registration = TABLES[_table_key(version)].status_checks_registration
    if not os.path.isfile(path):
        return Status(target, path, "not_installed", None, expected)
    installed = parse_version(_read(path) or "")
    state = "current" if installed is not None and installed >= expected else "outdated"
    if state == "current":
        for cfg in target.configs:
            cfg_path = _at(base, cfg.path)
            if cfg.kind == "asset":
                ok = (parse_version(_read(cfg_path) or "") or -1) >= expected
            elif cfg.kind in ("owned", "plugin-list") or checks_registration:
                ok = _registered(target, cfg, cfg_path, path, version)
            else:
                ok = True
            if not ok:
                state = "outdated"
                break
    return Status(target, path, state, installed, expected)


def resolve(word: str, version: str) -> Target | None:
    """A target by its CLI word or its socket name (``antigravity_cli``); letta on 0.9 only."""
    word = _ALIASES.get(word, word)
    if word == "letta" and has_letta(version):
        return LETTA
    return next((t for t in targets(version) if t.label == word), None)


def error_text(exc: Exception) -> str:
    """The error's Display as herdr prints it: ours verbatim, an OS error as Rust's io::Error
    (``<strerror> (os error N)``)."""
    if isinstance(exc, OSError) and exc.errno:
        return "%s (os error %d)" % (os.strerror(exc.errno), exc.errno)
    return str(exc)
