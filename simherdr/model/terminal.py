"""herdr's per-terminal agent arbitration (src/terminal/state.rs), on an AgentSlot.

Pure functions: no clock reads (callers pass ``now``, simulated seconds), no events. Every
mutation returns a :class:`Mutation` when it was applied and ``None`` when herdr drops the
input silently; the agent layer's one update function (``AgentLayer._update``) then recomputes
the effective state, reconciles the managed start, applies the ``seen`` rule, bumps
``state_change_seq`` and emits the events of SOCKET.md §8.3.

SIMPLIFICATIONS (choices, each named where it applies):

- FULL_LIFECYCLE_NO_BUFFERING: herdr buffers a full-lifecycle report that arrives before its
  session is anchored and may adopt it when the process is detected later
  (src/terminal/state.rs:859-989,1077-1170). Here such a report is dropped, and a session
  report for a full-lifecycle source that arrives while its process is absent is dropped too.
- NO_STALE_SESSION_MEMORY: herdr remembers sessions of exited processes to ignore their late
  reports; here the suppression of a full-lifecycle source lasts until a fresh process of its
  kind is detected.
- Detection publishes no "release suppression" window (src/terminal/state.rs:1214-1228).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..facts import kinds as K

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

MAX_SESSION_ID_BYTES = 512
MAX_SESSION_PATH_BYTES = 4096


@dataclass
class Mutation:
    released: bool = False
    # The input reported `working` (detection's screen state or a hook's state): 0.9.3 ends a
    # process acquisition when the effective state is then working too (profile row
    # working_ends_acquisition; [H093] src/terminal/state.rs
    # set_detected_state_with_screen_signals_at, set_hook_authority_at).
    working: bool = False


@dataclass
class AgentSlot:
    """Agent-related state of a pane's terminal (herdr's TerminalState, agent part).

    Written only by the agent layer (simherdr.agents), whose one update function applies
    SOCKET.md §6.2-§6.6. ``internal`` is the effective AgentState; ``fallback`` is what
    detection (the simulated process) last published; ``hook`` is the hook authority.
    """

    internal: str = "unknown"  # effective state: idle|working|blocked|unknown
    # The herdr version's kind table labels are read with (facts/kinds.py KIND_TABLES; 0.9.3
    # knows letta and muse): the release's tables.agent_kinds, given by the session.
    kinds: str = field(kw_only=True)
    state_change_seq: int = 0
    # 0.9 AgentInfo.completion_seq: the state_change_seq of the idle transition that completed
    # work (herdr's completion rule), kept while idle whoever has seen it; None otherwise.
    completion_seq: int | None = None
    # 0.9.2 resume_argv of pane.report_agent[_session]: typed into the new shell after a
    # server restart (src/app/agent_resume.rs start_pending_agent_resume).
    resume_argv: list | None = None
    resume_agent: str | None = None  # the label that reported resume_argv
    resume_source: str | None = None  # and its source
    name: str | None = None
    name_owner: dict | None = None  # {label, session}: who the name belongs to
    detected: str | None = None  # kind label of the detected agent process
    fallback: str = "unknown"  # detection's state for the detected process
    fallback_blocker: bool = False  # detection saw a blocking dialog
    fallback_at: float | None = None  # when detection last published
    recent_exit: str | None = None  # kind whose process just exited (hides detection)
    acquisition_pending: bool = False  # first idle after a fresh process is no completion
    # 0.9.3: detection saw a starting codex's prompt, so its start may complete while its
    # state is still unknown ([H093] src/terminal/state.rs observe_codex_prompt_ready).
    codex_prompt_ready: bool = False
    hook: dict | None = None  # hook authority {source,label,state,message,session,at}
    managed: dict | None = (
        None  # managed start {kind, phase, ready_after, deadline, observed_expected}
    )
    persisted: dict | None = None  # persisted agent session {source, agent, kind, value}
    # 0.9.3: the session agent.start's own arguments named (launch_session below); it goes
    # with the start's name unless the agent confirmed it ([H093] src/terminal/state.rs
    # set_managed_agent_launch_session, clear_agent_name).
    launch_session: dict | None = None
    suppressed: dict = field(
        default_factory=dict
    )  # full-lifecycle sources suppressed: source -> {label, session, reason}
    title: str | None = None
    display_agent: str | None = None
    state_labels: dict = field(default_factory=dict)
    hook_seqs: dict = field(default_factory=dict)  # last accepted seq per source

    @property
    def label(self) -> str | None:
        """The effective agent label (src/terminal/state.rs:1791-1809)."""
        return effective_label(self)

    @property
    def session(self) -> dict | None:
        """agent_session: the live authority's session, else the persisted one (§6.6)."""
        return exposed_session(self)

    @property
    def screen_detection_skipped(self) -> bool:
        return live_full_lifecycle(self)

    @property
    def launch_pending(self) -> bool:
        m = self.managed
        return bool(m and m["phase"] in ("pending", "blocked"))

    @property
    def interactive_ready(self) -> bool:
        m = self.managed
        return bool(m and m["phase"] == "active")

    def is_agent_terminal(self) -> bool:
        return bool(self.name) or bool(self.label)


# --- reading -------------------------------------------------------------------------------


def kind_of(label: str | None, kinds: str) -> str | None:
    """The agent kind ``label`` names in the ``kinds`` table (facts/kinds.py KIND_TABLES)."""
    return K.parse_kind_in(kinds, label) if label else None


def is_full_lifecycle(source: str, label: str) -> bool:
    return (source, label) in K.FULL_LIFECYCLE


def is_official(source: str, label: str, hooks: str) -> bool:
    """An official session source of the ``hooks`` table (facts/kinds.py HOOK_SOURCE_TABLES)."""
    return (source, label) in K.official_sources_in(hooks)


def hook_effective(a: AgentSlot, hook: dict) -> bool:
    if not is_full_lifecycle(hook["source"], hook["label"]):
        return True
    k = kind_of(hook["label"], a.kinds)
    return k is None or (a.detected == k and a.recent_exit is None)


def effective_label(a: AgentSlot) -> str | None:
    if a.hook is not None and hook_effective(a, a.hook):
        return a.hook["label"]
    if a.recent_exit is None:
        return a.detected
    return None


def effective_known(a: AgentSlot) -> str | None:
    return kind_of(effective_label(a), a.kinds)


def live_full_lifecycle(a: AgentSlot) -> bool:
    h = a.hook
    return h is not None and hook_effective(a, h) and is_full_lifecycle(h["source"], h["label"])


def _visible_blocker_overrides_hook(a: AgentSlot) -> bool:
    if live_full_lifecycle(a):
        return False
    h = a.hook
    return (
        a.fallback_blocker
        and h is not None
        and a.fallback_at is not None
        and h["at"] <= a.fallback_at
        and h["state"] != "blocked"
        and kind_of(h["label"], a.kinds) == a.detected
    )


def computed_state(a: AgentSlot) -> str:
    if _visible_blocker_overrides_hook(a):
        return "blocked"
    if a.hook is not None and hook_effective(a, a.hook):
        return a.hook["state"]
    return a.fallback


def presentation(a: AgentSlot) -> tuple:
    return (a.title, a.display_agent, tuple(sorted(a.state_labels.items())))


def current_session(a: AgentSlot) -> dict | None:
    """current_session_identity_for_persistence: the authority's session, else the persisted."""
    if a.hook is not None and a.hook.get("session"):
        h = a.hook
        return {"source": h["source"], "agent": h["label"], **h["session"]}
    return dict(a.persisted) if a.persisted else None


def exposed_session(a: AgentSlot) -> dict | None:
    s = current_session(a)
    if s is None:
        return None
    return {"source": s["source"], "agent": s["agent"], "kind": s["kind"], "value": s["value"]}


def session_ref(
    source: str,
    label: str,
    session_id: str | None,
    session_path: str | None,
    hooks: str,
) -> dict | None:
    """session_ref_from_report (src/agent_resume.rs:53-70): official pairs only; pi/omp prefer
    the path; ids <= 512 bytes, paths <= 4096 bytes and absolute (valid_session_path,
    :254-259), no control characters."""
    if not is_official(source, label, hooks):
        return None

    def valid(v, limit):
        return (
            bool(v)
            and len(v.encode()) <= limit
            and not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in v)
        )

    if (
        label in ("pi", "omp")
        and session_path is not None
        and valid(session_path, MAX_SESSION_PATH_BYTES)
        and session_path.startswith("/")  # Path::is_absolute on a unix server
    ):
        return {"kind": "path", "value": session_path}
    if session_id is not None and valid(session_id, MAX_SESSION_ID_BYTES):
        return {"kind": "id", "value": session_id}
    return None


# --- names and managed starts ----------------------------------------------------------------


def clear_name(a: AgentSlot) -> None:
    a.codex_prompt_ready = False
    if a.launch_session is not None and a.persisted == a.launch_session:
        a.persisted = None
    a.launch_session = None
    a.name = None
    a.name_owner = None
    a.managed = None


def set_name(a: AgentSlot, name: str | None) -> None:
    """set_agent_name / clear_agent_name (agent.rename)."""
    if not name:
        clear_name(a)
        return
    a.name = name
    if a.hook is not None:
        a.name_owner = {"label": a.hook["label"], "session": a.hook.get("session")}
    elif a.persisted is not None:
        a.name_owner = {
            "label": a.persisted["agent"],
            "session": {"kind": a.persisted["kind"], "value": a.persisted["value"]},
        }
    elif effective_label(a):
        a.name_owner = {"label": effective_label(a), "session": None}
    else:
        a.name_owner = None


def launch_session(kind: str, args: list, hooks: str) -> dict | None:
    """persisted_session_from_launch_args ([H093] src/agent_resume.rs): ``codex resume <id>``
    (exactly those two arguments, an id not starting with '-') names codex's session."""
    if kind != "codex" or len(args) != 2 or args[0] != "resume" or args[1].startswith("-"):
        return None
    ref = session_ref("herdr:codex", "codex", args[1], None, hooks)
    return {"source": "herdr:codex", "agent": "codex", **ref} if ref else None


def begin_managed(
    a: AgentSlot,
    name: str,
    kind: str,
    now: float,
    settle: float,
    timeout: float,
    session: dict | None = None,
) -> None:
    """begin_managed_agent; ``session``: launch_session's, persisted until confirmed."""
    set_name(a, name)
    if session is not None:
        a.persisted, a.launch_session = dict(session), dict(session)
    a.name_owner = {"label": kind, "session": None}
    a.managed = {
        "kind": kind,
        "phase": "pending",
        "ready_after": now + settle,
        "deadline": now + timeout,
        "observed_expected": False,
    }


def reconcile_name_owner(a: AgentSlot, label: str, session: dict | None) -> None:
    if a.name is None:
        return
    if a.managed is not None and kind_of(label, a.kinds) == a.managed["kind"]:
        return
    owner = a.name_owner
    if owner is None:
        a.name_owner = {"label": label, "session": session}
    elif owner["label"] != label or (
        owner["session"] is not None and session is not None and owner["session"] != session
    ):
        a.name = None
        a.name_owner = None
    elif owner["session"] is None and session is not None:
        owner["session"] = session


def next_managed_deadline(a: AgentSlot) -> float | None:
    m = a.managed
    if not m or m["phase"] != "pending":
        return None
    ra = m["ready_after"]
    return min(ra if ra is not None else m["deadline"], m["deadline"])


def reconcile_managed(
    a: AgentSlot, now: float, blocked_phase: bool, process_exited: bool = False
) -> bool:
    """reconcile_managed_agent_at (src/terminal/state.rs:1949-2029). True when anything changed.

    ``blocked_phase`` (row managed_start_blocked_phase): 0.8.2 parks a start that sees
    ``blocked`` in a blocked phase, ready only at idle; 0.8.0 is ready at idle or blocked
    (346411fa:src/terminal/state.rs:1846-1910)."""
    m = a.managed
    if m is None:
        return False
    known = effective_known(a)
    kind = m["kind"]
    pending = m["phase"] == "pending"
    observed = (m["observed_expected"] or known == kind) if pending else False
    if (
        process_exited
        or (known is not None and known != kind)
        or (pending and observed and known is None)
    ):
        clear_name(a)
        return True
    if m["phase"] == "blocked":
        if known == kind and _start_ready(a, kind):
            a.managed = {**m, "phase": "active"}
            a.launch_session = None
            return True
        return False
    if pending:
        if blocked_phase and known == kind and a.internal == "blocked":
            a.managed = {**m, "phase": "blocked"}
            return True
        if now >= m["deadline"]:
            clear_name(a)
            return True
        ra = m["ready_after"]
        if ra is None or now >= ra:
            if known == kind and (
                _start_ready(a, kind) or (not blocked_phase and a.internal == "blocked")
            ):
                a.managed = {**m, "phase": "active"}
                a.launch_session = None
                return True
            if ra is not None:
                a.managed = {**m, "ready_after": None, "observed_expected": observed}
                return True
        if observed != m["observed_expected"]:
            a.managed = {**m, "observed_expected": observed}
            return True
    return False


def _start_ready(a: AgentSlot, kind: str) -> bool:
    """The started agent is at its prompt: idle, or a codex still `unknown` whose prompt
    detection saw (0.9.3; ``codex_prompt_ready`` is only ever set there)."""
    return a.internal == "idle" or (
        kind == "codex" and a.internal == "unknown" and a.codex_prompt_ready
    )


def observe_codex_prompt(a: AgentSlot, ready: bool) -> Mutation | None:
    """observe_codex_prompt_ready: only for a detected codex (no exit recorded) whose codex
    start is not yet active, and only when the observation changes."""
    m = a.managed
    if (
        a.detected != "codex"
        or a.recent_exit is not None
        or not (m and m["kind"] == "codex" and m["phase"] != "active")
        or a.codex_prompt_ready == ready
    ):
        return None
    a.codex_prompt_ready = ready
    return Mutation()


def finish_acquisition(a: AgentSlot) -> bool:
    """finish_agent_process_acquisition: True when this idle is the first after a fresh process."""
    reached = a.acquisition_pending and a.internal == "idle"
    suppress = reached and a.recent_exit is None
    if reached:
        a.acquisition_pending = False
    return suppress


# --- detection (the simulated process is what herdr's detection observes) ------------------


def _ignore_detection_under_full_lifecycle(a: AgentSlot, agent: str | None, exited: bool) -> bool:
    return live_full_lifecycle(a) and not exited and not _hook_conflicts_with(a, agent)


def _hook_conflicts_with(a: AgentSlot, agent: str | None) -> bool:
    if agent is None or a.hook is None:
        return False
    k = kind_of(a.hook["label"], a.kinds)
    return k is not None and k != agent


def _suppress_full_lifecycle(a: AgentSlot, source: str, label: str, session, reason: str) -> None:
    if is_full_lifecycle(source, label):
        a.suppressed[source] = {"label": label, "session": session, "reason": reason}


def process_detected(a: AgentSlot, agent: str, now: float, hooks: str, acquires: bool) -> Mutation:
    """set_detected_agent_process_at: a fresh agent process is in the pane's foreground.

    ``acquires`` (row process_detection_acquires): 0.8.2 starts it ``unknown`` with a process
    acquisition; 0.8.0 publishes it ``idle`` at once and acquires nothing
    (346411fa:src/pane.rs:777-800)."""
    if not acquires:
        return detection(a, agent, "idle", False, False, now, hooks)
    starts = not _ignore_detection_under_full_lifecycle(a, agent, False)
    m = detection(a, agent, "unknown", False, False, now, hooks)
    if starts:
        a.codex_prompt_ready = False
        a.acquisition_pending = True
    return m


def detection(
    a: AgentSlot,
    agent: str | None,
    state: str,
    blocker: bool,
    exited: bool,
    now: float,
    hooks: str,
    keep_name: bool = False,
) -> Mutation:
    """set_detected_state_with_screen_signals_at (src/terminal/state.rs:312-590).

    ``keep_name`` (profile row exit_keeps_name_until_shell): 0.9.3 keeps the agent's name at
    the exit and frees it once detection, with the exit recorded, sees no agent any more
    ([H093] src/terminal/state.rs: "observing a process exit is not the same as the agent
    being gone"); 0.8.2 clears it with the release (src/terminal/state.rs:575-577)."""
    prev_label = effective_label(a)
    released = exited and (prev_label is not None or a.name is not None)
    if _ignore_detection_under_full_lifecycle(a, agent, exited):
        if a.hook is not None and kind_of(a.hook["label"], a.kinds) == agent:
            a.detected = agent
        return Mutation()
    prev_detected = a.detected
    a.detected = agent
    if exited or agent != "codex" or state == "blocked":
        a.codex_prompt_ready = False
    if agent is not None:
        reconcile_name_owner(a, agent, None)
    if not exited and agent is not None and prev_detected != agent:
        # A fresh process of this kind lifts the suppression of its full-lifecycle sources
        # (NO_STALE_SESSION_MEMORY) and restarts their sequences.
        for source in [s for s, v in a.suppressed.items() if kind_of(v["label"], a.kinds) == agent]:
            del a.suppressed[source]
            a.hook_seqs.pop(source, None)
    a.fallback = state
    a.fallback_blocker = blocker and state == "blocked"
    a.fallback_at = now
    if exited:
        if agent is not None:
            a.recent_exit = agent
    elif agent is not None:
        a.recent_exit = None
    if exited:
        # Sources of the exited process start a fresh sequence with the next process.
        for source, label in K.official_sources_in(hooks):
            if label == agent:
                a.hook_seqs.pop(source, None)
                _suppress_full_lifecycle(a, source, label, None, "process_exit")
        if a.hook is not None and kind_of(a.hook["label"], a.kinds) == agent:
            a.hook_seqs.pop(a.hook["source"], None)
            a.hook = None
        if a.persisted is not None and kind_of(a.persisted["agent"], a.kinds) == agent:
            a.persisted = None
        if (
            agent is not None
            and a.resume_argv is not None
            and kind_of(a.resume_agent, a.kinds) == agent
        ):
            forget_resume(a)  # the exited agent's resume command
    if (
        a.hook is not None
        and a.hook["at"] <= now
        and (
            _hook_conflicts_with(a, agent)
            or (
                prev_detected is not None
                and agent != prev_detected
                and kind_of(a.hook["label"], a.kinds) == prev_detected
            )
        )
    ):
        h = a.hook
        durable = (
            {"source": h["source"], "agent": h["label"], **h["session"]}
            if h.get("session")
            else None
        )
        _suppress_full_lifecycle(a, h["source"], h["label"], h.get("session"), "hook_clear")
        a.hook = None
        a.persisted = durable
    if keep_name:
        if agent is None and a.recent_exit is not None:
            clear_name(a)
    elif released:
        clear_name(a)
    return Mutation(released=released, working=state == "working")


# --- hook reports (SOCKET.md §6.4) -----------------------------------------------------------


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
            _suppress_full_lifecycle(
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
    _suppress_full_lifecycle(a, h["source"], h["label"], h.get("session"), "hook_clear")
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
    _suppress_full_lifecycle(a, source, label, h.get("session") if h else None, "hook_clear")
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


# --- reported resume commands (0.9.2 resume_argv; [H093] src/terminal/state.rs) ----------------


def can_record_resume(a: AgentSlot, source: str, label: str, kinds: str) -> bool:
    """can_record_reported_resume: the reporter holds the pane (its hook authority), or, with
    no authority, is the agent detection sees running there (no exit recorded)."""
    h = a.hook
    if h is not None:
        return h["source"] == source and h["label"] == label
    return (
        a.recent_exit is None
        and a.detected is not None
        and K.parse_kind_in(kinds, label) == a.detected
    )


def record_resume(a: AgentSlot, source: str, label: str, argv: list) -> None:
    a.resume_argv, a.resume_agent, a.resume_source = list(argv), label, source


def forget_resume(a: AgentSlot, source: str | None = None, label: str | None = None) -> None:
    """Drop the stored resume command (only ``source``/``label``'s when given)."""
    if source is not None and (a.resume_source, a.resume_agent) != (source, label):
        return
    a.resume_argv = a.resume_agent = a.resume_source = None


def reconcile_resume(a: AgentSlot) -> None:
    """reconcile_reported_resume, after every input: the command goes once another reporter
    holds the pane or another agent's process is detected there."""
    if a.resume_argv is None:
        return
    h = a.hook
    other_authority = h is not None and (h["source"], h["label"]) != (
        a.resume_source,
        a.resume_agent,
    )
    if other_authority or (a.detected is not None and a.detected != a.resume_agent):
        forget_resume(a)
