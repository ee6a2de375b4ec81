"""Hook and session reports to a terminal's agent arbitration (SOCKET.md §6.4,
src/terminal/state.rs): authority, sequencing, session binding, clear and release. Pure
functions on an :class:`AgentSlot`.

SIMPLIFICATIONS (choices, each named where it applies):

- FULL_LIFECYCLE_NO_BUFFERING: herdr buffers a full-lifecycle report that arrives before its
  session is anchored and may adopt it when the process is detected later
  (src/terminal/state.rs:859-989,1077-1170). Here such a report is dropped, and a session
  report for a full-lifecycle source that arrives while its process is absent is dropped too.
"""

from __future__ import annotations

from ..facts import kinds as K
from .terminal import (
    AgentSlot,
    Mutation,
    clear_name,
    current_session,
    effective_label,
    forget_resume,
    is_full_lifecycle,
    is_official,
    kind_of,
    reconcile_name_owner,
    suppress_full_lifecycle,
)

RECOGNIZED_START_SOURCES = ("startup", "clear", "resume", "compact", "new", "fork", "select")

# (source, label) -> start sources that may replace the current session (state.rs:1313-1344).
_SESSION_REPLACEMENT = {
    ("herdr:claude", "claude"): ("clear", "resume", "compact"),
    ("herdr:codex", "codex"): ("startup", "clear", "resume", "compact"),
    ("herdr:mastracode", "mastracode"): ("startup",),
    ("herdr:hermes", "hermes"): ("startup", "new", "resume"),
    ("herdr:opencode", "opencode"): ("select",),
    ("herdr:pi", "pi"): ("new", "resume", "fork"),
    ("herdr:omp", "omp"): ("startup", "new", "resume", "fork"),
    ("herdr:qwen", "qwen"): ("startup", "clear", "resume", "compact", "branch"),
}

# 0.9.3 (the hook-source table "0.9.3", profile row hook_sources; [H093] src/terminal/state.rs
# session_report_allows_session_replacement, foreground_agent_confirms_different_owner_takeover):
# grok's "new" session replaces its current one, and grok never takes a pane over from another
# session owner.
_SESSION_REPLACEMENT_0_9_3 = {**_SESSION_REPLACEMENT, ("herdr:grok", "grok"): ("new",)}
# 0.8.0 (the hook-source table "0.8.0"): 0.8.2's without qwen (a4d52ab6, #2743).
_SESSION_REPLACEMENT_0_8_0 = {
    k: v for k, v in _SESSION_REPLACEMENT.items() if k != ("herdr:qwen", "qwen")
}
_REPLACEMENT_TABLES = {
    "0.8.0": _SESSION_REPLACEMENT_0_8_0,
    "0.8.2": _SESSION_REPLACEMENT,
    "0.9.0": _SESSION_REPLACEMENT_0_9_3,  # CHOICE: 0.9.3's, read in [H093] only
    "0.9.3": _SESSION_REPLACEMENT_0_9_3,
}
_NO_SESSION_TAKEOVER = {
    "0.8.0": frozenset(),
    "0.8.2": frozenset(),
    "0.9.0": frozenset({("herdr:grok", "grok")}),  # CHOICE: 0.9.3's
    "0.9.3": frozenset({("herdr:grok", "grok")}),
}


def accept_seq(a: AgentSlot, source: str, seq: int | None) -> bool:
    """Per-source sequencing: strictly increasing; once sequenced, unsequenced is dropped."""
    if seq is None:
        return source not in a.hook_seqs
    last = a.hook_seqs.get(source)
    if last is not None and seq <= last:
        return False
    a.hook_seqs[source] = seq
    return True


def seq_is_newer(a: AgentSlot, source: str, seq: int | None) -> bool:
    """Would :func:`accept_seq` take this report? Read before the report is applied (0.9's
    ``hook_report_is_newer``, the same per-source rule: [H093] src/terminal/state.rs)."""
    if seq is None:
        return source not in a.hook_seqs
    last = a.hook_seqs.get(source)
    return last is None or seq > last


def session_is_current(a: AgentSlot, source: str, label: str, session: dict | None) -> bool:
    """0.9's ``session_report_applied``: a report without a session ref counts as applied; one
    with a ref only when that ref is the pane's current session after the report."""
    if session is None:
        return True
    return current_session(a) == {"source": source, "agent": label, **session}


def _process_present(a: AgentSlot, label: str) -> bool:
    k = kind_of(label, a.kinds)
    return k is not None and a.detected == k and a.recent_exit is None


def _anchored_session(a: AgentSlot, source: str, label: str) -> dict | None:
    h = a.hook
    if h is not None and h["source"] == source and h["label"] == label and h.get("session"):
        return h["session"]
    p = a.persisted
    if p is not None and p["source"] == source and p["agent"] == label:
        return {"kind": p["kind"], "value": p["value"]}
    return None


def _owner_conflicts(a: AgentSlot, source: str, label: str) -> bool:
    cur = current_session(a)
    return cur is not None and (cur["source"] != source or cur["agent"] != label)


def _label_conflicts_with_detected(a: AgentSlot, label: str) -> bool:
    k = kind_of(label, a.kinds)
    return a.detected is not None and k is not None and k != a.detected


def hook_report(
    a: AgentSlot,
    source: str,
    label: str,
    state: str,
    message: str | None,
    session: dict | None,
    seq: int | None,
    now: float,
    hooks: str,
) -> Mutation | None:
    """set_hook_authority_at for custom and full-lifecycle sources (state.rs:633-747)."""
    if (source, label) in K.session_identity_only_in(hooks):
        return None
    full = is_full_lifecycle(source, label)
    if not full and a.recent_exit is not None and kind_of(label, a.kinds) == a.recent_exit:
        return None
    if full:
        anchored = _anchored_session(a, source, label)
        sup = a.suppressed.get(source)
        if sup is not None and sup["reason"] == "hook_clear":
            if not (sup["session"] and session and sup["session"] != session):
                return None
            a.hook_seqs.pop(source, None)  # re-anchored on a new session
        elif not (
            _process_present(a, label)
            and anchored is not None
            and (session is None or session == anchored)
            and source not in a.suppressed
        ):
            return None  # FULL_LIFECYCLE_NO_BUFFERING
        if session is None:
            session = anchored
    if _label_conflicts_with_detected(a, label):
        return None
    if (source, label) == ("herdr:codex", "codex") and session is not None:
        # 0.9.3 (herdr:codex is hook authority there): a report naming another session than
        # the pane's current one is dropped ([H093] src/terminal/state.rs set_hook_authority_at).
        cur = current_session(a)
        if cur is not None and (cur["kind"], cur["value"]) != (session["kind"], session["value"]):
            return None
    if _owner_conflicts(a, source, label):
        takeover = (
            session is not None
            and kind_of(label, a.kinds) == a.detected
            and is_official(source, label, hooks)
        )
        if not takeover:
            return None
    if not accept_seq(a, source, seq):
        return None
    reconcile_name_owner(a, label, session)
    a.suppressed.pop(source, None)
    a.persisted = None
    a.hook = {
        "source": source,
        "label": label,
        "state": state,
        "message": message,
        "session": session,
        "at": now,
    }
    return Mutation(working=state == "working")


def session_report(
    a: AgentSlot,
    source: str,
    label: str,
    session: dict | None,
    seq: int | None,
    start_source: str | None,
    hooks: str,
    rebind_acquires: bool = False,
) -> Mutation | None:
    """set_agent_session_ref_for_session_start (state.rs:1380-1607), simplified: no queued
    replacement reports (FULL_LIFECYCLE_NO_BUFFERING). ``rebind_acquires`` (profile row
    session_rebind_restarts_acquisition): a changed session restarts the process acquisition,
    as the new session's screen may still show the old one's work."""
    if session is None:
        return None
    present = _process_present(a, label)
    full = is_full_lifecycle(source, label)
    anchored = _anchored_session(a, source, label) is not None
    gated = source in a.suppressed and a.suppressed[source]["reason"] != "hook_clear"
    if full and (not present or gated or not anchored):
        if start_source not in RECOGNIZED_START_SOURCES or seq is None:
            return None
        last = a.hook_seqs.get(source)
        if last is not None and seq <= last:
            return None
        a.hook_seqs[source] = seq
        if not present:
            return None
        a.suppressed.pop(source, None)
        reconcile_name_owner(a, label, session)
        a.persisted = {"source": source, "agent": label, **session}
        return Mutation()
    if not accept_seq(a, source, seq):
        return None
    if _label_conflicts_with_detected(a, label):
        return None
    replacement_ok = start_source in _REPLACEMENT_TABLES[hooks].get((source, label), ()) or (
        (source, label) == ("herdr:antigravity_cli", "agy") and start_source is None
    )
    if _owner_conflicts(a, source, label):
        takeover = (
            (source, label) not in _NO_SESSION_TAKEOVER[hooks]
            and start_source in RECOGNIZED_START_SOURCES
            and kind_of(label, a.kinds) == a.detected
        )
        if not takeover:
            return None
        if a.hook is not None:
            suppress_full_lifecycle(
                a, a.hook["source"], a.hook["label"], a.hook.get("session"), "hook_clear"
            )
            a.hook = None
    cur = current_session(a)
    if (
        cur is not None
        and cur["source"] == source
        and cur["agent"] == label
        and cur["kind"] == "id"
        and session["kind"] == "id"
        and cur["value"] != session["value"]
        and not replacement_ok
    ):
        return None
    h = a.hook
    if (
        h is not None
        and h["source"] == source
        and h["label"] == label
        and full
        and h.get("session")
        and h["session"] != session
    ):
        if not replacement_ok:
            return None
        a.hook = None
    if (
        (source, label) == ("herdr:codex", "codex")
        and replacement_ok
        and h is not None
        and (h["source"], h["label"]) == (source, label)
        and h.get("session") != session
    ):
        a.hook = None  # 0.9.3: herdr:codex's authority ends with the session it named
    prev_session = current_session(a)
    reconcile_name_owner(a, label, session)
    a.persisted = {"source": source, "agent": label, **session}
    if a.launch_session == a.persisted:
        a.launch_session = None  # the agent confirmed the session its start named
    if rebind_acquires and prev_session is not None and prev_session != current_session(a):
        a.acquisition_pending = True
    return Mutation()


def clear_authority(a: AgentSlot, source: str | None, seq: int | None) -> Mutation | None:
    """clear_hook_authority_with_mutation (state.rs:1679-1724)."""
    h = a.hook
    if h is None or (source is not None and h["source"] != source):
        return None
    if not accept_seq(a, source if source is not None else h["source"], seq):
        return None
    suppress_full_lifecycle(a, h["source"], h["label"], h.get("session"), "hook_clear")
    a.hook = None
    forget_resume(a, h["source"], h["label"])
    a.persisted = None
    return Mutation()


def self_reported_active(a: AgentSlot, kinds: str) -> bool:
    """self_reported_agent_active (0.9.2, #4687): a hook authority whose label names no agent
    herdr detects by process (in the ``kinds`` table). Only such a pane is watched for a
    return to its idle shell."""
    return a.hook is not None and K.parse_kind_in(kinds, a.hook["label"]) is None


def clear_self_reported(a: AgentSlot, observed_at: float, kinds: str) -> Mutation | None:
    """clear_self_reported_agent: the idle shell seen at ``observed_at`` ends a self-reported
    agent whose report is not newer; detection and the name go with it (a release)."""
    h = a.hook
    if h is None or not self_reported_active(a, kinds) or h["at"] > observed_at:
        return None
    a.hook = None
    forget_resume(a)
    a.detected = None
    a.fallback = "unknown"
    a.fallback_blocker = False
    a.fallback_at = None
    clear_name(a)
    return Mutation(released=True)


def release(a: AgentSlot, source: str, label: str, seq: int | None) -> Mutation | None:
    """release_agent_with_mutation (state.rs:1726-1789); callers skip official sources."""
    h = a.hook
    if h is not None and (h["label"] != label or h["source"] != source):
        return None
    matches_current = effective_label(a) == label
    p = a.persisted
    matches_persisted = p is not None and p["source"] == source and p["agent"] == label
    if not matches_current and not matches_persisted:
        return None
    if not accept_seq(a, source, seq):
        return None
    preserve_foreign = p is not None and (p["source"] != source or p["agent"] != label)
    k = kind_of(label, a.kinds)
    process_owns = k is not None and a.detected == k and a.recent_exit is None
    suppress_full_lifecycle(a, source, label, h.get("session") if h else None, "hook_clear")
    if not process_owns:
        a.detected = None
        a.fallback = "unknown"
        a.fallback_blocker = False
        a.fallback_at = None
        clear_name(a)
    a.hook = None
    forget_resume(a, source, label)
    if not preserve_foreign:
        a.persisted = None
    return Mutation(released=not process_owns)
