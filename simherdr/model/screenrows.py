"""The simulated screen's cells: a row of cells with its styles and wrap marks, a buffer (history,
grid, cursor), and how many cells a character takes. The rendering and wrap rules are
:mod:`.screen`'s (its module notes); the row texts are what :mod:`.paneread` joins.
"""

from __future__ import annotations

import unicodedata
from collections import deque

__all__ = ["Buffer", "Row", "char_width"]

_SGR_RESET = ("\x1b[m", "\x1b[0m")

_WIDTH_CACHE: dict[str, int] = {}


def char_width(ch: str) -> int:
    width = _WIDTH_CACHE.get(ch)
    if width is None:
        category = unicodedata.category(ch)
        if category in ("Mn", "Me") or (category == "Cf" and ch != "\xad"):
            width = 0
        elif unicodedata.east_asian_width(ch) in ("W", "F"):
            width = 2
        else:
            width = 1
        _WIDTH_CACHE[ch] = width
    return width


class Row:
    """One rendered row: ``cells`` holds one string per column ('' for the second half
    of a wide character or a wide character's spacer at the end of a row)."""

    __slots__ = ("cells", "cont", "styles", "wraps")

    def __init__(self) -> None:
        self.cells: list[str] = []
        self.styles: dict[int, str] | None = None  # column -> SGR sequences before it
        self.wraps = False  # soft-wraps into the next row
        self.cont = False  # continues the previous (soft-wrapped) row

    def text(self) -> str:
        """herdr's row text: cells joined, right-trimmed."""
        return "".join(self.cells).rstrip()

    def plain(self) -> str:
        """libghostty formatter row text: only trailing spaces/empty cells trimmed."""
        return "".join(self.cells).rstrip(" ")

    def trailing_blank_cells(self, cols: int) -> int:
        cells = self.cells
        i = len(cells) - 1
        while i >= 0 and cells[i] in (" ", ""):
            i -= 1
        return cells[i + 1 :].count(" ") + max(0, cols - len(cells))

    def ansi(self) -> str:
        styles = self.styles
        if not styles:
            return self.plain()
        cells = self.cells
        last = len(cells) - 1
        while last >= 0 and cells[last] in (" ", "") and last not in styles:
            last -= 1
        parts = []
        styled = False
        for col in range(last + 1):
            prefix = styles.get(col)
            if prefix:
                parts.append(prefix)
                styled = not prefix.endswith(_SGR_RESET)
            parts.append(cells[col])
        if styled:
            parts.append("\x1b[0m")
        return "".join(parts)

    def clear_styles(self, start: int, end: int | None = None) -> None:
        if self.styles:
            for col in [c for c in self.styles if c >= start and (end is None or c < end)]:
                del self.styles[col]


class Buffer:
    __slots__ = ("cx", "cy", "grid", "history", "saved", "wrap_pending")

    def __init__(self, rows: int, scrollback_limit: int) -> None:
        self.history: deque[Row] = deque(maxlen=max(0, scrollback_limit))
        self.grid: list[Row] = [Row() for _ in range(rows)]
        self.cx = 0
        self.cy = 0
        self.wrap_pending = False
        self.saved: tuple[int, int] | None = None
