"""herdr's known config.toml keys per version, and ``diagnose``: what herdr reports for a file.

Stdlib-only and pure (no file or environment access): the stand-in's ``herdr config check`` and
the server's ``server.reload_config`` both call :func:`diagnose` with the file's text (or the
read error) and get herdr's diagnostic lines back.

The key trees are package data (``data/config_keys.json``, one table per ``tables.config_keys``
key, each with its source), read once on first use: 0.8.2's from herdr's serde model
(``src/config/model.rs``, ``theme.rs``, ``sound.rs``, ``sidebar.rs``, ``keybinds.rs``,
``tab_bar.rs``); the 0.9.3 deltas from the 0.9.3 config key reference (the fork's ``theme.rs``/``sound.rs`` are not readable) and the
fork's ``src/config/io.rs`` (same top-level sections, a BOM normaliser). herdr deserialises the
whole file with ``serde_ignored`` (``src/config/io.rs:104-152``): every key serde ignores is an
"unknown config key" with its full path; a type error fails the whole file ("config parse
error ...; using defaults"); a missing file is fine; an unreadable one is "config read error".
"""

from __future__ import annotations

import functools
import re

from ..facts.record import record
from ..facts.rusttext import rust_debug_str

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..facts.versions import HerdrVersion

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


@record(frozen=True)
class Enum:
    variants: tuple[str, ...]
    aliases: tuple[str, ...] = ()


@record(frozen=True)
class TableList:
    """An array of tables whose rows have known keys (``[[keys.command]]``)."""

    row: dict


@record(frozen=True)
class AnyKeyTable:
    """A table with free keys whose values share one shape (``ui.sidebar.agents.rows_by_agent``)."""

    value: object


def _leaf(value):
    """A leaf or table of data/config_keys.json as the checker's objects."""
    if isinstance(value, str):
        return value
    if "$enum" in value:
        return Enum(tuple(value["$enum"]), tuple(value.get("$aliases", ())))
    if "$table_list" in value:
        return TableList(_leaf(value["$table_list"]))
    if "$any_key" in value:
        return AnyKeyTable(_leaf(value["$any_key"]))
    return {key: _leaf(v) for key, v in value.items()}


@functools.cache
def _tables() -> dict:
    import json
    import os

    with open(os.path.join(os.path.dirname(__file__), "data", "config_keys.json"), "rb") as f:
        return json.load(f)["tables"]


@functools.cache
def _tree(key: str) -> dict:
    """The key tree of table ``key`` (a release's ``tables.config_keys``), built once: the
    inherited tree, minus its ``removes``, plus its ``sets`` (dotted paths)."""
    import copy

    table = _tables()[key]
    if "inherits" not in table:
        return _leaf(table["tree"])
    tree = copy.deepcopy(_tree(table["inherits"]))
    for path in table.get("removes", ()):
        *parents, last = path.split(".")
        node = tree
        for part in parents:
            node = node[part]
        del node[last]
    for path, value in table.get("sets", {}).items():
        *parents, last = path.split(".")
        node = tree
        for part in parents:
            node = node[part]
        node[last] = _leaf(value)
    return tree


def table_keys() -> tuple[str, ...]:
    """The config_keys tables in data/config_keys.json."""
    return tuple(_tables())


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


def known_keys(version: HerdrVersion | str) -> dict:
    """The key tree for a herdr version (a release object, or its name): its release's table
    ``config_keys``."""
    from ..facts.versions import resolve

    return _tree(resolve(version).tables.config_keys)


def flat_keys(version: HerdrVersion | str) -> list[str]:
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


def diagnose(
    version: HerdrVersion | str, text: str | None, read_error: str | None = None
) -> list[str]:
    """herdr's ``Config::load().diagnostics`` for a config file (src/config/io.rs:104-152).

    ``text`` is the file's content (None: the file does not exist, which is fine);
    ``read_error`` is the OS error text when the file exists but cannot be read.
    """
    import tomllib

    if read_error is not None:
        return ["config read error: %s; using defaults" % read_error]
    if text is None:
        return []
    from ..facts.versions import resolve

    version = resolve(version)  # once (a release object passes through)
    rows = version.rows
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
