"""A pane's screen as herdr's ``TerminalAnsi`` frames: a full redraw first, then diffs.

herdr renders the pane's cells into a ratatui buffer of the client's size
(src/server/render_stream.rs:368-399 render_terminal_virtual) and encodes it with
src/protocol/render_ansi.rs ``BlitEncoder``: every frame is wrapped in synchronized output
(``CSI ?2026 h`` .. ``l``) with the cursor hidden while cells are written (render_ansi.rs:464-
468), the OSC 8 state reset (473), a clear before the very first full redraw (476-478), then
all cells (a full redraw: first frame, a size change or a requested repaint) or only changed
cells; the final cursor position and visibility come last inside the block (612-624) and are
repeated after it for IMEs (non-Windows, 503-510).

This encoder produces the same screen from :class:`~simherdr.model.panescreen.ScreenFrame`
rows (not the same bytes: herdr diffs cells, this diffs rows): a changed row is redrawn from
column 0 after an SGR reset, and erased to its end when its text is shorter than the frame.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..model.panescreen import ScreenFrame
from ..model.screenrows import char_width

SYNC_BEGIN = "\x1b[?2026h"  # render_ansi.rs:464
SYNC_END = "\x1b[?2026l"  # render_ansi.rs:37, 500
HIDE_CURSOR = "\x1b[?25l"  # render_ansi.rs:468
SHOW_CURSOR = "\x1b[?25h"
OSC8_RESET = "\x1b]8;;\x1b\\"  # render_ansi.rs:473
CLEAR = "\x1b[2J"  # render_ansi.rs:477 (first frame only)
SGR_RESET = "\x1b[0m"
ERASE_LINE = "\x1b[K"

# A control sequence in a styled line: CSI (SGR among them), OSC (to BEL or ST), other ESC.
_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


class RenderFrame(NamedTuple):
    """What one client sees of a terminal: ``rows`` styled lines at most ``cols`` wide (the
    pane's viewport cut or padded to the client's size, as herdr's render into an area of the
    client's size), the cursor clamped inside it."""

    cols: int
    rows: int
    lines: tuple[str, ...]
    cursor: tuple[int, int]  # (row, col)
    cursor_visible: bool


def visible_width(line: str) -> int:
    """Columns a styled line takes (escape sequences take none)."""
    if "\x1b" not in line:
        if line.isascii():
            return len(line)
        return sum(char_width(ch) for ch in line)
    return sum(
        len(part) if part.isascii() else sum(char_width(ch) for ch in part)
        for part in _ESCAPE.split(line)
    )


def clip(line: str, cols: int) -> str:
    """``line`` cut to ``cols`` columns; escape sequences are kept (a style set past the cut
    is harmless: the drawer resets after each row)."""
    if visible_width(line) <= cols:
        return line
    out: list[str] = []
    used = 0
    pos = 0
    for m in _ESCAPE.finditer(line):
        used = _take(line[pos : m.start()], cols, used, out)
        out.append(m.group(0))
        pos = m.end()
    _take(line[pos:], cols, used, out)
    return "".join(out)


def _take(text: str, cols: int, used: int, out: list[str]) -> int:
    for ch in text:
        w = char_width(ch)
        if used + w > cols:
            return cols  # nothing more fits
        out.append(ch)
        used += w
    return used


def render_frame(screen: ScreenFrame, cols: int, rows: int) -> RenderFrame:
    """The screen as a client of ``cols`` x ``rows`` sees it (render_terminal_virtual: the
    terminal drawn into the client's area; what does not fit is cut, the rest is blank)."""
    lines = screen.lines[:rows]
    if screen.cols > cols:
        lines = tuple(clip(line, cols) for line in lines)
    if len(lines) < rows:
        lines = (*lines, *("",) * (rows - len(lines)))
    row, col = screen.cursor
    cursor = (min(row, rows - 1), min(col, cols - 1))  # clamp_cursor_position (600-605)
    return RenderFrame(cols, rows, tuple(lines), cursor, screen.cursor_visible)


class FrameEncoder:
    """One client's ANSI baseline (herdr's BlitEncoder in ClientRenderState::TerminalAnsi,
    render_stream.rs:13-21): :meth:`encode` answers a frame's bytes against the last frame
    committed; :meth:`commit` makes it the baseline once it was handed to the writer."""

    def __init__(self) -> None:
        self.last: RenderFrame | None = None

    def is_current(self, frame: RenderFrame) -> bool:
        return self.last == frame

    def encode(self, frame: RenderFrame, repaint: bool = False) -> tuple[bytes, bool]:
        """(bytes, full): a full redraw on the first frame, a size change or a repaint."""
        prev = None if repaint else self.last
        full = prev is None or (prev.cols, prev.rows) != (frame.cols, frame.rows)
        out = [SYNC_BEGIN, HIDE_CURSOR, OSC8_RESET]
        if self.last is None:
            out.append(CLEAR)  # clear_before_full_redraw: only with no frame at all (84)
        cols = frame.cols
        for r, line in enumerate(frame.lines):
            if not full and prev is not None and prev.lines[r] == line:
                continue
            out.append(f"\x1b[{r + 1};1H{SGR_RESET}{line}{SGR_RESET}")
            if visible_width(line) < cols:
                out.append(ERASE_LINE)  # the rest of the row, in the default style
        row, col = frame.cursor
        cup = f"\x1b[{row + 1};{col + 1}H"
        shown = SHOW_CURSOR if frame.cursor_visible else HIDE_CURSOR
        out += [cup, shown, SYNC_END, cup, shown]  # the IME anchor repeat (503-510)
        return "".join(out).encode("utf-8", "surrogateescape"), full

    def commit(self, frame: RenderFrame) -> None:
        self.last = frame
