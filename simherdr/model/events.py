"""The session's domain events: what a mutation changed, by id, never a wire payload.

:class:`~simherdr.model.state.Session` records one of these for each change herdr announces
(SOCKET.md §8); the runtime's outbox (``simherdr/outbox.py``) renders it to herdr's payload
and the commit publishes it. Ids only: the renderer reads the state it names.
"""

from __future__ import annotations

from collections.abc import Callable

from ..facts.record import record


@record(frozen=True, slots=True)
class WorkspaceCreated:
    workspace_id: str


@record(frozen=True, slots=True)
class TabCreated:
    workspace_id: str
    tab_id: str


@record(frozen=True, slots=True)
class PaneCreated:
    pane_id: str


@record(frozen=True, slots=True)
class LayoutChanged:
    workspace_id: str
    tab_id: str


@record(frozen=True, slots=True)
class WorkspaceRenamed:
    workspace_id: str
    label: str


@record(frozen=True, slots=True)
class TabRenamed:
    workspace_id: str
    tab_id: str
    label: str


@record(frozen=True, slots=True)
class WorkspaceClosed:
    """Recorded while the workspace still stands: its payload is the workspace as it was just
    before the close."""

    workspace_id: str


@record(frozen=True, slots=True)
class TabClosed:
    workspace_id: str
    tab_id: str


@record(frozen=True, slots=True)
class PaneClosed:
    """``exited``: the pane's shell exited (pane_exited) rather than pane.close."""

    workspace_id: str
    pane_id: str
    exited: bool = False


Event = (
    WorkspaceCreated
    | TabCreated
    | PaneCreated
    | LayoutChanged
    | WorkspaceRenamed
    | TabRenamed
    | WorkspaceClosed
    | TabClosed
    | PaneClosed
)
EventSink = Callable[[Event], None]
