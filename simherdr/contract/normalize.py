"""Normalization by reference: volatile values become numbered references, never erased.

The first pane id seen becomes ``<pane:1>`` and stays ``<pane:1>`` wherever it recurs (a
request, a reply, inside an error message), so a recorded conversation keeps its identities:
"the pane the split returned is the pane closed two steps later". The rules are data
(:data:`TOKEN_RULES`, :data:`KEY_RULES`), applied in one order, and each cassette lists them
with every reference's recorded value (``normalization`` in the cassette), so a reader sees
what was replaced and by what.

The recording's own context becomes *named* references first: its HOME (``<home>``), the
recorded command's cwd (``<cwd>``), the user and host names (``<user>``, ``<host>``) and the
recorder's own paths (``<recorder>``: the bin dir of the CLI recorder, ``<proxy>``: the socket
it listens on). A user never has to think about them: a recording made with a normal HOME
replays on a target whose home is a temporary directory.

Replay (:class:`Binder`) never renumbers: a reference is bound to the target's value the first
time the replay meets it, by matching the recorded text against the target's (so a step one
target skips cannot shift every later reference). A reference first met in a *request* (one
the client chose, e.g. a made-up ``w9:p9``) is bound to its recorded value, a temp path to a
fresh directory; the named ones are bound to the target's own context before the first step.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

RULES_VERSION = "simherdr-normalize/2"


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
# roots); a path under a known temp path keeps its tail (``<tmp:1>/sub``).
TEMP_ROOTS: tuple[str, ...] = tuple(
    dict.fromkeys([tempfile.gettempdir(), "/tmp", "/var/tmp", "/private/tmp", "/dev/shm"])
)
_PATH_CHARS = r"[^\s\"'`:,;()<>\[\]{}]"
_TEMP = re.compile(
    "(?:" + "|".join(re.escape(r) for r in TEMP_ROOTS) + r")(?:/" + _PATH_CHARS + "+)+"
)
_TOKENS = re.compile("|".join(f"(?P<{r.kind}>{r.pattern})" for r in TOKEN_RULES))
_KEY_KIND = {k: r.kind for r in KEY_RULES for k in r.keys}


@dataclass(frozen=True)
class NamedRule:
    """One value of the recording's context, replaced wherever it occurs."""

    name: str
    shape: str  # "path": a path prefix (``<home>/x``); "word": a whole path component or value
    source: str


# Order matters: the longest value wins where one contains another (a cwd under HOME is
# ``<cwd>``, HOME itself ``<home>``); named values go before temp paths (a HOME under /tmp is
# ``<home>``, not ``<tmp:1>``).
NAMED_RULES: tuple[NamedRule, ...] = (
    NamedRule("recorder", "path", "the CLI recorder's own bin dir (simherdr record --herdr-bin)"),
    NamedRule("proxy", "path", "the recording proxy's socket (simherdr record --socket)"),
    NamedRule("cwd", "path", "the recorded command's working directory"),
    NamedRule("home", "path", "the recording's HOME (the server's home shows in pane cwds)"),
    # CHOICE: user and host names only as a whole path component or value (``/home/<user>``,
    # ``<user>@<host>``): as words they could be anything ("root pane").
    NamedRule("user", "word", "the recording user's name"),
    NamedRule("host", "word", "the recording machine's host name"),
)
NAMES = tuple(r.name for r in NAMED_RULES)
# The client's own names, known from what it did (journal_to_cassette): ``launched``, the
# session of a server it launched itself (``herdr --session NAME server``).
WORDS = ("launched",)
_SHAPE = {r.name: r.shape for r in NAMED_RULES}
REF = re.compile(r"<([a-z]+):([0-9]+)>|<(" + "|".join(NAMES) + r")>")


def describe(context: dict[str, str] | None = None) -> dict:
    """The rules as the cassette shows them (with the recording's named values)."""
    out: dict[str, Any] = {
        "rules": RULES_VERSION,
        "named": [
            {"ref": f"<{r.name}>", "shape": r.shape, "source": r.source} for r in NAMED_RULES
        ],
        "tokens": [{"kind": r.kind, "pattern": r.pattern, "source": r.source} for r in TOKEN_RULES],
        "keys": [{"kind": r.kind, "keys": sorted(r.keys), "source": r.source} for r in KEY_RULES],
        "temp_roots": list(TEMP_ROOTS),
    }
    if context:
        out["context"] = {f"<{k}>": v for k, v in context.items()}
    return out


def recording_context(
    cwd: str | None = None,
    recorder: str | None = None,
    proxy: str | None = None,
    home: str | None = None,
) -> dict[str, str]:
    """The context of a recording made here and now: what :data:`NAMED_RULES` replace."""
    import getpass
    import os
    import socket

    ctx: dict[str, str] = {}
    for name, value in (
        ("recorder", recorder),
        ("proxy", proxy),
        ("cwd", cwd or os.getcwd()),
        ("home", home or os.path.expanduser("~")),
    ):
        if value and value not in ("/", ""):
            ctx[name] = os.path.abspath(value)
    try:
        ctx["user"] = getpass.getuser()
    except (KeyError, OSError):
        pass
    host = socket.gethostname()
    if host:
        ctx["host"] = host
    if ctx.get("cwd") == ctx.get("home"):
        del ctx["cwd"]  # one value, one name: the home (replay targets serve from their home)
    return {k: v for k, v in ctx.items() if k in NAMES and v and len(v) >= 2}


def _named_pattern(name: str, value: str) -> str:
    if _SHAPE[name] == "path":
        return re.escape(value.rstrip("/")) + r"(?=/|" + r"(?!" + _PATH_CHARS + r"))"
    return r"(?:^|(?<=[/@]))" + re.escape(value) + r"(?=[/@:]|$)"


def is_ref(v: Any) -> bool:
    return isinstance(v, str) and REF.fullmatch(v) is not None


@dataclass
class Normalizer:
    """One recording's references (value -> ``<kind:n>``; the named ones from ``context``)."""

    context: dict[str, str] = field(default_factory=dict)
    refs: dict[str, Any] = field(default_factory=dict)  # "<pane:1>" -> "w1:p1"
    _by_value: dict[tuple[str, Any], str] = field(default_factory=dict)
    _count: dict[str, int] = field(default_factory=dict)
    _temps: list[str] = field(default_factory=list)  # known temp paths, longest first
    _named: re.Pattern | None = None
    _words: re.Pattern | None = None  # the client's own names (:meth:`word`)

    def __post_init__(self) -> None:
        named = sorted(
            ((k, v) for k, v in self.context.items() if k in _SHAPE and v),
            key=lambda kv: len(kv[1]),
            reverse=True,
        )
        if named:
            self._named = re.compile("|".join(f"(?P<{k}>{_named_pattern(k, v)})" for k, v in named))

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
        if m is None or m.group(3):
            raise ValueError(f"not a numbered reference: {ref!r}")
        kind, n = m.group(1), int(m.group(2))
        self.refs[ref] = value
        self._by_value[(kind, value)] = ref
        self._count[kind] = max(self._count.get(kind, 0), n)
        if kind == "tmp":
            self._temps.append(value)
            self._temps.sort(key=len, reverse=True)

    def boundary(self) -> None:
        """A reset of the upstream (``server.reset``): its ids start again, so an id seen after
        it is a new reference; paths (the client's) and the context stay."""
        self._by_value = {k: v for k, v in self._by_value.items() if k[0] in ("tmp", *WORDS)}

    def word(self, kind: str, value: str) -> str:
        """A name the client chose for this run (``launched``: the session of a server it
        launched, e.g. ``lab-<its pid>``): a reference wherever it stands as a whole word."""
        ref = self.ref(kind, value)
        names = sorted(
            (v for (k, v) in self._by_value if k in WORDS and isinstance(v, str)),
            key=len,
            reverse=True,
        )
        self._words = re.compile(
            "|".join(rf"(?<![A-Za-z0-9._-]){re.escape(v)}(?![A-Za-z0-9._-])" for v in names)
        )
        return ref

    # --- value -> references -------------------------------------------------------------

    def _temp(self, path: str) -> str:
        for known in self._temps:
            if path == known:
                return self._by_value[("tmp", known)]
            if path.startswith(known + "/"):
                return self._by_value[("tmp", known)] + path[len(known) :]
        return self.ref("tmp", path)

    def _temp_outside_refs(self, s: str) -> str:
        """Temp paths in the text between references already in place (the named ones)."""
        out, last = [], 0
        for m in REF.finditer(s):
            out.append(_TEMP.sub(lambda t: self._temp(t.group(0)), s[last : m.start()]))
            out.append(m.group(0))
            last = m.end()
        out.append(_TEMP.sub(lambda t: self._temp(t.group(0)), s[last:]))
        return "".join(out)

    def text(self, s: str) -> str:
        if self._named is not None:
            s = self._named.sub(lambda m: f"<{m.lastgroup}>", s)
        s = self._temp_outside_refs(s)
        if self._words is not None:
            s = self._words.sub(lambda m: self._word_ref(m.group(0)), s)
        return _TOKENS.sub(lambda m: self.ref(m.lastgroup or "?", m.group(0)), s)

    def _word_ref(self, value: str) -> str:
        return next(r for (k, v), r in self._by_value.items() if k in WORDS and v == value)

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


# --- replay: references -> the target's values -----------------------------------------------

_KIND_PATTERN = {r.kind: r.pattern for r in TOKEN_RULES}
_KIND_PATTERN["launched"] = r"[A-Za-z0-9._-]+"  # herdr's session name (src/session.rs:425-446)
_KIND_PATTERN["tmp"] = r"/" + _PATH_CHARS + r"+?(?:/" + _PATH_CHARS + r"+?)*?"


_KIND_RE: dict[str, re.Pattern[str]] = {}


def _kind_re(kind: str) -> re.Pattern[str]:
    """The kind's value pattern, compiled once (as :meth:`Binder._unify_text` matches it)."""
    pattern = _KIND_RE.get(kind)
    if pattern is None:
        pattern = _KIND_RE[kind] = re.compile(_KIND_PATTERN.get(kind, ".+?"), re.DOTALL)
    return pattern


@dataclass
class Mismatch:
    path: str
    expected: Any
    actual: Any


class Binder:
    """One replay's bindings: reference -> the target's value, each bound on first sight.

    ``context``: the target's own named values (``<home>`` its home, ``<cwd>`` the replay's
    working directory, ``<recorder>`` its herdr bin dir ...), bound before the first step;
    ``recorded``: the cassette's references (a request's value the client chose);
    ``fresh_temp(recorded_path)``: a new directory of this replay, for a temp path a request
    names first."""

    def __init__(
        self,
        recorded: dict[str, Any],
        context: dict[str, str] | None = None,
        fresh_temp: Callable[[str], str] | None = None,
    ):
        self.recorded = recorded
        self.fresh_temp = fresh_temp
        self.bound: dict[str, Any] = {}
        self._owner: dict[tuple[str, str], str] = {}  # (kind, json value) -> ref
        for name, value in (context or {}).items():
            self._bind(f"<{name}>", value)

    @staticmethod
    def _kind(ref: str) -> str:
        m = REF.fullmatch(ref)
        assert m is not None
        return m.group(1) or m.group(3)

    def _bind(self, ref: str, value: Any) -> None:
        self.bound[ref] = value
        self._owner[(self._kind(ref), repr(value))] = ref

    def boundary(self) -> None:
        """The target was reset: ids bound so far are free again (paths and context stay)."""
        keep = {r for r in self.bound if self._kind(r) in ("tmp", *NAMES, *WORDS)}
        self.bound = {r: v for r, v in self.bound.items() if r in keep}
        self._owner = {k: r for k, r in self._owner.items() if r in keep}

    # --- requests -----------------------------------------------------------------------

    def _request_ref(self, ref: str) -> Any:
        if ref not in self.bound:
            if ref not in self.recorded:
                return ref
            if ref.startswith("<tmp:") and self.fresh_temp is not None:
                self._bind(ref, self.fresh_temp(self.recorded[ref]))
            else:
                self._bind(ref, self.recorded[ref])
        return self.bound[ref]

    def restore(self, v: Any) -> Any:
        """A recorded request with the actual values put back."""
        if isinstance(v, str):
            if REF.fullmatch(v):
                return self._request_ref(v)
            return REF.sub(lambda m: str(self._request_ref(m.group(0))), v)
        if isinstance(v, dict):
            return {self.restore(k): self.restore(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.restore(x) for x in v]
        return v

    # --- replies ------------------------------------------------------------------------

    def unify(self, expected: Any, actual: Any, commit: bool = True) -> list[Mismatch]:
        """Compare a recorded (normalized) value with the target's raw one; an unbound
        reference matches any value of its kind that no other reference holds, and is bound to
        it (``commit``: keep those bindings even when other paths differ)."""
        pending: dict[str, Any] = {}
        problems: list[Mismatch] = []
        self._unify(expected, actual, "$", pending, problems)
        if commit:
            for ref, value in pending.items():
                self._bind(ref, value)
        return problems

    def _lookup(self, ref: str, pending: dict[str, Any]) -> tuple[bool, Any]:
        if ref in self.bound:
            return True, self.bound[ref]
        if ref in pending:
            return True, pending[ref]
        return False, None

    def _taken(self, ref: str, value: Any, pending: dict[str, Any]) -> bool:
        owner = self._owner.get((self._kind(ref), repr(value)))
        if owner is not None and owner != ref:
            return True
        return any(
            r != ref and v == value and self._kind(r) == self._kind(ref) for r, v in pending.items()
        )

    def _unify(self, e: Any, a: Any, path: str, pending: dict, problems: list) -> None:
        if isinstance(e, str) and REF.search(e):
            self._unify_text(e, a, path, pending, problems)
            return
        if isinstance(e, dict):
            if not isinstance(a, dict):
                problems.append(Mismatch(path, e, self.display(a)))
                return
            keys = list(a)
            used: set[str] = set()
            for k, v in e.items():
                match = self._key(k, keys, used, pending)
                if match is None:
                    problems.append(Mismatch(f"{path}.{k}", v, "<missing>"))
                    continue
                used.add(match)
                self._unify(v, a[match], f"{path}.{k}", pending, problems)
            for k in keys:
                if k not in used:
                    problems.append(
                        Mismatch(f"{path}.{self.display(k)}", "<not expected>", self.display(a[k]))
                    )
            return
        if isinstance(e, list):
            if not isinstance(a, list) or len(a) != len(e):
                problems.append(Mismatch(path, e, self.display(a)))
                return
            for i, (x, y) in enumerate(zip(e, a, strict=True)):
                self._unify(x, y, f"{path}[{i}]", pending, problems)
            return
        if e != a or type(e) is not type(a):
            problems.append(Mismatch(path, e, self.display(a)))

    def _key(self, k: str, keys: list[str], used: set[str], pending: dict) -> str | None:
        if not REF.search(k):
            return k if k in keys and k not in used else None
        for cand in keys:
            if cand in used:
                continue
            trial = dict(pending)
            probs: list[Mismatch] = []
            self._unify_text(k, cand, "$", trial, probs)
            if not probs:
                pending.update(trial)
                return cand
        return None

    def _unify_text(self, e: str, a: Any, path: str, pending: dict, problems: list) -> None:
        whole = REF.fullmatch(e)
        if whole and not isinstance(a, str):
            # a numbered value recognised by its key (a pid, a unix-ms time)
            ok, value = self._lookup(e, pending)
            if ok:
                if value != a:
                    problems.append(Mismatch(path, e, self.display(a)))
            elif isinstance(a, int) and not isinstance(a, bool) and not self._taken(e, a, pending):
                pending[e] = a
            else:
                problems.append(Mismatch(path, e, self.display(a)))
            return
        if not isinstance(a, str):
            problems.append(Mismatch(path, e, self.display(a)))
            return
        if whole:
            # the whole value is one reference (most are): what the pattern below would be
            # (the bound value itself, or the kind's pattern), without building a regex
            ok, value = self._lookup(e, pending)
            if ok:
                if a != str(value):
                    problems.append(Mismatch(path, e, self.display(a)))
            elif _kind_re(self._kind(e)).fullmatch(a) is None or self._taken(e, a, pending):
                problems.append(Mismatch(path, e, self.display(a)))
            else:
                pending[e] = a
            return
        regex, groups = [], []
        text: list[str] | None = []  # the expected text while every reference is bound
        last = 0
        seen: dict[str, str] = {}
        for m in REF.finditer(e):
            regex.append(re.escape(e[last : m.start()]))
            if text is not None:
                text.append(e[last : m.start()])
            last = m.end()
            ref = m.group(0)
            ok, value = self._lookup(ref, pending)
            if ok:
                regex.append(re.escape(str(value)))
                if text is not None:
                    text.append(str(value))
            elif ref in seen:
                regex.append(f"(?P={seen[ref]})")
            else:
                g = f"g{len(groups)}"
                seen[ref] = g
                groups.append((g, ref))
                regex.append(f"(?P<{g}>{_KIND_PATTERN.get(self._kind(ref), '.+?')})")
            if not ok:
                text = None
        if text is not None:
            # all bound: the text itself (no pattern to build and compile, most of a replay's)
            if a != "".join(text) + e[last:]:
                problems.append(Mismatch(path, e, self.display(a)))
            return
        regex.append(re.escape(e[last:]))
        m2 = re.fullmatch("".join(regex), a, re.DOTALL)
        if m2 is None:
            problems.append(Mismatch(path, e, self.display(a)))
            return
        for g, ref in groups:
            value = m2.group(g)
            if self._taken(ref, value, pending):
                problems.append(Mismatch(path, e, self.display(a)))
                return
            pending[ref] = value
        return

    def display(self, v: Any) -> Any:
        """The target's value as the recording would show it (bound values -> references)."""
        if isinstance(v, str):
            for ref, value in sorted(
                ((r, x) for r, x in self.bound.items() if isinstance(x, str) and len(x) >= 2),
                key=lambda rx: len(rx[1]),
                reverse=True,
            ):
                v = v.replace(value, ref)
            return v
        if isinstance(v, dict):
            return {self.display(k): self.display(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.display(x) for x in v]
        return v
