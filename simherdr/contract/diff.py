"""Compare two corpora step by step and sort the differences a client would feel.

The corpora are paired by cassette name (the same client suite recorded twice: two herdr
releases, a herdr and a simherdr). Inside a pair, connections are paired in the order they
opened, reply lines by position, CLI runs by number; each difference keeps the steps (in A and
in B) that show it. Categories, in report order: :data:`CATEGORIES`. Repeats of one difference
(same category, call and path) are listed once with a count.

A difference that repeats identically (the same category, call, path and values: every CLI
run's ``ping``) is listed once with its count. The project's version rows that differ between
the two releases (:mod:`.deltas`) explain differences, each by its row's name and source; a CLI
run's copy of a socket value is explained like the value. What none explains is listed as
*unexplained*.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import deltas, planes, termdiff
from .cassette import Cassette
from .verify import is_read, is_read_cli

# "<pane:12>" -> ["", "pane:", "12", ""]: the text around numbered references, kind, number
_REF_NUMBERED = re.compile(r"<([a-z]+:)([0-9]+)>")
# json.dumps(v, sort_keys=True[, default=str]), made once: json.dumps builds a new encoder for
# every call with options, half of a small value's encoding (a diff encodes ~30,000 of them)
_SORTED = json.JSONEncoder(sort_keys=True).encode
_SORTED_STR = json.JSONEncoder(sort_keys=True, default=str).encode
REPEAT = (
    "the client's own pacing: a read it made more often in one recording (a read changes "
    "nothing; the same read is compared where both recordings made it)"
)

CATEGORIES = (
    "fields added",
    "fields removed",
    "type changes",
    "enum values",
    "error codes",
    "error messages",
    "exit codes",
    "CLI usage",
    "event order",
    "requests",
    "values",
    "steps",
)
# Fields whose string values are closed sets (herdr's enums); other strings are "values".
ENUM_KEYS = frozenset(
    {
        "type",
        "event",
        "agent_status",
        "state",
        "status",
        "kind",
        "source",
        "direction",
        "agent",
        "format",
    }
)


@dataclass
class Difference:
    category: str
    cassette: str
    where: str  # the method or the CLI command
    path: str
    a: Any
    b: Any
    step_a: int | None
    step_b: int | None
    count: int = 1
    explained_by: str | None = None
    calls: tuple[str, ...] = ()  # a CLI run's socket methods (its copies of their replies)
    repeat: bool = False  # a read only one recording made more often (the client's pacing)

    @property
    def key(self) -> tuple:
        """Identical repeats share a key: the call without the CLI command that made it."""
        where = self.where.split(" (from ", 1)[0]
        return (
            self.category,
            where,
            re.sub(r"\[[0-9]+\]", "[*]", self.path),
            _SORTED_STR(self.a),
            _SORTED_STR(self.b),
        )


@dataclass
class _Pair:
    cassette: str
    out: list[Difference] = field(default_factory=list)
    # references are numbered per recording (in order of first sight): A's <pane:3> is B's
    # <pane:5> when B saw two panes more before it; a difference is a broken correspondence
    a_to_b: dict[str, str] = field(default_factory=dict)
    b_to_a: dict[str, str] = field(default_factory=dict)

    def corresponds(self, a: Any, b: Any) -> bool:
        """Whether two values name the same things: their numbered references, in order,
        agree with the correspondence so far (an event replayed from history is not the live
        one it happens to stand beside)."""
        ra = [m.group(1) + m.group(2) for m in _REF_NUMBERED.finditer(_SORTED(a))]
        rb = [m.group(1) + m.group(2) for m in _REF_NUMBERED.finditer(_SORTED(b))]
        if len(ra) != len(rb):
            return False
        return all(
            self.a_to_b.get(x, y) == y and self.b_to_a.get(y, x) == x
            for x, y in zip(ra, rb, strict=True)
        )

    def same_refs(self, a: str, b: str) -> bool:
        """``a`` and ``b`` are one text up to references that correspond (bound on first
        sight, as a replay binds them)."""
        pa, pb = _REF_NUMBERED.split(a), _REF_NUMBERED.split(b)
        if len(pa) != len(pb) or len(pa) == 1:
            return False
        new: dict[str, str] = {}
        for i, (x, y) in enumerate(zip(pa, pb, strict=True)):
            if i % 3 == 0:
                if x != y:
                    return False
                continue
            if i % 3 == 2:
                continue
            ra, rb = x + pa[i + 1], y + pb[i + 1]
            if x != y:  # a reference of another kind
                return False
            got = self.a_to_b.get(ra, new.get(ra))
            if got is None:
                if rb in self.b_to_a or rb in new.values():
                    return False
                new[ra] = rb
            elif got != rb:
                return False
        for ra, rb in new.items():
            self.a_to_b[ra], self.b_to_a[rb] = rb, ra
        return True

    def add(
        self, cat: str, where: str, path: str, a: Any, b: Any, sa: int | None, sb: int | None
    ) -> None:
        self.out.append(Difference(cat, self.cassette, where, path, a, b, sa, sb))


_PLAIN_SCALARS = frozenset({int, float, bool, type(None)})


_KINDS = {
    type(None): "null",
    bool: "boolean",
    int: "number",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def _kind(v: Any) -> str:
    kind = _KINDS.get(type(v))  # the plain types at once; a subclass as below
    if kind is not None:
        return kind
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int | float):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(v), type(v).__name__)


def _scalar_category(path: str, a: Any, b: Any) -> str:
    last = path.rsplit(".", 1)[-1]
    if path.endswith("error.code"):
        return "error codes"
    if path.endswith("error.message"):
        return "error messages"
    if last in ENUM_KEYS and isinstance(a, str) and isinstance(b, str):
        return "enum values"
    return "values"


def structural(
    p: _Pair, a: Any, b: Any, path: str, where: str, sa: int | None, sb: int | None
) -> None:
    t = type(a)
    if t is type(b) and a == b and (t in _PLAIN_SCALARS or (t is str and "<" not in a)):
        return  # equal scalars, no reference in them to bind: nothing below would differ
    if isinstance(a, dict) and isinstance(b, dict):
        if path == "$" and ("result" in a) != ("result" in b) and ("error" in a or "error" in b):
            ra = (
                a.get("error", {}).get("code")
                if "error" in a
                else f"result {a['result'].get('type')}"
            )
            rb = (
                b.get("error", {}).get("code")
                if "error" in b
                else f"result {b['result'].get('type')}"
            )
            p.add("error codes", where, "$", ra, rb, sa, sb)
            return
        for k in a:
            if k not in b:
                p.add("fields removed", where, f"{path}.{k}", _kind(a[k]), None, sa, sb)
        for k in b:
            if k not in a:
                p.add("fields added", where, f"{path}.{k}", None, _kind(b[k]), sa, sb)
        for k in a:
            if k in b:
                structural(p, a[k], b[k], f"{path}.{k}", where, sa, sb)
        return
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            structural(p, x, y, f"{path}[{i}]", where, sa, sb)
        if len(a) != len(b):
            p.add("values", where, f"{path} (length)", len(a), len(b), sa, sb)
        return
    ka, kb = _kind(a), _kind(b)
    if ka != kb:
        p.add("type changes", where, path, ka, kb, sa, sb)
        return
    if isinstance(a, str) and isinstance(b, str) and p.same_refs(a, b):
        return  # the same text, its references corresponding (each pair now bound)
    if a != b:
        p.add(_scalar_category(path, a, b), where, path, a, b, sa, sb)


def _conns(c: Cassette) -> dict[tuple, list[tuple[int, dict]]]:
    """Connections keyed by who opened them and in which order: ("socket", n) for the
    client's own, ("cli:k", n) for the n-th of CLI run k (a usage error that never reaches
    the socket in one release must not shift every later pairing)."""
    by_conn: dict[Any, list[tuple[int, dict]]] = {}
    for i, s in enumerate(c.steps, 1):
        if "conn" in s:
            by_conn.setdefault(s["conn"], []).append((i, s))
    out: dict[tuple, list[tuple[int, dict]]] = {}
    counts: dict[str, int] = {}
    for steps in by_conn.values():
        if any(s.get("poll") for _, s in steps):
            continue  # a CLI poll's repeats depend on timing; its last one is compared
        owner = next((s["via"] for _, s in steps if s.get("via")), "socket")
        counts[owner] = counts.get(owner, 0) + 1
        out[(owner, counts[owner])] = steps
    return out


def _unnumbered(v: Any) -> str:
    """A request's shape: its references without their numbers (each recording numbers its
    own), its id left out (a client's counter)."""
    if isinstance(v, dict):
        v = {k: x for k, x in v.items() if k != "id"}
    return _REF_NUMBERED.sub(lambda m: f"<{m.group(1)}>", _SORTED(v))


def _align_repeats(xs: list, ys: list, repeat, anchor=None) -> list[tuple[int | None, int | None]]:
    """:func:`_align` where a run of one repeated read (``repeat(sig)``: a client polling until
    herdr answers what it waits for) is compared by its last one; the others stand alone."""

    def last_of_runs(zs: list) -> list[int]:
        return [
            i for i, z in enumerate(zs) if not (repeat(z) and i + 1 < len(zs) and zs[i + 1] == z)
        ]

    kx, ky = last_of_runs(xs), last_of_runs(ys)
    paired = _align([xs[i] for i in kx], [ys[j] for j in ky], anchor)
    out: list[tuple[int | None, int | None]] = []
    done_x: set[int] = set()
    done_y: set[int] = set()
    for i, j in paired:
        i, j = (None if i is None else kx[i]), (None if j is None else ky[j])
        out.append((i, j))
        done_x.add(i) if i is not None else None
        done_y.add(j) if j is not None else None
        while i is not None and j is not None and i > 0 and j > 0:
            i, j = i - 1, j - 1  # the runs' earlier repeats, paired from the end
            if not (repeat(xs[i]) and xs[i] == xs[i + 1] and ys[j] == ys[j + 1]):
                break
            out.append((i, j))
            done_x.add(i)
            done_y.add(j)
    out += [(i, None) for i in range(len(xs)) if i not in done_x]
    out += [(None, j) for j in range(len(ys)) if j not in done_y]
    return out


def _align(xs: list, ys: list, anchor=None) -> list[tuple[int | None, int | None]]:
    """Pairs of positions of two sequences of signatures (difflib's alignment: the longest
    common runs in order; unequal stretches paired position by position, the rest alone).

    ``anchor(sig)``: the signatures that change state (a client's mutations, in the order its
    code makes them) are aligned first; what lies between two paired anchors (the reads a
    client's background loop makes as often as its timing lets it) is aligned there, so a
    read is compared with a read of the same stretch (the same state)."""
    from difflib import SequenceMatcher

    def plain(i0: int, i1: int, j0: int, j1: int) -> list[tuple[int | None, int | None]]:
        out: list[tuple[int | None, int | None]] = []
        ops = SequenceMatcher(None, xs[i0:i1], ys[j0:j1], autojunk=False).get_opcodes()
        for tag, a1, a2, b1, b2 in ops:
            n = min(a2 - a1, b2 - b1) if tag in ("equal", "replace") else 0
            out += [(i0 + a1 + k, j0 + b1 + k) for k in range(n)]
            out += [(i0 + i, None) for i in range(a1 + n, a2)]
            out += [(None, j0 + j) for j in range(b1 + n, b2)]
        return out

    if anchor is None:
        return plain(0, len(xs), 0, len(ys))
    return _align_anchored(xs, ys, anchor, plain)


def _align_anchored(xs: list, ys: list, anchor, plain) -> list[tuple[int | None, int | None]]:
    from difflib import SequenceMatcher

    ax = [i for i, x in enumerate(xs) if anchor(x)]
    ay = [j for j, y in enumerate(ys) if anchor(y)]
    fixed = [
        (ax[i], ay[j])
        for tag, i1, i2, j1, j2 in SequenceMatcher(
            None, [xs[i] for i in ax], [ys[j] for j in ay], autojunk=False
        ).get_opcodes()
        if tag == "equal"
        for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
    ]
    out: list[tuple[int | None, int | None]] = []
    i0 = j0 = 0
    for i, j in [*fixed, (len(xs), len(ys))]:
        out += plain(i0, i, j0, j)
        if i < len(xs):
            out.append((i, j))
        i0, j0 = i + 1, j + 1
    return out


def _conn_pairs(
    ca: dict[tuple, list], cb: dict[tuple, list], runs: dict[str, str]
) -> list[tuple[tuple | None, tuple | None]]:
    """The client's own connections aligned by what they asked; a CLI run's by their place in
    the runs paired by :func:`_run_pairs` (``runs``: A's ``cli:k`` -> B's)."""

    def sig(steps: list) -> str:
        send = next((s["send"] for _, s in steps if "send" in s), None)
        return _method(steps) + " " + _unnumbered(send)

    own_a = [k for k in ca if k[0] == "socket"]
    own_b = [k for k in cb if k[0] == "socket"]
    pairs: list[tuple[tuple | None, tuple | None]] = [
        (None if i is None else own_a[i], None if j is None else own_b[j])
        for i, j in _align_repeats(
            [sig(ca[k]) for k in own_a],
            [sig(cb[k]) for k in own_b],
            repeat=lambda x: is_read(x.split(" ", 1)[0]),
            anchor=lambda x: not is_read(x.split(" ", 1)[0]),
        )
    ]
    used: set[tuple] = set()
    for k in ca:
        if k[0] == "socket":
            continue
        other = (runs.get(k[0], "\0"), k[1])
        if other in cb:
            pairs.append((k, other))
            used.add(other)
        else:
            pairs.append((k, None))
    pairs += [(None, k) for k in cb if k[0] != "socket" and k not in used]
    return pairs


def _cli_names(c: Cassette) -> dict[str, str]:
    """``cli:k`` -> ``herdr <group> <verb>`` (the run that opened the connection)."""
    return {
        f"cli:{s['k']}": _cli_where(s["cli_run"].get("argv", [])) for s in c.steps if "cli_run" in s
    }


def _sent_id(sends: list) -> Any:
    first = sends[0][1] if sends else None
    return first.get("id", _NO_ID) if isinstance(first, dict) else _NO_ID


_NO_ID = object()


def _first_send(steps: list[tuple[int, dict]]) -> Any:
    return next((s["send"] for _, s in steps if "send" in s), None)


def _method(steps: list[tuple[int, dict]]) -> str:
    for _, s in steps:
        m = s.get("send", {}).get("method") if isinstance(s.get("send"), dict) else None
        if isinstance(m, str):
            return m
    return "(raw line)"


def _split(steps: list[tuple[int, dict]]) -> tuple[list, list]:
    """A connection's reply lines: (replies, stream events)."""
    lines, events = [], []
    for i, s in steps:
        v = s.get("recv")
        if v is None:
            continue
        (events if isinstance(v, dict) and isinstance(v.get("event"), str) else lines).append(
            (i, v)
        )
    return lines, events


def _diff_wire(p: _Pair, a: Cassette, b: Cassette, runs: dict[str, str]) -> None:
    ca, cb = _conns(a), _conns(b)
    names = _cli_names(a)
    names_b = _cli_names(b)
    sigs = {
        side: {(_method(steps), _unnumbered(_first_send(steps))) for steps in conns.values()}
        for side, conns in (("A", ca), ("B", cb))
    }
    pairs = _conn_pairs(ca, cb, runs)
    for ka, kb in pairs:
        if ka is not None and kb is not None:
            continue
        key = ka if ka is not None else kb
        assert key is not None
        side, steps = ("A", ca[key]) if ka is not None else ("B", cb[key])
        owner = (names if side == "A" else names_b).get(key[0], key[0])
        where = _method(steps) + (f" (from {owner})" if key[0] != "socket" else "")
        other = sigs["B" if side == "A" else "A"]
        # a read, or a connection that asked nothing (a probe whether the socket answers)
        quiet = is_read(_method(steps)) or _first_send(steps) is None
        repeat = quiet and (_method(steps), _unnumbered(_first_send(steps))) in other
        p.add(
            "steps",
            where,
            f"connection only in {side}" + (" (a repeated read)" if repeat else ""),
            None,
            None,
            steps[0][0] if side == "A" else None,
            steps[0][0] if side == "B" else None,
        )
        p.out[-1].repeat = repeat
    for ka, kb in pairs:
        if ka is None or kb is None:
            continue
        key = ka
        sa, sb = ca[ka], cb[kb]
        where = _method(sa)
        if key[0] != "socket":
            where = f"{where} (from {names.get(key[0], key[0])})"
        if _method(sb) != _method(sa):
            p.add("steps", where, "$.method", _method(sa), _method(sb), sa[0][0], sb[0][0])
            continue
        send_a = [(i, s["send"]) for i, s in sa if "send" in s]
        send_b = [(i, s["send"]) for i, s in sb if "send" in s]
        for (ia, x), (ib, y) in zip(send_a, send_b, strict=False):
            q = _Pair(p.cassette, a_to_b=p.a_to_b, b_to_a=p.b_to_a)
            if isinstance(x, dict) and isinstance(y, dict) and "id" in x and "id" in y:
                # a request's id is the client's own counter (herdr echoes it): compared only
                # through the reply, against the request it answers
                x, y = {**x, "id": None}, {**y, "id": None}
            structural(q, x, y, "$", where, ia, ib)
            for d in q.out:  # what the client (or the CLI) sent differs
                d.category = "requests"
            p.out += q.out
        lines_a, events_a = _split(sa)
        lines_b, events_b = _split(sb)
        ea, eb = [v["event"] for _, v in events_a], [v["event"] for _, v in events_b]
        if ea != eb:
            first = (
                (events_a or lines_a or [(None, None)])[0][0],
                (events_b or lines_b or [(None, None)])[0][0],
            )
            p.add("event order", where, "$.event", ea, eb, *first)
        # events aligned by what they say (references unnumbered): a release that replays
        # history (or not) differs in what comes first, and how many live events a stream
        # saw before its client closed it is the client's timing; an event that differs in a
        # field pairs with its counterpart in the unequal stretch
        alone_a, alone_b = [], []
        for ja, jb in _align(
            [_unnumbered(v) for _, v in events_a], [_unnumbered(v) for _, v in events_b]
        ):
            x = events_a[ja][1] if ja is not None else None
            y = events_b[jb][1] if jb is not None else None
            if x is not None and y is not None and x["event"] == y["event"] and p.corresponds(x, y):
                structural(p, x, y, "$", f"{where}: {x['event']}", events_a[ja][0], events_b[jb][0])
                continue
            alone_a += [(events_a[ja][0], x["event"])] if x is not None else []
            alone_b += [(events_b[jb][0], y["event"])] if y is not None else []
        if ea == eb and (alone_a or alone_b):
            # the same kinds of event, but about other things (a replayed one beside a live one)
            p.add(
                "event order",
                where,
                "$.event (without a counterpart)",
                [e for _, e in alone_a],
                [e for _, e in alone_b],
                (alone_a or [(None, None)])[0][0],
                (alone_b or [(None, None)])[0][0],
            )
        id_a = _sent_id(send_a)
        id_b = _sent_id(send_b)
        for (ia, x), (ib, y) in zip(lines_a, lines_b, strict=False):
            if (
                isinstance(x, dict)
                and isinstance(y, dict)
                and (x.get("id"), y.get("id"))
                == (
                    id_a,
                    id_b,
                )
            ):
                x, y = {**x, "id": None}, {**y, "id": None}  # each echoes its own request's id
            structural(p, x, y, "$", where, ia, ib)
        if len(lines_a) != len(lines_b):
            p.add("steps", where, "reply lines", len(lines_a), len(lines_b), sa[0][0], sb[0][0])


def _cli_text(v: Any) -> Any:
    return v["json"] if isinstance(v, dict) and "json" in v else v


def _cli_calls(c: Cassette) -> dict[int, tuple[str, ...]]:
    """CLI run k -> the socket methods it called (what its stdout may copy)."""
    out: dict[int, list[str]] = {}
    for s in c.steps:
        via = s.get("via")
        send = s.get("send")
        if isinstance(via, str) and via.startswith("cli:") and isinstance(send, dict):
            m = send.get("method")
            k = via[4:]
            if isinstance(m, str) and k.isdigit() and m not in out.setdefault(int(k), []):
                out[int(k)].append(m)
    return {k: tuple(v) for k, v in out.items()}


def _cli_where(argv: list) -> str:
    """``herdr <group> <verb>`` of a run, its global ``--session NAME`` left out."""
    words, i = [], 0
    while i < len(argv) and len(words) < 2:
        if argv[i] == "--session":
            i += 2
            continue
        if not str(argv[i]).startswith("--session="):
            words.append(str(argv[i]))
        i += 1
    return "herdr " + " ".join(words)


def _fields(text: Any) -> dict[str, Any] | None:
    """A CLI text of ``key: value`` lines only (herdr's plain status report) as a mapping, the
    numbers as numbers; None for any other text."""
    if not isinstance(text, str) or not text.strip():
        return None
    out: dict[str, Any] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(": ")
        if not sep or not re.fullmatch(r"[a-z_]+", key) or key in out:
            return None
        out[key] = int(value) if value.isdigit() else value
    return out


def _runs(c: Cassette) -> list[tuple[int, dict, Any]]:
    return [(i, s["cli_run"], s.get("k")) for i, s in enumerate(c.steps, 1) if "cli_run" in s]


def _run_pairs(a: Cassette, b: Cassette) -> list[tuple[tuple | None, tuple | None]]:
    """CLI runs aligned by their argv (references unnumbered): a client that polls ``herdr
    status`` until its server answers polls as often as its machine lets it."""
    runs_a, runs_b = _runs(a), _runs(b)
    sig = [[_unnumbered(r.get("argv")) for _, r, _ in runs] for runs in (runs_a, runs_b)]
    return [
        (None if i is None else runs_a[i], None if j is None else runs_b[j])
        for i, j in _align_repeats(sig[0], sig[1], repeat=lambda x: is_read_cli(json.loads(x)))
    ]


def _diff_cli(p: _Pair, a: Cassette, b: Cassette) -> dict[str, str]:
    """Compare the paired CLI runs; returns the pairing (A's ``cli:k`` -> B's)."""
    calls_a, calls_b = _cli_calls(a), _cli_calls(b)
    pairs = _run_pairs(a, b)
    argvs = {
        side: {_unnumbered(r[1].get("argv")) for r in (x[n] for x in pairs) if r is not None}
        for n, side in ((0, "A"), (1, "B"))
    }
    runs: dict[str, str] = {}
    for ra, rb in pairs:
        if ra is None or rb is None:
            i, x, _ = ra if ra is not None else rb  # type: ignore[misc]
            side = "A" if ra is not None else "B"
            argv = x.get("argv", [])
            repeat = is_read_cli(argv) and _unnumbered(argv) in argvs["B" if side == "A" else "A"]
            where = _cli_where(argv)
            p.add(
                "steps",
                where,
                f"CLI run only in {side}" + (" (a repeated read)" if repeat else ""),
                argv if side == "A" else None,
                argv if side == "B" else None,
                i if side == "A" else None,
                i if side == "B" else None,
            )
            p.out[-1].repeat = repeat
            continue
        (ia, x, ka), (ib, y, kb) = ra, rb
        runs[f"cli:{ka}"] = f"cli:{kb}"
        start = len(p.out)
        where = _cli_where(x.get("argv", []))
        if x.get("argv") != y.get("argv"):
            q = _Pair(p.cassette, a_to_b=p.a_to_b, b_to_a=p.b_to_a)
            structural(q, x.get("argv"), y.get("argv"), "argv", where, ia, ib)
            if q.out:
                p.add("steps", where, "argv", x.get("argv"), y.get("argv"), ia, ib)
                continue
        if x.get("exit") != y.get("exit"):
            p.add("exit codes", where, "exit", x.get("exit"), y.get("exit"), ia, ib)
        for stream in ("stdout", "stderr"):
            sx, sy = _cli_text(x.get(stream)), _cli_text(y.get(stream))
            fx, fy = _fields(sx), _fields(sy)
            if fx is not None and fy is not None and fx.keys() == fy.keys():
                # `herdr status server` prints "key: value" lines: compared field by field, so
                # its version and protocol lines are the rows' like the JSON copies
                structural(p, fx, fy, f"{stream}:$", where, ia, ib)
            elif isinstance(sx, str) or isinstance(sy, str):
                if sx != sy and not (
                    isinstance(sx, str) and isinstance(sy, str) and p.same_refs(sx, sy)
                ):
                    usage = 2 in (x.get("exit"), y.get("exit"))
                    p.add("CLI usage" if usage else "values", where, stream, sx, sy, ia, ib)
            else:
                structural(p, sx, sy, f"{stream}:$", where, ia, ib)
        calls = tuple(dict.fromkeys(calls_a.get(ka, ()) + calls_b.get(kb, ())))
        for d in p.out[start:]:
            d.calls = calls
    return runs


def diff_pair(a: Cassette, b: Cassette, name: str) -> list[Difference]:
    p = _Pair(name)
    runs = _diff_cli(p, a, b)
    _diff_wire(p, a, b, runs)
    return p.out


def diff_corpora(
    A: list[Cassette], B: list[Cassette], name_a: str = "A", name_b: str = "B"
) -> dict:
    """The report: metadata, the sorted differences (grouped), and the unpaired cassettes."""
    by_a = {Path(c.file).stem or c.name: c for c in A}
    by_b = {Path(c.file).stem or c.name: c for c in B}
    va = sorted({c.version for c in A if c.version})
    vb = sorted({c.version for c in B if c.version})
    known = deltas.for_versions(va[0] if len(va) == 1 else None, vb[0] if len(vb) == 1 else None)
    grouped: dict[tuple, Difference] = {}
    for name in sorted(set(by_a) & set(by_b)):
        for d in diff_pair(by_a[name], by_b[name], name):
            if d.key in grouped:
                grouped[d.key].count += 1
                continue
            why = deltas.explain(known, d, d.calls)
            # a version row first (a CLI run that reaches the socket in one release only pings
            # there); else a read the client merely repeated
            d.explained_by = str(why) if why is not None else REPEAT if d.repeat else None
            grouped[d.key] = d
    diffs = sorted(
        grouped.values(), key=lambda d: (CATEGORIES.index(d.category), d.cassette, d.step_a or 0)
    )
    return {
        "a": {"corpus": name_a, "versions": va},
        "b": {"corpus": name_b, "versions": vb},
        "client_socket": planes.client_socket(
            va[0] if len(va) == 1 else None, vb[0] if len(vb) == 1 else None
        ),
        "explanations": known.title if known else None,
        "only_in_a": sorted(set(by_a) - set(by_b)),
        "only_in_b": sorted(set(by_b) - set(by_a)),
        "differences": [asdict(d) for d in diffs],
        "unexplained": sum(1 for d in diffs if d.explained_by is None),
        "client_traffic": termdiff.traffic(by_a, by_b),
    }


def _cell(v: Any) -> str:
    import json

    s = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    s = s.replace("|", "\\|").replace("\n", "⏎")
    return s if len(s) <= 80 else s[:79] + "…"


def to_markdown(r: dict) -> str:
    a, b = r["a"], r["b"]
    out = [
        f"# herdr contract diff: {a['corpus']} ({', '.join(a['versions']) or '?'}) → "
        f"{b['corpus']} ({', '.join(b['versions']) or '?'})",
        "",
        f"{len(r['differences'])} differences, {r['unexplained']} unexplained"
        + (
            f" (explanations: {r['explanations']})"
            if r["explanations"]
            else " (no version rows known for these versions)"
        ),
        "",
    ]
    for side in ("only_in_a", "only_in_b"):
        if r[side]:
            out += [f"Cassettes {side.replace('_', ' ')}: {', '.join(r[side])}", ""]
    out += planes.client_socket_markdown(r.get("client_socket"))
    out += termdiff.markdown(r.get("client_traffic"))
    for cat in CATEGORIES:
        rows = [d for d in r["differences"] if d["category"] == cat]
        if not rows:
            continue
        out += [
            f"## {cat}",
            "",
            "| cassette | step A → B | call | path | A | B | explained by |",
            "|---|---|---|---|---|---|---|",
        ]
        for d in rows:
            steps = f"{d['step_a']} → {d['step_b']}" + (
                f" (×{d['count']})" if d["count"] > 1 else ""
            )
            out.append(
                f"| {d['cassette']} | {steps} | {_cell(d['where'])} | {_cell(d['path'])} | {_cell(d['a'])} "
                f"| {_cell(d['b'])} | {d['explained_by'] or '**unexplained**'} |"
            )
        out.append("")
    return "\n".join(out) + "\n"
