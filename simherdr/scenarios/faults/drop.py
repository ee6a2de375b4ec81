"""drop: close the connection with no reply, as herdr does for a line it drops (EOF before the
newline, a timeout, an over-size line; SOCKET.md §1.2).

``stage="request"`` (default): herdr never handles the request (nothing changes).
``stage="reply"``: herdr handles it (a create really creates) and the reply is lost — the
client cannot tell what happened (CLIENTS.md §3.4: recovery ``unknown``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import Fault

STAGES = ("request", "reply")


@dataclass(kw_only=True)
class Drop(Fault):
    type = "drop"

    stage: str = "request"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.stage not in STAGES:
            raise ValueError(f"stage must be one of {STAGES}")

    async def intercept(self, call, proceed):
        if self.stage == "reply":
            await proceed()
        return None
