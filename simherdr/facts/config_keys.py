"""herdr's known config.toml keys per version, and ``diagnose``: what herdr reports for a file.

Stdlib-only and pure (no file or environment access): the stand-in's ``herdr config check`` and
the server's ``server.reload_config`` both call :func:`diagnose` with the file's text (or the
read error) and get herdr's diagnostic lines back.

The key tree is read from herdr 0.8.2's serde model (``src/config/model.rs``, ``theme.rs``,
``sound.rs``, ``sidebar.rs``, ``keybinds.rs``, ``tab_bar.rs``); the 0.9.3 deltas from the
0.9.3 config key reference (the fork's ``theme.rs``/``sound.rs`` are not readable) and the
fork's ``src/config/io.rs`` (same top-level sections, a BOM normaliser). herdr deserialises the
whole file with ``serde_ignored`` (``src/config/io.rs:104-152``): every key serde ignores is an
"unknown config key" with its full path; a type error fails the whole file ("config parse
error ...; using defaults"); a missing file is fine; an unreadable one is "config read error".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .rusttext import rust_debug_str

# --- leaf kinds ----------------------------------------------------------------------------
# A leaf is a string tag, an Enum, or a dict (a table with its own known keys). ``ANY`` marks a
# value herdr deserialises with its own rules (token rows, tagged tab-bar entries): its inner
# keys are not walked (CHOICE: their deny_unknown_fields errors are not reproduced).
BOOL = "bool"
INT = "int"  # unsigned (u16/u64/usize)
STR = "str"
BINDING = "binding"  # BindingConfig: a string or a list of strings (keybinds.rs:19-24)
STR_LIST = "str_list"
ANY = "any"


@dataclass(frozen=True)
class Enum:
    variants: tuple[str, ...]
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableList:
    """An array of tables whose rows have known keys (``[[keys.command]]``)."""

    row: dict


@dataclass(frozen=True)
class AnyKeyTable:
    """A table with free keys whose values share one shape (``ui.sidebar.agents.rows_by_agent``)."""

    value: object


_COLOR_TOKENS = [
    "accent",
    "panel_bg",
    "sidebar_bg",
    "active_row_bg",
    "selection_bg",
    "surface0",
    "surface1",
    "surface_dim",
    "overlay0",
    "overlay1",
    "text",
    "subtext0",
    "mauve",
    "green",
    "yellow",
    "red",
    "blue",
    "teal",
    "peach",
]
_SOUND = Enum(("default", "on", "off"))  # sound.rs:50-56
_SOUND_AGENTS_082 = [
    "pi",
    "claude",
    "codex",
    "gemini",
    "cursor",
    "devin",
    "agy",
    "cline",
    "open_code",
    "github_copilot",
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
]  # sound.rs:27-47
_KEY_BINDINGS_082 = [
    "help",
    "settings",
    "new_workspace",
    "new_worktree",
    "open_worktree",
    "remove_worktree",
    "rename_workspace",
    "close_workspace",
    "workspace_picker",
    "goto",
    "navigate_workspace_up",
    "navigate_workspace_down",
    "navigate_pane_left",
    "navigate_pane_down",
    "navigate_pane_up",
    "navigate_pane_right",
    "detach",
    "reload_config",
    "open_notification_target",
    "previous_workspace",
    "next_workspace",
    "previous_agent",
    "next_agent",
    "focus_agent",
    "new_tab",
    "rename_tab",
    "previous_tab",
    "next_tab",
    "move_tab_previous",
    "move_tab_next",
    "switch_tab",
    "switch_workspace",
    "close_tab",
    "rename_pane",
    "edit_scrollback",
    "copy_mode",
    "focus_pane_left",
    "focus_pane_down",
    "focus_pane_up",
    "focus_pane_right",
    "swap_pane_left",
    "swap_pane_down",
    "swap_pane_up",
    "swap_pane_right",
    "cycle_pane_next",
    "cycle_pane_previous",
    "last_pane",
    "split_vertical",
    "split_horizontal",
    "close_pane",
    "zoom",
    "resize_mode",
    "resize_pane_left",
    "resize_pane_down",
    "resize_pane_up",
    "resize_pane_right",
    "toggle_sidebar",
]  # model.rs:340-466 (KeysConfigOverlay)


def _keys_082() -> dict:
    colors = dict.fromkeys(_COLOR_TOKENS, STR)
    keys: dict[str, object] = {
        "prefix": STR,
        "remote_image_paste": STR,
        **dict.fromkeys(_KEY_BINDINGS_082, BINDING),
    }
    keys["fullscreen"] = BINDING  # serde alias of zoom (model.rs:446)
    keys["indexed"] = {"tabs": STR, "workspaces": STR, "agents": STR}  # model.rs:823-831
    keys["command"] = TableList(  # keybinds.rs:88-103
        {
            "key": BINDING,
            "command": STR,
            "type": Enum(("shell", "pane", "popup", "plugin_action")),
            "description": STR,
            "width": ANY,
            "height": ANY,
        }
    )
    return {
        "onboarding": BOOL,
        "theme": {  # theme.rs:60-72
            "name": STR,
            "auto_switch": BOOL,
            "dark_name": STR,
            "light_name": STR,
            "custom": colors,
        },
        "terminal": {  # model.rs:262-270
            "default_shell": STR,
            "shell_mode": Enum(("auto", "login", "non_login")),
            "new_cwd": STR,
        },
        "session": {"resume_agents_on_restore": BOOL},  # model.rs:273-278
        "server": {"headless_cols": INT, "headless_rows": INT},  # model.rs:947-953
        "update": {  # model.rs:31-37
            "channel": Enum(("stable", "preview")),
            "version_check": BOOL,
            "manifest_check": BOOL,
        },
        "keys": keys,
        "ui": {  # model.rs:849-917
            "sidebar_width": INT,
            "sidebar_min_width": INT,
            "sidebar_max_width": INT,
            "sidebar_start_collapsed": BOOL,
            "sidebar_collapsed_mode": Enum(("compact", "hidden")),
            "mobile_width_threshold": INT,
            "mouse_capture": BOOL,
            "copy_on_select": BOOL,
            "host_cursor": Enum(("auto", "native", "drawn")),
            "right_click_passthrough_modifier": STR,
            "redraw_on_focus_gained": BOOL,
            "mouse_scroll_lines": INT,
            "confirm_close": BOOL,
            "prompt_new_tab_name": BOOL,
            "prompt_new_workspace_name": BOOL,
            "pane_borders": BOOL,
            "pane_outer_borders": BOOL,
            "pane_scrollbars": BOOL,
            "pane_gaps": BOOL,
            "show_agent_labels_on_pane_borders": BOOL,
            "hide_tab_bar_when_single_tab": BOOL,
            "tab_bar_position": Enum(("top", "bottom")),
            "tab_bar_right": ANY,  # tagged entries, deny_unknown_fields (tab_bar.rs:21-40)
            "tab_bar_right_separator": STR,
            "window_title": STR,
            "agent_panel_sort": Enum(("spaces", "priority"), aliases=("workspaces",)),
            "agent_panel_scope": Enum(("current", "all")),  # retired, still read (:903-905)
            "status_indicators": Enum(("dots", "symbols")),
            "sidebar": {  # sidebar.rs:372-431
                "agents": {"rows": ANY, "rows_by_agent": AnyKeyTable(ANY), "row_gap": INT},
                "spaces": {"rows": ANY, "row_gap": INT},
            },
            "accent": STR,
            "toast": {  # model.rs:1180-1215 (RawToastConfig: `enabled` is the legacy switch)
                "delivery": Enum(("off", "herdr", "terminal", "system")),
                "enabled": BOOL,
                "delay_seconds": INT,
                "herdr": {
                    "position": Enum(("top-left", "top-right", "bottom-left", "bottom-right"))
                },
                "clipboard": {
                    "enabled": BOOL,
                    "position": Enum(
                        (
                            "top-left",
                            "top-center",
                            "top-right",
                            "bottom-left",
                            "bottom-center",
                            "bottom-right",
                        )
                    ),
                },
            },
            "sound": {  # sound.rs:9-23
                "enabled": BOOL,
                "path": STR,
                "done_path": STR,
                "request_path": STR,
                "agents": dict.fromkeys(_SOUND_AGENTS_082, _SOUND),
            },
        },
        "worktrees": {"directory": STR},  # model.rs:834-838
        "advanced": {"scrollback_limit_bytes": INT, "scrollback_lines": INT},  # alias, :959
        "experimental": {  # model.rs:979-1021
            "allow_nested": BOOL,
            "kitty_graphics": BOOL,
            "pane_history": BOOL,
            "reveal_hidden_cursor_for_cjk_ime": BOOL,
            "cjk_ime_agents": STR_LIST,
            "cjk_ime_cursor_shape": Enum(
                ("block", "steady_block", "underline", "steady_underline", "bar", "steady_bar")
            ),
            "switch_ascii_input_source_in_prefix": BOOL,
        },
        "remote": {"manage_ssh_config": BOOL},  # model.rs:964-969
    }


def _keys_093() -> dict:
    """0.9.3 = 0.8.2 plus the keys the 0.9.3 reference adds (config-reference-0.9.3.json)."""
    tree = _keys_082()
    colors = dict.fromkeys(_COLOR_TOKENS, STR)
    tree["theme"]["custom"] = {**colors, "light": dict(colors), "dark": dict(colors)}
    tree["terminal"]["kitty_graphics"] = BOOL
    tree["keys"]["clear_pane"] = BINDING
    tree["ui"]["sound"]["agents"] = dict.fromkeys(_SOUND_AGENTS_082 + ["letta", "muse"], _SOUND)
    # CHOICE: 0.9.3's ui.pane_borders is a word (the reference: "auto", "always", ...), whose
    # full variant list no readable source gives; any string is accepted.
    tree["ui"]["pane_borders"] = STR
    tree["session"]["startup_per_agent_delay_ms"] = INT
    return tree


def _keys_080() -> dict:
    """0.8.0 = 0.8.2 minus the 17 keys its reference lacks (docs/next/website/src/data/
    config-reference.json at 346411fa against 1c76079f), and minus the retired
    ``ui.agent_panel_scope`` 0.8.2 still reads (accepted from 1f1e4342, #2295)."""
    tree = _keys_082()
    del tree["server"]
    for key in (
        "move_tab_previous",
        "move_tab_next",
        "resize_pane_left",
        "resize_pane_down",
        "resize_pane_up",
        "resize_pane_right",
    ):
        del tree["keys"][key]
    for key in ("active_row_bg", "selection_bg", "sidebar_bg"):
        del tree["theme"]["custom"][key]
    for key in (
        "pane_outer_borders",
        "status_indicators",
        "tab_bar_right",
        "tab_bar_right_separator",
        "window_title",
        "agent_panel_scope",
    ):
        del tree["ui"][key]
    del tree["ui"]["sound"]["agents"]["qwen"]
    return tree


KNOWN_KEYS: dict[str, dict] = {"0.8.0": _keys_080(), "0.8.2": _keys_082(), "0.9.3": _keys_093()}

#: src/config/io.rs:7-20 (same list in 0.9.3).
KNOWN_TOP_LEVEL = [
    "advanced",
    "experimental",
    "keys",
    "onboarding",
    "remote",
    "server",
    "session",
    "terminal",
    "theme",
    "ui",
    "update",
    "worktrees",
]

#: theme.rs:4-23 and the aliases canonical_theme_name accepts (theme.rs:25-47). CHOICE: 0.9.3
#: uses the same list (the fork's theme.rs is not readable).
THEME_NAMES = [
    "catppuccin",
    "catppuccin-latte",
    "terminal",
    "tokyo-night",
    "tokyo-night-day",
    "dracula",
    "nord",
    "gruvbox",
    "gruvbox-light",
    "one-dark",
    "one-light",
    "solarized",
    "solarized-light",
    "kanagawa",
    "kanagawa-lotus",
    "rose-pine",
    "rose-pine-dawn",
    "vesper",
]
_THEME_ALIASES = frozenset(
    THEME_NAMES
    + [
        "catppuccin-mocha",
        "latte",
        "light",
        "tokyonight",
        "tokyo-day",
        "tokyonight-day",
        "gruvbox-dark",
        "onedark",
        "onelight",
        "solarized-dark",
        "lotus",
        "rosepine",
        "rosepine-dawn",
        "dawn",
    ]
)
MAX_TOAST_DELAY_SECONDS = 3600  # model.rs:12


def known_keys(version: str) -> dict:
    """The key tree for a herdr version: its release's table ``config_keys``."""
    from .versions import resolve

    return KNOWN_KEYS[resolve(version).tables.config_keys]


def flat_keys(version: str) -> list[str]:
    """Every dotted leaf path of the version's tree (tables of free keys end at their name)."""
    out: list[str] = []

    def walk(node: dict, prefix: str) -> None:
        for key, kind in node.items():
            path = prefix + key
            if isinstance(kind, dict):
                walk(kind, path + ".")
            else:
                out.append(path)

    walk(known_keys(version), "")
    return out


def canonical_theme_name(name: str) -> bool:
    return name.lower().replace(" ", "-").replace("_", "-") in _THEME_ALIASES


# --- diagnose ------------------------------------------------------------------------------


class _TypeError(Exception):
    def __init__(self, path: list, message: str):
        super().__init__(message)
        self.path = path
        self.message = message


def _serde_kind(value) -> str:
    """serde's ``Unexpected`` wording for a TOML value."""
    if isinstance(value, bool):
        return "boolean `%s`" % str(value).lower()
    if isinstance(value, int):
        return "integer `%d`" % value
    if isinstance(value, float):
        return "floating point `%r`" % value
    if isinstance(value, str):
        return "string %s" % rust_debug_str(value)
    if isinstance(value, list):
        return "sequence"
    if isinstance(value, dict):
        return "map"
    return "datetime"  # tomllib's date/time values


def _format_key(key) -> str:
    """format_config_key_path's segment (src/config/io.rs:454-474)."""
    if isinstance(key, int):
        return str(key)
    if key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key):
        return key
    # CHOICE: toml's basic-string rendering (escape \\ and ").
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _sort_key(path: list):
    # ConfigKeyPathSegment derives Ord with Key before Index (src/config/io.rs:428-432).
    return [(1, p, "") if isinstance(p, int) else (0, 0, p) for p in path]


def _expected(kind: Enum) -> str:
    """serde's ``expected`` list for an unknown variant."""
    names = ["`%s`" % v for v in kind.variants]
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return "%s or %s" % tuple(names)
    return "one of " + ", ".join(names)


def _check(kind, value, path: list, unknown: list) -> None:
    if isinstance(kind, dict):
        if not isinstance(value, dict):
            raise _TypeError(path, "invalid type: %s, expected struct" % _serde_kind(value))
        for key, inner in value.items():
            if key in kind:
                _check(kind[key], inner, path + [key], unknown)
            else:
                unknown.append(path + [key])
        return
    if isinstance(kind, TableList):
        if not isinstance(value, list):
            raise _TypeError(path, "invalid type: %s, expected a sequence" % _serde_kind(value))
        for index, row in enumerate(value):
            _check(kind.row, row, path + [index], unknown)
        return
    if isinstance(kind, AnyKeyTable):
        if not isinstance(value, dict):
            raise _TypeError(path, "invalid type: %s, expected a map" % _serde_kind(value))
        for key, inner in value.items():
            _check(kind.value, inner, path + [key], unknown)
        return
    if isinstance(kind, Enum):
        if not isinstance(value, str):
            raise _TypeError(path, "invalid type: %s, expected a string" % _serde_kind(value))
        if value not in kind.variants and value not in kind.aliases:
            raise _TypeError(path, "unknown variant `%s`, expected %s" % (value, _expected(kind)))
        return
    if kind == BOOL and not isinstance(value, bool):
        raise _TypeError(path, "invalid type: %s, expected a boolean" % _serde_kind(value))
    if kind == INT:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _TypeError(path, "invalid type: %s, expected an integer" % _serde_kind(value))
        if value < 0:
            raise _TypeError(path, "invalid value: integer `%d`, expected u64" % value)
    if kind == STR and not isinstance(value, str):
        raise _TypeError(path, "invalid type: %s, expected a string" % _serde_kind(value))
    if kind == BINDING and not (
        isinstance(value, str)
        or (isinstance(value, list) and all(isinstance(v, str) for v in value))
    ):
        raise _TypeError(path, "data did not match any variant of untagged enum BindingConfig")
    if kind == STR_LIST:
        if not isinstance(value, list):
            raise _TypeError(path, "invalid type: %s, expected a sequence" % _serde_kind(value))
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise _TypeError(
                    path + [index], "invalid type: %s, expected a string" % _serde_kind(item)
                )


def _frame(text: str, line: int, column: int, width: int, message: str) -> str:
    """toml's error rendering: a location header, the source line and a caret under the span."""
    lines = text.split("\n")
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    gutter = " " * len(str(line))
    return "TOML parse error at line %d, column %d\n%s |\n%d | %s\n%s | %s%s\n%s\n" % (
        line,
        column,
        gutter,
        line,
        source,
        gutter,
        " " * (column - 1),
        "^" * max(1, width),
        message,
    )


_TOMLLIB_POS = re.compile(r"^(.*) \(at line (\d+), column (\d+)\)$", re.S)


def _syntax_error(text: str, exc: Exception) -> str:
    # CHOICE: the position and frame are toml's; the message after it is Python tomllib's own
    # wording (toml-rs's parser messages are not reproduced).
    match = _TOMLLIB_POS.match(str(exc))
    if not match:
        return "TOML parse error: %s\n" % exc
    return _frame(text, int(match.group(2)), int(match.group(3)), 1, match.group(1))


def _locate(text: str, path: list) -> tuple[int, int, int] | None:
    """Best-effort line/column/width of the value at ``path`` (for the type-error frame)."""
    leaf = next((p for p in reversed(path) if isinstance(p, str)), None)
    if leaf is None:
        return None
    pattern = re.compile(r"^\s*(?:[\w.\"-]+\.)?%s\s*=\s*(.*?)\s*(#.*)?$" % re.escape(leaf))
    for number, line in enumerate(text.split("\n"), start=1):
        match = pattern.match(line)
        if match and match.group(1):
            return number, match.start(1) + 1, len(match.group(1))
    return None


def diagnose(version: str, text: str | None, read_error: str | None = None) -> list[str]:
    """herdr's ``Config::load().diagnostics`` for a config file (src/config/io.rs:104-152).

    ``text`` is the file's content (None: the file does not exist, which is fine);
    ``read_error`` is the OS error text when the file exists but cannot be read.
    """
    import tomllib

    if read_error is not None:
        return ["config read error: %s; using defaults" % read_error]
    if text is None:
        return []
    from .versions import resolve

    rows = resolve(version).rows
    if rows.config_strips_bom:
        # row config_strips_bom: normalize_utf8_bom drops a leading BOM and line-start BOMs
        text = text.removeprefix("\ufeff").replace("\n\ufeff", "\n")
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return ["config parse error: %s; using defaults" % _syntax_error(text, exc)]
    tree = known_keys(version)
    unknown: list[list] = []
    sections: list[str] = []
    try:
        for key, value in table.items():
            if key in tree:
                _check(tree[key], value, [key], unknown)
                continue
            header = _section_header(key, value)
            if header is None:
                unknown.append([key])
            elif key == "toast":
                sections.append(
                    "unknown config section %s; did you mean [ui.toast]? ignoring section" % header
                )
            else:
                sections.append("unknown config section %s; ignoring section" % header)
        delay = table.get("ui", {}).get("toast", {}).get("delay_seconds")
        if isinstance(delay, int) and delay > MAX_TOAST_DELAY_SECONDS:
            raise _TypeError(
                ["ui", "toast", "delay_seconds"],
                "ui.toast.delay_seconds must be between 0 and %d" % MAX_TOAST_DELAY_SECONDS,
            )
    except _TypeError as exc:
        where = _locate(text, exc.path)
        if where is None:
            message = "%s for key `%s`\n" % (exc.message, ".".join(map(str, exc.path)))
        else:
            message = _frame(text, where[0], where[1], where[2], exc.message)
        return ["config parse error: %s; using defaults" % message]
    unknown.sort(key=_sort_key)
    deduped = [p for i, p in enumerate(unknown) if i == 0 or p != unknown[i - 1]]
    out = sorted(sections)
    out += ["unknown config key %s; ignoring key" % ".".join(map(_format_key, p)) for p in deduped]
    out += _semantic(table, rows.config_check_theme_names, "server" in tree)
    return out


def _section_header(key: str, value) -> str | None:
    """unknown_top_level_section_diagnostic (src/config/io.rs:390-413)."""
    if isinstance(value, dict):
        return "[%s]" % key
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return "[[%s]]" % key
    return None


def _semantic(table: dict, theme_names: bool, server_section: bool) -> list[str]:
    """The subset of Config::collect_diagnostics (src/config.rs:84-97) the simulator checks.

    CHOICE: keybinding strings, sound paths, tab-bar entries and window-title templates are
    not validated (no diagnostics for them).
    """
    out: list[str] = []
    # Row config_check_theme_names: 0.8.0 accepts any theme name (bdb5222e, #2452).
    theme = table.get("theme", {}) if theme_names else {}
    valid = ", ".join(THEME_NAMES)
    for field, fallback in (
        ("name", "catppuccin"),
        ("dark_name", "catppuccin"),
        ("light_name", "catppuccin-latte"),
    ):
        value = theme.get(field)
        if isinstance(value, str) and not canonical_theme_name(value):
            out.append(
                "unknown theme name theme.%s = %s; using %s; valid themes: %s"
                % (field, rust_debug_str(value), rust_debug_str(fallback), valid)
            )
    ui = table.get("ui", {})
    low, high = ui.get("sidebar_min_width", 18), ui.get("sidebar_max_width", 36)
    if isinstance(low, int) and isinstance(high, int) and low > high:
        # src/config.rs:118-125 (validated_sidebar_bounds: min must not exceed max).
        out.append("ui.sidebar_min_width (%d) is greater than sidebar_max_width (%d)" % (low, high))
    server = table.get("server", {}) if server_section else {}  # 0.8.0 has no [server]
    cols, rows = server.get("headless_cols", 120), server.get("headless_rows", 40)
    if cols == 0 or rows == 0:
        out.append(
            "server.headless_cols and server.headless_rows must be greater than zero (got %dx%d)"
            % (cols, rows)
        )
    return out


def summary(path_name: str, diagnostics: list[str]) -> str | None:
    """config_diagnostic_summary (src/config/io.rs:181-217), e.g. for a reload toast."""
    if not diagnostics:
        return None
    read_error = any(d.startswith("config read error:") for d in diagnostics)
    if any("using defaults" in d for d in diagnostics):
        impact = " unreadable; using defaults" if read_error else " invalid; using defaults"
    elif any("keeping current config" in d for d in diagnostics):
        impact = (
            " unreadable; keeping current config"
            if read_error
            else " invalid; keeping current config"
        )
    elif all(d.startswith("unknown config key ") for d in diagnostics):
        impact = " has unknown keys"
    else:
        impact = ""
    return "%s%s; herdr config check" % (path_name, impact)
