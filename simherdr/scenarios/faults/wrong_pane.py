"""wrong_pane: a reply about another pane (CLIENTS.md §3.4's drift checks: "readable but about
another pane", a start that reports another terminal).

The request is handled normally; then every ``pane_id`` / ``terminal_id`` field found anywhere in
the reply's ``result`` (nested objects and lists included) is rewritten to ``to_pane``'s, looked
up when the reply is made. ``to_terminal`` gives a terminal id explicitly (e.g. a stale one that
no pane has any more); a ``to_pane`` that does not exist is written as given. ``fields`` may add
``tab_id`` / ``workspace_id`` (taken from ``to_pane``) to the rewritten keys. Error replies pass
through unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import Fault

REWRITABLE = ("pane_id", "terminal_id", "tab_id", "workspace_id")


def rewrite(value, values: dict):
    """A copy of ``value`` with every key in ``values`` replaced, at any depth."""
    if isinstance(value, dict):
        return {k: (values[k] if k in values else rewrite(v, values)) for k, v in value.items()}
    if isinstance(value, list):
        return [rewrite(v, values) for v in value]
    return value


@dataclass(kw_only=True)
class WrongPane(Fault):
    type = "wrong_pane"

    to_pane: str | None = None
    to_terminal: str | None = None
    fields: tuple = ("pane_id", "terminal_id")

    def __post_init__(self) -> None:
        super().__post_init__()
        self.fields = tuple(self.fields)
        if not self.to_pane and not self.to_terminal:
            raise ValueError("wrong_pane needs to_pane and/or to_terminal")
        bad = [f for f in self.fields if f not in REWRITABLE]
        if bad or not self.fields:
            raise ValueError(f"fields must be a non-empty subset of {REWRITABLE}")

    def values(self) -> dict:
        pane = self.sim.session.find_pane(self.to_pane) if self.to_pane else None
        out: dict = {}
        if self.to_pane:
            out["pane_id"] = pane.pane_id if pane is not None else self.to_pane
        if self.to_terminal:
            out["terminal_id"] = self.to_terminal
        elif pane is not None:
            out["terminal_id"] = pane.terminal_id
        if pane is not None:
            out["tab_id"] = pane.tab_id
            out["workspace_id"] = pane.workspace_id
        return {k: v for k, v in out.items() if k in self.fields}

    async def intercept(self, call, proceed):
        reply = await proceed()
        if not isinstance(reply, dict) or "result" not in reply:
            return reply
        return {**reply, "result": rewrite(reply["result"], self.values())}
