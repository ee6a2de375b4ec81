"""The simulated screen: feeding output and reading recent rows (moved here from unit tests:
speed is measured by benchmarks, never asserted by timed unit tests).

- feed 1 MB of typical build output (ANSI colours, CRLF) — target well under a second;
- a ``recent`` read of 5 rows with 20,000 rows of history vs with 100: the ratio shows that a
  read does not walk the whole history (target <= 3x).
"""

from __future__ import annotations

import statistics
import time

from .common import Result


def _feed_mb() -> float:
    from simherdr.model.screen import Screen

    line = "compiling crate foo v1.2.3 (/work/src) ... \x1b[32mok\x1b[0m\r\n"
    data = line * (1_000_000 // len(line))
    s = Screen()
    t0 = time.perf_counter()
    s.feed(data)
    return time.perf_counter() - t0


def _recent_read(history_rows: int, reads: int = 200) -> float:
    from simherdr.model.screen import Screen

    s = Screen(cols=80, rows=24, scrollback_limit=max(history_rows, 100))
    s.feed("".join(f"row {i}\n" for i in range(history_rows)))
    t0 = time.perf_counter()
    for _ in range(reads):
        s.read("recent", 5)
    return (time.perf_counter() - t0) / reads


def run(repeats: int = 5) -> list[Result]:
    feed = statistics.median(_feed_mb() for _ in range(repeats))
    small = statistics.median(_recent_read(100) for _ in range(repeats))
    big = statistics.median(_recent_read(20_000) for _ in range(repeats))
    ratio = big / small
    return [
        Result(
            "screen: feed 1 MB of build output",
            round(feed * 1000, 1),
            "ms",
            "< 1000",
            feed < 1.0,
            f"median of {repeats}",
        ),
        Result(
            "screen: recent read, 20,000 vs 100 rows of history",
            round(ratio, 2),
            "x",
            "<= 3",
            ratio <= 3.0,
            f"{big * 1e6:.1f} us vs {small * 1e6:.1f} us per read",
        ),
    ]
