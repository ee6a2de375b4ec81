"""herdr's bundled agent screen manifests as data files (``manifests/<kind>.toml``), loaded with
tomllib (src/detect/manifest.rs:239-260 bundles one per kind; :860-940 parses and validates).

Each file is herdr v0.8.2's manifest for that kind in herdr's own schema, version pinned; the
regexes stay in the Rust regex dialect herdr writes and are translated here
(:func:`python_pattern`). :func:`load` gives every manifest (cached), :func:`rules_by_kind` the
rules detection evaluates, :func:`agent_manifest_infos` what ``server.agent_manifests``
reports (AgentManifestInfo, src/app/api.rs:1339-1356).
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources

# Agent kind label -> data file, in herdr's BUNDLED_MANIFESTS order (src/detect/manifest.rs:239).
BUNDLED = (
    "amp",
    "agy",
    "claude",
    "cline",
    "codex",
    "cursor",
    "devin",
    "droid",
    "gemini",
    "grok",
    "hermes",
    "kilo",
    "kimi",
    "kiro",
    "maki",
    "opencode",
    "pi",
    "qodercli",
    "qwen",
    "copilot",
)
# 0.9.x: kinds whose manifest only 0.9's herdr bundles ([H093] src/detect/manifests/).
# CHOICE: appended after the 0.8.2 order (0.9.3's BUNDLED_MANIFESTS list is not read).
BUNDLED_0_9 = ("muse",)
# 0.9.3's own versions of manifests 0.8.2 also bundles, in ``manifests/0.9.3/`` (read in
# [H093] src/detect/manifests/: pi, grok). CHOICE (MANIFESTS_093_UNREAD): the fork's other
# manifests are not in the index; 0.9.3 gets 0.8.2's for them.
CHANGED_0_9_3 = ("pi", "grok")
ENGINE_VERSION = 3  # src/detect/manifest_update.rs:15 MANIFEST_ENGINE_VERSION
TOP_NON_EMPTY_LINES_ENGINE_VERSION = 3  # manifest.rs:1302
STATES = ("idle", "working", "blocked", "unknown")
FLAGS = ("visible_idle", "visible_blocker", "visible_working", "skip_state_update")
GATE_KEYS = ("contains", "regex", "line_regex", "all", "any", "not")
_FIXED_REGIONS = {
    "whole_recent",
    "osc_title",
    "osc_progress",
    "after_last_prompt_marker",
    "before_current_prompt_marker",
    "whole_recent_without_current_prompt_marker",
    "current_prompt_block_marker",
    "after_current_prompt_block_marker",
    "prompt_box_body",
    "above_prompt_box",
    "last_non_empty_above_prompt_box",
    "after_last_horizontal_rule",
}
_COUNTED_REGION = re.compile(
    r"(bottom_lines|bottom_non_empty_lines|top_non_empty_lines)\(([1-9]\d*)\)"
)

# Rust regex syntax Python's re lacks (regex crate docs "Escape sequences", "Unicode classes").
_RUST_ESCAPE = re.compile(r"\\\\|\\[xuU]\{([0-9A-Fa-f]{1,8})\}|\\p\{Alphabetic\}")
# CHOICE: \p{Alphabetic} becomes "a letter" ([^\W\d_]); Python has no Unicode property classes
# (Alphabetic also holds some marks and numerals; no bundled rule depends on those).
_ALPHABETIC = r"[^\W\d_]"


class ManifestError(ValueError):
    pass


def python_pattern(rust: str) -> str:
    """A Rust ``regex`` pattern as Python ``re`` reads it: ``\\x{H}``/``\\u{H}``/``\\U{H}`` become
    ``\\UHHHHHHHH``, ``\\p{Alphabetic}`` a letter class; the rest is shared syntax."""

    def sub(m: re.Match) -> str:
        if m.group(0) == "\\\\":
            return m.group(0)
        if m.group(1) is not None:
            return "\\U%08X" % int(m.group(1), 16)
        return _ALPHABETIC

    return _RUST_ESCAPE.sub(sub, rust)


@dataclass(frozen=True)
class Manifest:
    agent: str  # the kind label herdr reports (``agy``, ``copilot``, ...)
    id: str
    version: str | None
    min_engine_version: int | None
    updated_at: str | None
    aliases: tuple[str, ...]
    rules: tuple[dict, ...]  # rules as detection evaluates them (Python patterns)
    path: str


def _gate(raw: dict, where: str) -> dict:
    unknown = set(raw) - set(GATE_KEYS)
    if unknown:
        raise ManifestError(f"{where}: unknown gate keys {sorted(unknown)}")
    gate: dict = {}
    for key in ("contains", "regex", "line_regex"):
        if key in raw:
            values = raw[key]
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise ManifestError(f"{where}: {key} must be a list of strings")
            if key == "contains":
                gate[key] = list(values)
                continue
            converted = [python_pattern(v) for v in values]
            for pattern in converted:
                try:
                    re.compile(pattern)
                except re.error as e:
                    raise ManifestError(f"{where}: invalid {key} {pattern!r}: {e}") from None
            gate[key] = converted
    for key in ("all", "any", "not"):
        if key in raw:
            gate[key] = [_gate(g, f"{where} {key} gate") for g in raw[key]]
    if not any(k in gate for k in ("contains", "regex", "line_regex", "all", "any")):
        raise ManifestError(f"{where} must contain a positive matcher")  # manifest.rs:981
    return gate


def _region_ok(region: str) -> bool:
    region = region.strip()
    return region in _FIXED_REGIONS or _COUNTED_REGION.fullmatch(region) is not None


def parse(text: str, agent: str, path: str = "") -> Manifest:
    """parse_manifest + validate_manifest (manifest.rs:860-940), for one kind."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ManifestError(f"{path}: {e}") from None
    rules_raw = raw.get("rules") or []
    if not rules_raw:
        raise ManifestError("manifest must contain at least one rule")
    engine = raw.get("min_engine_version")
    if engine is not None and engine > ENGINE_VERSION:
        raise ManifestError(
            f"manifest requires engine {engine}, current engine is {ENGINE_VERSION}"
        )
    rules = []
    for r in rules_raw:
        rid = str(r.get("id", "")).strip()
        if not rid:
            raise ManifestError("manifest rule id must not be empty")
        state = r.get("state", "unknown")
        if state not in STATES:
            raise ManifestError(f"rule {rid} has unknown state {state!r}")
        region = r.get("region", "whole_recent")  # default_region (manifest.rs:235)
        if not _region_ok(region):
            raise ManifestError(f"rule {rid} uses invalid region: {region}")
        if region.strip().startswith("top_non_empty_lines(") and (
            engine is not None and engine < TOP_NON_EMPTY_LINES_ENGINE_VERSION
        ):
            raise ManifestError(
                f"rule {rid} uses top_non_empty_lines but min_engine_version is below "
                f"{TOP_NON_EMPTY_LINES_ENGINE_VERSION}"
            )
        flags = {k: bool(r[k]) for k in FLAGS if k in r}
        if flags.get("skip_state_update"):
            if state != "unknown":
                raise ManifestError(f'rule {rid} uses skip_state_update without state = "unknown"')
            if any(flags.get(k) for k in FLAGS[:3]):
                raise ManifestError(
                    f"rule {rid} uses skip_state_update with visible state evidence"
                )
        extra = set(r) - {"id", "state", "priority", "region", *FLAGS, *GATE_KEYS}
        if extra:
            raise ManifestError(f"rule {rid}: unknown keys {sorted(extra)}")
        gate = _gate({k: r[k] for k in GATE_KEYS if k in r}, f"rule {rid}")
        rules.append(
            {"id": rid, "state": state, "priority": int(r.get("priority", 0)), "region": region}
            | flags
            | gate
        )
    return Manifest(
        agent=agent,
        id=raw.get("id", agent),
        version=raw.get("version"),
        min_engine_version=engine,
        updated_at=raw.get("updated_at"),
        aliases=tuple(raw.get("aliases") or ()),
        rules=tuple(rules),
        path=path,
    )


# The manifest tables by key (a release's tables.manifests): key -> (the agents bundled, those
# whose file is the table's own, in manifests/<key>/; the others are manifests/<agent>.toml).
TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # CHOICE (0.8.0): 0.8.2's manifests without qwen's (346411fa bundles no qwen.toml; its
    # other manifests' 0.8.0 versions, e.g. codex 2026.07.18.1, are not transcribed).
    "0.8.0": (tuple(a for a in BUNDLED if a != "qwen"), ()),
    "0.8.2": (BUNDLED, ()),
    "0.9.3": (BUNDLED + BUNDLED_0_9, CHANGED_0_9_3),
}


@functools.cache
def load(table: str) -> dict[str, Manifest]:
    """Every manifest the release whose manifests table is ``table`` (tables.manifests)
    bundles, by kind label (read once per table)."""
    base = resources.files(__package__) / "manifests"
    agents, own_files = TABLES[table]
    out = {}
    for agent in agents:
        f = (base / table if agent in own_files else base) / f"{agent}.toml"
        out[agent] = parse(f.read_text(encoding="utf-8"), agent, str(f))
    return out


def rules_by_kind(table: str) -> dict[str, list[dict]]:
    return {agent: list(m.rules) for agent, m in load(table).items()}


def agent_manifest_infos(table: str) -> list[dict]:
    """AgentManifestInfo per bundled manifest of the release whose manifests table is
    ``table`` (tables.manifests), as ``server.agent_manifests`` reports them
    (src/app/api.rs:1339-1356; optional fields omitted when None). CHOICE: no remote updates
    and no local overrides exist in a simulator, so every source is herdr's bundled one."""
    return [
        {
            "agent": m.agent,
            "source": "bundled",
            "source_kind": "bundled",
            **({"active_version": m.version} if m.version else {}),
            "local_override_shadowing_remote": False,
        }
        for m in load(table).values()
    ]
