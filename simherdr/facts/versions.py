"""herdr's releases as data: one :class:`HerdrVersion` per release, read from
``facts/releases/<name>.toml`` (package data).

Every release file inherits the release it names (``inherits``) and states only what changed;
each row it sets carries its ``source`` (``commit:path:line``, or a changelog entry) and its
``evidence`` (``source``: read in that release's tree; ``changelog``: inferred from a changelog
entry; ``choice``: our own reading where neither says, a CHOICE). The base (``0.8.2``) sets
every row. :func:`resolve` is the only way in; entry points call it once and pass the object
down. Versions compare as parsed tuples (:attr:`HerdrVersion.key`), never as strings.

Stdlib-only (the stand-in may import it) and cheap to import: no file is read until a release
is resolved. A process that must not pay for ``tomllib`` reads :func:`compact` output instead;
``releases/compiled.json`` (``python -m simherdr.facts.versions``) is used while its stamps match
the TOML files, so a server resolves its release without tomllib.

A release file (top-level keys ``name`` = the file's name, ``inherits``, ``commit``, ``schema``
= the release whose published schema applies, ``protocol``)::

    name = "0.9.3"
    inherits = "0.9.2"
    commit = "remziduzagac/herdsman@feeb0f97..."
    schema = "0.9.3"
    protocol = { value = 22, source = "[H093] src/protocol/wire.rs", evidence = "source" }

    [methods]            # set / retired_set: a frozenset of facts/methods.py by name;
    set = "METHODS_0_9_3"  # then add, remove, retire, unretire (lists of names)
    source = "[H093] src/api/server.rs api_method_name"
    evidence = "source"

    [rows.events_lost_error]   # a field of Rows, typed as declared there
    value = true
    source = "[H093] src/api/server.rs stream_subscriptions ([CH093] 0.9.2 #4178)"
    evidence = "source"

    [tables.agent_kinds]       # a field of Tables: the key of the table to use
    value = "0.9.3"
    source = "[H093] src/detect/mod.rs Agent::ALL"
    evidence = "source"
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from functools import total_ordering

from .record import field, field_names, field_types, record

TYPE_CHECKING = False  # (not typing's: importing typing costs a stand-in call ~7 ms)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DEFAULT_VERSION",
    "EVIDENCE",
    "RELEASES",
    "HerdrVersion",
    "ReleaseDataError",
    "ReleaseSet",
    "RowSource",
    "Rows",
    "Tables",
    "UnknownVersion",
    "compact",
    "from_compact",
    "parse_key",
    "releases",
    "resolve",
]

#: Where a row's value comes from (see the module docstring).
EVIDENCE = ("source", "changelog", "choice")

_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "releases")
#: The releases pre-parsed (JSON) beside the TOML files, used when its stamps match them.
COMPILED = "compiled.json"
# /2: an inheriting release keeps only its changes; /3: the rows' sources in a second JSON
# document after the first (two thirds of the text: read when a release's sources are)
COMPILED_FORMAT = "simherdr-releases/3"
# the compact form's tables a release's changes are merged into key by key
_MERGED = ("rows", "tables", "sources")


def _delta(entry: dict[str, Any], parent: dict[str, Any] | None) -> dict[str, Any]:
    """``entry`` (a compact form) as what differs from ``parent``'s (its name and parent kept)."""
    if parent is None:
        return entry
    out: dict[str, Any] = {"name": entry["name"], "inherits": entry["inherits"]}
    for key, value in entry.items():
        if key in _MERGED:
            changed = {k: v for k, v in value.items() if parent[key].get(k, _delta) != v}
            if changed:
                out[key] = changed
        elif key not in out and parent.get(key, _delta) != value:
            out[key] = value
    return out


def parse_key(name: str) -> tuple[int, ...]:
    """``"0.9.3"`` -> ``(0, 9, 3)``; a name that is not dotted numbers raises ValueError."""
    parts = name.split(".")
    if not parts or not all(p.isdigit() and p.isascii() for p in parts):
        raise ValueError(f"not a herdr version: {name!r} (expected dotted numbers like 0.9.3)")
    return tuple(int(p) for p in parts)


#: The release an entry point uses when its user names none: the clients in use today speak
#: protocol 22 (0.9.3). Only entry points read this; code below them is passed a version.
DEFAULT_VERSION = "0.9.3"


class UnknownVersion(ValueError):
    """A version name simherdr has no release file for. Its text is one line naming the list."""

    def __init__(self, name: object, known: tuple[str, ...] | None = None) -> None:
        self.name = name
        self.known = RELEASES if known is None else known
        super().__init__(f"unknown herdr version {name!r}; known: {', '.join(self.known)}")


class ReleaseDataError(ValueError):
    """A release file that does not validate (names the file and the row)."""


class _Record:
    """``__init__`` (keywords, every field), ``__eq__``, ``__hash__`` and ``__repr__`` as a
    frozen dataclass has them, written once for any field list. The decorator compiles these
    four per class from source at import; for Rows' ~70 fields that is two thirds of its cost
    (3 of 4.6 ms of `simherdr serve`'s start, issue 26). Use with ``@record(frozen=True,
    init=False, eq=False, repr=False)`` (fields(), asdict() and replace() keep working)."""

    __slots__ = ()

    def __init__(self, **values: Any) -> None:
        names = _field_names(type(self))
        if values.keys() != set(names):
            missing = [n for n in names if n not in values]
            extra = sorted(set(values) - set(names))
            raise TypeError(f"{type(self).__name__}(): missing {missing}, unexpected {extra}")
        for name in names:
            object.__setattr__(self, name, values[name])

    def _values(self) -> tuple:
        return tuple(getattr(self, n) for n in _field_names(type(self)))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in _field_names(type(self)))
        return f"{type(self).__qualname__}({inner})"


_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = field_names(cls)
    return names


@record(frozen=True)
class RowSource:
    """Where one row's value comes from: the release file that set it last, the reference
    (``commit:path:line`` or a changelog entry) and the kind of evidence."""

    release: str
    source: str
    evidence: str


@record(frozen=True, init=False, eq=False, repr=False)
class Rows(_Record):
    """Every behaviour that differs between herdr releases, one typed field each. The
    comments in ``releases/0.8.2.toml`` (and each later file) give each row's meaning and
    source; a reader names the row, never a version."""

    # ping capabilities (ServerCapabilities)
    capabilities: Mapping[str, bool | int]
    # an unparsable request with one string "id" keeps it in its invalid_request reply
    invalid_request_keeps_id: bool
    # events.subscribe set-up errors carry the request id (not "<id>:sub:<i>:probe")
    setup_errors_keep_request_id: bool
    # a subscriber that lost an event of its kind gets events_lost and its stream closes
    events_lost_error: bool
    # AgentInfo.completion_seq
    agent_completion_seq: bool
    # pane.report_agent / report_agent_session take resume_argv
    report_resume_argv: bool
    # a self-reported agent is cleared at an idle shell
    clear_reported_agent_at_idle_shell: bool
    # new panes get TERM_PROGRAM=herdr, TERM_PROGRAM_VERSION=<version>
    term_program_env: bool
    # server environment keys a new pane does not inherit
    pane_env_removed: tuple[str, ...]
    # agent_prompt_stalled's message (a format string: gate_ms, status, baseline)
    prompt_stall_message: str
    # session-backups/ and session-snapshots/
    session_backups: bool
    # new plain subscriptions replay the event ring (else they start live)
    subscribe_replays_history: bool
    # workspace.close of a group root with worktrees open needs close_group
    close_group_required: bool
    # a duplicate repo parent closes by itself
    duplicate_parents_close_alone: bool
    # worktree.* accept trust_repository
    trust_repository: bool
    # agent.prompt --wait gate needs observed working/blocked activity
    prompt_gate_needs_activity: bool
    # recent/recent_unwrapped reads include rows still in the viewport
    recent_includes_viewport: bool
    # pane report-agent[-session]: options anywhere and --opt=value
    report_agent_options_anywhere: bool
    # worktree.remove focuses the parent only when the removed workspace was active
    worktree_remove_focus_parent_only_if_active: bool
    # workspace.create {source_workspace_id}
    workspace_create_source: bool
    # a membership workspace holds a checkout by its membership only
    checkout_holder_membership_only: bool
    # plugin popups are tracked (a second one is refused with ui_busy)
    plugin_popup_tracked: bool
    # notification.show goes to attached client shells only
    notification_needs_client_shell: bool
    # Unknown -> Idle with an unchanged label completes work
    completion_from_unknown: bool
    # agent.start begins a process acquisition
    managed_start_acquires: bool
    # a session/label change drops a completion
    completion_reset_on_identity_change: bool
    # an exit keeps the agent's name until detection sees the shell
    exit_keeps_name_until_shell: bool
    # a working report ends a process acquisition
    working_ends_acquisition: bool
    # a session rebind restarts the process acquisition
    session_rebind_restarts_acquisition: bool
    # a codex start completes once its prompt was seen
    codex_prompt_readiness: bool
    # real panes' foreground_cwd: the group leader's cwd wins over a member elsewhere
    foreground_cwd_leader_first: bool
    # codex `resume <id>` start arguments persist that session
    start_args_session: bool
    # a restored pane whose directory is gone stays, unavailable
    restore_keeps_unavailable_panes: bool
    # session-history.json carries layout_fingerprint
    history_layout_fingerprint: bool
    # a saved membership stays unless its checkout is now another repository's
    restore_membership_unless_other_repo: bool
    # session.json carries the server's sidebar fields
    session_saves_sidebar: bool
    # the stand-in: `herdr status` reports the endpoint protocol generation (endpoint_* and
    # private_protocol fields, server_binary_stale, 0.9's capability list, restart_needed by
    # generation); else protocol/compatible and restart_needed by version
    cli_status_endpoint_generation: bool
    # the stand-in: `herdr session list` probes report a connection_error (JSON) and an
    # `unavailable` row with the error under it; else not running / stopped
    cli_session_probe_errors: bool
    # the stand-in: `herdr session delete` needs the exact spelling of a session directory
    cli_session_delete_exact_name: bool
    # the stand-in: in `herdr session stop|delete` the first `--` ends the options
    cli_session_dash_dash: bool
    # --- the stand-in's CLI grammar (stub/cli/base.py GRAMMAR: ``ctx.cli.<name>``) ---
    # the stand-in: `herdr --machine <label> <command>` words, the `machine` group and launcher word, the hidden
    # `remote-api-bridge` (the far end of --machine)
    cli_machine: bool
    # the stand-in: the launcher still knows `--no-session`
    cli_no_session_flag: bool
    # the stand-in: `pane split` without a target splits the caller's pane (HERDR_PANE_ID); else the
    # target is omitted and the server splits the focused pane
    cli_split_targets_caller: bool
    # the stand-in: `workspace close <id> [--group]` (close_group, omitted when false)
    cli_workspace_close_group: bool
    # the stand-in: `agent explain --file` failures print an explain error envelope (else `Error: Os {..}`)
    cli_explain_file_errors_as_envelope: bool
    # the stand-in: `agent start`: a codex still `unknown` but interactive_ready ends the wait
    cli_start_codex_unknown_ready: bool
    # the stand-in: `plugin install`: options before or after the one source word
    cli_plugin_install_options_anywhere: bool
    # --- rows that tell herdr 0.8.0 / 0.8.1 from 0.8.2 (releases/0.8.0.toml, 0.8.1.toml) ---
    # agent.prompt to a blocked agent is refused with agent_blocked (and `agent prompt --help`
    # says so)
    prompt_refuses_blocked: bool
    # a newly detected agent process starts `unknown` with a process acquisition (its first
    # idle is startup readiness, never a completion); else it is published idle at once
    process_detection_acquires: bool
    # a managed start that sees `blocked` waits in a blocked phase (ready only at idle); else it
    # is ready at idle or blocked
    managed_start_blocked_phase: bool
    # the headless view size (columns, rows) pane layouts use when no client is attached
    headless_cols: int
    headless_rows: int
    # the view's chrome around the panes (model/geometry.py Chrome): the sidebar's width, the
    # tab bar's rows, the frame width at or under which the mobile view shows, the panes'
    # borders, gaps, outer borders and scrollbar gutter column (config defaults)
    view_sidebar_width: int
    view_tab_bar_rows: int
    view_mobile_width_threshold: int
    pane_borders: bool
    pane_gaps: bool
    pane_outer_borders: bool
    pane_scrollbar_gutter: bool
    # the scrollbar gutter stays while the pane's alternate screen is on (else the full-screen
    # app gets that column too)
    pane_gutter_on_alt_screen: bool
    # PaneInfo.scroll is on every pane with a terminal (else only once pane.scroll moved it)
    pane_info_scroll_always: bool
    # pane/agent send-keys `shift+tab` keeps its Shift (back-tab); else it is a plain tab
    backtab_keeps_shift: bool
    # closing the focused pane focuses the pane it was opened from (else the next in order)
    close_focus_returns_to_opener: bool
    # agent.prompt sends focus-in before prompting copilot
    copilot_prompt_focus_in: bool
    # config diagnostics report unknown built-in theme names
    config_check_theme_names: bool
    # config.toml: a leading BOM and line-start BOMs are dropped before parsing (else a parse error)
    config_strips_bom: bool
    # pane.split takes right_click (else an unknown key, ignored)
    split_right_click: bool
    # the stand-in: `pane input`, `pane split --right-click`, and `pane split --current` without
    # HERDR_PANE_ID a usage error (one commit, 10974c82)
    cli_pane_input: bool
    # the stand-in: `pane layout|process-info|edges --current` send the caller's HERDR_PANE_ID
    cli_current_from_env: bool
    # the stand-in: `pane read|wait-output` take options anywhere and --opt=value
    cli_read_options_anywhere: bool
    # the stand-in: `agent start` pins the pane's terminal and retries a busy new shell
    cli_agent_start_pins_pane: bool
    # the stand-in: `agent start` waits through unknown/working and refuses blocked
    cli_agent_start_follows_status: bool
    # the stand-in: root and command-group help end with the "Are you an AI?" footer
    cli_agent_help_footer: bool
    # the stand-in: a closed stdout pipe ends the CLI quietly (SIGPIPE), not by a panic
    cli_quiet_broken_pipe: bool
    # the stand-in: the global `herdr --machine <label-or-id> <command>` prefix (else
    # `--machine` is an unknown launch option; `herdr machine` is the grammar row `machine`)
    cli_machine_prefix: bool
    # the stand-in's terminal client: its handshake message ("Hello": 0.8.x ClientMessage::Hello
    # with encoding/keybindings/launch mode; "TerminalHello": 0.9.x, with pixel_mouse)
    cli_terminal_hello: str
    # the stand-in's terminal client: ClientMessage::Resize carries pixel_mouse
    cli_terminal_pixel_mouse: bool
    # `terminal session control` takes `terminal.mouse` commands (AttachMouse)
    cli_terminal_control_mouse: bool
    # `terminal attach` turns bracketed paste on (and restores without a keyboard-flag pop)
    cli_attach_bracketed_paste: bool
    # `terminal attach`: a connect/handshake/attach-request failure goes to main as an io::Error
    # (`Error: Custom { kind: Other, ... }`), not `herdr: <ClientError>`
    cli_attach_errors_to_main: bool
    # `terminal attach` sends a lone non-wheel mouse report as AttachMouse (else it is dropped)
    cli_attach_mouse_events: bool
    # --- the terminal plane (the client socket; simherdr/terminalplane, facts/terminalplane.py) ---
    # the Welcome's error when the first message is no handshake
    terminal_first_message_error: str
    # the encoding a refusing Welcome names (RenderEncoding variant name)
    terminal_refusal_encoding: str
    # the Welcome's error for a ClientShellHello (a shell client older than the endpoint
    # protocol); "" where the release has no such handshake
    terminal_shell_hello_refusal: str
    # an attach owner is told its terminal's host modes (MouseCapture from the child's mouse
    # tracking, DirectTerminalKeyboardProtocol from its Kitty flags) on every change; else
    # those go to full app clients only
    terminal_attach_host_modes: bool


@record(frozen=True, init=False, eq=False, repr=False)
class Tables(_Record):
    """The per-release tables, by key: each key names a table in the module that holds it
    (the key is the release that table was read from, data not a version check)."""

    # facts/kinds.py KIND_TABLES: the agent kinds, executables, aliases
    agent_kinds: str
    # facts/kinds.py HOOK_SOURCE_TABLES: reserved native / session-identity-only / official
    hook_sources: str
    # hostcore/config_keys.py (hostcore/data/config_keys.json): the known config.toml keys
    config_keys: str
    # panes/manifests.py: the bundled agent screen manifests
    manifests: str
    # hostcore/integration.py (hostcore/data/integration.json): the integration targets
    integration: str


@total_ordering
@record(frozen=True, eq=False)
class HerdrVersion:
    """One herdr release: what a server or the stand-in needs to behave as that release."""

    name: str  # "0.9.3"
    key: tuple[int, ...]  # (0, 9, 3): compare these, never names
    protocol: int  # the client protocol (pong.protocol, the stand-in's check)
    commit: str  # the source tree the release's rows were read from
    methods: frozenset[str]  # the method names that parse (facts/methods.py)
    retired_methods: frozenset[str]  # names answering unknown_method instead
    # The release whose published API schema this release's replies are checked against: its
    # own where herdr published one (schema_published), else the nearest published one.
    schema: str
    schema_published: bool
    rows: Rows
    tables: Tables
    # Where each row, table, "protocol" and "methods" comes from.
    sources: Mapping[str, RowSource] = field(repr=False, compare=False)
    inherits: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return self.name

    # One object per release: equal by name, ordered by the parsed key.
    def __eq__(self, other: object) -> bool:
        return isinstance(other, HerdrVersion) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __lt__(self, other: HerdrVersion) -> bool:
        return self.key < other.key

    def at_least(self, name: str) -> bool:
        """Whether this release is ``name`` or newer (tuple order). For tests and tooling:
        behaviour reads a row, never a release order."""
        return self.key >= parse_key(name)

    def evidence_counts(self) -> dict[str, int]:
        """How many rows and tables (with protocol and methods) each kind of evidence backs."""
        counts = dict.fromkeys(EVIDENCE, 0)
        for src in self.sources.values():
            counts[src.evidence] += 1
        return counts


ROW_NAMES: tuple[str, ...] = field_names(Rows)
TABLE_NAMES: tuple[str, ...] = field_names(Tables)
# The declared type of every row, as the loader checks it.
_ROW_TYPES: dict[str, str] = {name: str(t) for name, t in field_types(Rows).items()}
_TABLE_TYPES: dict[str, str] = dict.fromkeys(TABLE_NAMES, "str")


def _check_type(path: str, name: str, declared: str, value: object) -> object:
    """The TOML value as the row's declared type (arrays become tuples); else an error."""
    ok: bool
    if declared == "bool":
        ok = isinstance(value, bool)
    elif declared == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif declared == "str":
        ok = isinstance(value, str)
    elif declared == "tuple[str, ...]":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        if ok:
            value = tuple(value)  # type: ignore[arg-type]
    elif declared == "Mapping[str, bool | int]":
        ok = isinstance(value, dict) and all(isinstance(v, (bool, int)) for v in value.values())
        if ok:
            value = dict(value)  # type: ignore[call-overload]
    else:  # pragma: no cover - a new row type needs a branch here
        raise ReleaseDataError(f"{path}: row {name!r} has an unsupported type {declared}")
    if not ok:
        raise ReleaseDataError(
            f"{path}: row {name!r} is declared {declared}, got {type(value).__name__} {value!r}"
        )
    return value


def _entry(path: str, where: str, name: str, raw: object) -> tuple[object, str, str]:
    """A ``{value, source, evidence}`` table -> (value, source, evidence)."""
    if not isinstance(raw, dict):
        raise ReleaseDataError(
            f"{path}: {where}.{name} must be a table {{value, source, evidence}}, got {raw!r}"
        )
    extra = set(raw) - {"value", "source", "evidence"}
    if extra or "value" not in raw:
        raise ReleaseDataError(
            f"{path}: {where}.{name} takes value, source and evidence"
            + (f" (unknown: {', '.join(sorted(extra))})" if extra else " (value missing)")
        )
    source, evidence = raw.get("source"), raw.get("evidence")
    if not isinstance(source, str) or not source.strip():
        raise ReleaseDataError(f"{path}: {where}.{name} needs a source (commit:path:line)")
    if evidence not in EVIDENCE:
        raise ReleaseDataError(
            f"{path}: {where}.{name} evidence must be one of {', '.join(EVIDENCE)}, got {evidence!r}"
        )
    return raw["value"], source, str(evidence)


_TOP_KEYS = {
    "name",
    "inherits",
    "commit",
    "protocol",
    "schema",
    "methods",
    "rows",
    "tables",
}
_METHOD_KEYS = {"set", "add", "remove", "retired_set", "retire", "unretire", "source", "evidence"}


def _named_set(path: str, name: object) -> frozenset[str]:
    from . import methods as M

    value = getattr(M, name, None) if isinstance(name, str) and name.isupper() else None
    if not isinstance(value, frozenset):
        raise ReleaseDataError(f"{path}: methods names no frozenset of facts/methods.py: {name!r}")
    return value


def _str_list(path: str, key: str, value: object) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ReleaseDataError(f"{path}: methods.{key} must be a list of method names")
    return frozenset(value)


class ReleaseSet:
    """The release files of one directory (the package's ``releases/``; tests use others)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        try:
            found = [f[: -len(".toml")] for f in os.listdir(directory) if f.endswith(".toml")]
        except OSError:
            found = []
        for f in found:
            parse_key(f)  # a stray file name fails here, naming itself
        self.names: tuple[str, ...] = tuple(sorted(found, key=parse_key))
        self._loaded: dict[str, HerdrVersion] = {}
        self._loading: list[str] = []
        self._compiled: dict[str, Any] | None = None
        self._sources_text = ""  # compiled.json's second document, read on first use
        self._source_deltas: dict[str, Any] | None = None

    def stamps(self) -> dict[str, int]:
        """Each release file's checksum (adler32 of its bytes): what ``compiled.json`` was
        built from."""
        import zlib

        out = {}
        for name in self.names:
            with open(os.path.join(self.directory, f"{name}.toml"), "rb") as f:
                out[name] = zlib.adler32(f.read())
        return out

    def _read_compiled(self) -> dict[str, Any]:
        """The releases of ``compiled.json`` when it was built from exactly these files (so a
        server starts without tomllib); else nothing, and each release parses its TOML."""
        from .jsonscan import raw_decode  # json's C scanner: no `import json` at start

        try:
            with open(os.path.join(self.directory, COMPILED), encoding="utf-8") as f:
                text = f.read()
            data, end = raw_decode(text)  # the first document only
            if data.get("format") == COMPILED_FORMAT and data.get("stamps") == self.stamps():
                self._sources_text = text[end:]
                return dict(data["releases"])
        except (OSError, ValueError, AttributeError):
            pass
        return {}

    def _release_sources(self, name: str) -> dict[str, Any]:
        """A compiled release's whole ``sources`` (its parent's, what it changes applied),
        from compiled.json's second document (parsed the first time a release's sources are
        read) and any sources its first document carries."""
        if self._source_deltas is None:
            import json

            rest = self._sources_text.strip()
            self._source_deltas = json.loads(rest) if rest else {}
        compiled: dict[str, Any] = self._compiled  # type: ignore[assignment]
        parent = compiled[name].get("inherits")
        out = dict(self._release_sources(parent)) if parent in compiled else {}
        out.update(compiled[name].get("sources", {}))
        out.update(self._source_deltas.get(name, {}))
        return out

    def compile(self) -> dict[str, Any]:
        """The ``compiled.json`` document of these files (parsed from TOML, never the cache):
        each release as :func:`compact` writes it with its sources, where a release that
        inherits keeps only what differs from its parent (a third of the text to parse)."""
        self._compiled = {}
        self._loaded.clear()
        full = {n: compact(self.resolve(n), sources=True) for n in self.names}
        return {
            "format": COMPILED_FORMAT,
            "note": "generated by python -m simherdr.facts.versions; edit the .toml files",
            "stamps": self.stamps(),
            "releases": {n: _delta(full[n], full.get(full[n]["inherits"])) for n in self.names},
        }

    def _expanded(self, name: str) -> dict[str, Any]:
        """A compiled release's whole compact form (its parent's, what it changes applied)."""
        entry = self._compiled[name]  # type: ignore[index]
        parent = entry.get("inherits")
        if parent is None or parent not in self._compiled:  # type: ignore[operator]
            return entry
        out = dict(self._expanded(parent))
        for key, value in entry.items():
            out[key] = {**out[key], **value} if key in _MERGED else value
        return out

    def resolve(self, name: object) -> HerdrVersion:
        if isinstance(name, HerdrVersion):
            return name
        if not isinstance(name, str) or name not in self.names:
            raise UnknownVersion(name, self.names)
        if name in self._loaded:
            return self._loaded[name]
        if self._compiled is None:
            self._compiled = self._read_compiled()
        if name in self._compiled:
            data = self._expanded(name)
            lazy = None if "sources" in data else (lambda: self._release_sources(name))
            self._loaded[name] = version = from_compact(data, lazy)
            return version
        self._loading.append(name)
        try:
            self._loaded[name] = version = _build(self, name)
        finally:
            self._loading.pop()
        return version

    def read(self, name: str) -> tuple[str, dict]:
        import tomllib

        path = os.path.join(self.directory, f"{name}.toml")
        try:
            with open(path, "rb") as f:
                return path, tomllib.load(f)
        except OSError as e:
            raise ReleaseDataError(f"{path}: cannot read: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise ReleaseDataError(f"{path}: not valid TOML: {e}") from None


def _build(releases: ReleaseSet, name: str) -> HerdrVersion:
    path, data = releases.read(name)
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise ReleaseDataError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    if data.get("name") != name:
        raise ReleaseDataError(f"{path}: name must be {name!r} (the file's name)")
    parent_name = data.get("inherits")
    parent: HerdrVersion | None = None
    if parent_name is not None:
        if not isinstance(parent_name, str) or parent_name not in releases.names:
            raise ReleaseDataError(f"{path}: inherits an unknown release {parent_name!r}")
        if parent_name in releases._loading:
            raise ReleaseDataError(f"{path}: inheritance loops through {parent_name!r}")
        parent = releases.resolve(parent_name)

    sources: dict[str, RowSource] = dict(parent.sources) if parent else {}
    values: dict[str, object] = {}

    def setting(where: str, key: str, declared: str, raw: object) -> object:
        value, source, evidence = _entry(path, where, key, raw)
        sources[key] = RowSource(name, source, evidence)
        return _check_type(path, key, declared, value)

    rows_raw = data.get("rows", {})
    tables_raw = data.get("tables", {})
    for where, raw_table, declared_types in (
        ("rows", rows_raw, _ROW_TYPES),
        ("tables", tables_raw, _TABLE_TYPES),
    ):
        if not isinstance(raw_table, dict):
            raise ReleaseDataError(f"{path}: [{where}] must be a table")
        for key, raw in raw_table.items():
            if key not in declared_types:
                raise ReleaseDataError(
                    f"{path}: unknown {where[:-1]} {key!r} (declared: facts/versions.py "
                    f"{'Rows' if where == 'rows' else 'Tables'})"
                )
            values[key] = setting(where, key, declared_types[key], raw)

    protocol = parent.protocol if parent else None
    if "protocol" in data:
        protocol = setting("", "protocol", "int", data["protocol"])  # type: ignore[assignment]
    commit = data.get("commit", None)
    if not isinstance(commit, str) or not commit:
        raise ReleaseDataError(f"{path}: commit (the source tree read) is required")
    schema = data.get("schema", parent.schema if parent else None)
    if not isinstance(schema, str) or schema not in releases.names:
        raise ReleaseDataError(
            f"{path}: schema must name a release whose published schema applies, got {schema!r}"
        )
    published = schema == name

    methods = parent.methods if parent else frozenset()
    retired = parent.retired_methods if parent else frozenset()
    m = data.get("methods")
    if m is not None:
        if not isinstance(m, dict) or set(m) - _METHOD_KEYS:
            raise ReleaseDataError(f"{path}: [methods] takes {', '.join(sorted(_METHOD_KEYS))}")
        if "set" in m:
            methods = _named_set(path, m["set"])
        methods = (methods | _str_list(path, "add", m.get("add", []))) - _str_list(
            path, "remove", m.get("remove", [])
        )
        if "retired_set" in m:
            retired = _named_set(path, m["retired_set"])
        retired = (retired | _str_list(path, "retire", m.get("retire", []))) - _str_list(
            path, "unretire", m.get("unretire", [])
        )
        _entry(
            path, "", "methods", {"value": None, **{k: m.get(k) for k in ("source", "evidence")}}
        )
        sources["methods"] = RowSource(name, str(m["source"]), str(m["evidence"]))

    if parent is None:
        missing = [k for k in ROW_NAMES + TABLE_NAMES if k not in values]
        if missing or protocol is None or m is None:
            raise ReleaseDataError(
                f"{path}: a base release (no inherits) sets every row; missing: "
                + ", ".join(
                    missing
                    + ([] if protocol is not None else ["protocol"])
                    + ([] if m else ["methods"])
                )
            )
        rows = Rows(**{k: values[k] for k in ROW_NAMES})
        tables = Tables(**{k: values[k] for k in TABLE_NAMES})
    else:
        rows = _replace(parent.rows, {k: v for k, v in values.items() if k in _ROW_TYPES})
        tables = _replace(parent.tables, {k: v for k, v in values.items() if k in _TABLE_TYPES})
    assert isinstance(protocol, int)
    return HerdrVersion(
        name=name,
        key=parse_key(name),
        protocol=protocol,
        commit=commit,
        methods=methods,
        retired_methods=retired,
        schema=schema,
        schema_published=published,
        rows=rows,
        tables=tables,
        sources=sources,
        inherits=parent_name,
    )


def _replace(obj: Any, changes: dict[str, object]) -> Any:
    from dataclasses import replace

    return replace(obj, **changes) if changes else obj


_PACKAGE = ReleaseSet(_DIR)

#: Every release simherdr simulates, oldest first (one data file each).
RELEASES: tuple[str, ...] = _PACKAGE.names


def resolve(name: object) -> HerdrVersion:
    """The release ``name`` ("0.9.3"); a :class:`HerdrVersion` passes through. An unknown
    name raises :class:`UnknownVersion` (one line listing the known releases)."""
    return _PACKAGE.resolve(name)


def releases() -> tuple[HerdrVersion, ...]:
    """Every release, oldest first."""
    return tuple(resolve(n) for n in RELEASES)


def compact(version: HerdrVersion, *, sources: bool = False) -> dict[str, Any]:
    """A JSON-able form of ``version`` for a process that must not parse TOML at start-up
    (the stand-in's launcher); :func:`from_compact` reads it back without tomllib."""
    from dataclasses import asdict

    out = {
        "name": version.name,
        "protocol": version.protocol,
        "commit": version.commit,
        "methods": sorted(version.methods),
        "retired_methods": sorted(version.retired_methods),
        "schema": version.schema,
        "schema_published": version.schema_published,
        "rows": asdict(version.rows),
        "tables": asdict(version.tables),
        "inherits": version.inherits,
    }
    if sources:
        out["sources"] = {k: [s.release, s.source, s.evidence] for k, s in version.sources.items()}
    return out


class _Sources(Mapping[str, RowSource]):
    """A compact form's sources (``key -> [release, source, evidence]``), each made a
    :class:`RowSource` when read: a server resolves its release without the ~100 of them.
    ``raw`` may be a function giving them, called on first use (compiled.json's second
    document is then parsed only when something reads a source)."""

    __slots__ = ("_made", "_raw")

    def __init__(self, raw: Mapping[str, Any] | Callable[[], Mapping[str, Any]]) -> None:
        self._raw = raw
        self._made: dict[str, RowSource] = {}

    def _mapping(self) -> Mapping[str, Any]:
        raw = self._raw
        if callable(raw):
            raw = self._raw = raw()
        return raw

    def __getitem__(self, key: str) -> RowSource:
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = RowSource(*self._mapping()[key])
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._mapping())

    def __len__(self) -> int:
        return len(self._mapping())

    def __repr__(self) -> str:
        return repr(dict(self))


def from_compact(
    data: Mapping[str, Any], sources: Callable[[], Mapping[str, Any]] | None = None
) -> HerdrVersion:
    """The :class:`HerdrVersion` of a :func:`compact` dict (sources are not carried, unless
    the dict has them or ``sources`` gives them when first read)."""
    rows = dict(data["rows"])
    rows["pane_env_removed"] = tuple(rows["pane_env_removed"])
    return HerdrVersion(
        name=data["name"],
        key=parse_key(data["name"]),
        protocol=data["protocol"],
        commit=data["commit"],
        methods=frozenset(data["methods"]),
        retired_methods=frozenset(data["retired_methods"]),
        schema=data["schema"],
        schema_published=data["schema_published"],
        rows=Rows(**rows),
        tables=Tables(**data["tables"]),
        sources=_Sources(sources if sources is not None else data.get("sources", {})),
        inherits=data.get("inherits"),
    )


def compiled_text(doc: dict[str, Any]) -> str:
    """compiled.json's text for :meth:`ReleaseSet.compile`'s ``doc``: the document without
    the rows' sources, then a second document of each release's sources (a server reads the
    first only)."""
    import json

    releases = {n: dict(entry) for n, entry in doc["releases"].items()}
    sources = {n: entry.pop("sources") for n, entry in releases.items() if "sources" in entry}
    first = json.dumps({**doc, "releases": releases}, indent=1, sort_keys=True)
    return first + "\n" + json.dumps(sources, indent=1, sort_keys=True) + "\n"


def _main(argv: list[str]) -> int:
    """``python -m simherdr.facts.versions [--check]``: write (or check) compiled.json."""
    import sys

    text = compiled_text(_PACKAGE.compile())
    path = os.path.join(_DIR, COMPILED)
    if argv == ["--check"]:
        try:
            with open(path, encoding="utf-8") as f:
                fresh = f.read() == text
        except OSError:
            fresh = False
        if not fresh:
            print(f"{path} is stale: run python -m simherdr.facts.versions", file=sys.stderr)
        return 0 if fresh else 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {path} ({len(_PACKAGE.names)} releases)")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(_main(sys.argv[1:]))
