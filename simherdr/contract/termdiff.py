"""``contract diff`` of the recorded client-socket traffic: what a client's own attach, observe
and control sessions met differently on two releases (the tables' changes are
:mod:`.planes`'s; this is what the recordings show of them).

Connections of the client socket are paired by their order in each cassette of the same name.
Within a pair, the messages each side *sent* are paired in order, and so are the server's
messages other than frames (``Welcome``, ``ServerShutdown`` ...); frames are compared by the
screen the connection's frames drew in the end (the ``screen`` of its last frame step), not by
bytes. Each difference names the protocol row that explains it where the releases' tables
differ there (a variant or a field added, removed or moved: ``Hello`` -> ``TerminalHello`` is
``terminal_hello``), or ``protocol`` for a handshake's version number; else it is unexplained.
"""

from __future__ import annotations

import difflib
import json
from typing import TYPE_CHECKING, Any

from .termrecord import frame_of

if TYPE_CHECKING:
    from .cassette import Cassette

STEP = "client_conn"
KIND = {"send": "ClientMessage", "recv": "ServerMessage"}
# the handshake's version fields: their difference is the protocol number's (planes.py)
VERSION_FIELDS = {("Hello", "version"), ("TerminalHello", "version"), ("Welcome", "version")}


def _variant(message: Any) -> tuple[str, Any]:
    if isinstance(message, str):
        return message, None
    if isinstance(message, dict) and len(message) == 1:
        ((name, body),) = message.items()
        return str(name), body
    return json.dumps(message, sort_keys=True), None


def _connections(c: Cassette) -> list[list[tuple[int, dict]]]:
    by: dict[Any, list[tuple[int, dict]]] = {}
    for i, s in enumerate(c.steps, 1):
        if STEP in s:
            by.setdefault(s[STEP], []).append((i, s))
    return list(by.values())


def _messages(steps: list[tuple[int, dict]], d: str) -> list[tuple[int, Any]]:
    return [(i, s[d]) for i, s in steps if d in s and (d == "send" or frame_of(s[d]) is None)]


def _screen(steps: list[tuple[int, dict]]) -> tuple[int | None, Any]:
    for i, s in reversed(steps):
        if "screen" in s:
            return i, s["screen"]
    return None, None


class _Rows:
    """The protocol rows between the two sides' protocols, by what they changed."""

    def __init__(self, pa: int | None, pb: int | None) -> None:
        self.by: dict[tuple, str] = {}
        if pa is None or pb is None or pa == pb:
            return
        from ..protocol import PROTOCOLS
        from ..protocol.changes import plane_diff

        if pa not in PROTOCOLS or pb not in PROTOCOLS:
            return
        for ch in plane_diff(pa, pb).as_json()["changes"]:
            if ch["kind"] == "variant moved":
                continue  # a moved tag changes bytes, never which message a session meets
            key = (ch["type"], ch["variant"]) + ((ch["field"],) if ch["field"] else ())
            self.by.setdefault(key, ch["row"] or "unnamed row")

    def of(self, kind: str, *names: str) -> str | None:
        return self.by.get((kind, *names))


def _pair(
    out: list[dict], name: str, k: int, ca: list, cb: list, rows: _Rows, pa: Any, pb: Any
) -> None:
    def add(what: str, sa: Any, sb: Any, path: str, a: Any, b: Any, why: str | None) -> None:
        out.append(
            {"cassette": name, "connection": k, "what": what, "step_a": sa, "step_b": sb,
             "path": path, "a": a, "b": b, "explained_by": why}
        )  # fmt: skip

    for d in ("send", "recv"):
        ma, mb = _messages(ca, d), _messages(cb, d)
        names_a, names_b = [_variant(m)[0] for _, m in ma], [_variant(m)[0] for _, m in mb]
        # aligned by variant (a message one release adds shifts nothing after it)
        matcher = difflib.SequenceMatcher(None, names_a, names_b, autojunk=False)
        for op, a0, a1, b0, b1 in matcher.get_opcodes():
            if op != "equal" and a1 - a0 == b1 - b0:
                for n in range(a1 - a0):  # one variant for another (Hello -> TerminalHello)
                    (ia, _), (ib, _) = ma[a0 + n], mb[b0 + n]
                    va, vb = names_a[a0 + n], names_b[b0 + n]
                    why = rows.of(KIND[d], va) or rows.of(KIND[d], vb)
                    add("message", ia, ib, f"{d}[{a0 + n}]", va, vb, why)
                continue
            if op != "equal":
                for n in range(a0, a1):
                    why = rows.of(KIND[d], names_a[n])
                    add("message", ma[n][0], None, f"{d}[{n}]", names_a[n], "<none>", why)
                for n in range(b0, b1):
                    why = rows.of(KIND[d], names_b[n])
                    add("message", None, mb[n][0], f"{d}[{n}]", "<none>", names_b[n], why)
                continue
            for n in range(a1 - a0):
                (ia, a), (ib, b) = ma[a0 + n], mb[b0 + n]
                _fields(add, rows, d, f"{d}[{a0 + n}]", ia, ib, a, b, pa, pb)
    (sa, a), (sb, b) = _screen(ca), _screen(cb)
    if a != b:
        add("screen", sa, sb, "screen", a, b, None)


def _fields(add, rows: _Rows, d: str, path: str, ia, ib, a: Any, b: Any, pa, pb) -> None:
    """One message of the same variant on both sides, field by field."""
    (va, ba), (_, bb) = _variant(a), _variant(b)
    fa = ba if isinstance(ba, dict) else {}
    fb = bb if isinstance(bb, dict) else {}
    for f in dict.fromkeys([*fa, *fb]):
        x, y = fa.get(f, "<none>"), fb.get(f, "<none>")
        if x == y:
            continue
        why = rows.of(KIND[d], va, f)
        if why is None and (va, f) in VERSION_FIELDS and (x, y) == (pa, pb):
            why = "protocol"
        add("field", ia, ib, f"{path}.{va}.{f}", x, y, why)


def _cell(v: Any) -> str:
    s = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    s = s.replace("|", "\\|").replace("\n", "⏎")
    return s if len(s) <= 80 else s[:79] + "…"


def protocol_of(corpus: list[Cassette]) -> int | None:
    """The one protocol a corpus was recorded with (its cassettes' provenance), else None."""
    found = {c.provenance.get("protocol") for c in corpus if any(STEP in s for s in c.steps)}
    found.discard(None)
    one = found.pop() if len(found) == 1 else None
    return one if isinstance(one, int) and not isinstance(one, bool) else None


def traffic(by_a: dict[str, Cassette], by_b: dict[str, Cassette]) -> list[dict]:
    """The differences of the client-socket traffic of every cassette both sides hold."""
    pa, pb = protocol_of(list(by_a.values())), protocol_of(list(by_b.values()))
    rows = _Rows(pa, pb)
    out: list[dict] = []
    for name in sorted(set(by_a) & set(by_b)):
        ca, cb = _connections(by_a[name]), _connections(by_b[name])
        for k in range(max(len(ca), len(cb))):
            if k >= len(ca) or k >= len(cb):
                side = "B" if k >= len(ca) else "A"
                out.append(
                    {"cassette": name, "connection": k + 1, "what": f"connection only in {side}",
                     "step_a": None, "step_b": None, "path": "", "a": None, "b": None,
                     "explained_by": None}
                )  # fmt: skip
                continue
            _pair(out, name, k + 1, ca[k], cb[k], rows, pa, pb)
    return out


def markdown(diffs: list[dict] | None) -> list[str]:
    """The report's section (no lines when the recordings hold no client-socket traffic
    difference)."""
    if not diffs:
        return []
    unexplained = sum(1 for d in diffs if d["explained_by"] is None)
    out = [
        "## client socket traffic",
        "",
        f"{len(diffs)} differences in the recorded attach/observe/control sessions, "
        f"{unexplained} unexplained (frames compared by the screen they drew).",
        "",
        "| cassette | connection | step A → B | what | path | A | B | explained by |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for d in diffs:
        out.append(
            f"| {d['cassette']} | {d['connection']} | {d['step_a'] or '–'} → {d['step_b'] or '–'} "
            f"| {d['what']} | {_cell(d['path'])} | {_cell(d['a'])} | {_cell(d['b'])} "
            f"| {d['explained_by'] or '**unexplained**'} |"
        )
    return out + [""]
