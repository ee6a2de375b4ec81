"""The simulator runtime: state + handlers + clock + event hub, without any transport.

This is what the socket server and in-process tests drive. Every request goes through
:meth:`Simulator.request`, which mirrors herdr's dispatch (SOCKET.md §1.2-1.4): parse, ping on
the connection path, the shutdown check, then the method.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from . import params as P
from .clock import Clock, RealClock
from .facts import errors as E
from .facts.profiles import Profile, profile_of, version_of
from .facts.versions import DEFAULT_VERSION, HerdrVersion, resolve
from .handlers.context import WorktreeOperations
from .handlers.registry import Methods
from .model.hub import EventHub
from .model.seams import OwnsProcesses
from .model.state import Session
from .model.surface import ClientSurface
from .outbox import Outbox
from .trace import DEFAULT_SIZE as DEFAULT_TRACE_SIZE
from .trace import NullRecorder, Observable, Recorder, Trace, record_reply, record_request

if TYPE_CHECKING:
    from .agents import AgentLayer
    from .model.seams import PaneBackend

log = logging.getLogger(__name__)

# Answered before the shutdown check ([H093] src/api/server.rs handle_request).
ANSWERED_WHILE_STOPPING = ("ping", "server.stop", "client_shell.surface.set")
POLL_INTERVAL = 0.1  # src/api/server.rs:28 — waits and subscriptions poll every 100 ms


@dataclass
class Config:
    """Everything that comes from the host in real herdr, made explicit."""

    home: str = field(default_factory=lambda: os.path.expanduser("~"))
    server_cwd: str = field(default_factory=os.getcwd)
    shell: str = "bash"
    cols: int = 80
    rows: int = 24
    worktrees_dir: str | None = None  # [worktrees].directory; default ~/.herdr/worktrees
    confirm_close: bool = True  # ui.confirm_close (src/config/model.rs:1116)
    new_cwd: str = "follow"  # [terminal] new_cwd (src/config/model.rs:229-270)
    socket_path: str | None = None
    # Real panes (simherdr.panes.pty): "simulated" (default), "pty" (every pane real) or
    # "mixed" (simulated unless the pane's env has SIMHERDR_PANE_MODE=pty).
    pane_mode: str = "simulated"
    pty_shell: str | list | None = None  # herdr's configured shell; else $SHELL, else `shell`
    herdr_bin_path: str | None = None  # HERDR_BIN_PATH given to real panes, when known
    # herdr's config.toml (simherdr.hostconfig): None = none read (the test default).
    config_path: str | None = None  # server.reload_config re-reads it
    default_shell: str = ""  # [terminal] default_shell (real panes; "" = $SHELL)
    shell_mode: str = "auto"  # [terminal] shell_mode (read and reported, not applied)
    toast_delivery: str = "off"  # [ui.toast] delivery: notification.show's path
    # The trace (simherdr.trace): entries kept in the ring; 0 records nothing.
    trace_size: int = DEFAULT_TRACE_SIZE
    # The view area pane rects are laid out on (x, y, width, height): simherdr.model.layout
    # DEFAULT_AREA names the choice.
    layout_area: tuple[int, int, int, int] | None = None
    # herdr's config/state dirs (simherdr.dirs); None: under ``home`` as herdr derives them.
    herdr_config_dir: str | None = None
    herdr_state_dir: str | None = None
    # herdr's named session whose data dir (<config>/sessions/NAME) holds the session file;
    # None: the default session (the config dir itself). simherdr.dirs.data_dir.
    herdr_session: str | None = None
    # The environment herdr's integration install reads besides HOME (always ``home``): the
    # agents' directory overrides (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME, ...) and PATH
    # (`kimi --version`). Empty by default, so an install lands under ``home`` only;
    # ``simherdr serve`` passes its own environment, as herdr's server process has it.
    integration_env: dict[str, str] = field(default_factory=dict)
    # Session persistence (simherdr.persist): False keeps everything in memory (the default of
    # ``simherdr serve``); True saves/restores herdr's session.json in the data dir.
    persist: bool = False
    pane_history: bool = False  # [experimental] pane_history: also session-history.json


@dataclass
class Call:
    """One parsed request as an interceptor sees it (``kind``: "call" or "wait"; ``conn``: the
    client's connection when the transport watches it, else None)."""

    id: str
    method: str
    kind: str
    params: dict
    conn: Any = None
    origin: str | None = None  # the trace's connection label


class Simulator:
    def __init__(
        self,
        profile: HerdrVersion | Profile | str | None = None,
        clock: Clock | None = None,
        config: Config | None = None,
    ):
        # The herdr release this simulator is (resolved once; readers take version.rows).
        self.version: HerdrVersion = (
            version_of(profile)
            if isinstance(profile, Profile)
            else resolve(profile or DEFAULT_VERSION)
        )
        self.profile: Profile = profile_of(self.version)  # TRANSITIONAL flat view (issue 20)
        self.clock = clock or RealClock()
        self.config = config or Config()
        self.outbox = Outbox()
        self.session = self._new_session()
        self.hub = EventHub()
        self.methods = Methods()  # an area is imported on first use of one of its methods
        self.stopping = False
        self.worktree_ops = WorktreeOperations()  # in-flight worktree create/remove
        self.offloop_pending = 0
        self._restarted: asyncio.Future | None = None
        self.on_restart: list[Callable[[], None]] = []  # transports drop their connections
        self._timers: list = []
        self._timer_seq = itertools.count()
        self._durable: set[int] = set()  # timers that outlive a restart (scenario steps)
        self._change_waiters: set[asyncio.Future] = set()
        self._focus_pair = None
        self._driver: asyncio.Task | None = None
        self._driver_wake: asyncio.Future | None = None  # set by schedule() of an earlier timer
        self._driver_at: float | None = None  # the timer the driver sleeps until
        self.on_stop: list[Callable[[], None]] = []
        self._restored = False  # the session file was read (once, at the first start)
        # The scenario/fault seam (simherdr.scenarios): an interceptor chain around every
        # parsed request, waits included (events.subscribe streams stay outside). Each
        # interceptor has ``async intercept(sim, call: Call, proceed) -> reply | None``.
        self.interceptors: list = []
        self.ssh_agent_leases: list[str] = []  # server.ssh_agent.register (0.9.x)
        self._faults = None
        # The recorder seam (simherdr.trace): requests, replies, events, faults, steps.
        self.trace: Recorder = (
            Trace(self.clock.now, self.config.trace_size)
            if self.config.trace_size
            else NullRecorder()
        )
        if self.config.pane_mode != "simulated":
            from .panes.pty import PtyBackend  # real PTY-backed panes

            self.backend = PtyBackend(self)
        # else the simulated backend, like the agent layer, is made on first use (below)
        # Called with (kind, payload) for every event published (plugin [[events]] hooks).
        self.event_listeners: list[Callable[[str, dict], None]] = []
        from .plugins import PluginHost

        self.plugins = PluginHost(self)  # plugin registry, hooks and their processes
        self.surface = ClientSurface()  # toast, window title, agent view (no client attached)
        if self.config.config_path:
            from . import hostconfig

            loaded = hostconfig.load_at_start(self.config.config_path, self.version.name)
            hostconfig.apply(self.config, loaded)
            self.surface.config_diagnostics = loaded.diagnostics

    # Made on first use, not in __init__: `simherdr serve` answers its first ping without
    # importing them (a pane's creation is the first use of both).
    @cached_property
    def backend(self) -> PaneBackend:
        """The pane backend seam (simulated panes; real ones are set in __init__)."""
        from .panes.simulated import SimulatedBackend

        return SimulatedBackend(self)

    @cached_property
    def agents(self) -> AgentLayer:
        """Simulated agent processes + herdr's agent state."""
        from .agents import AgentLayer

        return AgentLayer(self)

    # --- time ------------------------------------------------------------------------------

    def now(self) -> float:
        return self.clock.now()

    def now_us(self) -> int:
        return int(self.clock.epoch() * 1_000_000)

    def schedule(self, at: float, fn: Callable[[], None], durable: bool = False) -> None:
        """Run ``fn`` (a state change) when simulated time reaches ``at``. ``durable``: the
        timer is not the simulated process's own (a scenario step) and survives a restart."""
        seq = next(self._timer_seq)
        heapq.heappush(self._timers, (at, seq, fn))
        if durable:
            self._durable.add(seq)
        wake = self._driver_wake
        if (
            wake is not None
            and not wake.done()
            and (self._driver_at is None or at < self._driver_at)
        ):
            wake.set_result(None)  # the driver sleeps past this timer: re-arm it
        self.notify()

    def run_due(self) -> None:
        now = self.now()
        fired = False
        while self._timers and self._timers[0][0] <= now:
            _, seq, fn = heapq.heappop(self._timers)
            self._durable.discard(seq)
            fn()
            fired = True
        if fired:
            self.commit()

    async def offloop(self, awaitable):
        """Await work that progresses off the event loop (git in a thread): harnesses on a
        virtual clock then keep the loop running instead of reporting a stuck request."""
        self.offloop_pending += 1
        try:
            return await awaitable
        finally:
            self.offloop_pending -= 1

    def next_timer(self) -> float | None:
        return self._timers[0][0] if self._timers else None

    async def start(self) -> None:
        """Start the timer driver (needed when time passes without requests); with
        persistence, the first start restores herdr's session file (simherdr.persist)."""
        if self.config.persist and not self._restored:
            from . import persist

            self._restored = True
            persist.restore_from_disk(self)
            self.commit()
            self.plugins.run_startup_hooks()  # herdr runs them once the session is restored
        if self._driver is None:
            self._driver = asyncio.get_running_loop().create_task(self._drive())

    async def close(self) -> None:
        if self.config.persist:
            from . import persist

            persist.save(self)
        await self.plugins.close()  # running plugin commands are killed and reaped
        backend = vars(self).get("backend")  # None: never made (cached_property), no panes
        if isinstance(backend, OwnsProcesses):
            backend.close()  # real panes: kill and reap every process
        if self._driver:
            self._driver.cancel()
            try:
                await self._driver
            except asyncio.CancelledError:
                pass
            self._driver = None

    async def _drive(self) -> None:
        """Fire timers when they are due. It sleeps until the earliest timer and is woken only
        by schedule() of an earlier one (not by every state change: that cost a wake-up per
        request)."""
        loop = asyncio.get_running_loop()
        try:
            while True:
                self.run_due()
                nxt = self.next_timer()
                self._driver_at = nxt
                self._driver_wake = wake = loop.create_future()
                if nxt is None:
                    await wake
                    continue
                sleeper = loop.create_task(self.clock.sleep_until(nxt))
                try:
                    await asyncio.wait((wake, sleeper), return_when=asyncio.FIRST_COMPLETED)
                finally:
                    sleeper.cancel()
        finally:
            self._driver_wake = None  # a stopped driver is never woken (its loop may be closed)

    # --- change notification (waits wake on changes instead of burning 100 ms polls) -------

    def notify(self) -> None:
        waiters, self._change_waiters = self._change_waiters, set()
        for f in waiters:
            if not f.done():
                f.set_result(None)

    async def wait_change(self, until: float | None, conn=None) -> None:
        """Return on the next state change, when simulated time reaches ``until``, or when the
        client cancels (any byte or EOF, SOCKET.md §1.2)."""
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._change_waiters.add(fut)
        waits = {fut}
        sleeper = None
        if until is not None:
            sleeper = loop.create_task(self.clock.sleep_until(until))
            waits.add(sleeper)
        if conn is not None:
            waits.add(conn.closed)
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if sleeper is not None:
                sleeper.cancel()
            self._change_waiters.discard(fut)

    # --- state commit: outbox -> hub, focus trio -------------------------------------------

    def _publish(self, kind: str, data: dict) -> None:
        self.hub.publish(kind, data)
        self.trace.record("event", None, type=kind, data=data)
        for listener in self.event_listeners:
            listener(kind, data)

    def commit(self) -> None:
        s = self.session
        batch = self.outbox.drain()
        changed = bool(batch)  # what herdr would save: a change publishes an event
        for kind, data in batch:
            self._publish(kind, {"type": kind, **data})
        pair = s.focus_pair()
        if pair != self._focus_pair:
            self._focus_pair = pair
            if pair is not None:
                # SOCKET.md §8.4: after the batch, all three, even when only the pane changed.
                w = s.workspaces[pair[0]]
                t = w.active()
                self._publish(
                    "workspace_focused",
                    {"type": "workspace_focused", "workspace_id": w.workspace_id},
                )
                if t is not None:
                    self._publish(
                        "tab_focused",
                        {"type": "tab_focused", "tab_id": t.tab_id, "workspace_id": w.workspace_id},
                    )
                    self._publish(
                        "pane_focused",
                        {
                            "type": "pane_focused",
                            "pane_id": t.focused_pane,
                            "workspace_id": w.workspace_id,
                        },
                    )
        if changed and self.config.persist and self._restored:
            from . import persist

            persist.schedule_save(self)  # debounced like herdr's (simherdr.persist)
        self.notify()

    # --- requests ----------------------------------------------------------------------------

    def unparsable_id(self, obj: Any, duplicates: frozenset = frozenset()) -> str:
        """The id an unparsable request's error carries: "" (0.8.2), or the line's own string
        id when it is an object with exactly one ``id`` (profile row invalid_request_keeps_id)."""
        if (
            self.version.rows.invalid_request_keeps_id
            and isinstance(obj, dict)
            and isinstance(obj.get("id"), str)
            and "id" not in duplicates
        ):
            return obj["id"]
        return ""

    def retired(self, obj: Any, duplicates: frozenset = frozenset()) -> E.HerdrError | None:
        """unknown_method for a line naming a retired method (checked once the line fails
        to parse as a Request, which such a line always does)."""
        name = obj.get("method") if isinstance(obj, dict) else None
        if (
            isinstance(name, str)
            and name in self.version.retired_methods
            and "method" not in duplicates
        ):
            return E.unknown_method(name, self.unparsable_id(obj, duplicates))
        return None

    def parse(self, obj: Any):
        """(id, MethodDef, params) or raise HerdrError (invalid_request; unknown_method for a
        retired name), whose reply id is :meth:`unparsable_id`."""
        retired = self.retired(obj)
        if retired is not None:
            raise retired
        try:
            return self._parse(obj)
        except E.HerdrError as e:
            if e.reply_id is None:
                e.reply_id = self.unparsable_id(obj)
            raise

    def _parse(self, obj: Any):
        if not isinstance(obj, dict):
            raise E.invalid_request(f"invalid type: {P._json_kind(obj)}, expected struct Request")
        if "id" not in obj:
            raise E.invalid_request("missing field `id`")
        rid = obj["id"]
        if not isinstance(rid, str):
            raise E.invalid_request(f"invalid type: {P._json_kind(rid)}, expected a string")
        if "method" not in obj:
            raise E.invalid_request("missing field `method`")
        name = obj["method"]
        if not isinstance(name, str):
            raise E.invalid_request(
                f"invalid type: {P._json_kind(name)}, expected variant identifier"
            )
        if name not in self.version.methods:
            raise E.invalid_request(f"unknown variant `{name}`")
        if "params" not in obj:
            raise E.invalid_request("missing field `params`")
        mdef = self.methods.get(name)
        if mdef is None:
            if not isinstance(obj["params"], dict):
                raise E.invalid_request(
                    f"invalid type: {P._json_kind(obj['params'])}, expected a map"
                )
            return rid, None, name
        try:
            p = P.parse(mdef.spec, obj["params"], self.version.rows)
        except P.ParamError as e:
            raise E.invalid_request(str(e)) from None
        return rid, mdef, p

    async def request(
        self, obj: Any, conn=None, *, origin: str | None = None, peer_pid: int | None = None
    ) -> dict | None:
        """Handle one parsed JSON request; returns the reply envelope (None: no reply).
        ``origin`` labels the client in the trace (the socket server gives ``c<N>``)."""
        origin = origin or "local"
        record_request(self.trace, obj, origin, peer_pid)
        try:
            reply = await self._request(obj, conn, origin)
        except asyncio.CancelledError:
            record_reply(self.trace, obj, None, origin, cancelled=True)
            raise
        record_reply(self.trace, obj, reply, origin)
        return reply

    async def _request(self, obj: Any, conn, origin: str) -> dict | None:
        try:
            rid, mdef, p = self.parse(obj)
        except E.HerdrError as e:
            return {"id": e.reply_id or "", "error": e.body()}
        if mdef is None:
            return {"id": rid, "error": E.not_implemented().body()}
        if self.interceptors:
            return await self._intercepted(Call(rid, mdef.name, mdef.kind, p, conn, origin), mdef)
        return await self.dispatch(rid, mdef, p, conn)

    async def _intercepted(self, call: Call, mdef) -> dict | None:
        chain = list(self.interceptors)

        async def step(i: int) -> dict | None:
            if i == len(chain):
                return await self.dispatch(call.id, mdef, call.params, call.conn)
            return await chain[i].intercept(self, call, lambda: step(i + 1))

        return await step(0)

    @property
    def faults(self):
        """The fault registry (simherdr.scenarios.faults.Faults), made on first use."""
        if self._faults is None:
            from .scenarios.faults import Faults

            self._faults = Faults(self)
        return self._faults

    def answers_now(self, mdef) -> bool:
        """Whether a request for ``mdef`` (None: a name no method has) is answered without
        waiting: no interceptor, not a wait or a stream. The transport then calls
        :meth:`request_now` and needs no task."""
        return not self.interceptors and (mdef is None or mdef.kind == "call")

    def request_now(self, obj: Any, *, origin: str, peer_pid: int | None = None) -> dict:
        """:meth:`request` for a request that :meth:`answers_now`, synchronously."""
        record_request(self.trace, obj, origin, peer_pid)
        try:
            rid, mdef, p = self.parse(obj)
        except E.HerdrError as e:
            reply = {"id": e.reply_id or "", "error": e.body()}
        else:
            if mdef is None:
                reply = {"id": rid, "error": E.not_implemented().body()}
            elif mdef.kind != "call":
                raise RuntimeError(f"{mdef.name} does not answer now")
            else:
                reply = self._dispatch_call(rid, mdef, p)
        record_reply(self.trace, obj, reply, origin)
        return reply

    def _dispatch_call(self, rid: str, mdef, p: dict) -> dict:
        if self.stopping and mdef.name not in ANSWERED_WHILE_STOPPING:
            return {"id": rid, "error": E.server_shutting_down().body()}
        try:
            return {"id": rid, "result": self.call(mdef, p, rid)}
        except E.HerdrError as e:
            return {"id": e.reply_id if e.reply_id is not None else rid, "error": e.body()}
        except Exception as e:  # a simulator bug (RecursionError included): answer, never hang
            log.exception("handler %s failed", mdef.name)
            return {"id": rid, "error": E.internal_error(type(e).__name__).body()}

    async def dispatch(self, rid: str, mdef, p: dict, conn=None) -> dict | None:
        """The method itself, after parsing (and after any interceptors)."""
        if mdef.kind == "call":
            return self._dispatch_call(rid, mdef, p)
        if self.stopping and mdef.name not in ANSWERED_WHILE_STOPPING:
            return {"id": rid, "error": E.server_shutting_down().body()}
        try:
            if mdef.kind == "wait":
                self.run_due()
                result = await self._until_restart(mdef.fn(self, p, rid, conn))
                return None if result is None else {"id": rid, "result": result}
            raise RuntimeError("streams go through the transport")
        except E.HerdrError as e:
            return {"id": e.reply_id if e.reply_id is not None else rid, "error": e.body()}
        except Exception as e:  # a simulator bug (RecursionError included): answer, never hang
            log.exception("handler %s failed", mdef.name)
            return {"id": rid, "error": E.internal_error(type(e).__name__).body()}

    def call(self, mdef, p: dict, rid: str) -> dict:
        self.run_due()
        if "backend" in vars(self):  # not made yet (cached_property): no pane to read
            self.backend.refresh_cwds()  # real panes: cwds read from /proc, as herdr reads them
        try:
            return mdef.fn(self, p)
        except E.HerdrError:
            raise
        except BaseException:
            # The events of a change that did not complete are not published (handlers do
            # their fallible work before they mutate; the model's walks are iterative).
            self.outbox.discard()
            raise
        finally:
            self.commit()

    # convenience for in-process use
    async def invoke(self, method: str, params: dict | None = None, rid: str = "t") -> dict:
        return await self.request({"id": rid, "method": method, "params": params or {}})

    async def _until_restart(self, coro):
        """Run a wait; a server restart ends it with no reply, as the old process's
        connections simply close."""
        if self._restarted is None or self._restarted.done():
            self._restarted = asyncio.get_running_loop().create_future()
        restarted = self._restarted
        task = asyncio.ensure_future(coro)
        try:
            await asyncio.wait({task, restarted}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if task.done():
            return task.result()
        task.cancel()
        return None

    def restart(self) -> None:
        """The server process restarts and restores its session (a scenario seam: see
        simherdr.scenarios.server_restart). Pane processes die and fresh shells start; the
        event ring, pending timers and global counters of the old process are gone."""
        if self._restarted is not None and not self._restarted.done():
            self._restarted.set_result(None)  # the old process's waits end without a reply
        from . import persist

        for listener in list(self.on_restart):
            listener()
        # The old process's last save, read back by the new one: herdr's session file (the
        # same restore code as a server started on a saved session).
        if self.config.persist:
            persist.save(self)
            snap, history = persist.load(self.config)
        else:
            snap, history = persist.capture(self)
        plans = {p.pane_id: (p.agent.resume_argv, p.cwd) for p in self.session.all_panes()}
        for pane in list(self.session.all_panes()):
            self.before_pane_close(pane)
        self._timers = [t for t in self._timers if t[1] in self._durable]
        heapq.heapify(self._timers)
        self.hub = EventHub()
        self._focus_pair = None
        persist.restore(self, snap or {"workspaces": [], "active": None}, history)
        for pane in list(self.session.all_panes()):
            argv, saved_cwd = plans.get(pane.pane_id, (None, None))
            if argv:  # 0.9.2 resume_argv: typed into the new shell, in the saved directory
                self.agents.resume_after_restart(pane, argv, saved_cwd)
        self.commit()

    def reset(self) -> None:
        """A newly started server's state on the same sockets (the control op ``server.reset``,
        simherdr's own, like moto's reset): every workspace, tab, pane, agent, timer, event,
        fault, scenario step and agent behaviour override is gone, and ids start again at 1.
        As on a restart, the old state's waits end without a reply and its connections close.
        What outlives it: the clock, the configuration (config.toml as read at start), the
        plugins and the trace (which records the reset as a control step)."""
        if self._restarted is not None and not self._restarted.done():
            self._restarted.set_result(None)
        for listener in list(self.on_restart):
            listener()
        for pane in list(self.session.all_panes()):
            self.before_pane_close(pane)
        if self._faults is not None:
            self._faults.clear()
            self._faults = None
        self.interceptors.clear()
        if isinstance(self.trace, Observable):
            self.trace.forget_listeners()  # running scenarios' triggers
        self._timers = []
        self._durable.clear()
        self.hub = EventHub()
        self._focus_pair = None
        self.ssh_agent_leases.clear()
        self.worktree_ops = WorktreeOperations()
        diagnostics = self.surface.config_diagnostics
        self.surface = ClientSurface()
        self.surface.config_diagnostics = diagnostics
        self.outbox = Outbox()
        self.session = self._new_session()
        # the agent layer (occupants, behaviour overrides) is made afresh on first use; the
        # backend has forgotten every pane (before_pane_close above)
        self.__dict__.pop("agents", None)
        self.commit()
        self.notify()

    def stop(self) -> None:
        if not self.stopping:
            self.stopping = True
            for cb in list(self.on_stop):
                cb()
            self.notify()

    # --- panes: the backend seam and the agent layer's hooks ---------------------------------

    def on_pane_created(self, pane) -> None:
        self.backend.attach(pane)
        pane.screen.on_title = lambda: self._title_changed(pane)

    def _title_changed(self, pane) -> None:
        """herdr's set_terminal_title (src/terminal/state.rs:225-240): a change of the stripped
        title bumps revision and publishes pane_updated (src/app/terminal_titles.rs)."""
        from . import views as V
        from .model.titles import stripped_terminal_title

        stripped = stripped_terminal_title(pane.screen.title)
        if stripped == pane.title_stripped or pane.pane_id not in self.session.panes:
            return
        pane.title_stripped = stripped
        pane.revision += 1
        self.outbox.emit("pane_updated", {"pane": V.pane_info(self.session, pane)})
        self.notify()

    def write_input(self, pane, data: bytes) -> None:
        self.backend.write(pane, data)
        self.notify()

    def foreground_agent(self, pane):
        """The simulated agent process in the pane's foreground, if any (agent layer)."""
        return self.agents.foreground(pane)

    def on_command(self, pane, line: str) -> bool:
        """A command line submitted to a simulated shell. True when something took over."""
        if self.agents.on_command(pane, line):
            return True
        if line.strip() == "exit":
            self.pane_exited(pane)
            return True
        return False

    def pane_exited(self, pane) -> None:
        """The pane's shell exited: pane_exited, and an emptied tab/workspace goes silently."""
        if pane.pane_id not in self.session.panes:
            return
        self.before_pane_close(pane)
        self.session.close_pane(pane, reason="exited")
        self.commit()

    def before_pane_close(self, pane) -> None:
        self.agents.on_pane_gone(pane)
        self.backend.detach(pane)

    def on_pane_renamed(self, pane, old_id: str) -> None:
        """A cross-workspace pane.move gave the pane a new public id: what is keyed by the
        old one follows (its terminal, processes and pending agent start stay the same)."""
        self.backend.renamed(pane, old_id)
        self.agents.pane_renamed(pane, old_id)

    def before_workspace_close(self, w) -> None:
        for t in w.tabs:
            for pid in t.pane_ids():
                self.before_pane_close(self.session.panes[pid])

    # --- helpers for handlers ----------------------------------------------------------------

    def _new_session(self) -> Session:
        rows = self.version.rows
        s = Session(
            self._make_screen,
            self._label_for_cwd,
            self.outbox.record,
            agent_kinds=self.version.tables.agent_kinds,
            close_focus_to_opener=rows.close_focus_returns_to_opener,
        )
        self.outbox.session = s
        # Pane rects use the headless view size (rows headless_cols/headless_rows: 0.8.2's
        # configurable 120x40, 0.8.0's fixed 80x24) unless the host names an area.
        area = self.config.layout_area or (0, 0, rows.headless_cols, rows.headless_rows)
        s.area = (area[0], area[1], area[2], area[3])
        return s

    def _make_screen(self):
        from .model.screen import Screen

        return Screen(cols=self.config.cols, rows=self.config.rows)

    def _label_for_cwd(self, cwd: str) -> str:
        """The session's labeler: a cwd's automatic workspace label (git discovery)."""
        from .handlers.common import auto_label

        return auto_label(self, cwd)
