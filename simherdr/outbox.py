"""The runtime's outbox: the session's domain events rendered to herdr's wire, in one place.

The model records what changed (:mod:`simherdr.model.events`); :func:`render` turns an event
into herdr's ``(kind, payload)`` when it is recorded, since herdr builds each payload from the
state at its ``emit_event`` (src/app/api.rs:817); the commit then publishes the batch
(``Simulator.commit``). Handlers and the agent layer that announce a payload they built
themselves queue it with :meth:`Outbox.emit`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from . import views as V
from .model import events as ev

if TYPE_CHECKING:
    from .model.state import Session

WireEvent = tuple[str, dict]


def render(s: Session, e: ev.Event) -> WireEvent:
    """herdr's event kind and payload for one domain event (SOCKET.md §8), from ``s`` now."""
    match e:
        case ev.WorkspaceCreated(workspace_id):
            return "workspace_created", {"workspace": V.workspace_info(s, _ws(s, workspace_id))}
        case ev.TabCreated(workspace_id, tab_id):
            return "tab_created", {"tab": V.tab_info(s, _tab(s, workspace_id, tab_id))}
        case ev.PaneCreated(pane_id):
            return "pane_created", {"pane": V.pane_info(s, s.panes[pane_id])}
        case ev.LayoutChanged(workspace_id, tab_id):
            w = _ws(s, workspace_id)
            layout = V.layout_snapshot(s, w, _tab(s, workspace_id, tab_id))
            return "layout_updated", {"layout": layout}
        case ev.WorkspaceRenamed(workspace_id, label):
            return "workspace_renamed", {"workspace_id": workspace_id, "label": label}
        case ev.TabRenamed(workspace_id, tab_id, label):
            return "tab_renamed", {"tab_id": tab_id, "workspace_id": workspace_id, "label": label}
        case ev.WorkspaceClosed(workspace_id):
            info = V.workspace_info(s, _ws(s, workspace_id))
            return "workspace_closed", {"workspace_id": workspace_id, "workspace": info}
        case ev.TabClosed(workspace_id, tab_id):
            return "tab_closed", {"tab_id": tab_id, "workspace_id": workspace_id}
        case ev.PaneClosed(workspace_id, pane_id, exited):
            kind = "pane_exited" if exited else "pane_closed"
            return kind, {"pane_id": pane_id, "workspace_id": workspace_id}
    raise TypeError(f"not a domain event: {e!r}")


def _ws(s: Session, workspace_id: str):
    w = s.ws(workspace_id)
    if w is None:
        raise LookupError(f"event for a workspace that is gone: {workspace_id}")
    return w


def _tab(s: Session, workspace_id: str, tab_id: str):
    t = _ws(s, workspace_id).tab(tab_id)
    if t is None:
        raise LookupError(f"event for a tab that is gone: {tab_id}")
    return t


class Outbox:
    """The events of the batch in progress, in herdr's order, until the commit drains them."""

    def __init__(self) -> None:
        self.session: Session | None = None  # the session whose events this renders
        self._queue: list[WireEvent] = []
        self._suppressed = 0
        self._deferred: list[ev.Event] | None = None

    def record(self, e: ev.Event) -> None:
        """The session's event sink."""
        if self._suppressed:
            return
        if self._deferred is not None:
            self._deferred.append(e)
            return
        assert self.session is not None, "Outbox.session is set when the session is made"
        self._queue.append(render(self.session, e))

    def emit(self, kind: str, payload: dict) -> None:
        """Queue an event whose payload the caller built (same suppression as record)."""
        if not self._suppressed:
            self._queue.append((kind, payload))

    @contextmanager
    def suppressed(self) -> Iterator[None]:
        """Nothing recorded or emitted inside is announced (the caller announces the state
        later itself, as herdr does for a worktree's workspace: creation.rs:345-361)."""
        self._suppressed += 1
        try:
            yield
        finally:
            self._suppressed -= 1

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """Domain events recorded inside are rendered when the block ends, from the state
        then (herdr announces a plugin pane once it is labelled: panes.rs:271-320). Not for
        closing events: what they name is gone by then."""
        outer, self._deferred = self._deferred, []
        try:
            yield
        finally:
            pending, self._deferred = self._deferred, outer
        for e in pending:
            self.record(e)

    def drain(self) -> list[WireEvent]:
        batch, self._queue = self._queue, []
        return batch

    def discard(self) -> None:
        """Drop the batch (a change that did not complete is not announced)."""
        self._queue.clear()
