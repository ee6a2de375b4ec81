"""The client-facing surface on a headless server with no client attached: notification.show,
client.window_title.set/clear, agent.view.set/clear, pane.input.set, popup.close
(herdr src/server/headless.rs:2097-2290,3661-3683; src/app/api.rs:1157-1286;
src/app/api/agent_view.rs; src/app/agent_view.rs; src/app/api/panes.rs:1140-1161).

CHOICE (NO_CLIENT): simherdr never has a foreground client: herdr's full client is not served
(simherdr.terminalplane, CHOICE app-client) and a terminal-attach client is never herdr's
foreground client (herdr promotes one only for structured input routed through its app, which
simherdr types into the owned terminal instead); whatever herdr sends to one reports
``no_foreground_client``.
"""

from __future__ import annotations

from .. import params as P
from ..facts import errors as E
from ..model.surface import sanitize_notification_text, sanitize_window_title
from .registry import method

POSITIONS = ("top-left", "top-right", "bottom-left", "bottom-right")  # ToastHerdrPosition


@method(
    "notification.show",
    title=P.req(P.STR),
    body=P.opt(P.STR),
    position=P.opt(P.enum(*POSITIONS)),
    sound=P.dflt(P.enum("none", "done", "request"), "none"),
)
def notification_show(sim, p):
    if sanitize_notification_text(p["title"], 80) is None:
        raise E.notification_title_empty()
    s, now = sim.surface, sim.now()
    delivery = sim.config.toast_delivery
    if delivery == "off":
        reason = "disabled"
    elif sim.version.rows.notification_needs_client_shell:
        reason = "no_foreground_client"  # no client shell is ever attached (NO_CLIENT)
    elif delivery == "herdr":  # the app's in-app toast (src/app/api.rs:1232-1252)
        if s.toast_active(now):
            reason = "busy"
        elif s.rate_limited(now):
            reason = "rate_limited"
        else:
            s.last_notification_at = now
            s.show_toast(now)
            reason = "shown"
    elif s.rate_limited(now):  # terminal / system: forwarded to the foreground client
        reason = "rate_limited"
    else:
        reason = "no_foreground_client"
    return {"type": "notification_show", "shown": reason == "shown", "reason": reason}


def _window_title(sim, title: str | None) -> dict:
    """handle_client_window_title_api: the title is kept (it wins over ui.window_title until
    cleared) but there is no client to send it to."""
    sim.surface.api_window_title = title
    return {"type": "client_window_title", "changed": False, "reason": "no_foreground_client"}


@method("client.window_title.set", title=P.req(P.STR))
def window_title_set(sim, p):
    title = sanitize_window_title(p["title"])
    if title is None:
        raise E.window_title_empty()
    return _window_title(sim, title)


@method("client.window_title.clear")
def window_title_clear(sim, p):
    return _window_title(sim, None)


@method("pane.input.set", pane_id=P.req(P.STR), right_click=P.req(P.enum("herdr", "pane")))
def pane_input_set(sim, p):
    pane = sim.session.find_pane(p["pane_id"])
    if pane is None:
        raise E.pane_not_found(p["pane_id"])
    sim.surface.right_click[pane.terminal_id] = p["right_click"]
    return {"type": "ok"}


@method("popup.close")
def popup_close(sim, p):
    # close_popup_pane. 0.8.2: simherdr opens no popups; 0.9.x: the plugin popup that
    # plugin.pane.open recorded (Profile.plugin_popup_tracked).
    if sim.surface.popup is None:
        raise E.popup_not_open()
    sim.surface.popup = None
    return {"type": "ok"}


# --- agent.view (src/app/agent_view.rs) ------------------------------------------------------

MAX_FILTER_DEPTH = 8
MAX_FILTER_NODES = 64
MAX_FILTER_VALUES = 32
MAX_SORT_FIELDS = 8
MAX_SOURCE_CHARS = 120
MAX_LABEL_CHARS = 32
FILTER_OPS = ("all", "any", "not", "eq", "in", "exists")
BUILTIN_FIELDS = (
    "status",
    "workspace_id",
    "tab_id",
    "pane_id",
    "agent",
    "seen",
    "state_change_seq",
)
BUILTIN_SORT_FIELDS = (
    "workspace_order",
    "tab_order",
    "pane_order",
    "attention",
    "status",
    "agent",
    "seen",
    "state_change_seq",
)
STATUSES = ("idle", "working", "blocked", "done", "unknown")
STRING_FIELDS = ("status", "workspace_id", "tab_id", "pane_id", "agent")  # compared to strings


class _ViewError(ValueError):
    pass


def _untagged(name: str) -> P.ParamError:
    return P.ParamError(f"data did not match any variant of untagged enum {name}")


def _field(v, builtin, name):
    """AgentViewField / AgentViewSortField: a builtin name or {"token": ...} (untagged)."""
    if isinstance(v, str) and v in builtin:
        return v
    if isinstance(v, dict) and isinstance(v.get("token"), str):
        return {"token": v["token"]}
    raise _untagged(name)


def _value(v):
    """AgentViewValue: string, bool, u64 or {"context": ...} (untagged, in that order)."""
    if isinstance(v, (str, bool)):
        return v
    if isinstance(v, int) and 0 <= v < 2**64:
        return v
    if isinstance(v, dict) and v.get("context") in ("current_workspace_id", "current_tab_id"):
        return {"context": v["context"]}
    raise _untagged("AgentViewValue")


def _filter(v):
    if not isinstance(v, dict):
        raise P.ParamError(
            f"invalid type: {P._json_kind(v)}, expected internally tagged enum AgentViewFilter"
        )
    op = v.get("op")
    if op is None:
        raise P.ParamError("missing field `op`")
    if op not in FILTER_OPS:
        names = ", ".join(f"`{x}`" for x in FILTER_OPS)
        raise P.ParamError(f"unknown variant `{op}`, expected one of {names}")
    if op in ("all", "any"):
        return {"op": op, **P.parse({"filters": P.req(P.list_of(_filter))}, v)}
    if op == "not":
        return {"op": op, **P.parse({"filter": P.req(_filter)}, v)}
    fld = P.req(lambda x: _field(x, BUILTIN_FIELDS, "AgentViewField"))
    if op == "eq":
        return {"op": op, **P.parse({"field": fld, "value": P.req(_value)}, v)}
    if op == "in":
        return {"op": op, **P.parse({"field": fld, "values": P.req(P.list_of(_value))}, v)}
    return {"op": op, **P.parse({"field": fld}, v)}


def _sort(v):
    return P.parse(
        {
            "field": P.req(lambda x: _field(x, BUILTIN_SORT_FIELDS, "AgentViewSortField")),
            "order": P.dflt(P.enum("asc", "desc"), "asc"),
        },
        v,
    )


def _source(source: str) -> str:
    s = source.strip()
    if (
        not s
        or len(s) > MAX_SOURCE_CHARS
        or not all((c.isascii() and c.isalnum()) or c in ":._-" for c in s)
    ):
        raise _ViewError(
            f"agent view source must be non-empty, at most {MAX_SOURCE_CHARS} characters, and "
            "contain only ASCII letters, digits, colon, dot, underscore, or hyphen"
        )
    return s


def _label(label: str) -> str:
    text = "".join(c for c in label.strip() if not (ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0))
    if not text or len(text) > MAX_LABEL_CHARS:
        raise _ViewError(
            f"agent view label must be non-empty and at most {MAX_LABEL_CHARS} characters"
        )
    return text


def _token(token: str) -> None:
    if (
        not token
        or len(token.encode()) > 32
        or not all((c.isascii() and c.isalnum()) or c in "_-" for c in token)
    ):
        raise _ViewError(f"invalid agent view token `{token}`")


def _check_field_value(fld, value) -> None:
    if isinstance(fld, dict):
        _token(fld["token"])
    if isinstance(value, dict):  # a context value
        pairs = {("workspace_id", "current_workspace_id"), ("tab_id", "current_tab_id")}
        if (fld, value["context"]) in pairs:
            return
        raise _ViewError("agent view context type does not match the selected field")
    if fld == "seen" and isinstance(value, bool):
        return
    if fld == "state_change_seq" and isinstance(value, int) and not isinstance(value, bool):
        return
    if (isinstance(fld, dict) or fld in STRING_FIELDS) and isinstance(value, str):
        if fld == "status" and value not in STATUSES:
            raise _ViewError(f"unknown agent status `{value}`")
        return
    raise _ViewError("agent view value type does not match the selected field")


def _check_filter(f, depth: int, nodes: list[int]) -> None:
    if depth > MAX_FILTER_DEPTH:
        raise _ViewError(f"agent view filter may be nested at most {MAX_FILTER_DEPTH} levels")
    nodes[0] += 1
    if nodes[0] > MAX_FILTER_NODES:
        raise _ViewError(f"agent view filter may contain at most {MAX_FILTER_NODES} nodes")
    op = f["op"]
    if op in ("all", "any"):
        if not f["filters"]:
            raise _ViewError("agent view all/any filters must not be empty")
        for sub in f["filters"]:
            _check_filter(sub, depth + 1, nodes)
    elif op == "not":
        _check_filter(f["filter"], depth + 1, nodes)
    elif op == "eq":
        _check_field_value(f["field"], f["value"])
    elif op == "in":
        if not f["values"] or len(f["values"]) > MAX_FILTER_VALUES:
            raise _ViewError(f"agent view in filters require 1 to {MAX_FILTER_VALUES} values")
        for value in f["values"]:
            _check_field_value(f["field"], value)
    elif isinstance(f["field"], dict):
        _token(f["field"]["token"])


def _view_reply(view: dict | None) -> dict:
    reply: dict = {"type": "agent_view", "active": view is not None}
    if view is not None:
        reply["source"] = view["source"]
        if view.get("label") is not None:
            reply["label"] = view["label"]
    return reply


@method(
    "agent.view.set",
    source=P.req(P.STR),
    label=P.opt(P.STR),
    filter=P.opt(_filter),
    sort=P.dflt(P.list_of(_sort), list),
)
def agent_view_set(sim, p):
    try:
        source = _source(p["source"])
        label = _label(p["label"]) if p["label"] is not None else None
        if p["filter"] is not None:
            _check_filter(p["filter"], 1, [0])
        if len(p["sort"]) > MAX_SORT_FIELDS:
            raise _ViewError(f"agent view sort may contain at most {MAX_SORT_FIELDS} fields")
        for sort in p["sort"]:
            if isinstance(sort["field"], dict):
                _token(sort["field"]["token"])
    except _ViewError as e:
        raise E.invalid_agent_view(str(e)) from None
    if source.startswith("plugin:"):
        # CHOICE (AGENT_VIEW_PLUGIN_SOURCE): no plugin is installed in simherdr, so a
        # plugin-owned source is always plugin_not_found (src/app/api/agent_view.rs:15-29;
        # the plugin id's own validation is not repeated).
        raise E.plugin_not_found()
    sim.surface.agent_view = {
        "source": source,
        "label": label,
        "filter": p["filter"],
        "sort": p["sort"],
    }
    return _view_reply(sim.surface.agent_view)


@method("agent.view.clear", source=P.opt(P.STR))
def agent_view_clear(sim, p):
    source = None
    if p["source"] is not None:
        try:
            source = _source(p["source"])
        except _ViewError as e:
            raise E.invalid_agent_view(str(e)) from None
    active = sim.surface.agent_view
    if source is None or (active is not None and active["source"] == source):
        sim.surface.agent_view = None
    return _view_reply(sim.surface.agent_view)
