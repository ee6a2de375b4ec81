"""herdr's per-terminal agent arbitration (src/terminal/state.rs): the AgentSlot and its reading.

Pure functions: no clock reads (callers pass ``now``, simulated seconds), no events. Every
mutation returns a :class:`Mutation` when it was applied and ``None`` when herdr drops the
input silently; the agent layer's one update function (``AgentLayer._update``) then recomputes
the effective state, reconciles the managed start, applies the ``seen`` rule, bumps
``state_change_seq`` and emits the events of SOCKET.md §8.3.

This module holds the slot, what is read from it (effective label, state, session), names and
managed starts, and reported resume commands. The inputs that change the slot live beside it:
:mod:`.terminal_detection` (what herdr's detection observes) and :mod:`.terminal_reports`
(hook and session reports, SOCKET.md §6.4); each names its own simplifications.
"""

from __future__ import annotations

from ..facts import kinds as K
from ..facts.record import field, record

MAX_SESSION_ID_BYTES = 512
MAX_SESSION_PATH_BYTES = 4096


@record
class Mutation:
    released: bool = False
    # The input reported `working` (detection's screen state or a hook's state): 0.9.3 ends a
    # process acquisition when the effective state is then working too (profile row
    # working_ends_acquisition; [H093] src/terminal/state.rs
    # set_detected_state_with_screen_signals_at, set_hook_authority_at).
    working: bool = False


@record(slots=True)  # read for every pane of every read (model/state.py Pane)
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


def suppress_full_lifecycle(a: AgentSlot, source: str, label: str, session, reason: str) -> None:
    """Remember a full-lifecycle source's end, until a fresh process of its kind is detected
    (NO_STALE_SESSION_MEMORY, :mod:`.terminal_detection`)."""
    if is_full_lifecycle(source, label):
        a.suppressed[source] = {"label": label, "session": session, "reason": reason}


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
