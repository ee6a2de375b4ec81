"""The picture of a race: a trace (:mod:`simherdr.trace`) drawn as a self-contained HTML timeline.

``simherdr trace view FILE [-o OUT.html]`` and the pytest plugin (for a failing test) write it.
One SVG, no script, no external resource:

- the axis is simulated time (seconds since the trace started);
- one lane per pane (``g.lane.pane[data-pane]``): its agent status over time as coloured
  segments (``rect.status[data-status]``), from ``pane_created`` / ``pane_agent_status_changed``
  to ``pane_closed`` / ``pane_exited``; events about the pane and scenario steps acting on it
  are marks on the lane (``.mark.event[data-type]``, ``.mark.step[data-name]``);
- one lane per client (``g.lane.client[data-client]``): its calls as spans from request to
  reply (``rect.call[data-method][data-code]``, an error reply in red, no reply hatched),
  overlapping calls stacked; faults that acted on a call are marks (``.mark.fault``).
  A socket client that made several calls from one process is one client (its pid); one-call
  processes (each stand-in ``herdr`` run) share the lane "socket clients".

Every element has a ``<title>`` (hover) with the details.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from typing import Any

STATUS_COLOURS = {
    "unknown": "#c9ccd1",
    "idle": "#8fd19e",
    "working": "#f0b44c",
    "blocked": "#e0625a",
    "done": "#4b9be0",
    "closed": "#ffffff",
}
LANE_H = 26
ROW_H = 16
LEFT = 150
WIDTH = 1100
TOP = 36


def _esc(x) -> str:
    return html.escape(str(x), quote=True)


def _short(obj, n=300) -> str:
    text = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False, default=repr)
    return text if len(text) <= n else text[: n - 1] + "…"


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


def model(entries: list[dict]) -> dict:
    """What the picture shows, as data (the tests read it too)."""
    end = max((e.get("t", 0.0) for e in entries), default=0.0)
    panes: dict[str, dict] = {}
    order: list[str] = []

    def pane(pid: str, t: float) -> dict:
        if pid not in panes:
            panes[pid] = {"segments": [], "marks": [], "status": "unknown", "since": t}
            order.append(pid)
        return panes[pid]

    def set_status(p: dict, status: str, t: float) -> None:
        if status == p["status"]:
            return
        p["segments"].append((p["since"], t, p["status"]))
        p["status"], p["since"] = status, t

    calls: dict[tuple, dict[str, Any]] = {}
    spans: list[dict] = []
    faults: list[dict] = []
    scenario_marks: list[dict] = []
    for e in entries:
        kind, t = e.get("kind"), float(e.get("t", 0.0))
        if kind == "event":
            data = e.get("data") or {}
            typ = e.get("type")
            pid = _pane_of(e)
            if pid is None:
                continue
            p = pane(pid, t)
            if typ == "pane_agent_status_changed":
                set_status(p, data.get("agent_status", "unknown"), t)
            elif typ in ("pane_closed", "pane_exited"):
                set_status(p, "closed", t)
            p["marks"].append({"t": t, "class": "event", "type": typ, "title": _short(data)})
        elif kind == "step":
            if e.get("name") == "server_restart":  # fresh shells on every pane: no agent
                for p in panes.values():
                    if p["status"] != "closed":
                        set_status(p, "unknown", t)
            pid = _pane_of(e)
            mark = {"t": t, "class": "step", "name": e.get("name"), "title": _short(e.get("args"))}
            if pid is not None:
                pane(pid, t)["marks"].append(mark)
            else:
                scenario_marks.append(mark)
        elif kind == "request":
            key = (e.get("conn"), e.get("id"))
            span = {
                "start": t,
                "end": None,
                "conn": e.get("conn"),
                "pid": e.get("pid"),
                "method": e.get("method"),
                "id": e.get("id"),
                "params": e.get("params"),
                "code": None,
                "ok": None,
            }
            calls[key] = span
            spans.append(span)
        elif kind == "reply":
            answered = calls.pop((e.get("conn"), e.get("id")), None)
            if answered is not None:
                answered["end"] = t
                answered["ok"] = bool(e.get("ok"))
                answered["code"] = e.get("code") or ("" if e.get("ok") else "no reply")
        elif kind == "fault":
            faults.append(
                {
                    "t": t,
                    "conn": e.get("conn"),
                    "id": e.get("id"),
                    "fault": e.get("fault"),
                    "type": e.get("type"),
                    "method": e.get("method"),
                }
            )
    for p in panes.values():
        p["segments"].append((p["since"], end, p["status"]))
    # clients: in-process labels as they are; socket connections by pid when a pid made
    # several calls, else the shared lane
    per_pid: defaultdict[int, int] = defaultdict(int)
    for s in spans:
        if s["pid"] is not None:
            per_pid[s["pid"]] += 1
    clients: dict[str, list[dict]] = {}
    for s in spans:
        conn = str(s["conn"])
        if conn.startswith("c") and conn[1:].isdigit():
            lane = (
                f"pid {s['pid']}"
                if s["pid"] is not None and per_pid[s["pid"]] > 1
                else "socket clients"
            )
        else:
            lane = conn
        s["client"] = lane
        clients.setdefault(lane, []).append(s)
    for f in faults:
        for s in spans:
            if s["conn"] == f["conn"] and s["id"] == f["id"]:
                f["client"] = s["client"]
                f["span_start"] = s["start"]
    return {
        "end": end,
        "panes": [(pid, panes[pid]) for pid in order],
        "clients": clients,
        "faults": faults,
        "scenario": scenario_marks,
    }


def _rows(spans: list[dict], end: float) -> list[int]:
    """Stack overlapping spans: the row of each span."""
    free: list[float] = []
    rows = []
    for s in spans:
        stop = s["end"] if s["end"] is not None else end
        for i, until in enumerate(free):
            if until <= s["start"]:
                free[i] = max(stop, s["start"] + 1e-9)
                rows.append(i)
                break
        else:
            free.append(max(stop, s["start"] + 1e-9))
            rows.append(len(free) - 1)
    return rows


def render_html(entries: list[dict], title: str = "simherdr trace") -> str:
    m = model(entries)
    end = m["end"] or 1.0
    scale = WIDTH / end

    def x(t: float) -> float:
        return round(LEFT + t * scale, 2)

    out: list[str] = []
    y = TOP
    # axis
    ticks = _ticks(end)
    axis = [
        f'<g class="axis"><line x1="{LEFT}" y1="{TOP - 8}" x2="{LEFT + WIDTH}" y2="{TOP - 8}"/>'
    ]
    for t in ticks:
        axis.append(
            f'<line class="tick" x1="{x(t)}" y1="{TOP - 12}" x2="{x(t)}" y2="{TOP - 4}"/>'
            f'<text x="{x(t)}" y="{TOP - 16}" text-anchor="middle">{t:g}s</text>'
        )
    axis.append("</g>")
    for pid, p in m["panes"]:
        out.append(f'<g class="lane pane" data-pane="{_esc(pid)}">')
        out.append(f'<text class="label" x="8" y="{y + 17}">pane {_esc(pid)}</text>')
        for start, stop, status in p["segments"]:
            w = max(x(stop) - x(start), 0.0)
            out.append(
                f'<rect class="status status-{_esc(status)}" data-status="{_esc(status)}" '
                f'x="{x(start)}" y="{y + 4}" width="{w}" height="{LANE_H - 8}" '
                f'fill="{STATUS_COLOURS.get(status, "#999")}">'
                f"<title>{_esc(pid)}: {_esc(status)} {start:g}s–{stop:g}s</title></rect>"
            )
        for mk in p["marks"]:
            cx = x(mk["t"])
            if mk["class"] == "event":
                out.append(
                    f'<path class="mark event" data-type="{_esc(mk["type"])}" '
                    f'd="M{cx},{y + 1} l3,4 l-6,0 z"><title>{mk["t"]:g}s event '
                    f"{_esc(mk['type'])} {_esc(mk['title'])}</title></path>"
                )
            else:
                out.append(
                    f'<circle class="mark step" data-name="{_esc(mk["name"])}" cx="{cx}" '
                    f'cy="{y + LANE_H / 2}" r="5"><title>{mk["t"]:g}s step {_esc(mk["name"])} '
                    f"{_esc(mk['title'])}</title></circle>"
                )
        out.append("</g>")
        y += LANE_H
    if m["scenario"]:
        out.append('<g class="lane scenario">')
        out.append(f'<text class="label" x="8" y="{y + 17}">scenario</text>')
        for mk in m["scenario"]:
            out.append(
                f'<circle class="mark step" data-name="{_esc(mk["name"])}" cx="{x(mk["t"])}" '
                f'cy="{y + LANE_H / 2}" r="5"><title>{mk["t"]:g}s step {_esc(mk["name"])} '
                f"{_esc(mk['title'])}</title></circle>"
            )
        out.append("</g>")
        y += LANE_H
    y += 10
    for client, spans in m["clients"].items():
        rows = _rows(spans, end)
        height = max(rows, default=0) * ROW_H + LANE_H
        out.append(f'<g class="lane client" data-client="{_esc(client)}">')
        out.append(f'<text class="label" x="8" y="{y + 17}">{_esc(client)}</text>')
        row_of = {}
        for s, r in zip(spans, rows, strict=False):
            row_of[(s["conn"], s["id"])] = r
            stop = s["end"] if s["end"] is not None else end
            w = max(x(stop) - x(s["start"]), 2.0)
            cls = "call ok" if s["ok"] else ("call open" if s["ok"] is None else "call error")
            code = s["code"] if s["code"] is not None else "pending"
            out.append(
                f'<rect class="{cls}" data-method="{_esc(s["method"])}" data-code="{_esc(code)}" '
                f'x="{x(s["start"])}" y="{y + 4 + r * ROW_H}" width="{w}" height="{ROW_H - 3}">'
                f"<title>{s['start']:g}s–{stop:g}s {_esc(s['conn'])} {_esc(s['method'])} "
                f"id={_esc(s['id'])} {_esc(code or 'ok')} {_esc(_short(s['params']))}</title></rect>"
            )
            if w > 40:
                out.append(
                    f'<text class="call-label" x="{x(s["start"]) + 2}" '
                    f'y="{y + 4 + r * ROW_H + 10}">{_esc(s["method"])}</text>'
                )
        for f in m["faults"]:
            if f.get("client") != client:
                continue
            r = row_of.get((f["conn"], f["id"]), 0)
            cx, cy = x(f["t"]), y + 4 + r * ROW_H + (ROW_H - 3) / 2
            out.append(
                f'<path class="mark fault" data-fault="{_esc(f["fault"])}" '
                f'd="M{cx},{cy - 7} l7,7 l-7,7 l-7,-7 z"><title>{f["t"]:g}s fault '
                f"{_esc(f['fault'])} ({_esc(f['type'])}) on {_esc(f['method'])} "
                f"id={_esc(f['id'])}</title></path>"
            )
        out.append("</g>")
        y += height
    legend = " ".join(
        f'<span class="key"><i style="background:{c}"></i>{s}</span>'
        for s, c in STATUS_COLOURS.items()
    )
    svg_h = y + 20
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{_esc(title)}</title>
<style>
body {{ font: 13px system-ui, sans-serif; margin: 16px; color: #222; }}
svg text {{ font-size: 11px; fill: #333; }}
.axis line {{ stroke: #666; }}
.call {{ stroke: #335; stroke-width: .5; }}
.call.ok {{ fill: #c6dbf7; }} .call.error {{ fill: #f4a3a0; }} .call.open {{ fill: #eee; stroke-dasharray: 3 2; }}
.call-label {{ font-size: 9px !important; pointer-events: none; }}
.mark.event {{ fill: #555; }} .mark.fault {{ fill: #d62728; stroke: #600; }}
.mark.step {{ fill: #9467bd; stroke: #fff; }}
.key {{ margin-right: 12px; }} .key i {{ display: inline-block; width: 12px; height: 12px;
  margin-right: 4px; vertical-align: middle; border: 1px solid #aaa; }}
</style></head><body>
<h1 style="font-size:16px">{_esc(title)}</h1>
<p>Simulated time on the axis ({end:g} s); {len(entries)} trace entries.
Lanes: panes (agent status) and clients (calls as spans).
<span class="key"><i style="background:#c6dbf7"></i>call ok</span>
<span class="key"><i style="background:#f4a3a0"></i>error reply</span>
<span class="key" style="color:#d62728">&#9670; fault</span>
<span class="key" style="color:#9467bd">&#9679; scenario step</span>
<span class="key">&#9650; event</span> {legend}</p>
<svg id="timeline" xmlns="http://www.w3.org/2000/svg" width="{LEFT + WIDTH + 20}" height="{svg_h}">
{"".join(axis)}
{"".join(out)}
</svg>
</body></html>
"""


def _ticks(end: float) -> list[float]:
    for step in (
        0.001,
        0.002,
        0.005,
        0.01,
        0.02,
        0.05,
        0.1,
        0.2,
        0.5,
        1,
        2,
        5,
        10,
        20,
        30,
        60,
        120,
        300,
        600,
        1800,
        3600,
        7200,
        14400,
    ):
        if end / step <= 12:
            break
    n = int(end / step)
    return [round(i * step, 6) for i in range(n + 1)]
