"""An in-process events.subscribe on the virtual clock: the lines a client would read."""

from __future__ import annotations

import asyncio

from tests import herdr_reference as ref


class Conn:
    """What the stream handler sees of its client: collects the lines it pushes."""

    def __init__(self, loop: asyncio.AbstractEventLoop, version: str) -> None:
        self.version = version
        self.lines: list[dict] = []
        self.closed: asyncio.Future = loop.create_future()

    async def send(self, obj) -> None:
        ref.validate_reply(obj, self.version)
        self.lines.append(obj)

    def cancelled(self) -> bool:
        return self.closed.done()


def subscribe(h, subscriptions: list, rid: str = "sub") -> tuple[Conn, asyncio.Task]:
    conn = Conn(h.loop, h.sim.version.name)
    rid, mdef, p = h.sim.parse(
        {"id": rid, "method": "events.subscribe", "params": {"subscriptions": subscriptions}}
    )
    task = h.loop.create_task(mdef.fn(h.sim, p, rid, conn))
    h.settle()
    return conn, task


def close(h, conn: Conn, task: asyncio.Task) -> None:
    if not conn.closed.done():
        conn.closed.set_result(None)
    h.settle()
    if not task.done():
        task.cancel()
        h.settle()
