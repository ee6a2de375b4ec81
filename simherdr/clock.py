"""The one clock of a simulator, injected everywhere (nothing else reads time).

- RealClock: wall time.
- ScaledClock(k): simulated time runs k times faster than wall time, for subprocess clients
  that sleep for real (``simherdr serve --time-scale 100``: herdr's 3 s settle takes 30 ms).
- VirtualClock: time moves only when a test advances it (or, with ``source=time.time``, follows
  freezegun's frozen time and moves when the test ticks it and calls ``sync``).

``now()`` is seconds on a monotonic simulated timeline; ``epoch()`` is the matching Unix time
(terminal ids embed it). ``sleep_until`` is awaited by timers, waits and subscriptions.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time


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
    def __init__(self, scale: float):
        if not scale > 0:
            raise ValueError("time scale must be > 0")
        self.scale = float(scale)
        self._m0 = time.monotonic()
        self._e0 = time.time()

    def now(self) -> float:
        return (time.monotonic() - self._m0) * self.scale

    def epoch(self) -> float:
        return self._e0 + self.now()

    def wall_seconds(self, simulated: float) -> float:
        return simulated / self.scale

    async def sleep_until(self, t: float) -> None:
        delay = (t - self.now()) / self.scale
        if delay > 0:
            await asyncio.sleep(delay)


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


def make_clock(kind: str = "real", scale: float = 1.0) -> Clock:
    if kind == "virtual":
        return VirtualClock()
    if scale != 1.0:
        return ScaledClock(scale)
    return RealClock()
