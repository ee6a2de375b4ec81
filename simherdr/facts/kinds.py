"""The 22 agent kinds herdr knows, their executables and aliases, the pane shells,
and the hook-source classes (SOCKET.md §6.4, §6.5 step 8, §6.6, §6.7).

Read from herdr 0.8.2: labels ``src/detect/mod.rs:118-143``, executables ``:145-176``,
aliases ``:183-211``, lookup normalisation ``:632-641``, hook classes
``src/detect/mod.rs:295-312`` and ``src/agent_resume.rs:82-95,227-248``, session kind
``src/agent_resume.rs:59-72``, shell names ``src/platform/mod.rs:244-251,293-312``.
"""

from __future__ import annotations

__all__ = [
    "ALIASES",
    "EXECUTABLES",
    "FULL_LIFECYCLE",
    "KINDS",
    "KIND_NAMES",
    "OFFICIAL_SESSION_SOURCES",
    "RESERVED_NATIVE",
    "SESSION_IDENTITY_ONLY",
    "SHELL_NAMES",
    "UNSUPPORTED_KIND_MESSAGE",
    "canonical_label",
    "executable_for",
    "is_known_kind",
    "is_shell_name",
    "parse_kind",
    "session_kind_for",
    "source_class",
]

_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def normalize_process_name(name: str) -> str:
    """herdr's process-name normalisation for shell checks: last path component (``/``
    or ``\\``), every leading ``-`` removed (login shells), every trailing ``.exe``
    removed (case-sensitive, before lowercasing), then ASCII-lowercased."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = base.lstrip("-")
    while base.endswith(".exe"):
        base = base[: -len(".exe")]
    return base.translate(_ASCII_LOWER)


UNSUPPORTED_KIND_MESSAGE = "unsupported interactive agent kind {kind}"

# (canonical label, executable on unix, accepted aliases), in herdr's Agent::ALL order.
KINDS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("pi", "pi", ()),
    ("claude", "claude", ("claude-code",)),
    ("codex", "codex", ()),
    ("gemini", "gemini", ()),
    ("cursor", "cursor-agent", ("cursor-agent",)),
    ("devin", "devin", ("devin-cli", "devin cli")),
    ("agy", "agy", ("antigravity", "antigravity-cli")),
    ("cline", "cline", ()),
    ("omp", "omp", ()),
    ("mastracode", "mastracode", ("mastra-code", "mastra code")),
    ("opencode", "opencode", ("opencode2", "open-code")),
    ("copilot", "copilot", ("github-copilot", "ghcs")),
    ("kimi", "kimi", ("kimi-code", "kimi code")),
    ("kiro", "kiro-cli", ("kiro-cli",)),
    ("droid", "droid", ()),
    ("amp", "amp", ("amp-local",)),
    ("grok", "grok", ("grok-build",)),
    ("hermes", "hermes", ("hermes-agent",)),
    ("kilo", "kilo", ("kilo-code", "kilo code")),
    ("qodercli", "qodercli", ("qoderclicn", "qoder", "qodercn")),
    ("qwen", "qwen", ("qwen-code", "qwen code")),
    ("maki", "maki", ()),
)

KIND_NAMES: tuple[str, ...] = tuple(label for label, _, _ in KINDS)
EXECUTABLES: dict[str, str] = {label: exe for label, exe, _ in KINDS}
ALIASES: dict[str, str] = {alias: label for label, _, aliases in KINDS for alias in aliases}
_LOOKUP: dict[str, str] = {**{label: label for label in KIND_NAMES}, **ALIASES}

# herdr 0.9.3's Agent::ALL ([H093] src/detect/mod.rs Agent::ALL, agent_label,
# interactive_agent_executable, lookup_agent): 0.8.2's 22 with letta after qwen and muse last,
# and the alias ".cline"; a muse release binary "muse-bin-<digit>..." names muse too
# (is_muse_versioned_binary).
KINDS_0_9_3: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    (label, exe, aliases + ((".cline",) if label == "cline" else ()))
    for label, exe, aliases in KINDS[:21]
) + (
    ("letta", "letta", ("letta-code", "letta code")),
    KINDS[21],
    ("muse", "muse", ("muse-code", "muse-cli")),
)
KIND_NAMES_0_9_3: tuple[str, ...] = tuple(label for label, _, _ in KINDS_0_9_3)
_LOOKUP_0_9_3: dict[str, str] = {
    **{label: label for label in KIND_NAMES_0_9_3},
    **{alias: label for label, _, aliases in KINDS_0_9_3 for alias in aliases},
}
EXECUTABLES_0_9_3: dict[str, str] = {label: exe for label, exe, _ in KINDS_0_9_3}
# herdr 0.8.0's Agent::ALL (346411fa:src/detect/mod.rs): 0.8.2's without qwen (a4d52ab6, #2743).
KINDS_0_8_0: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    k for k in KINDS if k[0] != "qwen"
)
KIND_NAMES_0_8_0: tuple[str, ...] = tuple(label for label, _, _ in KINDS_0_8_0)
_LOOKUP_0_8_0: dict[str, str] = {k: v for k, v in _LOOKUP.items() if v != "qwen"}
EXECUTABLES_0_8_0: dict[str, str] = {label: exe for label, exe, _ in KINDS_0_8_0}
# herdr 0.9.0: 0.9.3's table without letta (Letta Code detection came with 0.9.1, #3106;
# CHANGELOG `## [0.9.1]`), muse since 0.9.0 (#2489). Changelog, not source: no 0.9.0 tree here.
KINDS_0_9_0: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    k for k in KINDS_0_9_3 if k[0] != "letta"
)
KIND_NAMES_0_9_0: tuple[str, ...] = tuple(label for label, _, _ in KINDS_0_9_0)
_LOOKUP_0_9_0: dict[str, str] = {k: v for k, v in _LOOKUP_0_9_3.items() if v != "letta"}
EXECUTABLES_0_9_0: dict[str, str] = {label: exe for label, exe, _ in KINDS_0_9_0}
# The kind tables by key (a release's ``tables.agent_kinds``, facts/releases/*.toml): key ->
# (labels, lookup by name or alias, executables, whether a "muse-bin-<digit>" binary names muse).
_KIND_TABLES: dict[str, tuple[tuple[str, ...], dict[str, str], dict[str, str], bool]] = {
    "0.8.0": (KIND_NAMES_0_8_0, _LOOKUP_0_8_0, EXECUTABLES_0_8_0, False),
    "0.8.2": (KIND_NAMES, _LOOKUP, EXECUTABLES, False),
    "0.9.0": (KIND_NAMES_0_9_0, _LOOKUP_0_9_0, EXECUTABLES_0_9_0, True),
    "0.9.3": (KIND_NAMES_0_9_3, _LOOKUP_0_9_3, EXECUTABLES_0_9_3, True),
}
KIND_TABLES = tuple(_KIND_TABLES)
ALL_KINDS = KIND_TABLES[-1]  # the table holding every version's kinds (process identification)


def _is_muse_release_binary(name: str) -> bool:
    rest = name[len("muse-bin-") :] if name.startswith("muse-bin-") else ""
    return rest[:1].isdigit() and rest[:1].isascii()


# 0.9.3 names a letta process an agent only when it runs interactively ([H093]
# src/detect/mod.rs identify_agent_in_job, is_interactive_letta_process): none of these options
# (the part before '='), and no positional argument first once `--backend <x>` is skipped.
LETTA_NON_INTERACTIVE_OPTIONS = frozenset(
    {
        "-p",
        "--print",
        "--prompt",
        "--json",
        "--stream-json",
        "--run",
        "--disable-memory-guard",
        "--output-format",
        "--input-format",
        "--include-partial-messages",
        "--from-agent",
        "--environment",
        "--env",
        "--pre-load-skills",
        "--tags",
        "--ephemeral",
        "--stateless",
        "--max-turns",
        "--memfs-startup",
        "-h",
        "--help",
        "-v",
        "--version",
        "--info",
        "--update",
        "--upgrade",
    }
)


def letta_interactive(args: list[str]) -> bool:
    """Whether ``letta <args>`` is the interactive agent herdr 0.9.3 detects."""
    if any(a.split("=", 1)[0] in LETTA_NON_INTERACTIVE_OPTIONS for a in args):
        return False
    rest = iter(args)
    for arg in rest:
        if arg == "--backend":
            next(rest, None)
            continue
        if arg.startswith("--backend="):
            continue
        return arg.startswith("-")
    return True


def parse_kind_in(table: str, text: str) -> str | None:
    """``parse_kind`` with the kinds of one herdr version (``KIND_TABLES``)."""
    _, lookup, _, muse_binaries = _KIND_TABLES[table]
    name = _lookup_name(text)
    found = lookup.get(name)
    if found is None and muse_binaries:
        if _is_muse_release_binary(name.replace("\\", "/").rsplit("/", 1)[-1]):
            return "muse"
    return found


def canonical_label_in(table: str, label: str) -> str:
    """``canonical_label`` with the kinds of one herdr version."""
    trimmed = label.strip(_RUST_WHITESPACE)
    if not trimmed:
        return ""
    return parse_kind_in(table, trimmed) or trimmed


def executables_in(table: str) -> dict[str, str]:
    return _KIND_TABLES[table][2]


def kind_names_in(table: str) -> tuple[str, ...]:
    return _KIND_TABLES[table][0]


_WINDOWS_EXECUTABLES = {"cursor": "cursor-agent.cmd"}

# One of these suffixes (the first that matches, in this order) is stripped once.
_LOOKUP_SUFFIXES = (".exe", ".cmd", ".bat", ".ps1", ".js")

# Rust's char::is_whitespace (Unicode White_Space); Python's strip() also strips
# U+001C..U+001F.
_RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

SHELL_NAMES: tuple[str, ...] = (
    "sh",
    "bash",
    "dash",
    "zsh",
    "fish",
    "ksh",
    "mksh",
    "csh",
    "tcsh",
    "elvish",
    "xonsh",
    "nu",
    "pwsh",
    "powershell",
    "cmd",
)
_SHELL_SET = frozenset(SHELL_NAMES)

Pair = tuple[str, str]  # (source, canonical agent label)

# pane.report_agent drops the whole report (src/terminal/state.rs:643-645).
SESSION_IDENTITY_ONLY: frozenset[Pair] = frozenset(
    {
        ("herdr:hermes", "hermes"),
        ("herdr:qwen", "qwen"),
        ("herdr:antigravity_cli", "agy"),
    }
)

# pane.report_agent stores only the session reference (src/app/actions.rs:2817-2822).
RESERVED_NATIVE: frozenset[Pair] = frozenset(
    {
        ("herdr:claude", "claude"),
        ("herdr:codex", "codex"),
        ("herdr:copilot", "copilot"),
        ("herdr:devin", "devin"),
        ("herdr:droid", "droid"),
        ("herdr:qodercli", "qodercli"),
        ("herdr:qwen", "qwen"),
        ("herdr:cursor", "cursor"),
        ("herdr:grok", "grok"),
    }
)

FULL_LIFECYCLE: frozenset[Pair] = frozenset(
    {
        ("herdr:pi", "pi"),
        ("herdr:omp", "omp"),
        ("herdr:mastracode", "mastracode"),
        ("herdr:opencode", "opencode"),
        ("herdr:kilo", "kilo"),
        ("herdr:kimi", "kimi"),
    }
)

# Pairs whose native session reference herdr stores (src/agent_resume.rs:227-248).
OFFICIAL_SESSION_SOURCES: frozenset[Pair] = frozenset(
    {
        ("herdr:claude", "claude"),
        ("herdr:codex", "codex"),
        ("herdr:copilot", "copilot"),
        ("herdr:devin", "devin"),
        ("herdr:droid", "droid"),
        ("herdr:kimi", "kimi"),
        ("herdr:omp", "omp"),
        ("herdr:mastracode", "mastracode"),
        ("herdr:pi", "pi"),
        ("herdr:hermes", "hermes"),
        ("herdr:opencode", "opencode"),
        ("herdr:qodercli", "qodercli"),
        ("herdr:qwen", "qwen"),
        ("herdr:kilo", "kilo"),
        ("herdr:cursor", "cursor"),
        ("herdr:antigravity_cli", "agy"),
        ("herdr:grok", "grok"),
    }
)

# herdr 0.9.3's hook-source tables differ ([H093] src/agent_resume.rs
# is_reserved_native_state_source, is_official_agent_source; src/detect/mod.rs
# session_identity_only_integration): herdr:codex is no longer reserved native (its state
# reports are hook authority), and herdr:letta is an official session source whose state
# reports are dropped (session identity only).
RESERVED_NATIVE_0_9_3: frozenset[Pair] = RESERVED_NATIVE - {("herdr:codex", "codex")}
SESSION_IDENTITY_ONLY_0_9_3: frozenset[Pair] = SESSION_IDENTITY_ONLY | {("herdr:letta", "letta")}
OFFICIAL_SESSION_SOURCES_0_9_3: frozenset[Pair] = OFFICIAL_SESSION_SOURCES | {
    ("herdr:letta", "letta")
}
# The hook-source tables by key (a release's ``tables.hook_sources``):
# table -> (reserved native, session identity only, official session sources).
_QWEN: frozenset[Pair] = frozenset({("herdr:qwen", "qwen")})  # absent from 0.8.0 (a4d52ab6)
_LETTA: frozenset[Pair] = frozenset({("herdr:letta", "letta")})  # absent from 0.9.0
HOOK_SOURCE_TABLES: dict[str, tuple[frozenset[Pair], frozenset[Pair], frozenset[Pair]]] = {
    "0.8.0": (
        RESERVED_NATIVE - _QWEN,
        SESSION_IDENTITY_ONLY - _QWEN,
        OFFICIAL_SESSION_SOURCES - _QWEN,
    ),
    "0.8.2": (RESERVED_NATIVE, SESSION_IDENTITY_ONLY, OFFICIAL_SESSION_SOURCES),
    # 0.9.0: 0.9.3's without herdr:letta (letta came with 0.9.1); herdr:codex as 0.9.3 (CHOICE).
    "0.9.0": (
        RESERVED_NATIVE_0_9_3,
        SESSION_IDENTITY_ONLY_0_9_3 - _LETTA,
        OFFICIAL_SESSION_SOURCES_0_9_3 - _LETTA,
    ),
    "0.9.3": (RESERVED_NATIVE_0_9_3, SESSION_IDENTITY_ONLY_0_9_3, OFFICIAL_SESSION_SOURCES_0_9_3),
}


def reserved_native_in(table: str) -> frozenset[Pair]:
    return HOOK_SOURCE_TABLES[table][0]


def session_identity_only_in(table: str) -> frozenset[Pair]:
    return HOOK_SOURCE_TABLES[table][1]


def official_sources_in(table: str) -> frozenset[Pair]:
    return HOOK_SOURCE_TABLES[table][2]


# one of "session_identity_only", "reserved_native", "full_lifecycle", "custom"
SourceClass = str


def _lookup_name(text: str) -> str:
    name = text.strip(_RUST_WHITESPACE).lower()
    for suffix in _LOOKUP_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def parse_kind(text: str) -> str | None:
    """The canonical label ``text`` names (trimmed, lowercased, one suffix among
    .exe/.cmd/.bat/.ps1/.js stripped, canonical name or alias), else None."""
    return _LOOKUP.get(_lookup_name(text))


def is_known_kind(text: str) -> bool:
    return parse_kind(text) is not None


def executable_for(kind: str, *, windows: bool = False) -> str:
    """argv[0] herdr types for ``kind`` (a canonical label or any accepted spelling).
    Raises ValueError with herdr's unsupported_agent_kind message otherwise."""
    label = parse_kind(kind)
    if label is None:
        raise ValueError(UNSUPPORTED_KIND_MESSAGE.format(kind=kind))
    if windows and label in _WINDOWS_EXECUTABLES:
        return _WINDOWS_EXECUTABLES[label]
    return EXECUTABLES[label]


def canonical_label(label: str) -> str:
    """A reported agent label as herdr stores it: the canonical kind when the label
    names one, else the label trimmed (src/app/api_helpers.rs:191-200). An empty
    result means herdr answers invalid_agent "agent label must not be empty"."""
    trimmed = label.strip(_RUST_WHITESPACE)
    if not trimmed:
        return ""
    return parse_kind(trimmed) or trimmed


def source_class(source: str, agent: str) -> SourceClass:
    """How pane.report_agent treats a (source, agent) pair (SOCKET.md §6.4).

    ``agent`` is canonicalised first, as herdr does before classifying. The pair
    ``("herdr:qwen", "qwen")`` is both reserved-native and session-identity-only in
    herdr's tables; herdr checks reserved-native first on the report path
    (src/app/actions.rs:2816-2822, before src/terminal/state.rs:643), so it is
    classed ``reserved_native`` here.
    """
    pair = (source, canonical_label(agent))
    if pair in RESERVED_NATIVE:
        return "reserved_native"
    if pair in SESSION_IDENTITY_ONLY:
        return "session_identity_only"
    if pair in FULL_LIFECYCLE:
        return "full_lifecycle"
    return "custom"


def is_official_session_source(source: str, agent: str) -> bool:
    return (source, canonical_label(agent)) in OFFICIAL_SESSION_SOURCES


def session_kind_for(label: str) -> str:  # "path" | "id"
    """``path`` for pi and omp (they prefer an absolute agent_session_path), else ``id``."""
    return "path" if canonical_label(label) in ("pi", "omp") else "id"


def is_shell_name(name: str) -> bool:
    """Whether a foreground process name counts as a pane shell for agent.start
    (basename, leading '-' of login shells and trailing '.exe' removed, ASCII-lowercased)."""
    return normalize_process_name(name) in _SHELL_SET
