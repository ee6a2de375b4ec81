"""Socket round trip: simherdr's ``ping`` vs a bare asyncio echo server (target <= 1.1x).

Both servers run as their own processes on the same interpreter; the same client code (one
connection per request, like herdr's clients) alternates between them request by request,
and the figure is the ratio of the median request times.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time

from .common import Result, exchange, fmt_time, median, python_module, stop, wait_for_socket

TARGET = 1.1  # issue 26
PING = json.dumps({"id": "bench", "method": "ping", "params": {}}).encode() + b"\n"


def client_loop(path: str, n: int) -> float:
    """Seconds per request over ``n`` sequential requests."""
    t0 = time.perf_counter()
    for _ in range(n):
        exchange(path, PING)
    return (time.perf_counter() - t0) / n


def interleaved(a: str, b: str, n: int) -> tuple[list[float], list[float]]:
    """``n`` requests to each server, alternating one by one (the order flipping each time),
    so a load spike on this busy machine hits both sides alike; per-request times."""
    ta, tb = [], []
    clock = time.perf_counter
    for i in range(n):
        first, second = (a, b) if i % 2 else (b, a)
        t0 = clock()
        exchange(first, PING)
        t1 = clock()
        exchange(second, PING)
        t2 = clock()
        if first == a:
            ta.append(t1 - t0)
            tb.append(t2 - t1)
        else:
            tb.append(t1 - t0)
            ta.append(t2 - t1)
    return ta, tb


def run(rounds: int = 10, per_round: int = 300, version: str = "0.9.3") -> Result:
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
        for _ in range(rounds):
            s_round, e_round = interleaved(sim_path, echo_path, per_round)
            s_times += s_round
            e_times += e_round
            ratios.append(median(s_round) / median(e_round))
    finally:
        stop(echo)
        stop(sim)
        shutil.rmtree(tmp, ignore_errors=True)
    ratio = median(s_times) / median(e_times)
    return Result(
        "socket ping round trip / asyncio echo",
        round(ratio, 3),
        "x",
        f"<= {TARGET}",
        ratio <= TARGET,
        f"simherdr {fmt_time(median(s_times))}, echo {fmt_time(median(e_times))}: median request of "
        f"{len(s_times)} each, interleaved one by one (per-round ratios "
        f"{min(ratios):.2f}-{max(ratios):.2f})",
        {
            "ratio": ratio,
            "ratios": ratios,
            "simherdr_s": median(s_times),
            "echo_s": median(e_times),
            "rounds": rounds,
            "per_round": per_round,
        },
    )
