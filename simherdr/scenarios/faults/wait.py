"""The one waiting primitive faults share: until a simulated time, a release, or the client
going away (not a fault itself)."""

from __future__ import annotations

import asyncio


def client_gone(call) -> asyncio.Future | None:
    """The future that completes when the client disconnects (waits: also on any further byte,
    SOCKET.md §1.2), or None when the transport does not watch this connection."""
    return call.conn.closed if call.conn is not None else None


async def wait_for(
    sim,
    call,
    until: float | None = None,
    release: asyncio.Future | None = None,
    watch_client: bool = True,
) -> str:
    """Wait for the first of: simulated time ``until`` ("time"), ``release`` ("released"), the
    client going away ("gone", only with ``watch_client``). Returns which."""
    loop = asyncio.get_running_loop()
    waits: dict = {}
    sleeper = None
    if until is not None:
        sleeper = loop.create_task(sim.clock.sleep_until(until))
        waits[sleeper] = "time"
    if release is not None:
        waits[release] = "released"
    gone = client_gone(call) if watch_client else None
    if gone is not None:
        waits[gone] = "gone"
    if not waits:
        await loop.create_future()  # nothing can end it: only cancellation
    try:
        done, _ = await asyncio.wait(list(waits), return_when=asyncio.FIRST_COMPLETED)
    finally:
        if sleeper is not None:
            sleeper.cancel()
    for f, why in waits.items():  # deterministic precedence: time, released, gone
        if f in done:
            return why
    return "time"


async def sleep_or_gone(sim, call, until: float) -> bool:
    """Sleep until simulated ``until``; False when a waiting client went away first (plain
    calls are not cut short: see latency's CHOICE)."""
    watch = call.kind == "wait"
    return await wait_for(sim, call, until, watch_client=watch) == "time"
