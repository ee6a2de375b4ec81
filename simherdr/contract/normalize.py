"""Normalization by reference: volatile values become numbered references, never erased.

The first pane id seen becomes ``<pane:1>`` and stays ``<pane:1>`` wherever it recurs (a
request, a reply, inside an error message), so a recorded conversation keeps its identities:
"the pane the split returned is the pane closed two steps later". The rules are data
(:data:`TOKEN_RULES`, :data:`KEY_RULES`), applied in one order, and each cassette lists them
with every reference's recorded value (``normalization`` in the cassette), so a reader sees
what was replaced and by what.

Replay runs the same rules over the target's replies with a fresh :class:`Normalizer`; a value
first seen in a *request* (one the client chose, e.g. a made-up ``w9:p9``) is bound back to
its recorded value, one first seen in a reply is the target's own.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from typing import Any

RULES_VERSION = "simherdr-normalize/1"


@dataclass(frozen=True)
class TokenRule:
    """Ids found anywhere in a string (ids are opaque: ``w7:pA`` is a pane, CLIENTS.md §1)."""

    kind: str
    pattern: str
    source: str


# Order matters: a pane id contains a workspace id, so longer shapes come first (one regex,
# alternatives in this order, so ``w1:p1`` is never read as ``w1`` + ``:p1``).
TOKEN_RULES: tuple[TokenRule, ...] = (
    TokenRule("pane", r"\bw[0-9]+:p[0-9A-Za-z]+\b", "SOCKET.md §2 ids; CLIENTS.md §1 (w7:pA)"),
    TokenRule("tab", r"\bw[0-9]+:t[0-9A-Za-z]+\b", "SOCKET.md §2 ids"),
    TokenRule("workspace", r"\bw[0-9]+\b", "SOCKET.md §2 ids"),
    TokenRule("terminal", r"\bterm_[0-9a-f]+\b", "SOCKET.md §2 terminal ids (term_<hex>)"),
    TokenRule(
        "time",
        r"(?<![0-9A-Za-z])[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}[-:][0-9]{2}[-:][0-9]{2}(?:[-.][0-9]{3})?Z",
        "timestamps in text (pi's session file name, CLIENTS.md §1)",
    ),
    TokenRule(
        "session",
        r"(?<![0-9A-Za-z])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9A-Za-z])",
        "CLIENTS.md §1 agent_session values (uuids, also inside pi's session path)",
    ),
)


@dataclass(frozen=True)
class KeyRule:
    """Numbers that vary per run, recognised by their field name."""

    kind: str
    keys: frozenset[str]
    source: str


KEY_RULES: tuple[KeyRule, ...] = (
    KeyRule(
        "pid",
        frozenset({"pid", "shell_pid", "foreground_process_group_id"}),
        "pane.process_info (CLIENTS.md §4.1)",
    ),
    KeyRule(
        "time",
        frozenset({"started_unix_ms", "finished_unix_ms", "installed_unix_ms"}),
        "unix-ms timestamps of the 0.9.3 schema",
    ),
)

# CHOICE: temporary paths are recognised by their prefix (the system temp dir and the usual
# roots); a path under a known temp path keeps its tail (``<tmp:1>/sub``). Paths elsewhere
# (a real home) stay literal: they are the client's, and replay cannot invent them.
TEMP_ROOTS: tuple[str, ...] = tuple(
    dict.fromkeys([tempfile.gettempdir(), "/tmp", "/var/tmp", "/private/tmp", "/dev/shm"])
)
_TEMP = re.compile(
    "(?:" + "|".join(re.escape(r) for r in TEMP_ROOTS) + r")(?:/[^\s\"'`:,;()<>\[\]{}]+)+"
)
_TOKENS = re.compile("|".join(f"(?P<{r.kind}>{r.pattern})" for r in TOKEN_RULES))
REF = re.compile(r"<([a-z]+):([0-9]+)>")
_KEY_KIND = {k: r.kind for r in KEY_RULES for k in r.keys}


def describe() -> dict:
    """The rules as the cassette shows them."""
    return {
        "rules": RULES_VERSION,
        "tokens": [{"kind": r.kind, "pattern": r.pattern, "source": r.source} for r in TOKEN_RULES],
        "keys": [{"kind": r.kind, "keys": sorted(r.keys), "source": r.source} for r in KEY_RULES],
        "temp_roots": list(TEMP_ROOTS),
    }


@dataclass
class Normalizer:
    """One conversation's references, both ways (value -> ``<kind:n>`` and back)."""

    refs: dict[str, Any] = field(default_factory=dict)  # "<pane:1>" -> "w1:p1"
    _by_value: dict[tuple[str, Any], str] = field(default_factory=dict)
    _count: dict[str, int] = field(default_factory=dict)
    _temps: list[str] = field(default_factory=list)  # known temp paths, longest first

    def ref(self, kind: str, value: Any) -> str:
        key = (kind, value)
        got = self._by_value.get(key)
        if got is None:
            n = self._count.get(kind, 0) + 1
            self._count[kind] = n
            got = f"<{kind}:{n}>"
            self.bind(got, value)
        return got

    def bind(self, ref: str, value: Any) -> None:
        m = REF.fullmatch(ref)
        if m is None:
            raise ValueError(f"not a reference: {ref!r}")
        kind, n = m.group(1), int(m.group(2))
        self.refs[ref] = value
        self._by_value[(kind, value)] = ref
        self._count[kind] = max(self._count.get(kind, 0), n)
        if kind == "tmp":
            self._temps.append(value)
            self._temps.sort(key=len, reverse=True)

    # --- value -> references -------------------------------------------------------------

    def _temp(self, path: str) -> str:
        for known in self._temps:
            if path == known:
                return self._by_value[("tmp", known)]
            if path.startswith(known + "/"):
                return self._by_value[("tmp", known)] + path[len(known) :]
        return self.ref("tmp", path)

    def text(self, s: str) -> str:
        s = _TEMP.sub(lambda m: self._temp(m.group(0)), s)
        return _TOKENS.sub(lambda m: self.ref(m.lastgroup or "?", m.group(0)), s)

    def value(self, v: Any, key: str | None = None) -> Any:
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, dict):
            return {self.text(k): self.value(x, k) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x, key) for x in v]
        if key in _KEY_KIND and isinstance(v, int) and not isinstance(v, bool):
            return self.ref(_KEY_KIND[key], v)
        return v

    # --- references -> values (replay) ---------------------------------------------------

    def restore(self, v: Any, recorded: dict[str, Any], fresh_temp=None) -> Any:
        """Put actual values back into a recorded request. A reference this replay has not seen
        yet is bound to its recorded value (the client chose it), a temp path to
        ``fresh_temp(recorded_path)`` (a new directory of this replay) when given."""

        def one(ref: str) -> Any:
            if ref not in self.refs:
                if ref.startswith("<tmp:") and fresh_temp is not None and ref in recorded:
                    self.bind(ref, fresh_temp(recorded[ref]))
                elif ref in recorded:
                    self.bind(ref, recorded[ref])
                else:
                    return ref
            return self.refs[ref]

        if isinstance(v, str):
            whole = REF.fullmatch(v)
            if whole:
                return one(v)
            return REF.sub(lambda m: str(one(m.group(0))), v)
        if isinstance(v, dict):
            return {
                self.restore(k, recorded, fresh_temp): self.restore(x, recorded, fresh_temp)
                for k, x in v.items()
            }
        if isinstance(v, list):
            return [self.restore(x, recorded, fresh_temp) for x in v]
        return v
