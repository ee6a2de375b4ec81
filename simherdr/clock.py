"""The one clock of a simulator, injected everywhere (nothing else reads time).

- RealClock: wall time.
- ScaledClock(k): simulated time runs k times faster than wall time, for subprocess clients
  that sleep for real (``simherdr serve --time-scale 100``: herdr's 3 s settle takes 30 ms),
  paced by the event loop (:data:`DEFAULT_PACING`): it never runs past a wake-up the loop has
  not yet served. Its owner may skip wall time (:class:`SkipsTime`: a replay's recorded
  gaps on a simherdr target pass at once, served as after a stall of the loop).
- VirtualClock: time moves only when a test advances it (or, with ``source=time.time``, follows
  freezegun's frozen time and moves when the test ticks it and calls ``sync``).

``now()`` is seconds on a monotonic simulated timeline; ``epoch()`` is the matching Unix time
(terminal ids embed it). ``sleep_until`` is awaited by timers, waits and subscriptions; the
simulator's timer heap tells the clock its earliest timer (:meth:`Clock.follow`) and each timer
it runs (:meth:`Clock.passed`).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import math
import time
from collections.abc import Callable
from typing import Protocol, runtime_checkable

# CHOICE: how a scaled clock maps wall time to simulated time when the server falls behind.
# herdr's timeouts are facts (agent.prompt's 5 s stall window, agent.start's 30 s, a wait's
# timeout_ms); at --time-scale 1000 that stall window is 5 ms of wall time, less than one
# stand-in start, and a server thread starved for 30 ms on two loaded cores woke up with 30
# simulated seconds gone: every timer due in between fired in one burst, and a chain of them
# (Enter 300 ms after the prompt, then the agent's turn) ran on past the stall window before
# the agent could react. herdr itself never sees that: its clock is the wall clock.
# - "paced" (the default): simulated time is scale x wall time, except that it never passes a
#   wake-up the event loop has not yet served (the simulator's earliest timer, the earliest
#   sleep_until of a wait, a fault, a pty tick), and a served wake-up holds it until the loop
#   has run what that woke (BARRIER_ROUNDS iterations at most). After a stall of the loop (the
#   thread starved, the GIL elsewhere, a slow handler) the wake-ups due in it are served one by
#   one in simulated-time order, each at its own time with the loop running in between, and
#   what they schedule lands where it would have without the stall; then time is back at scale
#   x wall time (it catches up: no lasting lag against a client's own scaled waits, such as the
#   stand-in's). So a timeout of T simulated seconds fires only after everything due before it
#   has run, and a request that reached the socket during the stall is read before the stall's
#   backlog is served (asyncio runs I/O callbacks first). The flip side, chosen: the server
#   cannot tell when in the stall a request was sent, so such a request sees the state at the
#   backlog's first wake-up (as if sent then), never a timeout that fell due later in the stall.
# - "wall": simulated time is exactly scale x wall time (the scaled clock before pacing); a
#   stall skips simulated time, and everything due in it fires at once.
# RealClock (scale 1) stays on the wall clock: a 5 s stall there is herdr's own behaviour.
PACINGS = ("paced", "wall")
DEFAULT_PACING = "paced"
BARRIER_ROUNDS = 3  # loop iterations a served wake-up holds time for what it woke (at most)
LATE = 0.001  # simulated seconds past due that count a wake-up as late (ScaledClock.late)
HOLD_POLL = 0.05  # wall seconds a sleeper at a hold's ceiling naps (a hold's change wakes it)


def check_pacing(pacing: str) -> str:
    if pacing not in PACINGS:
        raise ValueError(f"pacing must be one of {', '.join(PACINGS)}, not {pacing!r}")
    return pacing


class Clock:
    def now(self) -> float:
        raise NotImplementedError

    def epoch(self) -> float:
        raise NotImplementedError

    async def sleep_until(self, t: float) -> None:
        raise NotImplementedError

    def wall_seconds(self, simulated: float) -> float:
        """How much wall time a simulated interval takes (for real-time transport limits)."""
        return simulated

    def follow(self, horizon: Callable[[], float | None] | None) -> None:
        """The simulator's timer driver, while it runs: ``horizon()`` is its earliest timer
        (None: none). A paced clock never reads past it; the others ignore it."""

    def passed(self, t: float) -> None:
        """The driver runs a timer due at ``t``: a paced clock held there goes on from ``t``."""


@runtime_checkable
class SkipsTime(Protocol):
    """A clock whose owner may let wall time pass without waiting for it (the replayer's
    recorded gaps on a simherdr target: simherdr.contract.targets)."""

    def skip(self, wall: float) -> float:
        """Let ``wall`` seconds of wall time pass at once; returns the simulated time then
        due. What falls due in between is served as after a stall of the loop."""
        ...

    async def caught_up(self, t: float) -> None:
        """Until everything due by simulated time ``t`` has been served and what it woke has
        run (a request sent after this sees that state)."""
        ...

    def hold(self, ahead: float = 0.0) -> None:
        """Time runs ``ahead`` more wall seconds at most, then stands still until the next
        hold or :meth:`release` (a skip still moves it): the owner's own work (a replayer
        between two recorded steps) takes none of the server's time. Called from the owner's
        thread."""
        ...

    def release(self) -> None:
        """Time runs again, from where it stood."""
        ...

    def seconds(self) -> float:
        """Wall seconds on this clock's own timeline (what ran, what was skipped)."""
        ...


class RealClock(Clock):
    def __init__(self):
        self._offset = time.time() - time.monotonic()

    def now(self) -> float:
        return time.monotonic()

    def epoch(self) -> float:
        return self.now() + self._offset

    async def sleep_until(self, t: float) -> None:
        delay = t - self.now()
        if delay > 0:
            await asyncio.sleep(delay)


class ScaledClock(Clock):
    """``scale`` simulated seconds per wall second; ``pacing`` (:data:`PACINGS`, default
    :data:`DEFAULT_PACING`): "paced" never passes a wake-up the loop has not yet served,
    "wall" is scale x wall time exactly."""

    def __init__(self, scale: float, pacing: str = DEFAULT_PACING):
        if not scale > 0:
            raise ValueError("time scale must be > 0")
        check_pacing(pacing)
        self.scale = float(scale)
        self.pacing = pacing
        self._paced = pacing == "paced"
        self._m0 = time.monotonic()
        self._e0 = time.time()
        # paced: now() = scale x wall time, capped at the earliest wake-up not yet served (a
        # sleeper, the timer heap's head) and at the last one served until the loop has run
        # what it woke (the barrier); never below what it last returned (_last).
        self._last = 0.0
        self._sleepers: list[list] = []  # heap of [t, seq, live]: sleep_until in progress
        self._seq = itertools.count()
        self._horizon: Callable[[], float | None] | None = None
        self._barrier: float | None = None
        self._barrier_rounds = 0
        self._moved: asyncio.Future | None = None  # resolved when a held time may move on
        # sleep_until's wall sleeps and their due times: a skip ends them, in time order
        self._naps: dict[asyncio.Future, float] = {}
        self._skipped_to = -math.inf  # simulated time the last skip reached (not "late")
        self.late = 0  # wake-ups served after their time had passed on the wall (diagnostics)
        # hold(): scale x wall time stops at this simulated time (None: it runs). hold and
        # release come from the owner's thread while the loop's reads it: each keeps
        # (_m0, _ceiling) consistent whichever of the two a reader sees first.
        self._ceiling: float | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the sleepers' (hold wakes them)

    def _wall(self) -> float:
        w = (time.monotonic() - self._m0) * self.scale
        c = self._ceiling
        return c if c is not None and w > c else w

    def now(self) -> float:
        t = self._wall()
        if not self._paced:
            return t
        cap = self._cap()
        if cap < t:
            t = cap if cap > self._last else self._last
        self._last = t
        return t

    def _cap(self) -> float:
        """The earliest wake-up not yet served, or the barrier (inf: none)."""
        sleepers = self._sleepers
        cap = sleepers[0][0] if sleepers else math.inf
        horizon = self._horizon
        if horizon is not None:
            h = horizon()
            if h is not None and h < cap:
                cap = h
        barrier = self._barrier
        if barrier is not None and barrier < cap:
            cap = barrier
        return cap

    def epoch(self) -> float:
        return self._e0 + self.now()

    def wall_seconds(self, simulated: float) -> float:
        return simulated / self.scale

    def follow(self, horizon: Callable[[], float | None] | None) -> None:
        if self._paced:
            self._horizon = horizon
            self._signal()

    def passed(self, t: float) -> None:
        if self._paced and self._horizon is not None:
            self._served(t)

    def skip(self, wall: float) -> float:
        if wall > 0:
            self._restart()
            self._m0 -= wall
            if self._ceiling is not None:
                self._ceiling += wall * self.scale
            self._skipped_to = self._wall()
            for nap in sorted(self._naps, key=self._naps.__getitem__):
                if not nap.done():
                    nap.set_result(None)
            self._signal()
        return self._wall()

    def _restart(self) -> None:
        """Time runs on from where a ceiling stopped it (not from the wall clock)."""
        c = self._ceiling
        if c is not None and (time.monotonic() - self._m0) * self.scale > c:
            self._m0 = time.monotonic() - c / self.scale

    def hold(self, ahead: float = 0.0) -> None:
        # a lower ceiling needs no word (a sleeper finds the time short of its own and naps
        # on); a higher one wakes the sleepers that stood at the old one
        old = self._ceiling
        self._restart()
        self._ceiling = self._wall() + max(ahead, 0.0) * self.scale
        if old is not None and self._ceiling > old:
            self._wake()

    def release(self) -> None:
        if self._ceiling is not None:
            self._restart()
            self._ceiling = None
            self._wake()

    def seconds(self) -> float:
        return self._wall() / self.scale

    def _wake(self) -> None:
        """From the owner's thread: the sleepers look at the time again."""
        loop = self._loop
        if loop is not None and self._naps and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._rouse)
            except RuntimeError:  # closed meanwhile
                pass

    def _rouse(self) -> None:
        for nap in list(self._naps):
            if not nap.done():
                nap.set_result(None)
        self._signal()

    def _until(self, t: float) -> float:
        """Wall seconds a sleeper for ``t`` naps: to ``t``, or to a hold's ceiling below it;
        at that ceiling HOLD_POLL (a hold's change wakes it sooner)."""
        c = self._ceiling
        wall = self._wall()
        if c is not None and c < t:
            return (c - wall) / self.scale if wall < c else HOLD_POLL
        return max((t - wall) / self.scale, 0.0)

    async def caught_up(self, t: float) -> None:
        while self.now() < t:
            await self._held()
        for _ in range(BARRIER_ROUNDS):  # what the last wake-up woke runs first
            await asyncio.sleep(0)

    async def _nap(self, delay: float, due: float) -> None:
        """``asyncio.sleep(delay)`` towards simulated time ``due``, ended early by
        :meth:`skip`."""
        loop = asyncio.get_running_loop()
        nap = loop.create_future()
        self._naps[nap] = due
        handle = loop.call_later(delay, _resolve, nap)
        try:
            await nap
        finally:
            handle.cancel()
            del self._naps[nap]

    def _served(self, t: float) -> None:
        """A wake-up due at ``t`` is being served: time stays at ``t`` until the loop has run
        what it woke (a few iterations, fewer when the loop goes quiet), then moves on."""
        if self._wall() - t > LATE and t > self._skipped_to:
            self.late += 1
        start = self._barrier is None
        self._barrier = t if self._barrier is None else max(self._barrier, t)
        self._barrier_rounds = BARRIER_ROUNDS
        if start:
            try:
                asyncio.get_running_loop().call_soon(self._lift)
            except RuntimeError:  # no loop (a timer run outside one): nothing to wait for
                self._barrier = None
        self._signal()

    def _lift(self) -> None:
        self._barrier_rounds -= 1
        loop = asyncio.get_running_loop()
        if self._barrier_rounds > 0 and getattr(loop, "_ready", None):
            loop.call_soon(self._lift)
            return
        self._barrier = None
        self._signal()

    def _signal(self) -> None:
        moved, self._moved = self._moved, None
        if moved is not None and not moved.done():
            moved.set_result(None)

    async def _held(self) -> None:
        """Until a held time may move on (a wake-up served, the barrier lifted), or 1 ms of
        wall time at most (the timer heap may shrink without a word: a reset)."""
        loop = asyncio.get_running_loop()
        if self._moved is None or self._moved.done():
            self._moved = loop.create_future()
        moved = self._moved
        handle = loop.call_later(0.001, _resolve, moved)
        try:
            await asyncio.shield(moved)
        finally:
            handle.cancel()

    async def sleep_until(self, t: float) -> None:
        self._loop = asyncio.get_running_loop()
        if not self._paced:
            while self.now() < t:
                await self._nap(self._until(t), t)
            return
        if t <= self.now():
            return
        entry = [t, next(self._seq), True]
        heapq.heappush(self._sleepers, entry)
        served = False
        try:
            while True:
                if self.now() >= t:
                    served = True
                    break
                wall = self._wall()
                c = self._ceiling
                if wall < t and (c is None or wall < c):
                    await self._nap(self._until(t), t)
                elif wall < t:  # time stands at a hold's ceiling
                    await self._nap(HOLD_POLL, t)
                else:  # due, held by an earlier wake-up or the barrier
                    await self._held()
        finally:
            entry[2] = False
            sleepers = self._sleepers
            while sleepers and not sleepers[0][2]:
                heapq.heappop(sleepers)
            if served:
                self._served(t)
            else:
                self._signal()


def _resolve(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_result(None)


class VirtualClock(Clock):
    """Time moves only through :meth:`advance` / :meth:`advance_to` (or :meth:`sync` when it
    follows an external ``source`` such as freezegun's patched ``time.time``)."""

    def __init__(self, start: float = 0.0, epoch_base: float = 1_767_225_600.0, source=None):
        self._t = float(start)
        self._epoch_base = epoch_base
        self._source = source
        self._origin = source() if source else None
        self._sleepers: list = []
        self._seq = itertools.count()
        self._pinned: float | None = None  # sync(): the due time being caught up to

    def now(self) -> float:
        if self._pinned is not None:
            return self._pinned
        if self._source is not None:
            return self._source() - self._origin
        return self._t

    def epoch(self) -> float:
        if self._source is not None:
            return self._source()  # the source is a wall clock (freezegun's time.time)
        return self._epoch_base + self.now()

    async def sleep_until(self, t: float) -> None:
        if t <= self.now():
            await asyncio.sleep(0)
            return
        fut = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (t, next(self._seq), fut))
        await fut

    def next_wakeup(self) -> float | None:
        while self._sleepers and self._sleepers[0][2].done():
            heapq.heappop(self._sleepers)
        return self._sleepers[0][0] if self._sleepers else None

    async def advance(self, seconds: float) -> None:
        await self.advance_to(self.now() + seconds)

    async def advance_to(self, target: float) -> None:
        if self._source is not None:
            raise RuntimeError(
                "this clock follows an external time source; move it there and call sync()"
            )
        await _settle()
        while True:
            t = self.next_wakeup()
            if t is None or t > target:
                break
            self._t = max(self._t, t)
            while self._sleepers and self._sleepers[0][0] <= self._t:
                _, _, fut = heapq.heappop(self._sleepers)
                if not fut.done():
                    fut.set_result(None)
            await _settle()
        self._t = max(self._t, target)
        await _settle()

    async def sync(self) -> None:
        """Catch up with the external source: wake every sleeper due by the source's current
        time in time order, each at its own due time (so work scheduled by a woken sleeper
        lands where it would have with :meth:`advance`), then return to the source's time."""
        target = self.now()
        await _settle()
        try:
            while True:
                t = self.next_wakeup()
                if t is None or t > target:
                    break
                self._pinned = max(self._pinned or 0.0, t)
                while self._sleepers and self._sleepers[0][0] <= self._pinned:
                    _, _, fut = heapq.heappop(self._sleepers)
                    if not fut.done():
                        fut.set_result(None)
                await _settle()
        finally:
            self._pinned = None
        await _settle()


async def _settle(max_rounds: int = 10_000) -> None:
    """Let every runnable task run until the loop is quiet (virtual time must not move while
    simulated work that is due now is still pending)."""
    loop = asyncio.get_running_loop()
    for _ in range(max_rounds):
        await asyncio.sleep(0)
        if not getattr(loop, "_ready", None):
            # one more pass: callbacks scheduled by the last task
            await asyncio.sleep(0)
            if not getattr(loop, "_ready", None):
                return


def make_clock(kind: str = "real", scale: float = 1.0, pacing: str = DEFAULT_PACING) -> Clock:
    """``kind`` "virtual" or "real"; a real clock at ``scale`` != 1 is a :class:`ScaledClock`
    with ``pacing``; at scale 1 it is the wall clock (``pacing`` checked, not used)."""
    if kind == "virtual":
        return VirtualClock()
    check_pacing(pacing)
    if scale != 1.0:
        return ScaledClock(scale, pacing)
    return RealClock()
