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

from . import deltas
from .cassette import Cassette

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

    @property
    def key(self) -> tuple:
        """Identical repeats share a key: the call without the CLI command that made it."""
        where = self.where.split(" (from ", 1)[0]
        return (
            self.category,
            where,
            re.sub(r"\[[0-9]+\]", "[*]", self.path),
            json.dumps(self.a, sort_keys=True, default=str),
            json.dumps(self.b, sort_keys=True, default=str),
        )


@dataclass
class _Pair:
    cassette: str
    out: list[Difference] = field(default_factory=list)

    def add(
        self, cat: str, where: str, path: str, a: Any, b: Any, sa: int | None, sb: int | None
    ) -> None:
        self.out.append(Difference(cat, self.cassette, where, path, a, b, sa, sb))


def _kind(v: Any) -> str:
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
    if _kind(a) != _kind(b):
        p.add("type changes", where, path, _kind(a), _kind(b), sa, sb)
        return
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


def _cli_names(c: Cassette) -> dict[str, str]:
    """``cli:k`` -> ``herdr <group> <verb>`` (the run that opened the connection)."""
    return {
        f"cli:{s['k']}": "herdr " + " ".join(str(t) for t in s["cli_run"].get("argv", [])[:2])
        for s in c.steps
        if "cli_run" in s
    }


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


def _diff_wire(p: _Pair, a: Cassette, b: Cassette) -> None:
    ca, cb = _conns(a), _conns(b)
    names = _cli_names(a)
    for key in [k for k in ca if k not in cb] + [k for k in cb if k not in ca]:
        owner = names.get(key[0], key[0]) if key[0] != "socket" else "socket"
        side, steps = ("A", ca[key]) if key in ca else ("B", cb[key])
        where = _method(steps) + (f" (from {owner})" if owner != "socket" else "")
        p.add(
            "steps",
            where,
            f"connection only in {side}",
            None,
            None,
            steps[0][0] if side == "A" else None,
            steps[0][0] if side == "B" else None,
        )
    for key in [k for k in ca if k in cb]:
        sa, sb = ca[key], cb[key]
        where = _method(sa)
        if key[0] != "socket":
            where = f"{where} (from {names.get(key[0], key[0])})"
        if _method(sb) != _method(sa):
            p.add("steps", where, "$.method", _method(sa), _method(sb), sa[0][0], sb[0][0])
            continue
        send_a = [(i, s["send"]) for i, s in sa if "send" in s]
        send_b = [(i, s["send"]) for i, s in sb if "send" in s]
        for (ia, x), (ib, y) in zip(send_a, send_b, strict=False):
            q = _Pair(p.cassette)
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
        # the same event kind, paired from the end: a release that replays history (or not)
        # differs in what comes first, live events come last in both
        used: set[int] = set()
        for ia, x in reversed(events_a):
            j = next(
                (
                    k
                    for k in range(len(events_b) - 1, -1, -1)
                    if k not in used and events_b[k][1]["event"] == x["event"]
                ),
                None,
            )
            if j is not None:
                used.add(j)
                structural(p, x, events_b[j][1], "$", f"{where}: {x['event']}", ia, events_b[j][0])
        for (ia, x), (ib, y) in zip(lines_a, lines_b, strict=False):
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


def _diff_cli(p: _Pair, a: Cassette, b: Cassette) -> None:
    runs_a = [(i, s["cli_run"], s.get("k")) for i, s in enumerate(a.steps, 1) if "cli_run" in s]
    runs_b = [(i, s["cli_run"], s.get("k")) for i, s in enumerate(b.steps, 1) if "cli_run" in s]
    calls_a, calls_b = _cli_calls(a), _cli_calls(b)
    for (ia, x, ka), (ib, y, kb) in zip(runs_a, runs_b, strict=False):
        start = len(p.out)
        where = "herdr " + " ".join(str(t) for t in x.get("argv", [])[:2])
        if x.get("argv") != y.get("argv"):
            p.add("steps", where, "argv", x.get("argv"), y.get("argv"), ia, ib)
            continue
        if x.get("exit") != y.get("exit"):
            p.add("exit codes", where, "exit", x.get("exit"), y.get("exit"), ia, ib)
        for stream in ("stdout", "stderr"):
            sx, sy = _cli_text(x.get(stream)), _cli_text(y.get(stream))
            if isinstance(sx, str) or isinstance(sy, str):
                if sx != sy:
                    usage = 2 in (x.get("exit"), y.get("exit"))
                    p.add("CLI usage" if usage else "values", where, stream, sx, sy, ia, ib)
            else:
                structural(p, sx, sy, f"{stream}:$", where, ia, ib)
        calls = tuple(dict.fromkeys(calls_a.get(ka, ()) + calls_b.get(kb, ())))
        for d in p.out[start:]:
            d.calls = calls
    if len(runs_a) != len(runs_b):
        p.add("steps", "(CLI runs)", "count", len(runs_a), len(runs_b), None, None)


def diff_pair(a: Cassette, b: Cassette, name: str) -> list[Difference]:
    p = _Pair(name)
    _diff_wire(p, a, b)
    _diff_cli(p, a, b)
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
            d.explained_by = str(why) if why is not None else None
            grouped[d.key] = d
    diffs = sorted(
        grouped.values(), key=lambda d: (CATEGORIES.index(d.category), d.cassette, d.step_a or 0)
    )
    return {
        "a": {"corpus": name_a, "versions": va},
        "b": {"corpus": name_b, "versions": vb},
        "explanations": known.title if known else None,
        "only_in_a": sorted(set(by_a) - set(by_b)),
        "only_in_b": sorted(set(by_b) - set(by_a)),
        "differences": [asdict(d) for d in diffs],
        "unexplained": sum(1 for d in diffs if d.explained_by is None),
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
