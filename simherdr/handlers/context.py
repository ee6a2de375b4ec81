"""What a handler may use: the handler context, on one page.

Every handler is ``fn(sim, p)`` (waits and streams: ``fn(sim, p, rid, conn)``), where ``sim``
is a :class:`HandlerContext` (the :class:`~simherdr.simulator.Simulator` is the one
implementation; ``tests/core/test_handler_context.py`` checks both that it has every member
and that the handlers use no other). A handler that needs more from the runtime adds it here
first. ``conn`` is a :class:`ClientConnection`, provided by the transport.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from ..facts.record import field, record

if TYPE_CHECKING:
    from ..agents import AgentLayer
    from ..facts.versions import HerdrVersion
    from ..model.hub import EventHub
    from ..model.seams import PaneBackend
    from ..model.state import Pane, Session, Workspace
    from ..model.surface import ClientSurface
    from ..outbox import Outbox
    from ..plugins import PluginHost

T = TypeVar("T")


@record
class WorktreeOperations:
    """herdr's in-flight worktree operations (src/app/api/worktrees/deferred.rs:140-160,277-307): a second
    create or remove of the same checkout or workspace answers
    ``worktree_operation_in_progress`` until the first one ends."""

    creates: set[str] = field(default_factory=set)  # canonical checkout paths
    remove_paths: set[str] = field(default_factory=set)  # canonical checkout paths
    removes: set[str] = field(default_factory=set)  # workspace ids


class HandlerConfig(Protocol):
    """The host facts handlers read (simulator.Config)."""

    home: str
    server_cwd: str
    worktrees_dir: str | None  # [worktrees].directory
    confirm_close: bool  # ui.confirm_close
    new_cwd: str  # [terminal] new_cwd
    toast_delivery: str  # [ui.toast] delivery
    config_path: str | None  # herdr's config.toml (simherdr.hostconfig), when one is read
    herdr_config_dir: str | None  # herdr's config dir (simherdr.dirs); None: under home
    herdr_state_dir: str | None  # herdr's state dir; None: under home
    integration_env: dict[str, str]  # what integration.install reads besides HOME


class ClientConnection(Protocol):
    """The client of a wait or a stream, as the transport gives it (server.Connection)."""

    closed: asyncio.Future  # done when the client goes away (EOF or any further byte)

    def cancelled(self) -> bool: ...

    async def send(self, obj: dict) -> None:
        """Push one line (streams)."""
        ...


@runtime_checkable
class HandlerContext(Protocol):
    # --- state ------------------------------------------------------------------------------
    session: Session  # workspaces, tabs, panes (pure state, simherdr.model)
    hub: EventHub  # herdr's event ring: ``seq``, ``after(cursor, kinds)``
    outbox: Outbox  # the batch's events until commit: ``emit``, ``suppressed``, ``deferred``
    version: HerdrVersion  # the herdr release: version.rows.<row>, version.tables.<table>
    config: HandlerConfig
    agents: AgentLayer  # the agent layer: every agent-state input goes through it
    backend: PaneBackend  # the pane backend (model/seams.py)
    worktree_ops: WorktreeOperations
    surface: ClientSurface  # toast, window title, agent view (model/surface.py)
    plugins: PluginHost  # plugin registry, command logs, plugin panes (simherdr.plugins)
    stopping: bool  # server.stop was answered: only ping is served
    ssh_agent_leases: list[str]  # 0.9 server.ssh_agent.register: the agent sockets held

    # --- time (the injected clock) ------------------------------------------------------------
    def now(self) -> float: ...

    def now_us(self) -> int: ...

    def schedule(self, at: float, fn: Callable[[], None]) -> None: ...

    def run_due(self) -> None: ...

    async def wait_change(self, until: float | None, conn: ClientConnection | None = None) -> None:
        """Until the next state change, simulated time ``until``, or the client leaving."""
        ...

    async def offloop(self, awaitable: Awaitable[T]) -> T:
        """Await work off the event loop (git in a thread) without stalling a virtual clock."""
        ...

    # --- effects ------------------------------------------------------------------------------
    def commit(self) -> None:
        """Publish the session's pending events and wake waiters."""
        ...

    def write_input(self, pane: Pane, data: bytes) -> None: ...

    def on_pane_created(self, pane: Pane) -> None: ...

    def before_pane_close(self, pane: Pane) -> None: ...

    def on_pane_renamed(self, pane: Pane, old_id: str) -> None:
        """A cross-workspace pane.move renumbered the pane: what is keyed by its id follows."""
        ...

    def before_workspace_close(self, w: Workspace) -> None: ...

    def stop(self) -> None: ...


Handler = Callable[..., Any]  # fn(sim: HandlerContext, p, [rid, conn]) -> result
