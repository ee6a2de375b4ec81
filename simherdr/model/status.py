"""The agent status machine's wire mapping, in one place (SOCKET.md §6.2).

Internal state per terminal is Idle / Working / Blocked / Unknown; each pane has a ``seen``
flag. The wire value maps Idle+unseen to ``done`` (src/app/api_helpers.rs:96-107).
"""

from __future__ import annotations

from collections.abc import Iterable

INTERNAL_STATES = ("idle", "working", "blocked", "unknown")
WIRE_STATUSES = ("idle", "working", "blocked", "done", "unknown")
REPORTABLE_STATES = ("idle", "working", "blocked", "unknown")  # PaneAgentState: no "done"

# Rollup priority for tabs and workspaces (src/workspace/aggregate.rs:75-100).
_URGENCY = {"blocked": 4, "done": 3, "working": 2, "idle": 1, "unknown": 0}

# Rust variant names, used in agent_target_ambiguous / agent_name_taken candidate lists.
RUST_VARIANT = {
    "idle": "Idle",
    "working": "Working",
    "blocked": "Blocked",
    "done": "Done",
    "unknown": "Unknown",
}


def wire_status(internal: str, seen: bool) -> str:
    if internal == "idle" and not seen:
        return "done"
    return internal


def rollup(statuses: Iterable[str]) -> str:
    best = "unknown"
    for s in statuses:
        if _URGENCY[s] > _URGENCY[best]:
            best = s
    return best


def is_completion(before: str, after: str, same_label: bool, from_unknown: bool = True) -> bool:
    """Working/Blocked -> Idle, or (``from_unknown``: 0.8.2) Unknown -> Idle with the same label
    (src/app/actions.rs:25-64; profile row completion_from_unknown)."""
    if after != "idle":
        return False
    return before in ("working", "blocked") or (from_unknown and before == "unknown" and same_label)


def is_completion_change(
    before: str,
    after: str,
    label_before: str | None,
    label_after: str | None,
    from_unknown: bool = True,
) -> bool:
    """herdr's is_completion_transition_parts: Unknown -> Idle counts only when a label existed
    before and is unchanged (src/app/actions.rs:44-55). 0.9.3's is_completion_transition has
    only Working/Blocked -> Idle ([H093] src/app/actions.rs): ``from_unknown`` False."""
    same = label_before is not None and label_before == label_after
    return is_completion(before, after, same, from_unknown)


def seen_after_change(
    seen: bool,
    before: str,
    after: str,
    label_before: str | None,
    label_after: str | None,
    suppress_completion: bool,
    in_active_tab: bool,
    from_unknown: bool = True,
) -> bool:
    """The pane's ``seen`` flag after an internal state change (SOCKET.md §6.2,
    src/app/actions.rs:3095-3115).

    A change to a non-Idle state marks the pane seen. A completion transition marks it seen
    only in the active tab of the active workspace (headless, no client: focus counts as
    focused), else unseen (-> ``done``). ``suppress_completion`` (the first idle after
    agent.start or after a fresh process acquisition) leaves ``seen`` unchanged.
    """
    if after != "idle":
        return True
    if not suppress_completion and is_completion_change(
        before, after, label_before, label_after, from_unknown
    ):
        return in_active_tab
    return seen
