"""A trace in the formats tools already read: ``simherdr trace export --format chrome|perfetto|jsonl``.

``chrome`` and ``perfetto`` are the Trace Event Format (the JSON object form, ``{"traceEvents":
[...], "displayTimeUnit": "ms"}``) that chrome://tracing and the Perfetto UI open; Perfetto reads
the same JSON, so both formats write it. Time is simulated time in microseconds from the first
entry. The tracks:

- process 1 ``panes``: one thread per pane (``pane w1:p1 · pi``); its agent status as complete
  events (``ph: "X"``, name = the status, category ``status``); events about the pane and steps
  acting on it as instant events (``ph: "i"``, thread scope);
- process 2 ``connections``: one thread per connection (``c12 herdr agent start a1 · pid 812``,
  ``harness``, ``control``); each call a complete event named by its method (category ``call``,
  ``error`` for an error reply), args: id, request, reply; faults as instant events on the
  call's connection;
- process 3 ``scenario``: steps about no pane (``scenario.load``, ``server.reset`` ...).

``jsonl`` writes the entries as JSON lines, as ``serve --trace`` does.
"""

from __future__ import annotations

from typing import Any

from .trace import dumps
from .traceview import calls_of, lane_label, model

FORMATS = ("chrome", "perfetto", "jsonl")
PANES_PID, CONNS_PID, SCENARIO_PID = 1, 2, 3


def _us(t: float) -> float:
    return round(t * 1e6, 3)


def chrome_trace(entries: list[dict]) -> dict[str, Any]:
    """The Trace Event Format object for ``entries``."""
    m = model(entries)
    origin = m["origin"]
    events: list[dict[str, Any]] = []

    def meta(pid: int, tid: int | None, name: str, value: str, sort: int | None = None) -> None:
        e: dict[str, Any] = {"ph": "M", "pid": pid, "name": name, "args": {"name": value}}
        if tid is not None:
            e["tid"] = tid
        events.append(e)
        if sort is not None:
            key = "thread_sort_index" if tid is not None else "process_sort_index"
            s: dict[str, Any] = {"ph": "M", "pid": pid, "name": key, "args": {"sort_index": sort}}
            if tid is not None:
                s["tid"] = tid
            events.append(s)

    meta(PANES_PID, None, "process_name", "panes", 1)
    meta(CONNS_PID, None, "process_name", "connections", 2)
    for n, (pane, p) in enumerate(m["panes"], 1):
        label = lane_label(pane, p)
        meta(PANES_PID, n, "thread_name", label, n)
        for start, stop, status in p["segments"]:
            if stop <= start:
                continue
            events.append(
                {
                    "name": status,
                    "cat": "status",
                    "ph": "X",
                    "ts": _us(start),
                    "dur": _us(stop - start),
                    "pid": PANES_PID,
                    "tid": n,
                    "args": {"pane_id": pane, "status": status},
                }
            )
        for mk in p["marks"]:
            name = (
                mk["type"]
                if mk["class"] == "event"
                else (f"step {mk['name']}" if mk["class"] == "step" else mk["name"])
            )
            events.append(
                {
                    "name": name,
                    "cat": mk["class"],
                    "ph": "i",
                    "s": "t",
                    "ts": _us(mk["t"]),
                    "pid": PANES_PID,
                    "tid": n,
                    "args": {"detail": mk["title"]},
                }
            )
    rel = [dict(e, t=float(e.get("t", 0.0)) - origin) for e in entries]
    end = m["end"]
    tids: dict[str, int] = {}
    for c in calls_of(rel):
        if c.conn not in tids:
            tids[c.conn] = len(tids) + 1
            who = f" {c.cmd}" if c.cmd else ""
            pid = f" · pid {c.pid}" if c.pid is not None else ""
            meta(CONNS_PID, tids[c.conn], "thread_name", f"{c.conn}{who}{pid}", tids[c.conn])
        stop = c.end if c.end is not None else end
        args: dict[str, Any] = {"id": c.id, "request": c.params}
        if c.ok is not None:
            args["reply" if c.ok else "error"] = c.reply
        else:
            args["reply"] = None
        events.append(
            {
                "name": c.method or "?",
                "cat": "call" if c.ok is not False else "error",
                "ph": "X",
                "ts": _us(c.start),
                "dur": _us(max(stop - c.start, 0.0)),
                "pid": CONNS_PID,
                "tid": tids[c.conn],
                "args": args,
            }
        )
    for f in m["faults"]:
        tid = tids.get(f["conn"])
        if tid is None:
            continue
        events.append(
            {
                "name": f"fault {f['fault']}",
                "cat": "fault",
                "ph": "i",
                "s": "t",
                "ts": _us(f["t"]),
                "pid": CONNS_PID,
                "tid": tid,
                "args": {"type": f["type"], "method": f["method"], "id": f["id"]},
            }
        )
    _terminal_lanes(rel, end, tids, meta, events)
    if m["scenario"]:
        meta(SCENARIO_PID, None, "process_name", "scenario", 3)
        meta(SCENARIO_PID, 1, "thread_name", "scenario / control")
        for mk in m["scenario"]:
            events.append(
                {
                    "name": f"step {mk['name']}",
                    "cat": "step",
                    "ph": "i",
                    "s": "t",
                    "ts": _us(mk["t"]),
                    "pid": SCENARIO_PID,
                    "tid": 1,
                    "args": {"detail": mk["title"], "from": mk.get("conn")},
                }
            )
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {"source": "simherdr", "clock": "simulated", "origin_t": origin},
    }


def _terminal_lanes(rel: list[dict], end: float, tids: dict, meta, events: list) -> None:
    """Each terminal-plane client (an attach, observe or control session) as a thread of the
    connections: its session as one slice (:func:`simherdr.trace.terminal_lanes`), each of its
    trace entries (hello, frames, input, resize, shutdown ...) an instant on it."""
    from .trace import terminal_lanes

    for label, start, stop, _, lane in terminal_lanes(rel):
        tid = tids.setdefault(lane, len(tids) + 1)
        meta(CONNS_PID, tid, "thread_name", lane, tid)
        stop = stop if stop is not None else end
        events.append(
            {"name": label, "cat": "terminal", "ph": "X", "ts": _us(start),
             "dur": _us(max(stop - start, 0.0)), "pid": CONNS_PID, "tid": tid, "args": {}}
        )  # fmt: skip
    for e in rel:
        lane = f"terminal plane {e.get('conn')}"
        if e.get("kind") != "terminal" or lane not in tids:
            continue
        args = {k: v for k, v in e.items() if k not in ("seq", "kind", "t", "wall", "conn", "op")}
        events.append(
            {"name": str(e.get("op")), "cat": "terminal", "ph": "i", "s": "t", "ts": _us(e["t"]),
             "pid": CONNS_PID, "tid": tids[lane], "args": args}
        )  # fmt: skip


def export(entries: list[dict], fmt: str) -> str:
    if fmt == "jsonl":
        return "".join(dumps(e) + "\n" for e in entries)
    if fmt in ("chrome", "perfetto"):
        import json

        return json.dumps(chrome_trace(entries), ensure_ascii=False, default=repr) + "\n"
    raise ValueError(f"unknown format {fmt!r} (one of: {', '.join(FORMATS)})")
