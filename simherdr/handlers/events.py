"""events.subscribe and events.wait (SOCKET.md §7.3, §8.1)."""

from __future__ import annotations

from typing import Protocol

from .. import params as P
from .. import views as V
from ..facts import errors as E
from ..model.paneread import READ_SOURCES
from .pane import MATCH, compile_match, first_match
from .registry import method


class _Subscription(Protocol):
    """One subscription of events.subscribe: its next line for the client, or None."""

    def next(self, sim) -> dict | None: ...


POLL = 0.1  # each subscription item emits at most one event per 100 ms tick

# 0.9.2 (#4178, #4225): a lagging subscriber is closed with this error instead of skipping
# events (profile row events_lost_error). CHOICE (message): the text of upstream 65927cef as
# a public fork carries it (its src/api/subscriptions.rs events_lost_error); the 0.9.3 file
# itself is not readable here.


class _EventsLost(Exception):
    pass


PLAIN_SUBSCRIPTIONS = (
    "workspace.created",
    "workspace.updated",
    "workspace.metadata_updated",
    "workspace.renamed",
    "workspace.moved",
    "workspace.reordered",
    "workspace.closed",
    "workspace.focused",
    "worktree.created",
    "worktree.opened",
    "worktree.removed",
    "tab.created",
    "tab.closed",
    "tab.focused",
    "tab.renamed",
    "tab.moved",
    "pane.created",
    "pane.closed",
    "pane.updated",
    "pane.focused",
    "pane.moved",
    "pane.exited",
    "pane.agent_detected",
    "layout.updated",
)
PER_PANE = ("pane.agent_status_changed", "pane.output_matched", "pane.scroll_changed")
# Event kinds (EventData tags) that parse in events.wait's match_event.
EVENT_KINDS = tuple(n.replace(".", "_") for n in PLAIN_SUBSCRIPTIONS) + (
    "pane_output_changed",
    "pane_agent_status_changed",
)


def _subscription(v):
    if not isinstance(v, dict):
        raise P.ParamError(
            f"invalid type: {P._json_kind(v)}, expected internally tagged enum Subscription"
        )
    kind = v.get("type")
    if kind is None:
        raise P.ParamError("missing field `type`")
    if kind in PLAIN_SUBSCRIPTIONS:
        return {"type": kind}
    if kind == "pane.agent_status_changed":
        return {
            "type": kind,
            **P.parse(
                {
                    "pane_id": P.req(P.STR),
                    "agent_status": P.opt(P.enum("idle", "working", "blocked", "done", "unknown")),
                },
                v,
            ),
        }
    if kind == "pane.output_matched":
        return {
            "type": kind,
            **P.parse(
                {
                    "pane_id": P.req(P.STR),
                    "source": P.req(P.enum(*READ_SOURCES)),
                    "lines": P.opt(P.U32),
                    "match": P.req(MATCH),
                    "strip_ansi": P.dflt(P.BOOL, True),
                },
                v,
            ),
        }
    if kind == "pane.scroll_changed":
        return {"type": kind, **P.parse({"pane_id": P.req(P.STR)}, v)}
    names = ", ".join(f"`{x}`" for x in PLAIN_SUBSCRIPTIONS + PER_PANE)
    raise P.ParamError(f"unknown variant `{kind}`, expected one of {names}")


def status_payload(s, pane) -> dict:
    return V.status_payload(pane)


class _Plain:
    def __init__(self, sim, kind: str):
        self.kind = kind.replace(".", "_")
        self.cursor = 0 if sim.version.rows.subscribe_replays_history else sim.hub.seq

    def next(self, sim):
        if sim.version.rows.events_lost_error and sim.hub.lost_after(self.cursor, self.kind):
            raise _EventsLost
        for seq, kind, data in sim.hub.after(self.cursor, (self.kind,)):
            self.cursor = seq
            return {"event": kind, "data": data}
        self.cursor = sim.hub.seq
        return None


def _presentation(d: dict) -> tuple:
    """PanePresentationSnapshot (src/api/subscriptions.rs:65-92): what besides the status makes
    a change worth an event."""
    return (d.get("title"), d.get("display_agent"), d.get("state_labels") or {})


class _AgentStatus:
    """Reads the event hub first, as herdr does (src/api/subscriptions.rs:389-440): every
    transition between two polls is delivered, one per tick, with the payload herdr published
    (an exiting agent keeps its label, src/app/actions.rs:3009-3019). Only when the hub is
    quiet does a pane.get snapshot catch a change no event announced."""

    def __init__(self, sim, item, probe_id):
        self.want = item["agent_status"]
        self.cursor = sim.hub.seq
        pane = sim.session.find_pane(item["pane_id"])
        if pane is None:
            raise E.probe_pane_not_found(item["pane_id"], probe_id)
        self.pane_id = pane.pane_id  # the probe's canonical id
        snap = status_payload(sim.session, pane)
        self.last_status, self.last_pres = snap["agent_status"], _presentation(snap)
        self.initial = snap if self.want is not None and snap["agent_status"] == self.want else None

    def next(self, sim):
        saw = False
        for seq, _kind, data in sim.hub.after(self.cursor, ("pane_agent_status_changed",)):
            self.cursor = seq
            if data.get("pane_id") != self.pane_id:
                continue
            saw = True
            self.last_status, self.last_pres = data["agent_status"], _presentation(data)
            if self.want is not None and data["agent_status"] != self.want:
                continue
            self.initial = None
            return self._line({k: v for k, v in data.items() if k != "type"})
        self.cursor = sim.hub.seq
        if saw:
            self.initial = None
        elif self.initial is not None:
            line, self.initial = self._line(self.initial), None
            return line
        pane = sim.session.find_pane(self.pane_id)
        if pane is None:
            return None  # stays open and silent
        cur = status_payload(sim.session, pane)
        status, pres = cur["agent_status"], _presentation(cur)
        changed = status != self.last_status or pres != self.last_pres
        self.last_status, self.last_pres = status, pres
        if changed and (self.want is None or status == self.want):
            return self._line(cur)
        return None

    @staticmethod
    def _line(d):
        return {"event": "pane.agent_status_changed", "data": dict(d)}


class _OutputMatched:
    def __init__(self, sim, item, probe_id):
        self.item = item
        self.pred = compile_match(item["match"])
        pane = sim.session.find_pane(item["pane_id"])
        if pane is None:
            raise E.probe_pane_not_found(item["pane_id"], probe_id)
        self.matched = False

    def next(self, sim):
        pane = sim.session.find_pane(self.item["pane_id"])
        if pane is None:
            return None
        source = "recent_unwrapped" if self.item["source"] == "recent" else self.item["source"]
        line, read = first_match(sim, pane, source, self.item["lines"], self.pred)
        was, self.matched = self.matched, line is not None
        if line is not None and not was:  # edge-triggered
            return {
                "event": "pane.output_matched",
                "data": {"pane_id": pane.pane_id, "matched_line": line, "read": read},
            }
        return None


class _Silent:
    """pane.scroll_changed (src/api/subscriptions.rs:510-541): emits when the pane's scroll
    metrics (views.scroll_info: offset, scrollback depth, viewport rows) differ from the last
    seen."""

    def __init__(self, sim, item, probe_id):
        pane = sim.session.find_pane(item["pane_id"])
        if pane is None:
            raise E.probe_pane_not_found(item["pane_id"], probe_id)
        self.pane_id = pane.pane_id
        self.last = V.scroll_info(pane, sim.session.scroll_metrics_always)

    def next(self, sim):
        pane = sim.session.find_pane(self.pane_id)
        if pane is None:
            return None
        cur = V.scroll_info(pane, sim.session.scroll_metrics_always)
        if cur == self.last:
            return None
        self.last = cur
        if cur is None:
            return None
        return {
            "event": "pane.scroll_changed",
            "data": {"pane_id": pane.pane_id, "workspace_id": pane.workspace_id, "scroll": cur},
        }


@method("events.subscribe", kind="stream", subscriptions=P.req(P.list_of(_subscription)))
async def subscribe(sim, p, rid, conn):
    items: list[_Subscription] = []
    for i, item in enumerate(p["subscriptions"]):
        # set-up errors: the probe id (0.8.2) or the request id (row setup_errors_keep_request_id)
        probe_id = rid if sim.version.rows.setup_errors_keep_request_id else f"{rid}:sub:{i}:probe"
        if item["type"] in PLAIN_SUBSCRIPTIONS:
            items.append(_Plain(sim, item["type"]))
        elif item["type"] == "pane.agent_status_changed":
            items.append(_AgentStatus(sim, item, probe_id))
        elif item["type"] == "pane.output_matched":
            items.append(_OutputMatched(sim, item, probe_id))
        else:
            items.append(_Silent(sim, item, probe_id))
    await conn.send({"id": rid, "result": {"type": "subscription_started"}})
    next_tick = sim.now()
    while not sim.stopping and not conn.cancelled():
        if sim.now() < next_tick:
            await sim.wait_change(next_tick, conn)
            continue
        sim.run_due()
        sent = False
        for it in items:  # list order: interleaving follows position in the list
            try:
                line = it.next(sim)
            except _EventsLost:
                await conn.send({"id": rid, "error": E.events_lost().body()})
                return
            if line is not None:
                await conn.send(line)
                sent = True
        if sent:
            next_tick = sim.now() + POLL
        else:
            await sim.wait_change(None, conn)


def _match_event(v):
    if not isinstance(v, dict):
        raise P.ParamError(f"invalid type: {P._json_kind(v)}, expected internally tagged enum")
    ev = v.get("event")
    if ev is None:
        raise P.ParamError("missing field `event`")
    if ev == "pane_agent_status_changed":
        return {
            "event": ev,
            **P.parse(
                {
                    "pane_id": P.req(P.STR),
                    "agent_status": P.req(P.enum("idle", "working", "blocked", "done", "unknown")),
                },
                v,
            ),
        }
    if ev in EVENT_KINDS:
        return {"event": ev}
    raise P.ParamError(f"unknown variant `{ev}`")


@method("events.wait", kind="wait", match_event=P.req(_match_event), timeout_ms=P.opt(P.U64))
async def wait(sim, p, rid, conn):
    m = p["match_event"]
    if m["event"] != "pane_agent_status_changed":
        raise E.unsupported_event_wait_match()
    pane_id, want = m["pane_id"], m["agent_status"]
    pane = sim.session.find_pane(pane_id)
    if pane is None:  # the setup probe's error carries the probe id (0.8.2)
        # CHOICE (0.9): the request id, as for subscriptions (#4344 "socket error responses
        # keep the request id"); 0.9.3's src/api/wait.rs is not readable here.
        probe = rid if sim.version.rows.setup_errors_keep_request_id else f"{rid}:sub:0:probe"
        raise E.probe_pane_not_found(pane_id, probe)
    deadline = None if p["timeout_ms"] is None else sim.now() + p["timeout_ms"] / 1000
    cursor = sim.hub.seq
    while True:
        sim.run_due()
        for seq, _kind, data in sim.hub.after(cursor, ("pane_agent_status_changed",)):
            cursor = seq
            if data.get("pane_id") == pane.pane_id and data.get("agent_status") == want:
                return _matched(data)
        cursor = sim.hub.seq
        pane = sim.session.find_pane(pane_id)
        if pane is None:
            raise E.pane_not_found(pane_id)
        if pane.status == want:  # the 100 ms pane.get probe (also sees done -> idle by focus)
            return _matched(
                {"type": "pane_agent_status_changed", **status_payload(sim.session, pane)}
            )
        if deadline is not None and sim.now() >= deadline:
            raise E.timeout("event match")
        if conn is not None and conn.cancelled():
            return None
        await sim.wait_change(deadline, conn)


def _matched(data: dict) -> dict:
    return {
        "type": "wait_matched",
        "event": {"event": "pane_agent_status_changed", "data": dict(data)},
    }
