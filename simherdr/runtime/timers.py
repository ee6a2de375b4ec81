"""Simulated time's work: a heap of timers and the task that fires them when they are due."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable

from ..clock import Clock


class Timers:
    """``schedule(at, fn)`` runs ``fn`` (a state change) when the clock reaches ``at``;
    ``on_fired`` (the commit) follows every batch of fired timers, ``on_scheduled`` (change
    notification) every new timer."""

    def __init__(
        self, clock: Clock, on_fired: Callable[[], None], on_scheduled: Callable[[], None]
    ) -> None:
        self._clock = clock
        self._on_fired = on_fired
        self._on_scheduled = on_scheduled
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._durable: set[int] = set()  # timers that outlive a restart (scenario steps)
        self._driver: asyncio.Task | None = None
        self._wake: asyncio.Future | None = None  # set by schedule() of an earlier timer
        self._driver_at: float | None = None  # the timer the driver sleeps until

    def __len__(self) -> int:
        return len(self._heap)

    def schedule(self, at: float, fn: Callable[[], None], durable: bool = False) -> None:
        """``durable``: the timer is not the simulated process's own (a scenario step) and
        survives a restart."""
        seq = next(self._seq)
        heapq.heappush(self._heap, (at, seq, fn))
        if durable:
            self._durable.add(seq)
        wake = self._wake
        if (
            wake is not None
            and not wake.done()
            and (self._driver_at is None or at < self._driver_at)
        ):
            wake.set_result(None)  # the driver sleeps past this timer: re-arm it
        self._on_scheduled()

    def run_due(self) -> None:
        clock = self._clock
        fired = False
        # now() read again after each timer (a timer may reset the heap): a paced clock held
        # at the earliest one goes on from its due time, so the next comes due at its own time
        while self._heap and self._heap[0][0] <= clock.now():
            at, seq, fn = heapq.heappop(self._heap)
            self._durable.discard(seq)
            clock.passed(at)
            fn()
            fired = True
        if fired:
            self._on_fired()

    def next_timer(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def keep_durable(self) -> None:
        """A restart: the old process's own timers are gone, scenario steps stay."""
        self._heap = [t for t in self._heap if t[1] in self._durable]
        heapq.heapify(self._heap)

    def clear(self) -> None:
        self._heap = []
        self._durable.clear()

    # --- the driver: fires timers when time passes without requests ----------------------------

    def start(self) -> None:
        if self._driver is None:
            self._driver = asyncio.get_running_loop().create_task(self._drive())
            # while the driver runs, a paced clock never reads past the earliest timer
            self._clock.follow(self.next_timer)

    async def stop(self) -> None:
        self._clock.follow(None)
        if self._driver:
            self._driver.cancel()
            try:
                await self._driver
            except asyncio.CancelledError:
                pass
            self._driver = None

    async def _drive(self) -> None:
        """Sleep until the earliest timer; woken only by schedule() of an earlier one (not by
        every state change: that cost a wake-up per request)."""
        loop = asyncio.get_running_loop()
        try:
            while True:
                self.run_due()
                nxt = self.next_timer()
                self._driver_at = nxt
                self._wake = wake = loop.create_future()
                if nxt is None:
                    await wake
                    continue
                sleeper = loop.create_task(self._clock.sleep_until(nxt))
                try:
                    await asyncio.wait((wake, sleeper), return_when=asyncio.FIRST_COMPLETED)
                finally:
                    sleeper.cancel()
        finally:
            self._wake = None  # a stopped driver is never woken (its loop may be closed)
