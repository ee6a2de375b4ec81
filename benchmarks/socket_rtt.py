"""Socket round trip: simherdr's ``ping`` vs a bare asyncio echo server (target <= 1.5x).

Both servers run as their own processes on the same interpreter; the same client loop (one
connection per request, like herdr's clients) alternates between them in rounds, and the
figure is the median of the per-round ratios.
"""

from __future__ import annotations

import json
import os
import tempfile
import time

from .common import Result, exchange, fmt_time, median, python_module, stop, wait_for_socket

TARGET = 1.5
PING = json.dumps({"id": "bench", "method": "ping", "params": {}}).encode() + b"\n"


def client_loop(path: str, n: int) -> float:
    """Seconds per request over ``n`` sequential requests."""
    t0 = time.perf_counter()
    for _ in range(n):
        exchange(path, PING)
    return (time.perf_counter() - t0) / n


def run(rounds: int = 15, per_round: int = 200, version: str = "0.9.3") -> Result:
    tmp = tempfile.mkdtemp(prefix="simherdr-bench-")
    os.chmod(tmp, 0o700)
    echo_path = os.path.join(tmp, "echo.sock")
    sim_path = os.path.join(tmp, "herdr.sock")
    echo = python_module("benchmarks._echo", echo_path)
    sim = python_module("simherdr", "serve", "--socket", sim_path, "--herdr-version", version)
    try:
        wait_for_socket(echo_path, echo)
        wait_for_socket(sim_path, sim)
        reply = json.loads(exchange(sim_path, PING))
        assert reply["result"]["type"] == "pong", reply
        client_loop(echo_path, 50)  # warm up both (imports, caches)
        client_loop(sim_path, 50)
        e_times, s_times, ratios = [], [], []
        for i in range(rounds):
            # alternate which goes first so drift in machine load cancels out
            if i % 2:
                s = client_loop(sim_path, per_round)
                e = client_loop(echo_path, per_round)
            else:
                e = client_loop(echo_path, per_round)
                s = client_loop(sim_path, per_round)
            e_times.append(e)
            s_times.append(s)
            ratios.append(s / e)
    finally:
        stop(echo)
        stop(sim)
    ratio = median(ratios)
    return Result(
        "socket ping round trip / asyncio echo", round(ratio, 3), "x", f"<= {TARGET}", ratio <= TARGET,
        f"simherdr {fmt_time(median(s_times))}, echo {fmt_time(median(e_times))} per request "
        f"(median of {rounds} rounds x {per_round})",
        {"ratio": ratio, "ratios": ratios, "simherdr_s": median(s_times), "echo_s": median(e_times),
         "rounds": rounds, "per_round": per_round})
