"""pane.report_metadata and workspace.report_metadata (SOCKET.md §4.3; herdr
src/app/api/panes.rs:1290-1460, src/app/api/workspaces.rs:228-296).

Each check runs in herdr's order, so a request with several faults gets herdr's first error.
Tokens and overlays expire on the simulator's clock: a timer at each deadline sweeps what is
due (src/app/runtime.rs:421-447), emitting ``pane_updated`` / ``workspace_metadata_updated``
for tokens and ``pane_agent_status_changed`` when the visible presentation changes.
"""

from __future__ import annotations

from .. import params as P
from .. import views as V
from ..facts import errors as E
from ..facts import kinds as K
from ..model import metadata as M
from ..model import terminal as T
from .registry import method


def _token_patch(v):
    """HashMap<String, Option<String>>: null clears a key."""
    if not isinstance(v, dict):
        raise P._type_error(v, "a map")
    return {k: None if x is None else P.STR(x) for k, x in v.items()}


def _err(e: M.MetadataError) -> E.HerdrError:
    return E.HerdrError(e.code, str(e))


def _blocked_by_process_exit(sim, a, source: str, label: str | None, applies: str | None) -> bool:
    """metadata_report_blocked_by_process_exit (src/terminal/metadata.rs:79-94): a report
    about the agent whose process just exited is dropped (answered ok). Kinds and official
    sources are the version's (profile rows agent_kinds, hook_sources)."""
    exited = a.recent_exit
    if exited is None:
        return False
    hooks = sim.version.tables.hook_sources
    return (
        (label is not None and K.parse_kind_in(sim.version.tables.agent_kinds, label) == exited)
        or T.is_official(source, exited, hooks)
        or (applies is not None and T.is_official(applies, exited, hooks))
    )


@method(
    "pane.report_metadata",
    pane_id=P.req(P.STR),
    source=P.req(P.STR),
    agent=P.opt(P.STR),
    applies_to_source=P.opt(P.STR),
    title=P.opt(P.STR),
    display_agent=P.opt(P.STR),
    state_labels=P.dflt(P.MAP_STR, dict),
    tokens=P.dflt(_token_patch, dict),
    clear_title=P.dflt(P.BOOL, False),
    clear_display_agent=P.dflt(P.BOOL, False),
    clear_state_labels=P.dflt(P.BOOL, False),
    seq=P.opt(P.U64),
    ttl_ms=P.opt(P.U64),
)
def pane_report_metadata(sim, p):
    pane = sim.session.find_pane(p["pane_id"])
    if pane is None:
        raise E.pane_not_found(p["pane_id"])
    label = None
    if p["agent"] is not None:
        label = K.canonical_label_in(sim.version.tables.agent_kinds, p["agent"])
        if not label:
            raise E.invalid_agent_label()
    try:
        source = M.source(p["source"])
        tokens = M.tokens(p["tokens"]) if p["tokens"] else None
        ttl = M.ttl(p["ttl_ms"])
        title = M.presentation_text(p["title"])
        display_agent = M.presentation_text(p["display_agent"])
        applies = M.source(p["applies_to_source"]) if p["applies_to_source"] is not None else None
        labels = M.state_labels(p["state_labels"])
    except M.MetadataError as e:
        raise _err(e) from None
    clears = (p["clear_title"], p["clear_display_agent"], p["clear_state_labels"])
    if (
        (p["title"] is not None and p["clear_title"])
        or (p["display_agent"] is not None and p["clear_display_agent"])
        or (p["state_labels"] and p["clear_state_labels"])
    ):
        raise E.metadata_set_and_clear()
    presentation = title is not None or display_agent is not None or bool(labels) or any(clears)
    if not presentation and tokens is None:
        raise E.metadata_nothing_to_do()
    m = pane.meta
    if _blocked_by_process_exit(sim, pane.agent, source, label, applies):
        return {"type": "ok"}
    if not M.seq_is_fresh(m.report_seqs, source, p["seq"]):
        return {"type": "ok"}
    if tokens is not None and m.tokens.count_after(tokens) > M.TOKENS_PER_RESOURCE:
        raise E.metadata_token_limit("pane", M.TOKENS_PER_RESOURCE)
    # CHOICE (NO_METADATA_AGENT_MEMORY): herdr also remembers which agent each sequenced source
    # reported for (metadata_report_agents, used to re-anchor after a process restart); not kept.
    try:
        if not M.accept_report(m, source, p["seq"], tokens is not None):
            return {"type": "ok"}
    except M.MetadataError as e:
        raise _err(e) from None
    now = sim.now()
    tokens_changed = tokens is not None and m.tokens.patch(tokens, ttl, now)
    if tokens_changed:
        pane.revision += 1
        pane.tokens = m.tokens.values()
    if presentation:
        report = M.Report(source, label, applies, title, display_agent, labels, *clears, ttl)
        sim.agents.report_metadata(pane, report)
    if tokens_changed:
        sim.outbox.emit("pane_updated", {"pane": V.pane_info(sim.session, pane)})
    if ttl is not None:
        _expire_at(sim, now + ttl)
    return {"type": "ok"}


@method(
    "workspace.report_metadata",
    workspace_id=P.req(P.STR),
    source=P.req(P.STR),
    tokens=P.req(_token_patch),
    seq=P.opt(P.U64),
    ttl_ms=P.opt(P.U64),
)
def workspace_report_metadata(sim, p):
    w = sim.session.find_workspace(p["workspace_id"])
    if w is None:
        raise E.workspace_not_found(p["workspace_id"])
    try:
        source = M.source(p["source"])
        ttl = M.ttl(p["ttl_ms"])
        tokens = M.tokens(p["tokens"])
    except M.MetadataError as e:
        raise _err(e) from None
    m = w.meta
    if not M.seq_is_fresh(m.seqs, source, p["seq"]):
        return {"type": "ok"}
    if m.tokens.count_after(tokens) > M.TOKENS_PER_RESOURCE:
        raise E.metadata_token_limit("workspace", M.TOKENS_PER_RESOURCE)
    if p["seq"] is not None:  # metadata_tokens::accept_sequence
        if source not in m.seqs and len(m.seqs) >= M.MAX_SEQUENCE_SOURCES:
            raise E.metadata_sequence_source_limit(M.MAX_SEQUENCE_SOURCES)
        m.seqs[source] = p["seq"]
    now = sim.now()
    if m.tokens.patch(tokens, ttl, now):
        w.tokens = m.tokens.values()
        _emit_workspace(sim, w)
    if ttl is not None:
        _expire_at(sim, now + ttl)
    return {"type": "ok"}


def _emit_workspace(sim, w) -> None:
    # emit_workspace_token_updated (src/app/api.rs:831-840)
    sim.outbox.emit("workspace_metadata_updated", {"workspace": V.workspace_info(sim.session, w)})


def _expire_at(sim, deadline: float) -> None:
    """Sweep at ``deadline``; a superseded deadline finds nothing due and emits nothing."""
    sim.schedule(deadline, lambda: expire_due(sim))


def expire_due(sim) -> None:
    """expire_metadata_at: overlays first (their status events), then tokens."""
    now = sim.now()
    s = sim.session
    for pane in list(s.all_panes()):
        if pane.meta.overlays:
            sim.agents.expire_metadata(pane)
        if pane.meta.tokens.expire(now):
            pane.revision += 1
            pane.tokens = pane.meta.tokens.values()
            sim.outbox.emit("pane_updated", {"pane": V.pane_info(s, pane)})
    for w in list(s.workspaces):
        if w.meta.tokens.expire(now):
            w.tokens = w.meta.tokens.values()
            _emit_workspace(sim, w)
