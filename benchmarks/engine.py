"""The pane screen engines side by side (issue 32): libghostty-vt (simherdr/panes/engine.py,
what every pane uses) next to the old paths it replaced, measured in the same run: the
simulated model screen (simherdr/model/screen.py, also the fallback) and pyte (simherdr/panes/
vt.py, the PTY fallback; skipped where the ``pty`` extra is not installed).

- feed: MB/s of agent-like output (styled text, spinner redraws, unicode) into one pane;
- read: the cost of each source's read over a 10,000-line scrollback (recent reads at herdr's
  cap of 1,000 lines);
- memory: resident KB per pane at 1,000 panes, each fed a screenful (one process per engine).

Informational rows (no targets): the numbers go in bench.json for the record.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

from .common import ROOT, Result

ENGINES = ("ghostty", "model", "pyte")

_CHUNK = (
    "\x1b[1m\x1b[36m●\x1b[0m Reading \x1b[33msrc/pane/terminal.rs\x1b[0m (lines 2490-2800)\r\n"
    "  \x1b[2m⎿\x1b[0m  Found 14 matches — \u65e5\u672c\u8a9e ok \U0001f680\r\n"
    "\x1b[2K\r\x1b[35m✻\x1b[0m Thinking… (12s · ↑ 1.2k tokens · esc to interrupt)"
    "\x1b[2K\r\x1b[35m✢\x1b[0m Thinking… (13s · ↑ 1.3k tokens · esc to interrupt)\r\n"
    "    fn ghostty_recent_read_range(terminal: &Terminal, lines: usize) -> Result<..> {\r\n"
)


def make(engine: str, cols: int = 80, rows: int = 24):
    if engine == "ghostty":
        from simherdr.panes.engine import GhosttyScreen

        return GhosttyScreen(cols, rows)
    if engine == "model":
        from simherdr.model.screen import Screen

        return Screen(cols=cols, rows=rows, scrollback_limit=10_000)
    from simherdr.panes.vt import PtyScreen

    return PtyScreen(cols, rows, 10_000)


def available() -> list[str]:
    out = []
    for engine in ENGINES:
        try:
            make(engine)
        except Exception:
            continue
        out.append(engine)
    return out


def _feed_mb_s(engine: str, megabytes: float = 1.0) -> float:
    data = (_CHUNK * int(megabytes * 1_000_000 // len(_CHUNK.encode()))).encode()
    screen = make(engine)
    t0 = time.perf_counter()
    for i in range(0, len(data), 4096):  # PTY-sized reads
        screen.feed(data[i : i + 4096])
    return len(data) / 1e6 / (time.perf_counter() - t0)


def _read_ms(engine: str, source: str, reads: int) -> float:
    screen = make(engine)
    screen.feed("".join(f"line {i:05d} of the scrollback, some text\r\n" for i in range(10_000)))
    lines = None if source in ("visible", "detection") else 1000
    t0 = time.perf_counter()
    for _ in range(reads):
        screen.read(source, lines)
    return (time.perf_counter() - t0) / reads * 1000


_MEMORY = """
import gc, json, sys
sys.path.insert(0, {root!r})
from benchmarks.engine import make, _CHUNK
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
screens = [make({engine!r}) for _ in range(10)]
gc.collect(); before = rss()
screens = [make({engine!r}) for _ in range(1000)]
for s in screens:
    s.feed(_CHUNK * 6)
gc.collect()
print(json.dumps((rss() - before) / 1000 / 1024))
"""


def _memory_kb(engine: str) -> float | None:
    if not sys.platform.startswith("linux"):
        return None
    code = _MEMORY.format(root=ROOT, engine=engine)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    return json.loads(out.stdout) if out.returncode == 0 else None


def run(repeats: int = 3, reads: int = 20) -> list[Result]:
    engines = available()
    results = []
    feed = {e: statistics.median(_feed_mb_s(e) for _ in range(repeats)) for e in engines}
    results.append(
        Result(
            "engine: feed agent-like output (libghostty-vt)",
            round(feed.get("ghostty", 0.0), 2),
            "MB/s",
            detail=", ".join(f"{e} {v:.2f} MB/s" for e, v in feed.items()),
            data={"feed_mb_s": feed},
        )
    )
    for source in ("visible", "recent", "recent_unwrapped", "detection"):
        cost = {
            e: statistics.median(_read_ms(e, source, reads) for _ in range(repeats))
            for e in engines
        }
        results.append(
            Result(
                f"engine: {source} read, 10,000-line scrollback (libghostty-vt)",
                round(cost.get("ghostty", 0.0), 3),
                "ms",
                detail=", ".join(f"{e} {v:.3f} ms" for e, v in cost.items()),
                data={"read_ms": cost},
            )
        )
    memory = {e: _memory_kb(e) for e in engines}
    results.append(
        Result(
            "engine: memory per pane at 1,000 panes (libghostty-vt)",
            None if memory.get("ghostty") is None else round(memory["ghostty"] or 0.0, 1),
            "KB",
            detail=", ".join(
                f"{e} {v:.1f} KB" if v is not None else f"{e} -" for e, v in memory.items()
            ),
            data={"memory_kb": memory},
        )
    )
    return results
