"""error: answer a herdr error envelope ``{"id", "error": {"code", "message"}}``.

``code`` must be one herdr sends (:data:`simherdr.facts.errors.SERVER_CODES`); any other is
refused when the fault is made. ``message`` defaults to herdr's own text for the codes whose
text is known from the request (below), else to ``"<code> (simherdr fault)"`` (CHOICE:
clients must match on ``code`` only). ``stage="request"`` (default): herdr never handles the
request; ``stage="reply"``: it is handled (its effects happen) and its reply is replaced.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...facts import errors as E
from .base import Fault

STAGES = ("request", "reply")


def _pane(p: dict) -> str | None:
    return p.get("pane_id") if isinstance(p.get("pane_id"), str) else None


# herdr's message texts (simherdr.facts.errors, simherdr.handlers.agent), from the request.
MESSAGES = {
    "server_unavailable": lambda m, p: E.server_shutting_down().message,
    "not_implemented": lambda m, p: E.not_implemented().message,
    "timeout": lambda m, p: (
        E.timeout(
            "event match"
            if m == "events.wait"
            else "output match"
            if m == "pane.wait_for_output"
            else "agent status"
        ).message
    ),
    "pane_not_found": lambda m, p: E.pane_not_found(_pane(p)).message,
    "agent_pane_busy": lambda m, p: (
        _pane(p) and f"agent target pane {_pane(p)} is not an available shell"
    ),
    "agent_pane_not_found": lambda m, p: _pane(p) and f"agent target pane {_pane(p)} not found",
    "agent_not_running": lambda m, p: "agent is no longer running in the target pane",
    "agent_not_found": lambda m, p: (
        isinstance(p.get("target"), str) and f"agent target {p['target']} not found"
    ),
}


@dataclass(kw_only=True)
class ErrorReply(Fault):
    type = "error"

    code: str = ""
    message: str | None = None
    stage: str = "request"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.code not in E.SERVER_CODES:
            raise ValueError(f"not a herdr error code: {self.code!r}")
        if self.stage not in STAGES:
            raise ValueError(f"stage must be one of {STAGES}")
        if self.message is not None and not isinstance(self.message, str):
            raise ValueError("message must be a string")

    def text(self, call) -> str:
        if self.message is not None:
            return self.message
        make = MESSAGES.get(self.code)
        text = make(call.method, call.params) if make else None
        return text or f"{self.code} (simherdr fault)"

    async def intercept(self, call, proceed):
        if self.stage == "reply" and await proceed() is None:
            return None  # the client went away: nothing to replace
        return {"id": call.id, "error": E.HerdrError(self.code, self.text(call)).body()}
