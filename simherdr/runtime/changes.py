"""Change notification: waits wake on the next state change instead of burning 100 ms polls."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # typing only: a Protocol class costs a server's start ~0.14M instructions
    from typing import Protocol

    from ..clock import Clock

    class Closable(Protocol):
        closed: asyncio.Future  # done when the client goes away


class Changes:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._waiters: set[asyncio.Future] = set()

    def __len__(self) -> int:
        """Waits in progress."""
        return len(self._waiters)

    def notify(self) -> None:
        waiters, self._waiters = self._waiters, set()
        for f in waiters:
            if not f.done():
                f.set_result(None)

    async def wait(self, until: float | None, conn: Closable | None = None) -> None:
        """Return on the next state change, when simulated time reaches ``until``, or when the
        client cancels (any byte or EOF, SOCKET.md §1.2)."""
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._waiters.add(fut)
        waits: set[asyncio.Future] = {fut}
        sleeper = None
        if until is not None:
            sleeper = loop.create_task(self._clock.sleep_until(until))
            waits.add(sleeper)
        if conn is not None:
            waits.add(conn.closed)
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if sleeper is not None:
                sleeper.cancel()
            self._waiters.discard(fut)
