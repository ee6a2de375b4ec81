"""herdr's detection input to a terminal's agent arbitration (src/terminal/state.rs): the
simulated process is what herdr's detection observes. Pure functions on an :class:`AgentSlot`.

SIMPLIFICATIONS (choices, each named where it applies):

- NO_STALE_SESSION_MEMORY: herdr remembers sessions of exited processes to ignore their late
  reports; here the suppression of a full-lifecycle source lasts until a fresh process of its
  kind is detected.
- Detection publishes no "release suppression" window (src/terminal/state.rs:1214-1228).
"""

from __future__ import annotations

from ..facts import kinds as K
from .terminal import (
    AgentSlot,
    Mutation,
    clear_name,
    effective_label,
    forget_resume,
    kind_of,
    live_full_lifecycle,
    reconcile_name_owner,
    suppress_full_lifecycle,
)


def _ignore_detection_under_full_lifecycle(a: AgentSlot, agent: str | None, exited: bool) -> bool:
    return live_full_lifecycle(a) and not exited and not _hook_conflicts_with(a, agent)


def _hook_conflicts_with(a: AgentSlot, agent: str | None) -> bool:
    if agent is None or a.hook is None:
        return False
    k = kind_of(a.hook["label"], a.kinds)
    return k is not None and k != agent


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
                suppress_full_lifecycle(a, source, label, None, "process_exit")
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
        suppress_full_lifecycle(a, h["source"], h["label"], h.get("session"), "hook_clear")
        a.hook = None
        a.persisted = durable
    if keep_name:
        if agent is None and a.recent_exit is not None:
            clear_name(a)
    elif released:
        clear_name(a)
    return Mutation(released=released, working=state == "working")
