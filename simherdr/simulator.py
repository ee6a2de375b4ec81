"""The simulator: state + handlers + clock + event hub, without any transport.

What the socket server and in-process tests drive. It assembles its parts
(:mod:`simherdr.runtime`): requests go through the dispatcher (SOCKET.md §1.2-1.4), timers
through the driver on the injected clock, pane events through the hooks; it owns the state of
one server generation (:meth:`Simulator._fresh_state`) and the commit that publishes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .clock import Clock, RealClock
from .facts import errors as E
from .facts.versions import HerdrVersion
from .handlers.registry import Methods
from .runtime.changes import Changes
from .runtime.config import Config as Config
from .runtime.config import load_host_config, release_of
from .runtime.dispatch import Dispatcher, Interceptor
from .runtime.hooks import PaneHooks
from .runtime.timers import Timers
from .trace import NullRecorder, Observable, Recorder, Trace

if TYPE_CHECKING:
    from typing import Protocol

    from .agents import AgentLayer
    from .handlers.context import WorktreeOperations
    from .model.hub import EventHub
    from .model.seams import PaneBackend
    from .model.state import Session
    from .model.surface import ClientSurface
    from .outbox import Outbox
    from .plugins import PluginHost
    from .scenarios.faults import Faults

    class TerminalListener(Protocol):
        """What the simulator tells the terminal plane (simherdr.terminalplane.TerminalPlane)."""

        def screens_changed(self) -> None: ...

        def terminal_exited(self, terminal_id: str) -> None: ...

        def size_locked(self, terminal_id: str) -> bool: ...


class _MadeOnUse:
    """A server generation's part made the first time it is read (``make``, a method name,
    sets it on the instance, where later reads find it at plain attribute speed); the
    generation's start (:meth:`Simulator._fresh_state`) drops it again. ``simherdr serve``
    answers its first ping without the session model (issue 26): a ping reads none of it."""

    def __init__(self, make: str) -> None:
        self.make = make

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        getattr(obj, self.make)()
        return obj.__dict__[self.name]


class Simulator:
    # One generation's session and its outbox (the events of the batch in progress), made
    # together on first use; a commit before that publishes nothing (an empty session: no
    # event, no focus). Its event ring, client surface and worktree operations in flight
    # likewise (a ring made on its first event or read is the same empty ring).
    session: Session = _MadeOnUse("_make_session")  # type: ignore[assignment]
    outbox: Outbox = _MadeOnUse("_make_session")  # type: ignore[assignment]
    hub: EventHub = _MadeOnUse("_make_hub")  # type: ignore[assignment]
    surface: ClientSurface = _MadeOnUse("_make_surface")  # type: ignore[assignment]
    worktree_ops: WorktreeOperations = _MadeOnUse("_make_worktree_ops")  # type: ignore[assignment]

    def __init__(
        self,
        profile: HerdrVersion | str | None = None,
        clock: Clock | None = None,
        config: Config | None = None,
    ):
        self.version: HerdrVersion = release_of(profile)  # readers take version.rows
        self.clock = clock or RealClock()
        self.config = config or Config()
        self.methods = Methods()  # an area is imported on first use of one of its methods
        self.stopping = False
        self.offloop_pending = 0
        self.on_restart: list[Callable[[], None]] = []  # transports drop their connections
        self.on_stop: list[Callable[[], None]] = []
        # Called with (kind, payload) for every event published (plugin [[events]] hooks).
        self.event_listeners: list[Callable[[str, dict], None]] = []
        # The fault seam: ``async intercept(sim, call, proceed)`` around every parsed request,
        # waits included, streams not (runtime/dispatch.py Interceptor).
        self.interceptors: list[Interceptor] = []
        # The terminal plane's seam (simherdr.terminalplane): told after every change (a
        # batch, typed input, a PTY's output) and when a pane's terminal exits.
        self.terminal_listeners: list[TerminalListener] = []
        self._restored = False  # the session file was read (once, at the first start)
        # The recorder seam (simherdr.trace): requests, replies, events, faults, steps.
        self.trace: Recorder = (
            Trace(self.clock.now, self.config.trace_size)
            if self.config.trace_size
            else NullRecorder()
        )
        self.changes = Changes(self.clock)
        self.timers = Timers(self.clock, self.commit, self.changes.notify)
        self.dispatcher = Dispatcher(self)
        self.hooks = PaneHooks(self)
        # Made on first use (a pane's creation): `simherdr serve` pings without importing them.
        self._backend: PaneBackend | None = None
        self._agents: AgentLayer | None = None
        if self.config.pane_mode != "simulated":
            from .panes.pty import PtyBackend  # real PTY-backed panes

            self._backend = PtyBackend(self)
        self._plugins: PluginHost | None = None  # made on first use (see plugins)
        diagnostics = load_host_config(self.config, self.version)
        self._fresh_state(diagnostics)

    def _fresh_state(self, config_diagnostics: list) -> None:
        """One server generation's state, as a new server starts it (``reset`` rebuilds it):
        its session, outbox and worktree operations are made on first use (:class:`_MadeOnUse`)."""
        for name in ("session", "outbox", "hub", "surface", "worktree_ops"):
            self.__dict__.pop(name, None)
        self.ssh_agent_leases: list[str] = []  # server.ssh_agent.register (0.9.x)
        self._config_diagnostics = config_diagnostics  # the surface's, when it is made
        self._focus_pair = None
        self._faults: Faults | None = None
        self._agents = None  # the agent layer (occupants, behaviour overrides), made on use

    def _make_session(self) -> None:
        from .outbox import Outbox

        self.outbox = outbox = Outbox()
        self.session = outbox.session = self.hooks.new_session(outbox.record)

    def _make_hub(self) -> None:
        from .model.hub import EventHub

        self.hub = EventHub()

    def _make_surface(self) -> None:
        from .model.surface import ClientSurface

        self.surface = ClientSurface()  # toast, window title, agent view (no client attached)
        self.surface.config_diagnostics = self._config_diagnostics

    def _current_config_diagnostics(self) -> list:
        made = self.__dict__.get("surface")
        return self._config_diagnostics if made is None else made.config_diagnostics

    def _make_worktree_ops(self) -> None:
        from .handlers.context import WorktreeOperations

        self.worktree_ops = WorktreeOperations()  # in-flight worktree create/remove

    @property
    def backend(self) -> PaneBackend:
        """The pane backend seam (simulated panes unless a real mode was configured)."""
        if self._backend is None:
            from .panes.simulated import SimulatedBackend

            self._backend = SimulatedBackend(self)
        return self._backend

    @property
    def agents(self) -> AgentLayer:
        """Simulated agent processes + herdr's agent state."""
        if self._agents is None:
            from .agents import AgentLayer

            self._agents = AgentLayer(self)
        return self._agents

    @property
    def faults(self) -> Faults:
        """The fault registry (simherdr.scenarios.faults.Faults), made on first use."""
        if self._faults is None:
            from .scenarios.faults import Faults

            self._faults = Faults(self)
        return self._faults

    # --- time and change notification (runtime/timers.py, runtime/changes.py) ----------------

    def now(self) -> float:
        return self.clock.now()

    def now_us(self) -> int:
        return int(self.clock.epoch() * 1_000_000)

    def schedule(self, at: float, fn: Callable[[], None], durable: bool = False) -> None:
        self.timers.schedule(at, fn, durable)

    def run_due(self) -> None:
        self.timers.run_due()

    def notify(self) -> None:
        self.changes.notify()
        for listener in self.terminal_listeners:
            listener.screens_changed()

    def terminal_size_locked(self, pane) -> bool:
        """A terminal-plane owner holds the pane's size (herdr's direct_attach_resize_locks,
        src/server/headless.rs:2892-2895): the view's draws leave it alone."""
        return any(listener.size_locked(pane.terminal_id) for listener in self.terminal_listeners)

    def terminal_exited(self, pane) -> None:
        """The pane's process ended and its pane closes (herdr's AppEvent::PaneDied)."""
        for listener in list(self.terminal_listeners):
            listener.terminal_exited(pane.terminal_id)

    async def wait_change(self, until: float | None, conn=None) -> None:
        await self.changes.wait(until, conn)

    async def offloop(self, awaitable):
        """Await work that progresses off the event loop (git in a thread): harnesses on a
        virtual clock then keep the loop running instead of reporting a stuck request."""
        self.offloop_pending += 1
        try:
            return await awaitable
        finally:
            self.offloop_pending -= 1

    # --- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the timer driver (needed when time passes without requests); with
        persistence, the first start restores herdr's session file (simherdr.persist)."""
        if self.config.persist and not self._restored:
            from . import persist

            self._restored = True
            persist.restore_from_disk(self)
            self.commit()
            self.plugins.run_startup_hooks()  # herdr runs them once the session is restored
        self.timers.start()

    @property
    def plugins(self) -> PluginHost:
        """The plugin registry, hooks and their processes, made on first use: a server
        without plugins (every non-persisted start) never imports simherdr.plugins, and its
        [[events]] hooks have nothing to run before a plugin is installed through it."""
        if self._plugins is None:
            from .plugins import PluginHost

            self._plugins = PluginHost(self)
        return self._plugins

    async def close(self) -> None:
        if self.config.persist:
            from . import persist

            persist.save(self)
        if self._plugins is not None:
            await self._plugins.close()  # running plugin commands are killed and reaped
        if self._backend is not None:
            from .model.seams import OwnsProcesses  # not at start: only a closing server asks

            if isinstance(self._backend, OwnsProcesses):
                self._backend.close()  # real panes: kill and reap every process
        await self.timers.stop()

    def stop(self) -> None:
        if not self.stopping:
            self.stopping = True
            for cb in list(self.on_stop):
                cb()
            self.notify()

    def _end_generation(self) -> None:
        """The old process's waits end without a reply and its connections close."""
        self.dispatcher.end_waits()
        for listener in list(self.on_restart):
            listener()

    def restart(self) -> None:
        """The server process restarts and restores its session (a scenario seam: see
        simherdr.scenarios.server_restart). Pane processes die and fresh shells start; the
        event ring, pending timers and global counters of the old process are gone."""
        from . import persist

        self._end_generation()
        # The old process's last save, read back by the new one (the restore of a fresh start).
        if self.config.persist:
            persist.save(self)
            snap, history = persist.load(self.config)
        else:
            snap, history = persist.capture(self)
        plans = self.hooks.resume_plans()
        self.hooks.close_all()
        self.timers.keep_durable()
        self.__dict__.pop("hub", None)  # a new process's ring, made on first use
        self._focus_pair = None
        persist.restore(self, snap or {"workspaces": [], "active": None}, history)
        self.hooks.resume(plans)
        self.commit()

    def reset(self) -> None:
        """A newly started server's state on the same sockets (the control op ``server.reset``,
        simherdr's own, like moto's reset): every workspace, tab, pane, agent, timer, event,
        fault, scenario step and behaviour override is gone, ids start again at 1, waits end
        and connections close as on a restart. The clock, the configuration (config.toml as
        read at start), the plugins and the trace (it records the reset) outlive it."""
        self._end_generation()
        self.hooks.close_all()  # the backend forgets every pane
        if self._faults is not None:
            self._faults.clear()
        self.interceptors.clear()
        if isinstance(self.trace, Observable):
            self.trace.forget_listeners()  # running scenarios' triggers
        self.timers.clear()
        self._fresh_state(self._current_config_diagnostics())
        self.commit()  # and wakes every wait

    # --- state commit: outbox -> hub, focus trio -------------------------------------------

    def _publish(self, kind: str, data: dict) -> None:
        self.hub.publish(kind, data)
        self.trace.record("event", None, type=kind, data=data)
        for listener in self.event_listeners:
            listener(kind, data)

    def commit(self) -> None:
        """Publish the batch's events, then the focus trio when the focus moved (herdr compares
        (workspace index, pane) after each batch). A session not made yet is empty: no
        events, no focus (its focus pair None, as a new generation's ``_focus_pair``)."""
        made = self.__dict__.get("outbox")
        if made is not None:
            self.hooks.draw()  # the virtual frame herdr draws after a batch (pane geometry)
        batch = made.drain() if made is not None else []
        for kind, data in batch:
            self._publish(kind, {"type": kind, **data})
        pair = self.session.focus_pair() if made is not None else None
        if pair != self._focus_pair:
            from .outbox import focus_events

            self._focus_pair = pair
            for kind, data in focus_events(self.session):
                self._publish(kind, {"type": kind, **data})
        if batch and self.config.persist and self._restored:  # a change publishes an event
            from . import persist

            persist.schedule_save(self)  # debounced like herdr's (simherdr.persist)
        self.notify()

    # --- requests (runtime/dispatch.py) --------------------------------------------------------

    async def request(self, obj: Any, conn=None, *, origin=None, peer_pid=None) -> dict | None:
        return await self.dispatcher.request(obj, conn, origin=origin, peer_pid=peer_pid)

    def answers_now(self, mdef) -> bool:
        return self.dispatcher.answers_now(mdef)

    def request_now(self, obj: Any, *, origin: str, peer_pid: int | None = None) -> dict:
        return self.dispatcher.request_now(obj, origin=origin, peer_pid=peer_pid)

    def parse(self, obj: Any):
        return self.dispatcher.parse(obj)

    def unparsable_id(self, obj: Any, duplicates: frozenset = frozenset()) -> str:
        return self.dispatcher.unparsable_id(obj, duplicates)

    def retired(self, obj: Any, duplicates: frozenset = frozenset()) -> E.HerdrError | None:
        return self.dispatcher.retired(obj, duplicates)

    async def invoke(self, method: str, params: dict | None = None, rid: str = "t") -> dict | None:
        """In-process convenience: one request by method name (None: a fault dropped the reply)."""
        return await self.request({"id": rid, "method": method, "params": params or {}})

    def refresh_cwds(self) -> None:
        """Real panes: cwds read from /proc before a call, as herdr reads them."""
        if self._backend is not None:
            self._backend.refresh_cwds()

    # --- panes: the backend seam and the agent layer's hooks (runtime/hooks.py) ---------------

    def on_pane_created(self, pane) -> None:
        self.hooks.on_pane_created(pane)

    def write_input(self, pane, data: bytes) -> None:
        self.hooks.write_input(pane, data)

    def before_pane_close(self, pane) -> None:
        self.hooks.before_pane_close(pane)

    def on_pane_renamed(self, pane, old_id: str) -> None:
        self.hooks.on_pane_renamed(pane, old_id)

    def before_workspace_close(self, w) -> None:
        self.hooks.before_workspace_close(w)
