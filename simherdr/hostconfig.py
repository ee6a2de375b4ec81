"""herdr's config files on the host, read the way herdr reads them (I/O lives here; the values
are injected into :class:`simherdr.simulator.Config`, the model never reads files).

- ``config.toml``: ``$HERDR_CONFIG_PATH``, else ``<config dir>/config.toml``
  (src/config/io.rs:168-173; the config dir is :mod:`simherdr.dirs`'s). ``simherdr serve``
  resolves the path (``--herdr-config-dir``, ``--no-herdr-config``); ``Config.config_path``
  None reads nothing.
- Live reload (``server.reload_config``) follows load_live_config (src/config/io.rs:217-353):
  an unreadable or unparsable file fails and keeps the current config; otherwise each known
  section is read on its own, a bad section is a diagnostic that keeps that section's current
  settings, unknown top-level sections and keys are diagnostics. The server's start follows
  Config::load (:99-156): any parse error means defaults.
- Agent-detection overrides: ``<config dir>/agent-detection/<agent>.toml``
  (src/detect/manifest.rs:555-666,1098-1120).

The keys read here (the rest of herdr's config is accepted and ignored): ``[terminal]
default_shell``, ``shell_mode``, ``new_cwd``; ``[experimental] pane_history``;
``[ui] confirm_close``; ``[ui.toast] delivery``; ``[worktrees] directory``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .facts.record import field, record

if TYPE_CHECKING:
    from .facts.versions import HerdrVersion

# The order load_live_config reads its sections in (src/config/io.rs:252-340).
SECTION_ORDER = (
    ("theme", "theme config"),
    ("keys", "keybinding config"),
    ("terminal", "terminal config"),
    ("session", "session config"),
    ("server", "server config"),
    ("update", "update config"),
    ("ui", "ui config"),
    ("advanced", "advanced config"),
    ("worktrees", "worktree config"),
    ("experimental", "experimental config"),
    ("remote", "remote config"),
)
SHELL_MODES = ("auto", "login", "non_login")  # ShellModeConfig (src/config/model.rs:253-260)
TOAST_DELIVERIES = ("off", "herdr", "terminal", "system")  # ToastDelivery (:63-69)

#: Defaults of the values read (src/config/model.rs): what a missing key or section means.
DEFAULTS: dict[str, Any] = {
    "default_shell": "",
    "shell_mode": "auto",
    "new_cwd": "follow",
    "pane_history": False,
    "confirm_close": True,
    "toast_delivery": "off",
    "worktrees_dir": None,
}


@record
class Loaded:
    """What a load found: ``values`` for the sections that were read (absent sections read as
    their defaults), herdr's ``diagnostics`` and the sections kept as they were."""

    values: dict[str, Any] = field(default_factory=dict)
    diagnostics: list[str] = field(default_factory=list)
    invalid_sections: list[str] = field(default_factory=list)
    failed: bool = False

    @property
    def status(self) -> str:
        """ConfigReloadStatus (src/app/mod.rs:1606-1610)."""
        if self.failed:
            return "failed"
        return "partial" if self.diagnostics else "applied"


class _Invalid(ValueError):
    pass


def _serde_kind(v: Any) -> str:
    if isinstance(v, bool):
        return f"boolean `{str(v).lower()}`"
    if isinstance(v, int):
        return f"integer `{v}`"
    if isinstance(v, float):
        return f"floating point `{v}`"
    if isinstance(v, str):
        return f'string "{v}"'
    if isinstance(v, list):
        return "sequence"
    if isinstance(v, dict):
        return "map"
    return "value"


def _expect(v: Any, kind: type, what: str, key: str) -> Any:
    # CHOICE (CONFIG_ERROR_TEXT): serde's "invalid type" wording with the key named; the toml
    # crate's exact rendering (line/column excerpts) is not reproduced.
    if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
        raise _Invalid(f"invalid type: {_serde_kind(v)}, expected {what} for key `{key}`")
    return v


def _variant(v: Any, variants: tuple[str, ...], key: str) -> str:
    _expect(v, str, "a string", key)
    if v not in variants:
        names = ", ".join(f"`{x}`" for x in variants)
        raise _Invalid(f"unknown variant `{v}`, expected one of {names} for key `{key}`")
    return v


def _read_terminal(sec: dict) -> dict:
    out: dict[str, Any] = {}
    if "default_shell" in sec:
        out["default_shell"] = _expect(sec["default_shell"], str, "a string", "default_shell")
    if "shell_mode" in sec:
        out["shell_mode"] = _variant(sec["shell_mode"], SHELL_MODES, "shell_mode")
    if "new_cwd" in sec:
        raw = _expect(sec["new_cwd"], str, "a string", "new_cwd")
        # NewTerminalCwdConfig (src/config/model.rs:237-251): "" and "follow" follow
        out["new_cwd"] = raw.strip() if raw.strip() in ("", "follow", "home", "current") else raw
    return out


def _read_experimental(sec: dict) -> dict:
    if "pane_history" in sec:
        return {"pane_history": _expect(sec["pane_history"], bool, "a boolean", "pane_history")}
    return {}


def _read_ui(sec: dict) -> dict:
    out: dict[str, Any] = {}
    if "confirm_close" in sec:
        out["confirm_close"] = _expect(sec["confirm_close"], bool, "a boolean", "confirm_close")
    toast = sec.get("toast")
    if toast is not None:
        _expect(toast, dict, "struct ToastConfig", "toast")
        if "delivery" in toast:
            out["toast_delivery"] = _variant(toast["delivery"], TOAST_DELIVERIES, "delivery")
    return out


def _read_worktrees(sec: dict) -> dict:
    if "directory" in sec:
        return {"worktrees_dir": _expect(sec["directory"], str, "a string", "directory")}
    return {}


READERS = {
    "terminal": _read_terminal,
    "experimental": _read_experimental,
    "ui": _read_ui,
    "worktrees": _read_worktrees,
}


def check_section(
    version: HerdrVersion | str, section: str, value: Any
) -> tuple[str | None, list[str]]:
    """One section as herdr's deserialize_with_ignored sees it (src/config/io.rs:479-505):
    (its error, or None; the "unknown config key" diagnostics of the keys serde ignored),
    checked against herdr's key tree of ``version`` (simherdr.hostcore.config_keys)."""
    from .hostcore import config_keys as CK

    unknown: list[list] = []
    try:
        CK._check(CK.known_keys(version)[section], value, [section], unknown)
    except CK._TypeError as e:
        inner = ".".join(map(str, e.path[1:]))
        return (f"{e.message} for key `{inner}`" if inner else e.message), []
    unknown.sort(key=CK._sort_key)
    paths = [p for i, p in enumerate(unknown) if i == 0 or p != unknown[i - 1]]
    return None, [
        "unknown config key %s; ignoring key" % ".".join(map(CK._format_key, p)) for p in paths
    ]


def _top_level_diagnostics(table: dict) -> list[str]:
    from .hostcore import config_keys as CK

    out = []
    for key, value in table.items():
        if key in CK.KNOWN_TOP_LEVEL:
            continue
        if isinstance(value, dict):
            header = f"[{key}]"
        elif isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
            header = f"[[{key}]]"
        else:
            continue
        hint = "; did you mean [ui.toast]?" if key == "toast" else ";"
        out.append(f"unknown config section {header}{hint} ignoring section")
    # unknown plain top-level keys (src/config/io.rs:413-427)
    plain = sorted(
        k
        for k, v in table.items()
        if k not in CK.KNOWN_TOP_LEVEL
        and not isinstance(v, dict)
        and not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))
    )
    out += [f"unknown config key {_key_path(k)}; ignoring key" for k in plain]
    return out


def _key_path(key: str) -> str:
    if key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key):
        return key
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _read(path: str) -> tuple[str | None, str | None]:
    """(text, None), (None, the read error's text), or (None, None) when there is no file."""
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8"), None
    except FileNotFoundError:
        return None, None
    except UnicodeDecodeError as e:
        return None, f"stream did not contain valid UTF-8: {e.reason}"
    except OSError as e:
        return None, str(e.strerror or e)


def load_live(path: str, version: HerdrVersion | str) -> Loaded:
    """load_live_config: what ``server.reload_config`` applies.  ``version``: the simulator's
    release object (a name is resolved here, once)."""
    from .facts.versions import resolve

    version = resolve(version)
    text, read_error = _read(path)
    if read_error is not None:
        return Loaded(
            diagnostics=[f"config read error: {read_error}; keeping current config"], failed=True
        )
    if text is None:
        return Loaded(values=dict(DEFAULTS))
    import tomllib  # here, not at the top: `simherdr serve` without a config file skips it

    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        return Loaded(diagnostics=[f"config parse error: {e}; keeping current config"], failed=True)
    loaded = Loaded(values=dict(DEFAULTS))
    loaded.diagnostics += _top_level_diagnostics(table)
    for section, label in SECTION_ORDER:
        if section not in table:
            continue
        sec = table[section]
        error, unknown = check_section(version, section, sec)
        reader = READERS.get(section)
        if error is None and reader is not None:
            try:
                loaded.values.update(reader(sec))
            except _Invalid as e:  # the key tree accepted what the reader cannot use
                error = str(e)
        if error is not None:
            loaded.diagnostics.append(
                f"invalid {label}: {error}; keeping current {section} settings"
            )
            loaded.invalid_sections.append(section)
            continue
        loaded.diagnostics += unknown
    return loaded


def load_at_start(path: str, version: HerdrVersion | str) -> Loaded:
    """Config::load (src/config/io.rs:99-156): herdr's start-up diagnostics
    (simherdr.hostcore.config_keys.diagnose); an error anywhere means all defaults."""
    text, read_error = _read(path)
    if text is None and read_error is None:  # no file: all defaults, no diagnostics (fast start)
        return Loaded(values=dict(DEFAULTS))
    from .facts.versions import resolve
    from .hostcore import config_keys as CK

    version = resolve(version)  # once: diagnose and load_live take the object
    diagnostics = CK.diagnose(version, text, read_error)
    if any("using defaults" in d for d in diagnostics):
        return Loaded(values=dict(DEFAULTS), diagnostics=diagnostics)
    live = load_live(path, version)
    return Loaded(values=live.values, diagnostics=diagnostics)


# --- agent-detection overrides (src/detect/manifest.rs:555-666) -------------------------------


def read_override(path: str, agent: str) -> tuple[dict | None, str | None]:
    """(manifest table, None), or (None, why it could not be loaded), or (None, None) when
    there is no override file. The manifest is checked by simherdr.panes.manifests.parse
    (herdr's parse_manifest + validate_manifest).

    CHOICE (OVERRIDE_COMPILE): herdr tells "could not be loaded" (parse, validation) from
    "could not be compiled" (regexes, after the id check); here a bad regex is a load error."""
    import tomllib

    from .panes.manifests import ManifestError, parse

    if not os.path.exists(path):
        return None, None
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
        table = tomllib.loads(text)
        if not isinstance(table.get("id"), str):
            return None, "missing field `id`"
        parse(text, agent, path)
    except OSError as e:
        return None, str(e.strerror or e)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ManifestError) as e:
        return None, str(e)
    return table, None


#: Which section each value belongs to: a section kept as it was keeps its values.
SECTION_OF = {
    "default_shell": "terminal",
    "shell_mode": "terminal",
    "new_cwd": "terminal",
    "pane_history": "experimental",
    "confirm_close": "ui",
    "toast_delivery": "ui",
    "worktrees_dir": "worktrees",
}


def apply(config: Any, loaded: Loaded) -> None:
    """Inject what was read into the simulator's Config (a failed load changes nothing)."""
    if loaded.failed:
        return
    for name, section in SECTION_OF.items():
        if section not in loaded.invalid_sections:
            setattr(config, name, loaded.values.get(name, DEFAULTS[name]))
