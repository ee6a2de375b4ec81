"""unlisted: herdr's registry disagrees with the processes (the field's "agent registry drops a
live agent" and "agents after a live handoff").

The request is handled normally; then, in the replies of the listing and lookup methods, the
panes whose id matches ``pane`` (an ``fnmatch`` glob, default every pane) are:

- ``mode = "hide"``: left out of ``agent.list``, ``pane.list`` and ``session.snapshot``
  (``panes`` and ``agents``), and ``agent.get`` / ``pane.get`` of them answer herdr's
  ``agent_not_found`` / ``pane_not_found``. herdrdev/herdr#3215 (0.8.0): "`herdr agent list`
  (and the pane from `herdr pane list`) stopped listing an agent whose process was still
  running"; sigma/sd-herdr#13: after a live handoff `agents[]` is empty for 314-315 ms.
- ``mode = "unknown"``: listed, but with ``agent_status = "unknown"`` and
  ``state_change_seq = 0``. sigma/sd-herdr#6: after a live handoff "the other two returned as
  `unknown` with `state_change_seq: 0`"; #13: "correct statuses only at 3.73-3.74 s".

The simulated processes go on exactly as before (their state changes, their events): only what
the registry answers is wrong, which is what these clients measured. The time window (``start``,
``duration``) of the matcher bounds it, so a scenario can stack a hide and an unknown window.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from ...facts import errors as E
from .base import Fault

MODES = ("hide", "unknown")
LISTS = {"agent.list": ("agents",), "pane.list": ("panes",)}


@dataclass(kw_only=True)
class Unlisted(Fault):
    type = "unlisted"

    pane: str = "*"
    mode: str = "hide"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {self.mode!r}")
        if not isinstance(self.pane, str) or not self.pane:
            raise ValueError("pane must be a pane id or a glob")

    def _ours(self, entry) -> bool:
        return isinstance(entry, dict) and fnmatchcase(str(entry.get("pane_id", "")), self.pane)

    def _rows(self, rows: list) -> list:
        if self.mode == "hide":
            return [r for r in rows if not self._ours(r)]
        return [
            {**r, "agent_status": "unknown", "state_change_seq": 0}
            if self._ours(r) and "agent_status" in r
            else r
            for r in rows
        ]

    async def intercept(self, call, proceed):
        reply = await proceed()
        if not isinstance(reply, dict) or not isinstance(reply.get("result"), dict):
            return reply
        result = dict(reply["result"])
        method = call.method
        if method in LISTS:
            for key in LISTS[method]:
                if isinstance(result.get(key), list):
                    result[key] = self._rows(result[key])
        elif method == "session.snapshot" and isinstance(result.get("snapshot"), dict):
            snap = dict(result["snapshot"])
            for key in ("panes", "agents"):
                if isinstance(snap.get(key), list):
                    snap[key] = self._rows(snap[key])
            result["snapshot"] = snap
        elif method in ("agent.get", "pane.get"):
            key = "agent" if method == "agent.get" else "pane"
            entry = result.get(key)
            if self._ours(entry):
                if self.mode == "hide":
                    ref = str(call.params.get("target") or call.params.get("pane_id") or "")
                    err = (
                        E.HerdrError("agent_not_found", f"agent target {ref} not found")
                        if method == "agent.get"
                        else E.pane_not_found(ref)
                    )
                    return {"id": reply.get("id"), "error": err.body()}
                result[key] = self._rows([entry])[0]
        else:
            return reply
        return {**reply, "result": result}
