"""``python -m benchmarks._popserver --socket PATH --panes N [--agents]``: a simherdr server
(real clock, the real socket transport) already holding N panes, each with a simulated agent
when asked. Prints one JSON line on stdout when it is listening and settled."""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import signal
import sys
import tempfile
import time


async def main(args) -> int:
    from simherdr.clock import RealClock
    from simherdr.server import Server
    from simherdr.simulator import Config, Simulator

    from .population import populate

    home = tempfile.mkdtemp(prefix="simherdr-bench-home-")
    sim = Simulator(args.version, RealClock(), Config(home=home, server_cwd=home))
    server = Server(sim, args.socket)
    await server.start()
    t0 = time.perf_counter()
    ids = await populate(sim, args.panes, home, args.agents)
    built = time.perf_counter() - t0
    if args.agents:  # let every agent reach idle (no timers left before the measurements)
        deadline = time.monotonic() + 120
        while sim.timers.next_timer() is not None and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: asyncio.ensure_future(server.close()))
    statuses = {}
    for pid in ids:
        st = sim.session.panes[pid].status
        statuses[st] = statuses.get(st, 0) + 1
    print(
        json.dumps(
            {
                "panes": len(ids),
                "first": ids[0],
                "build_s": built,
                "statuses": statuses,
                "pending_timers": len(sim.timers),
            }
        ),
        flush=True,
    )
    await server.serve_forever()
    shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", required=True)
    ap.add_argument("--panes", type=int, required=True)
    ap.add_argument("--agents", action="store_true")
    ap.add_argument("--version", default="0.9.3")
    sys.exit(asyncio.run(main(ap.parse_args())))
