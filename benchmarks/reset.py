"""A fresh state per test: ``server.reset``'s in-process twin through the fixtures' objects
(target <= 2 ms), the path the README recommends for suites (one server, a reset per test).

Each round builds what a test typically leaves behind (two workspaces, a split, a started
agent with a finished turn), then times the reset alone: the in-process ``Harness`` and the
socket server in a thread (``ThreadServer.run``, which hops onto the server's loop as a
suite's fixture does).
"""

from __future__ import annotations

import time

from .common import Result, median

TARGET_MS = 2.0


def _dirty(ok) -> None:
    w = ok("workspace.create", cwd="/tmp")
    pane = w["root_pane"]["pane_id"]
    ok("workspace.create", cwd="/")
    ok("pane.split", target_pane_id=pane, direction="right")
    ok("agent.start", name="a1", kind="claude", pane_id=pane)


def run(rounds: int = 30) -> Result:
    from simherdr.clock import ScaledClock
    from simherdr.testing import Harness, SocketClient, ThreadServer

    harness: list[float] = []
    with Harness() as h:
        for _ in range(rounds):
            _dirty(h.ok)
            h.advance(10)
            t0 = time.perf_counter()
            h.sim.reset()
            harness.append(time.perf_counter() - t0)
            assert h.ok("workspace.list")["workspaces"] == []
    threaded: list[float] = []
    srv = ThreadServer(clock=ScaledClock(1000))  # the fixtures' default clock
    try:
        for _ in range(rounds):
            _dirty(lambda method, **p: SocketClient(srv.path).ok(method, p))
            t0 = time.perf_counter()
            srv.run(lambda sim: sim.reset())
            threaded.append(time.perf_counter() - t0)
    finally:
        srv.stop()
    ms = max(median(harness), median(threaded)) * 1000
    return Result(
        "fresh state per test (server.reset)",
        round(ms, 3),
        "ms",
        target=f"<= {TARGET_MS:g}",
        ok=ms <= TARGET_MS,
        detail=f"median of {rounds}: in-process Harness {median(harness) * 1000:.3f} ms, "
        f"socket server in a thread {median(threaded) * 1000:.3f} ms (after two workspaces, a "
        "split and a started agent)",
        data={"harness_ms": [x * 1000 for x in harness], "thread_ms": [x * 1000 for x in threaded]},
    )


if __name__ == "__main__":
    r = run()
    print(f"{r.name}: {r.value} {r.unit} ({r.detail})")
