"""herdr's reported metadata: tokens with a TTL, the presentation overlay, seq freshness.

Pure: times are simulated seconds passed in by the caller. The rules follow
src/app/api_helpers.rs:202-290 (normalisation and limits), src/metadata_tokens.rs (token
patches, expiry, sequenced sources) and src/terminal/metadata.rs (the title / display_agent /
state_labels overlay, bound to its ``source`` and guarded by ``agent`` / ``applies_to_source``).
"""

from __future__ import annotations

import itertools

from ..facts.kinds import _RUST_WHITESPACE as RUST_WHITESPACE  # Rust str::trim's set
from ..facts.record import field, record

TTL_MIN_MS = 1
TTL_MAX_MS = 86_400_000
SOURCE_MAX_CHARS = 80
TOKENS_PER_REQUEST = 16
TOKENS_PER_RESOURCE = 32
TOKEN_KEY_MAX_LEN = 32
TOKEN_VALUE_MAX_CHARS = 80
PRESENTATION_MAX_CHARS = 80
MAX_SEQUENCE_SOURCES = 32
STATE_LABEL_STATES = ("idle", "working", "blocked", "done", "unknown")

# CHOICE (REPORT_ORDER_BREAKS_TIES): herdr picks the newest overlay field by Instant, which never
# ties in practice; on a virtual clock two reports often share a time, so a report counter
# breaks the tie in favour of the later report.
_report_order = itertools.count(1)


class MetadataError(ValueError):
    """A validation failure: herdr's error ``code`` and message."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


# --- normalisation (src/app/api_helpers.rs:210-290, src/app/api/panes.rs:1642-1670) ---------


def _is_control(ch: str) -> bool:
    import unicodedata  # here, not at the top: the server start does not need it

    return unicodedata.category(ch) == "Cc"  # Rust char::is_control: general category Cc


def _rust_trim(s: str) -> str:
    return s.strip(RUST_WHITESPACE)


def source(value: str) -> str:
    v = _rust_trim(value)
    if not v:
        raise MetadataError("invalid_metadata_source", "metadata source must not be empty")
    if len(v) > SOURCE_MAX_CHARS:
        raise MetadataError(
            "invalid_metadata_source", "metadata source must be 80 characters or fewer"
        )
    if not all((c.isascii() and c.isalnum()) or c in ":._-" for c in v):
        raise MetadataError(
            "invalid_metadata_source",
            "metadata source may contain only ASCII letters, digits, colon, dot, underscore, "
            "and hyphen",
        )
    return v


def ttl(ttl_ms: int | None) -> float | None:
    """Seconds, or None for no expiry."""
    if ttl_ms is None:
        return None
    if ttl_ms < TTL_MIN_MS:
        raise MetadataError("invalid_metadata_ttl", "metadata ttl_ms must be at least 1")
    if ttl_ms > TTL_MAX_MS:
        raise MetadataError("invalid_metadata_ttl", "metadata ttl_ms must be 86400000 or less")
    return ttl_ms / 1000


def _text(value: str | None, limit: int) -> str | None:
    if value is None:
        return None
    kept = "".join(c for c in _rust_trim(value) if not _is_control(c))[:limit]
    kept = _rust_trim(kept)
    return kept or None


def tokens(patch: dict[str, str | None]) -> dict[str, str | None]:
    """A token patch: None (or a value that normalises to empty) clears the key."""
    if not patch:
        raise MetadataError("invalid_metadata_token", "missing token to set or clear")
    if len(patch) > TOKENS_PER_REQUEST:
        raise MetadataError(
            "invalid_metadata_token",
            f"a metadata report may update at most {TOKENS_PER_REQUEST} tokens",
        )
    out: dict[str, str | None] = {}
    for key, value in patch.items():
        if (
            not key
            or len(key.encode()) > TOKEN_KEY_MAX_LEN
            or not all((c.isascii() and c.isalnum()) or c in "_-" for c in key)
        ):
            raise MetadataError("invalid_metadata_token", f"invalid metadata token key: {key}")
        out[key] = _text(value, TOKEN_VALUE_MAX_CHARS)
    return out


def presentation_text(value: str | None) -> str | None:
    return _text(value, PRESENTATION_MAX_CHARS)


def state_labels(labels: dict[str, str]) -> dict[str, str]:
    out = {}
    for status, label in labels.items():
        status = _rust_trim(status).lower()
        if status not in STATE_LABEL_STATES:
            raise MetadataError("invalid_state_label", f"unknown state label: {status}")
        text = presentation_text(label)
        if text is not None:
            out[status] = text
    return out


# --- tokens with TTL and sequences (src/metadata_tokens.rs) ---------------------------------


def seq_is_fresh(seqs: dict[str, int], src: str, seq: int | None) -> bool:
    return seq is None or src not in seqs or seq > seqs[src]


@record
class TokenStore:
    """Tokens of one pane or workspace: value and deadline (simulated seconds) per key."""

    entries: dict[str, tuple[str, float | None]] = field(default_factory=dict)

    def values(self) -> dict[str, str]:
        return {k: v for k, (v, _) in self.entries.items()}

    def count_after(self, patch: dict[str, str | None]) -> int:
        keys = set(self.entries)
        for k, v in patch.items():
            (keys.add if v is not None else keys.discard)(k)
        return len(keys)

    def patch(self, patch: dict[str, str | None], ttl_s: float | None, now: float) -> bool:
        deadline = None if ttl_s is None else now + ttl_s
        changed = False
        for k, v in patch.items():
            if v is None:
                changed |= self.entries.pop(k, None) is not None
            elif self.entries.get(k) != (v, deadline):
                self.entries[k] = (v, deadline)
                changed = True
        return changed

    def next_expiry(self) -> float | None:
        return min((d for _, d in self.entries.values() if d is not None), default=None)

    def expire(self, now: float) -> bool:
        before = len(self.entries)
        self.entries = {k: e for k, e in self.entries.items() if e[1] is None or e[1] > now}
        return len(self.entries) != before


@record
class WorkspaceMetadata:
    tokens: TokenStore = field(default_factory=TokenStore)
    seqs: dict[str, int] = field(default_factory=dict)


# --- the presentation overlay (src/terminal/metadata.rs) ------------------------------------


@record
class Overlay:
    """One source's AgentMetadata. Times are (simulated seconds, report order)."""

    source: str
    agent_label: str | None
    applies_to_source: str | None
    title: str | None = None
    display_agent: str | None = None
    state_labels: dict[str, str] = field(default_factory=dict)
    reported_at: float = 0.0
    title_at: tuple | None = None
    display_agent_at: tuple | None = None
    state_label_at: dict[str, tuple] = field(default_factory=dict)
    ttl: float | None = None

    def deadline(self) -> float | None:
        return None if self.ttl is None else self.reported_at + self.ttl

    def expired(self, now: float) -> bool:
        d = self.deadline()
        return d is not None and now >= d

    def has_fields(self) -> bool:
        return bool(self.title or self.display_agent or self.state_labels)


@record
class PaneMetadata:
    """The metadata part of herdr's TerminalState."""

    tokens: TokenStore = field(default_factory=TokenStore)
    report_seqs: dict[str, int] = field(default_factory=dict)
    token_seq_sources: set[str] = field(default_factory=set)
    overlays: dict[str, Overlay] = field(default_factory=dict)


@record(frozen=True)
class Report:
    source: str
    agent_label: str | None
    applies_to_source: str | None
    title: str | None
    display_agent: str | None
    state_labels: dict
    clear_title: bool
    clear_display_agent: bool
    clear_state_labels: bool
    ttl: float | None


def accept_report(m: PaneMetadata, src: str, seq: int | None, includes_tokens: bool) -> bool:
    """TerminalState::accept_metadata_report: False for a stale seq; raises when a new
    sequenced token source would pass the per-pane limit."""
    if seq is None:
        return True
    if not seq_is_fresh(m.report_seqs, src, seq):
        return False
    if (
        includes_tokens
        and src not in m.token_seq_sources
        and len(m.token_seq_sources) >= MAX_SEQUENCE_SOURCES
    ):
        raise MetadataError(
            "metadata_sequence_source_limit",
            f"pane metadata may track at most {MAX_SEQUENCE_SOURCES} sequenced sources",
        )
    m.report_seqs[src] = seq
    if includes_tokens:
        m.token_seq_sources.add(src)
    return True


def set_overlay(m: PaneMetadata, r: Report, now: float) -> None:
    """set_agent_metadata's storage part: a report with a clear_* flag patches the source's
    overlay; one without replaces it."""
    at = (now, next(_report_order))
    old = m.overlays.get(r.source)
    if old is not None and old.expired(now):
        del m.overlays[r.source]  # an expired overlay is never patched back to life
        old = None
    if r.clear_title or r.clear_display_agent or r.clear_state_labels:
        o = old or Overlay(r.source, r.agent_label, r.applies_to_source, reported_at=now, ttl=r.ttl)
        m.overlays[r.source] = o
        if r.clear_title:
            o.title, o.title_at = None, None
        if r.clear_display_agent:
            o.display_agent, o.display_agent_at = None, None
        if r.clear_state_labels:
            o.state_labels, o.state_label_at = {}, {}
        if r.agent_label is not None:
            o.agent_label = r.agent_label
        if r.applies_to_source is not None:
            o.applies_to_source = r.applies_to_source
        if r.title is not None:
            o.title, o.title_at = r.title, at
        if r.display_agent is not None:
            o.display_agent, o.display_agent_at = r.display_agent, at
        for state, label in r.state_labels.items():
            o.state_labels[state] = label
            o.state_label_at[state] = at
        if (
            r.title is not None
            or r.display_agent is not None
            or r.state_labels
            or r.ttl is not None
        ):
            o.reported_at, o.ttl = now, r.ttl
        return
    m.overlays[r.source] = Overlay(
        r.source,
        r.agent_label,
        r.applies_to_source,
        r.title,
        r.display_agent,
        dict(r.state_labels),
        now,
        at if r.title is not None else None,
        at if r.display_agent is not None else None,
        {s: at for s in r.state_labels},
        r.ttl,
    )


def effective(
    m: PaneMetadata, now: float, agent_label: str | None, hook_source: str | None
) -> tuple[str | None, str | None, dict[str, str]]:
    """(title, display_agent, state_labels): the newest field of every visible overlay.
    Visible: it has a field, is not past its TTL, its ``agent`` names the pane's effective
    agent and its ``applies_to_source`` the current hook authority's source."""
    visible = [
        o
        for o in m.overlays.values()
        if o.has_fields()
        and not o.expired(now)
        and (o.agent_label is None or o.agent_label == agent_label)
        and (o.applies_to_source is None or o.applies_to_source == hook_source)
    ]
    titled = [o for o in visible if o.title is not None]
    shown = [o for o in visible if o.display_agent is not None]
    title = max(titled, key=lambda o: o.title_at or (0, 0)).title if titled else None
    display = (
        max(shown, key=lambda o: o.display_agent_at or (0, 0)).display_agent if shown else None
    )
    labels = sorted(
        (o.state_label_at[s], s, lbl)
        for o in visible
        for s, lbl in o.state_labels.items()
        if s in o.state_label_at
    )
    return title, display, {s: lbl for _, s, lbl in labels}


def next_overlay_expiry(m: PaneMetadata) -> float | None:
    return min((d for o in m.overlays.values() if (d := o.deadline()) is not None), default=None)


def expire_overlays(m: PaneMetadata, now: float) -> bool:
    """Drop every overlay past its deadline; True when any went."""
    gone = [s for s, o in m.overlays.items() if o.expired(now)]
    for s in gone:
        del m.overlays[s]
    return bool(gone)
