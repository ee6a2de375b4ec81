"""The picture of a run: a trace (:mod:`simherdr.trace`) drawn as a self-contained HTML timeline.

``simherdr trace view FILE [-o OUT.html]``, ``simherdr run`` (on failure) and the pytest plugin
(for a failing test) write it. One SVG plus a small inline script (zoom and pan); no external
resource. What a reader sees:

- **The axis starts at the first entry shown** (after a ``trace.clear``: there, not at the
  server's t=0) and runs in simulated seconds. **Idle gaps are compressed**: a stretch of more
  than ``gap`` seconds (default :data:`GAP`) with nothing going on is drawn as a narrow hatched
  band labelled with its length (``g.gap[data-seconds]``), so the activity fills the width
  (``rect.cluster``: the stretches drawn to scale).
- **One lane per pane** (``g.lane.pane[data-pane]``): its agent status over time as bands
  (``rect.status[data-status]``) in colours that differ in hue *and* lightness, each band
  labelled with its status when it is wide enough; events about the pane are small marks
  (``.mark.event[data-type]``); scenario and control steps acting on it are labelled marks
  (``.mark.step[data-name]`` + ``text.step-label``). The lane is titled with every agent it
  had, in order (``pane w1:p1 · pi → claude``); where its agent changed it has a labelled mark
  (``.mark.agent[data-agent]``), and where its terminal was replaced (a server restart, or a
  new terminal id first seen in an event or a reply) a dashed line (``.mark.terminal``).
- **One lane per client** (``g.lane.client[data-client]``), named by its command and pid
  (``node --test · pid 812``); the stand-in's runs share the lane ``herdr (stand-in)``: each run
  is one span labelled with its command line (``herdr agent start a1 --kind pi ...``) with its
  socket calls as a strip inside it; a long-lived client's calls are spans labelled with the
  method. The stand-in's own ``ping`` before a call is folded into that call (``data-folded``).
  Error replies are red, unanswered calls hatched; faults are labelled diamonds
  (``.mark.fault[data-fault]``).
- Hover (``<title>``) shows the full request and reply; ``+`` / ``-`` / drag / ctrl+wheel zoom
  and pan; the legend wraps to the page width.
"""

from __future__ import annotations

import bisect
import html
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from .trace import terminal_lanes

STATUS_COLOURS = {  # hue and lightness both differ (a grey-scale print keeps them apart)
    "unknown": "#d5d8dc",
    "idle": "#7ccf8a",
    "working": "#f5a623",
    "blocked": "#d0021b",
    "done": "#2f6fd0",
    "closed": "#ffffff",
}
STATUS_TEXT = {"blocked": "#fff", "done": "#fff"}  # text on the dark bands
GAP = 1.0  # CHOICE: seconds of nothing that are compressed (simulated time)
GAP_PX = 34
MIN_CLUSTER_PX = 100
LEFT = 230  # lane labels
WIDTH = 1040  # the plot
TOP = 58
TAIL_PX = 150  # room right of the plot for the last labels
LANE_H = 28
ROW_H = 24
CHAR_PX = 6.3  # 11px system-ui, average
MAX_HOVER = 4000
RUN_PING_ID = (
    "simherdr-run"  # simherdr.run's own requests  # characters of request/reply JSON in a hover
)


def _esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _json(obj: Any, n: int = MAX_HOVER) -> str:
    text = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False, default=repr)
    return text if len(text) <= n else text[: n - 1] + "…"


def _fmt(t: float) -> str:
    if t == 0:
        return "0s"
    if abs(t) >= 100:
        return f"{t:.0f}s"
    if abs(t) >= 1:
        return f"{t:.2f}".rstrip("0").rstrip(".") + "s"
    if abs(t) >= 0.001:
        return f"{t * 1000:.1f}".rstrip("0").rstrip(".") + "ms"
    return f"{t * 1e6:.0f}µs"


def _pane_of(entry: dict) -> str | None:
    data = entry.get("data") if entry.get("kind") == "event" else entry.get("args")
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("pane_id"), str):
        return data["pane_id"]
    pane = data.get("pane")
    if isinstance(pane, dict) and isinstance(pane.get("pane_id"), str):
        return pane["pane_id"]
    return None


def _terminals(obj: Any, depth: int = 0) -> list[tuple[str, str]]:
    """(pane id, terminal id) of every pane object in an event's data or a reply's result."""
    if depth > 6 or not isinstance(obj, dict | list):
        return []
    ids = (obj.get("pane_id"), obj.get("terminal_id")) if isinstance(obj, dict) else (0, 0)
    out = [ids] if all(isinstance(i, str) for i in ids) else []
    for v in obj.values() if isinstance(obj, dict) else obj:
        out.extend(_terminals(v, depth + 1))
    return out  # type: ignore[return-value]


def lane_label(pid: str, p: dict) -> str:
    """A pane lane's title: the pane and every agent it had, in order."""
    agents = [a for _, a in p["agents"]]
    return f"pane {pid}" + (" · " + " → ".join(agents) if agents else "")


# --- the model: what the picture shows, as data (tests and the export read it) ----------------


@dataclass
class Call:
    """One request and its reply."""

    start: float
    conn: str
    id: Any
    method: str | None
    params: Any
    pid: int | None = None
    cmd: str | None = None
    end: float | None = None
    ok: bool | None = None
    code: str | None = None
    reply: Any = None
    folded: list[Call] = field(default_factory=list)  # pings folded into this call

    @property
    def is_ping(self) -> bool:
        return self.method == "ping"


@dataclass
class Span:
    """What a client lane draws: one call, or one stand-in run (all its calls)."""

    label: str
    start: float
    end: float | None
    calls: list[Call]
    client: str
    run: bool = False  # a stand-in process: the calls are its children

    @property
    def ok(self) -> bool | None:
        if any(c.ok is False for c in self.calls):
            return False
        return None if any(c.ok is None for c in self.calls) else True

    @property
    def code(self) -> str:
        for c in self.calls:
            if c.ok is False:
                return c.code or "no reply"
        return "pending" if self.ok is None else ""


def calls_of(entries: list[dict]) -> list[Call]:
    """Requests paired with their replies (by connection and id), in request order."""
    open_calls: dict[tuple, Call] = {}
    out: list[Call] = []
    for e in entries:
        kind = e.get("kind")
        if kind == "request":
            c = Call(
                start=float(e.get("t", 0.0)),
                conn=str(e.get("conn")),
                id=e.get("id"),
                method=e.get("method"),
                params=e.get("params"),
                pid=e.get("pid"),
                cmd=e.get("cmd"),
            )
            open_calls[(c.conn, c.id)] = c
            out.append(c)
        elif kind == "reply":
            c2 = open_calls.pop((str(e.get("conn")), e.get("id")), None)
            if c2 is not None:
                c2.end = float(e.get("t", 0.0))
                c2.ok = bool(e.get("ok"))
                c2.code = e.get("code") or ("" if e.get("ok") else "no reply")
                c2.reply = e.get("result") if e.get("ok") else e.get("error")
    return out


def _is_standin(calls: list[Call]) -> bool:
    ids = [str(c.id) for c in calls]
    return bool(ids) and all(i.startswith(("cli:", "api-client:")) for i in ids)


def cli_verb(call: Call) -> str:
    """``herdr agent start a1`` from the stand-in's request id and its key parameter (when the
    peer's command line is unknown)."""
    words = str(call.id).split(":")[1:]
    if words and words[-1] in ("pane", "status"):  # cli:agent:start:pane, api-client:status
        words = words[:-1]
    params = call.params if isinstance(call.params, dict) else {}
    key = next(
        (params[k] for k in ("name", "target", "pane_id") if isinstance(params.get(k), str)), None
    )
    return " ".join(["herdr", *words, *([key] if key else [])])


def _fold_pings(calls: list[Call]) -> list[Call]:
    """A ping followed by another call of the same process is folded into that call."""
    out: list[Call] = []
    pending: list[Call] = []
    for c in calls:
        if c.is_ping:
            pending.append(c)
            continue
        if pending:
            c.folded.extend(pending)
            c.start = min(c.start, pending[0].start)
            pending = []
        out.append(c)
    return out + pending


def _process_label(cmd: str | None, pid: int) -> str:
    return f"{cmd} · pid {pid}" if cmd else f"pid {pid}"


def spans_of(calls: list[Call]) -> list[Span]:
    by_pid: defaultdict[int, list[Call]] = defaultdict(list)
    for c in calls:
        if c.pid is not None:
            by_pid[c.pid].append(c)
    spans: list[Span] = []
    done_pids: set[int] = set()
    for c in calls:
        if c.pid is None:
            conn = c.conn
            client = "socket clients" if conn.startswith("c") and conn[1:].isdigit() else conn
            spans.append(Span(c.method or "?", c.start, c.end, [c], client))
            continue
        if c.pid in done_pids:
            continue
        done_pids.add(c.pid)
        mine = by_pid[c.pid]
        if _is_standin(mine):
            real = [x for x in mine if not x.is_ping] or mine
            label = mine[0].cmd or cli_verb(real[0])
            ends = [x.end for x in mine]
            end = None if any(x is None for x in ends) else max(e for e in ends if e is not None)
            _fold_pings(list(mine))  # each ping into the call it precedes (hover shows it)
            spans.append(Span(label, mine[0].start, end, mine, "herdr (stand-in)", run=True))
        else:
            client = _process_label(mine[0].cmd, c.pid)
            for x in _fold_pings(list(mine)):
                spans.append(Span(x.method or "?", x.start, x.end, [x], client))
    spans.sort(key=lambda s: s.start)
    return spans


def model(entries: list[dict]) -> dict:
    """What the picture shows, as data (the tests read it too). Times are seconds since the
    first entry (``origin``: its ``t``)."""
    origin = min((float(e.get("t", 0.0)) for e in entries), default=0.0)
    rel = [dict(e, t=float(e.get("t", 0.0)) - origin) for e in entries]
    end = max((e["t"] for e in rel), default=0.0)
    panes: dict[str, dict] = {}
    order: list[str] = []

    def pane(pid: str, t: float) -> dict:
        if pid not in panes:
            panes[pid] = {
                "segments": [],
                "marks": [],
                "status": "unknown",
                "since": t,
                "agent": None,  # the last one
                "agents": [],  # (t, agent) each time it changed
                "terminal": None,  # the last terminal id seen
                "replaced": None,  # the restart mark since it was seen (its new id not yet)
            }
            order.append(pid)
        return panes[pid]

    def set_agent(p: dict, agent: str, t: float) -> None:
        if agent == p["agent"]:
            return
        p["agent"] = agent
        p["agents"].append((t, agent))
        p["marks"].append(
            {"t": t, "class": "agent", "name": f"agent {agent}", "agent": agent, "title": agent}
        )

    def see_terminal(pid: str, term: str, t: float) -> None:
        p = pane(pid, t)
        old, p["terminal"] = p["terminal"], term
        if old is None or old == term:
            return
        mk = p["replaced"]
        if mk is not None:  # the restart replaced it: now its id is known
            mk["title"] += f": {old} → {term} (first seen at {_fmt(t)})"
            mk["terminal"], p["replaced"] = term, None
            return
        title = f"terminal replaced: {old} → {term} (first seen here)"
        p["marks"].append(
            {"t": t, "class": "terminal", "name": "new terminal", "terminal": term, "title": title}
        )

    def set_status(p: dict, status: str, t: float) -> None:
        if status == p["status"]:
            return
        p["segments"].append((p["since"], t, p["status"]))
        p["status"], p["since"] = status, t

    faults: list[dict] = []
    scenario_marks: list[dict] = []
    for e in rel:
        kind, t = e.get("kind"), e["t"]
        if kind == "event":
            data = e.get("data") or {}
            typ = e.get("type")
            pid = _pane_of(e)
            if pid is None:
                continue
            for tpid, term in _terminals(data):
                see_terminal(tpid, term, t)
            p = pane(pid, t)
            if typ == "pane_agent_status_changed":
                set_status(p, data.get("agent_status", "unknown"), t)
            elif typ in ("pane_closed", "pane_exited"):
                set_status(p, "closed", t)
            if typ in ("pane_agent_detected", "pane_agent_status_changed") and isinstance(
                data.get("agent"), str
            ):
                set_agent(p, data["agent"], t)
            p["marks"].append({"t": t, "class": "event", "type": typ, "title": _json(data, 600)})
        elif kind == "reply" and e.get("ok"):
            for tpid, term in _terminals(e.get("result")):
                see_terminal(tpid, term, t)
        elif kind == "step":
            if e.get("name") == "server_restart":  # fresh shells on every pane: no agent
                for p in panes.values():
                    if p["status"] != "closed":
                        set_status(p, "unknown", t)
                        # CHOICE: a restart gives every open pane a new terminal (as the model
                        # does): marked now, its id named once an event or a reply shows it
                        mk = {"t": t, "class": "terminal", "name": "new terminal",
                              "terminal": None, "title": "terminal replaced (server restart)"}  # fmt: skip
                        p["marks"].append(mk)
                        p["replaced"] = mk
            pid = _pane_of(e)
            mark = {
                "t": t,
                "class": "step",
                "name": e.get("name"),
                "title": _json(e.get("args"), 600),
                "conn": e.get("conn"),
            }
            if pid is not None:
                pane(pid, t)["marks"].append(mark)
            else:
                scenario_marks.append(mark)
        elif kind == "fault":
            faults.append(
                {
                    "t": t,
                    "conn": str(e.get("conn")),
                    "id": e.get("id"),
                    "fault": e.get("fault"),
                    "type": e.get("type"),
                    "method": e.get("method"),
                }
            )
    for p in panes.values():
        p["segments"].append((p["since"], end, p["status"]))
    # CHOICE: `simherdr run`'s own readiness ping (its id) is not the suite's: not drawn
    calls = [c for c in calls_of(rel) if c.id != RUN_PING_ID]
    spans = spans_of(calls) + [Span(*lane) for lane in terminal_lanes(rel)]
    spans.sort(key=lambda s: s.start)
    clients: dict[str, list[Span]] = {}
    for s in spans:
        clients.setdefault(s.client, []).append(s)
    for f in faults:
        for s in spans:
            if any(c.conn == f["conn"] and c.id == f["id"] for c in s.calls):
                f["client"] = s.client
                f["span_start"] = s.start
    return {
        "origin": origin,
        "end": end,
        "panes": [(pid, panes[pid]) for pid in order],
        "clients": clients,
        "calls": calls,
        "faults": faults,
        "scenario": scenario_marks,
    }


# --- the time axis: activity to scale, idle gaps compressed -----------------------------------


class Axis:
    """Piecewise-linear time -> x: clusters of activity drawn to scale (each at least
    :data:`MIN_CLUSTER_PX` wide), the gaps between them :data:`GAP_PX` wide."""

    def __init__(self, intervals: list[tuple[float, float]], end: float, gap: float = GAP):
        merged: list[list[float]] = []
        for a, b in sorted(intervals):
            if merged and a - merged[-1][1] <= gap:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        if not merged:
            merged = [[0.0, max(end, 0.0)]]
        self.clusters = [(a, b) for a, b in merged]
        self._ends = [b for _, b in self.clusters]
        n = len(self.clusters)
        avail = WIDTH - (n - 1) * GAP_PX
        min_px = min(MIN_CLUSTER_PX, avail / n)
        durations = [b - a for a, b in self.clusters]
        widths = [0.0] * n
        free = set(range(n))
        budget = float(avail)
        while free:  # clusters too short for min_px get it; the rest share what is left
            total = sum(durations[i] for i in free)
            if total <= 0:
                for i in free:
                    widths[i] = budget / len(free)
                break
            small = {i for i in free if durations[i] / total * budget < min_px}
            if not small:
                for i in free:
                    widths[i] = durations[i] / total * budget
                break
            for i in small:
                widths[i] = min_px
            free -= small
            budget -= min_px * len(small)
        self.widths = widths
        self.x0: list[float] = []
        x = float(LEFT)
        for w in widths:
            self.x0.append(x)
            x += w + GAP_PX
        self.right = self.x0[-1] + widths[-1]

    @property
    def gaps(self) -> list[tuple[float, float, float]]:
        """(x of the gap's left edge, its start, its end) for each compressed gap."""
        return [
            (self.x0[i] + self.widths[i], self.clusters[i][1], self.clusters[i + 1][0])
            for i in range(len(self.clusters) - 1)
        ]

    def __call__(self, t: float) -> float:
        i = min(bisect.bisect_left(self._ends, t), len(self.clusters) - 1)  # first end >= t
        a, b = self.clusters[i]
        if t < a and i > 0:  # in the gap before cluster i
            pa = self.clusters[i - 1][1]
            gx = self.x0[i - 1] + self.widths[i - 1]
            return round(gx + (t - pa) / (a - pa) * GAP_PX, 2)
        if b <= a:
            return round(self.x0[i] + self.widths[i] / 2, 2)
        frac = min(max((t - a) / (b - a), 0.0), 1.0)
        return round(self.x0[i] + frac * self.widths[i], 2)

    def ticks(self) -> list[tuple[float, float]]:
        """(t, x) of the labelled ticks: each cluster's start, then round steps inside it."""
        out: list[tuple[float, float]] = []
        for (a, b), x0, w in zip(self.clusters, self.x0, self.widths, strict=True):
            out.append((a, x0))
            n = int(w // 110)
            if n < 1 or b <= a:
                continue
            step = _nice((b - a) / n)
            t = (int(a / step) + 1) * step
            while t < b - step * 0.3:
                x = self(t)
                if x - out[-1][1] >= 80:
                    out.append((round(t, 9), x))
                t += step
        return out


def _nice(raw: float) -> float:
    import math

    if raw <= 0:
        return 1.0
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag  # pragma: no cover


def _intervals(m: dict) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for spans in m["clients"].values():
        for s in spans:
            out.append((s.start, s.end if s.end is not None else m["end"]))
    for _pid, p in m["panes"]:
        out.extend((mk["t"], mk["t"]) for mk in p["marks"])
    out.extend((mk["t"], mk["t"]) for mk in m["scenario"])
    out.extend((f["t"], f["t"]) for f in m["faults"])
    return out


def _rows(spans: list[Span], end: float, x: Axis) -> list[int]:
    """Stack overlapping spans (by drawn extent, label room included): the row of each."""
    free: list[float] = []
    rows = []
    for s in spans:
        x1 = x(s.start)
        x2 = max(x(s.end if s.end is not None else end), x1 + 3)
        for i, until in enumerate(free):
            if until <= x1:
                free[i] = x2 + 2
                rows.append(i)
                break
        else:
            free.append(x2 + 2)
            rows.append(len(free) - 1)
    return rows


def _fit(text: str, px: float) -> str:
    n = int(px // CHAR_PX)
    if n >= len(text):
        return text
    return text[: n - 1] + "…" if n >= 4 else ""


def _call_title(c: Call) -> str:
    stop = _fmt(c.end) if c.end is not None else "(no reply)"
    lines = [f"{c.method} id={c.id} {_fmt(c.start)} – {stop} on {c.conn}"]
    if c.cmd:
        lines.append(f"from: {c.cmd} (pid {c.pid})")
    for p in c.folded:
        lines.append(f"after its ping at {_fmt(p.start)} ({p.conn})")
    lines.append("request: " + _json(c.params))
    if c.ok is None:
        lines.append("reply: none yet")
    else:
        lines.append(("reply: " if c.ok else f"error {c.code}: ") + _json(c.reply))
    return "\n".join(lines)


# --- the page ----------------------------------------------------------------------------------


def render_html(entries: list[dict], title: str = "simherdr trace", gap: float = GAP) -> str:
    m = model(entries)
    end = m["end"]
    x = Axis(_intervals(m), end, gap)
    out: list[str] = []
    y = TOP
    plot_top = TOP
    for pid, p in m["panes"]:
        label = lane_label(pid, p)
        out.append(f'<g class="lane pane" data-pane="{_esc(pid)}">')
        out.append(
            f'<text class="label" x="8" y="{y + 18}">{_esc(_fit(label, LEFT - 14))}'
            f"<title>{_esc(label)}</title></text>"
        )
        for start, stop, status in p["segments"]:
            x1, x2 = x(start), x(stop)
            w = round(max(x2 - x1, 0.0), 2)
            colour = STATUS_COLOURS.get(status, "#999")
            out.append(
                f'<rect class="status status-{_esc(status)}" data-status="{_esc(status)}" '
                f'x="{x1}" y="{y + 5}" width="{w}" height="{LANE_H - 8}" fill="{colour}">'
                f"<title>{_esc(pid)}: {_esc(status)} {_fmt(start)} – {_fmt(stop)}</title></rect>"
            )
            text = _fit(status, w - 6)
            if text and status != "closed":
                out.append(
                    f'<text class="status-label" x="{x1 + 4}" y="{y + 19}" '
                    f'fill="{STATUS_TEXT.get(status, "#222")}">{_esc(text)}</text>'
                )
        _marks(out, p["marks"], x, y)
        out.append("</g>")
        y += LANE_H
    if m["scenario"]:
        out.append('<g class="lane scenario">')
        out.append(f'<text class="label" x="8" y="{y + 18}">scenario / control</text>')
        _marks(out, m["scenario"], x, y)
        out.append("</g>")
        y += LANE_H
    y += 8
    for client, spans in m["clients"].items():
        rows = _rows(spans, end, x)
        height = (max(rows, default=0) + 1) * ROW_H + 6
        out.append(f'<g class="lane client" data-client="{_esc(client)}">')
        out.append(
            f'<line class="lane-sep" x1="0" x2="{x.right}" y1="{y}" y2="{y}"/>'
            f'<text class="label" x="8" y="{y + 17}">{_esc(_fit(client, LEFT - 14))}'
            f"<title>{_esc(client)}</title></text>"
        )
        row_next: dict[int, float] = {}
        starts_by_row: defaultdict[int, list[float]] = defaultdict(list)
        for s, r in zip(spans, rows, strict=True):
            starts_by_row[r].append(x(s.start))
        where: dict[tuple, float] = {}
        for s, r in zip(spans, rows, strict=True):
            x1 = x(s.start)
            x2 = max(x(s.end if s.end is not None else end), x1 + 3)
            ry = y + 4 + r * ROW_H
            ok = s.ok
            cls = "call ok" if ok else ("call open" if ok is None else "call error")
            if s.run:
                cls += " run"
            row_starts = starts_by_row[r]  # ascending: spans come in start order
            k = bisect.bisect_right(row_starts, x1 + 0.5)
            room = (row_starts[k] if k < len(row_starts) else x.right + TAIL_PX) - x1 - 8
            row_next[r] = x2
            folded = sum(len(c.folded) for c in s.calls) + (
                sum(1 for c in s.calls if c.is_ping) if s.run else 0
            )
            # a terminal-plane client's span has no socket calls (trace.terminal_lanes)
            method = "run" if s.run else (s.calls[0].method if s.calls else "terminal")
            hover = "\n\n".join(_call_title(c) for c in s.calls if not (s.run and c.is_ping))
            hover = hover or s.label
            if s.run:
                hover = (
                    f"{s.label}\n({len(s.calls)} socket calls, pid {s.calls[0].pid})\n\n" + hover
                )
            out.append(
                f'<g class="span" data-label="{_esc(s.label)}">'
                f'<rect class="{cls}" data-method="{_esc(method)}" data-code="{_esc(s.code)}" '
                f'data-folded="{folded}" x="{x1}" y="{ry}" width="{round(x2 - x1, 2)}" '
                f'height="{ROW_H - 6}" rx="2"><title>{_esc(hover)}</title></rect>'
            )
            if s.run:  # the run's calls as a strip along its bottom
                for c in s.calls:
                    if c.is_ping:
                        continue
                    cx1 = x(c.start)
                    cx2 = max(x(c.end if c.end is not None else end), cx1 + 1.5)
                    sub = "sub ok" if c.ok else ("sub open" if c.ok is None else "sub error")
                    out.append(
                        f'<rect class="{sub}" data-method="{_esc(c.method)}" x="{cx1}" '
                        f'y="{ry + ROW_H - 10}" width="{round(cx2 - cx1, 2)}" height="3">'
                        f"<title>{_esc(_call_title(c))}</title></rect>"
                    )
            text = _fit(s.label, max(room, x2 - x1 - 4))
            if text:
                out.append(
                    f'<text class="call-label" x="{x1 + 3}" y="{ry + 12}">{_esc(text)}</text>'
                )
            out.append("</g>")
            for c in s.calls:
                where[(c.conn, c.id)] = ry
        for f in m["faults"]:
            if f.get("client") != client:
                continue
            fy = where.get((f["conn"], f["id"]), y + 4) + (ROW_H - 6) / 2
            fx = x(f["t"])
            out.append(
                f'<g class="fault-mark"><path class="mark fault" data-fault="{_esc(f["fault"])}" '
                f'd="M{fx},{fy - 7} l7,7 l-7,7 l-7,-7 z"><title>{_fmt(f["t"])} fault '
                f"{_esc(f['fault'])} ({_esc(f['type'])}) on {_esc(f['method'])} "
                f"id={_esc(f['id'])}</title></path>"
                f'<text class="fault-label" x="{fx - 9}" y="{fy + 4}" text-anchor="end">'
                f"{_esc(f['fault'])}</text></g>"
            )
        out.append("</g>")
        y += height
    plot_bottom = y
    axis = _axis(x, plot_top, plot_bottom)
    svg_w = round(x.right + TAIL_PX)
    svg_h = plot_bottom + 16
    legend = "".join(
        f'<span class="key"><i style="background:{c}"></i>{s}</span>'
        for s, c in STATUS_COLOURS.items()
        if s != "closed"
    )
    clusters = "".join(
        f'<rect class="cluster" x="{x0}" y="{plot_top - 4}" width="{round(w, 2)}" height="2"/>'
        for x0, w in zip(x.x0, x.widths, strict=True)
    )
    shown = f"{_fmt(end)} of simulated time from the first entry shown"
    if m["origin"]:
        shown += f" (t={_fmt(m['origin'])} of the server's trace)"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{_esc(title)}</title>
<style>
body {{ font: 13px system-ui, sans-serif; margin: 14px; color: #222; }}
h1 {{ font-size: 16px; margin: 0 0 4px; }}
.sub-title {{ color: #555; margin: 0 0 6px; }}
.legend {{ display: flex; flex-wrap: wrap; gap: 4px 14px; max-width: {svg_w}px; margin: 0 0 6px; }}
.key {{ white-space: nowrap; }} .key i {{ display: inline-block; width: 12px; height: 12px;
  margin-right: 4px; vertical-align: -2px; border: 1px solid #999; }}
.tools button {{ font: inherit; margin-right: 4px; }}
#view {{ overflow: auto; border: 1px solid #ddd; cursor: grab; max-width: 100%; }}
svg text {{ font-size: 11px; fill: #222; }}
svg .label {{ font-size: 12px; font-weight: 600; }}
.axis line {{ stroke: #888; }} .axis text {{ fill: #444; }}
.gap rect {{ fill: url(#hatch); }} .gap text {{ fill: #666; font-style: italic; }}
.cluster {{ fill: #888; }}
.lane-sep {{ stroke: #eee; }}
.call {{ stroke: #2b4a7a; stroke-width: .6; }}
.call.ok {{ fill: #cfe0f7; }} .call.error {{ fill: #f6b0ac; stroke: #a0201a; }}
.call.open {{ fill: url(#hatch); stroke-dasharray: 3 2; }}
.sub.ok {{ fill: #2b4a7a; }} .sub.error {{ fill: #c62828; }} .sub.open {{ fill: #999; }}
.call-label {{ pointer-events: none; }}
.status {{ stroke: #fff; stroke-width: .5; }} .status-closed {{ stroke: #bbb; stroke-dasharray: 2 2; }}
.status-label {{ pointer-events: none; font-size: 10.5px; }}
.mark.event {{ fill: #444; }} .mark.fault {{ fill: #d62728; stroke: #600; }}
.mark.step {{ fill: #7b3fbf; stroke: #fff; }} .step-line {{ stroke: #7b3fbf; stroke-dasharray: 2 2; }}
.step-label {{ fill: #5a2a91 !important; font-weight: 600; }}
.fault-label {{ fill: #a0201a !important; font-weight: 600; }}
.mark.agent {{ stroke: #0b6e4f; stroke-width: 2; }} .agent-label {{ fill: #0b6e4f !important; font-size: 10px; font-weight: 600; }}
.mark.terminal {{ stroke: #222; stroke-width: 1.5; stroke-dasharray: 3 2; }}
</style></head><body>
<h1>{_esc(title)}</h1>
<p class="sub-title">{shown}; {len(entries)} trace entries. Idle stretches over {gap:g} s are
compressed (hatched, with their length). Hover for the full request and reply.</p>
<div class="legend">{legend}<span class="key"><i style="background:#cfe0f7"></i>call ok</span>
<span class="key"><i style="background:#f6b0ac"></i>error reply</span>
<span class="key"><i style="background:#eee"></i>no reply</span>
<span class="key" style="color:#d62728">&#9670; fault</span>
<span class="key" style="color:#7b3fbf">&#9679; scenario / control step</span>
<span class="key">&#9650; event</span>
<span class="key" style="color:#0b6e4f">| agent changed</span>
<span class="key">&#8942; terminal replaced</span></div>
<div class="tools"><button id="zin" title="zoom in">+</button><button id="zout" title="zoom out">&minus;</button><button id="zreset">reset</button>
<span style="color:#666">drag to pan, ctrl+wheel to zoom</span></div>
<div id="view"><svg id="timeline" xmlns="http://www.w3.org/2000/svg" width="{svg_w}" height="{svg_h}"
 viewBox="0 0 {svg_w} {svg_h}" data-plot-left="{LEFT}" data-plot-right="{round(x.right, 2)}">
<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
<rect width="6" height="6" fill="#f3f3f3"/><line x1="0" y1="0" x2="0" y2="6" stroke="#d0d0d0" stroke-width="2"/></pattern></defs>
{axis}
{clusters}
{"".join(out)}
</svg></div>
<script>
(() => {{
  const view = document.getElementById("view"), svg = document.getElementById("timeline");
  const w0 = {svg_w}, h0 = {svg_h}; let z = 1;
  const zoom = (f, cx) => {{
    const before = (view.scrollLeft + (cx ?? view.clientWidth / 2)) / z;
    z = Math.min(40, Math.max(1, z * f));
    svg.setAttribute("width", w0 * z); svg.setAttribute("height", h0 * z);
    view.scrollLeft = before * z - (cx ?? view.clientWidth / 2);
  }};
  document.getElementById("zin").onclick = () => zoom(1.5);
  document.getElementById("zout").onclick = () => zoom(1 / 1.5);
  document.getElementById("zreset").onclick = () => zoom(1 / z);
  view.addEventListener("wheel", (e) => {{
    if (!e.ctrlKey) return;
    e.preventDefault();
    zoom(e.deltaY < 0 ? 1.25 : 0.8, e.clientX - view.getBoundingClientRect().left);
  }}, {{ passive: false }});
  let drag = null;
  view.addEventListener("mousedown", (e) => {{ drag = [e.clientX, e.clientY, view.scrollLeft, view.scrollTop]; view.style.cursor = "grabbing"; }});
  addEventListener("mouseup", () => {{ drag = null; view.style.cursor = "grab"; }});
  addEventListener("mousemove", (e) => {{
    if (!drag) return;
    view.scrollLeft = drag[2] - (e.clientX - drag[0]); view.scrollTop = drag[3] - (e.clientY - drag[1]);
  }});
}})();
</script>
</body></html>
"""


def _marks(out: list[str], marks: list[dict], x: Axis, y: float) -> None:
    """Events as small triangles; steps as labelled dots (labels stacked when they crowd)."""
    last_label_x = -1e9
    level = 0
    for mk in marks:
        cx = x(mk["t"])
        if mk["class"] == "event":
            out.append(
                f'<path class="mark event" data-type="{_esc(mk["type"])}" '
                f'd="M{cx},{y + 2} l3.5,4.5 l-7,0 z"><title>{_fmt(mk["t"])} event '
                f"{_esc(mk['type'])} {_esc(mk['title'])}</title></path>"
            )
        elif mk["class"] in ("agent", "terminal"):  # a change of the lane: a line across it
            cls, what = mk["class"], _esc(mk.get(mk["class"]) or "")
            text = f'<text class="{cls}-label" x="{cx + 3}" y="{y + LANE_H - 3}">{what}</text>'
            out.append(
                f'<g class="{cls}-mark"><line class="mark {cls}" data-{cls}="{what}" x1="{cx}" '
                f'x2="{cx}" y1="{y + 1}" y2="{y + LANE_H - 1}"><title>{_fmt(mk["t"])} '
                f"{_esc(mk['title'])}</title></line>{text if cls == 'agent' else ''}</g>"
            )
    for mk in marks:
        if mk["class"] != "step":
            continue
        cx = x(mk["t"])
        name = str(mk["name"])
        level = level + 1 if cx - last_label_x < len(name) * CHAR_PX + 8 else 0
        last_label_x = cx
        ly = y + 11 + (level % 2) * 11
        out.append(
            f'<g class="step-mark"><circle class="mark step" data-name="{_esc(name)}" cx="{cx}" '
            f'cy="{y + LANE_H / 2}" r="5"><title>{_fmt(mk["t"])} step {_esc(name)} from '
            f"{_esc(mk.get('conn'))} {_esc(mk['title'])}</title></circle>"
            f'<text class="step-label" x="{cx + 7}" y="{ly}">{_esc(name)}</text></g>'
        )


def _axis(x: Axis, top: float, bottom: float) -> str:
    parts = [f'<g class="axis"><line x1="{LEFT}" y1="{top - 10}" x2="{x.right}" y2="{top - 10}"/>']
    for t, tx in x.ticks():
        parts.append(
            f'<line class="tick" x1="{tx}" y1="{top - 14}" x2="{tx}" y2="{top - 6}"/>'
            f'<text x="{tx + 2}" y="{top - 18}">{_fmt(t)}</text>'
        )
    parts.append("</g>")
    for gx, a, b in x.gaps:
        parts.append(
            f'<g class="gap" data-seconds="{round(b - a, 6)}"><rect x="{gx + 2}" y="{top - 12}" '
            f'width="{GAP_PX - 4}" height="{bottom - top + 12}"/>'
            f'<text x="{gx + GAP_PX / 2}" y="{top - 30}" text-anchor="middle">+{_fmt(b - a)}</text>'
            f"<title>{_fmt(b - a)} with nothing going on, compressed</title></g>"
        )
    return "".join(parts)
