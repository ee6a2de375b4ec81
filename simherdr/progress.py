"""Progress on long work (``make bench``'s scale rows, ``contract verify`` over many cassettes):
one line on a terminal, rewritten in place; nothing at all when the stream is not a terminal
(CI logs, pipes, captured output stay as they were). Stdlib only.

    bar = Progress(len(items), "contract verify")
    for item in items:
        bar.step(item.name)
        ...
    bar.close()
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

#: Seconds between redraws (a fast loop does not flood the terminal).
REDRAW = 0.1


class Progress:
    """``step(note)`` at the start of each unit of work; ``close()`` clears the line."""

    def __init__(self, total: int | None, label: str, stream: TextIO | None = None):
        self.total = total
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.enabled = self.stream.isatty() and os.environ.get("TERM") != "dumb"
        except (AttributeError, ValueError):
            self.enabled = False
        self.done = 0
        self.started = time.monotonic()
        self._drawn = 0.0
        self._shown = False

    def step(self, note: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        now = time.monotonic()
        last = self.total is not None and self.done >= self.total
        if now - self._drawn < REDRAW and not last and self._shown:
            return
        self._drawn = now
        count = f"{self.done}/{self.total}" if self.total else str(self.done)
        text = f"{self.label}: {count} {note}".rstrip() + f" ({now - self.started:.0f}s)"
        try:
            width = os.get_terminal_size(self.stream.fileno()).columns or 80  # 0: unset
        except (OSError, ValueError, AttributeError):
            width = 80
        self.stream.write("\r\x1b[K" + text[: max(width - 1, 10)])
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        if self.enabled and self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False
