"""A pane's screen as herdr's ``TerminalAnsi`` frames: a full redraw first, then diffs.

herdr renders the pane's cells into a ratatui buffer of the client's size
(src/server/render_stream.rs:368-399 render_terminal_virtual) and encodes it with
src/protocol/render_ansi.rs ``BlitEncoder``: every frame is wrapped in synchronized output
(``CSI ?2026 h`` .. ``l``) with the cursor hidden while cells are written (render_ansi.rs:464-
468), the OSC 8 state reset (473), a clear before the very first full redraw (476-478), then
all cells (a full redraw: first frame, a size change or a requested repaint; write_all_cells,
635-675) or only the cells that changed (write_changed_cells, 773-824: an unchanged cell is
not written, a CUP jumps over it); the final cursor position and visibility come last inside
the block (612-624) and are repeated after it for IMEs (non-Windows, 503-510).

This encoder blits :class:`~simherdr.model.panescreen.ScreenFrame` rows the same way: each
row is cut into cells (a symbol and herdr's SGR for its style, build_sgr 359-369: ``0``, the
modifiers, then the foreground and background; a palette colour is ``38;5;N`` as herdr's
``Color::Indexed``, src/pane/terminal.rs:3277-3293), the rest of the row blank cells, a wide
character followed by ratatui's reset cell. Clients that strip escapes and read the text see
what herdr's stream gives them (IvoryHeart/herdr-web's live smoke reads ``28`` CUP ``91`` of
``stty size`` as ``2891``). Hyperlinks: the rows carry none (OSC 8 is the reset only).
"""

from __future__ import annotations

import functools
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

# A control sequence in a styled line: CSI (SGR among them), OSC (to BEL or ST), other ESC.
_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


# One cell: its symbol (a grapheme; " " blank) and herdr's SGR for its style (build_sgr).
Cell = tuple[str, str]
DEFAULT_SGR = "\x1b[0;39;49m"  # build_sgr(Reset, Reset, 0)
BLANK: Cell = (" ", DEFAULT_SGR)
# modifier_to_sgr_parts (render_ansi.rs:308-356): the order herdr writes the modifiers in.
_MODIFIERS = ("1", "2", "3", "4", "5", "6", "7", "8", "9")
_MODIFIER_OFF = {
    "22": ("1", "2"),
    "23": ("3",),
    "24": ("4",),
    "25": ("5", "6"),
    "27": ("7",),
    "28": ("8",),
    "29": ("9",),
}
_SGR = re.compile(r"\x1b\[([0-9;:]*)m")


class _Style:
    """The SGR state of a row being cut into cells."""

    __slots__ = ("bg", "fg", "mods", "underline")

    def __init__(self) -> None:
        self.mods: set[str] = set()
        self.reset()

    def reset(self) -> None:
        self.mods.clear()
        self.underline = "4"
        self.fg = "39"
        self.bg = "49"

    def apply(self, params: str) -> None:
        codes = params.split(";") if params else ["0"]
        i = 0
        while i < len(codes):
            code = codes[i] or "0"
            i += 1
            if code == "0":
                self.reset()
            elif code.startswith("4:"):
                style = code[2:]
                if style == "0":
                    self.mods.discard("4")
                else:
                    self.mods.add("4")
                    self.underline = "4" if style == "1" else code  # underline_style_from_modifier
            elif code in _MODIFIERS:
                self.mods.add(code)
                if code == "4":
                    self.underline = "4"
            elif code in _MODIFIER_OFF:
                self.mods.difference_update(_MODIFIER_OFF[code])
            elif code in ("38", "48"):
                value, i = _extended_colour(codes, i)
                if value is not None:
                    if code == "38":
                        self.fg = "38;" + value
                    else:
                        self.bg = "48;" + value
            elif code.startswith(("38:", "48:")):
                parts = code.split(":")[1:]
                if parts[:1] == ["5"] and len(parts) >= 2:
                    value = "5;" + parts[1]
                elif parts[:1] == ["2"] and len(parts) >= 4:
                    value = "2;" + ";".join(parts[-3:])
                else:
                    continue
                if code.startswith("38"):
                    self.fg = "38;" + value
                else:
                    self.bg = "48;" + value
            elif code == "39":
                self.fg = "39"
            elif code == "49":
                self.bg = "49"
            elif code.isdigit():
                n = int(code)
                if 30 <= n <= 37:
                    self.fg = "38;5;%d" % (n - 30)  # a palette colour: Color::Indexed
                elif 90 <= n <= 97:
                    self.fg = "38;5;%d" % (n - 82)
                elif 40 <= n <= 47:
                    self.bg = "48;5;%d" % (n - 40)
                elif 100 <= n <= 107:
                    self.bg = "48;5;%d" % (n - 92)

    def sgr(self) -> str:
        """build_sgr (render_ansi.rs:359-369)."""
        parts = ["0"]
        for m in _MODIFIERS:
            if m in self.mods:
                parts.append(self.underline if m == "4" else m)
        parts += [self.fg, self.bg]
        return "\x1b[%sm" % ";".join(parts)


def _extended_colour(codes: list[str], i: int) -> tuple[str | None, int]:
    """``38;5;N`` / ``38;2;R;G;B`` (after the 38/48): the value and the next index."""
    if i < len(codes) and codes[i] == "5" and i + 1 < len(codes):
        return "5;" + codes[i + 1], i + 2
    if i < len(codes) and codes[i] == "2" and i + 3 < len(codes):
        return "2;" + ";".join(codes[i + 1 : i + 4]), i + 4
    return None, len(codes)


@functools.lru_cache(maxsize=4096)
def row_cells(line: str, cols: int) -> tuple[Cell, ...]:
    """A styled row as ``cols`` cells: a wide character is its cell then a blank one (ratatui
    resets the cells a wide symbol covers), a zero-width mark joins the cell before it, what
    does not fit is cut and the rest of the row is blank."""
    cells: list[Cell] = []
    style = _Style()
    sgr = DEFAULT_SGR
    pos = 0
    for m in _ESCAPE.finditer(line):
        sgr = _cut(line[pos : m.start()], sgr, cols, cells)
        sgr_match = _SGR.fullmatch(m.group(0))
        if sgr_match is not None:
            style.apply(sgr_match.group(1))
            sgr = style.sgr()
        pos = m.end()
    _cut(line[pos:], sgr, cols, cells)
    del cells[cols:]
    if len(cells) < cols:
        cells += [BLANK] * (cols - len(cells))
    return tuple(cells)


Segment = tuple[bool, str, str]  # (a CUP to the segment's first cell, its SGR, its symbols)


@functools.lru_cache(maxsize=4096)
def _full_row(line: str, cols: int) -> tuple[tuple[int, Segment], ...]:
    """write_all_cells' walk over one row, as (column, segment) runs: consecutive cells that
    share an SGR and follow inline (ASCII, width 1) are one run; cached per row text."""
    out: list[tuple[int, Segment]] = []
    to_skip = 0
    next_inline: int | None = None
    for c, cell in enumerate(row_cells(line, cols)):
        if to_skip > 0:
            to_skip -= 1
            continue
        jump = next_inline != c
        if out and not jump and out[-1][1][1] == cell[1]:
            col, (j, sgr, text) = out[-1]
            out[-1] = (col, (j, sgr, text + cell[0]))
        else:
            out.append((c, (jump, cell[1], cell[0])))
        next_inline = _inline_next(cell, c)
        to_skip = max(_width(cell[0]) - 1, 0)
    return tuple(out)


def _cut(text: str, sgr: str, cols: int, cells: list[Cell]) -> str:
    for ch in text:
        w = char_width(ch)
        if w == 0:
            if cells:  # joins the grapheme before it (a wide one sits before its blank cell)
                k = -2 if len(cells) > 1 and _width(cells[-2][0]) == 2 else -1
                cells[k] = (cells[k][0] + ch, cells[k][1])
            continue
        if len(cells) + w > cols:
            break
        cells.append((ch, sgr))
        if w == 2:
            cells.append(BLANK)
    return sgr


_WIDTHS: dict[str, int] = {}  # a symbol's width, once (the blit asks it for every cell)


def _width(symbol: str) -> int:
    """cell_width (render_ansi.rs:524-529) of a cell's symbol."""
    width = _WIDTHS.get(symbol)
    if width is None:
        width = max((char_width(ch) for ch in symbol), default=0) if symbol else 0
        if len(_WIDTHS) < 65536:
            _WIDTHS[symbol] = width
    return width


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
        if full or prev is None:
            _write_all_cells(out, frame)
        else:
            _write_changed_cells(out, frame, prev)
        row, col = frame.cursor
        cup = f"\x1b[{row + 1};{col + 1}H"
        shown = SHOW_CURSOR if frame.cursor_visible else HIDE_CURSOR
        out += [cup, shown, SYNC_END, cup, shown]  # the IME anchor repeat (503-510)
        return "".join(out).encode("utf-8", "surrogateescape"), full

    def commit(self, frame: RenderFrame) -> None:
        self.last = frame


def _write_cell(
    out: list[str], position: tuple[int, int] | None, cell: Cell, last: list[str]
) -> None:
    """write_cell (render_ansi.rs:731-756): CUP when not inline, the SGR when it changed."""
    if position is not None:
        out.append(f"\x1b[{position[0] + 1};{position[1] + 1}H")
    if cell[1] != last[0]:
        out.append(cell[1])
        last[0] = cell[1]
    out.append(cell[0])


def _inline_next(cell: Cell, col: int) -> int | None:
    """The column a cell's symbol leaves the cursor at, when herdr trusts it (ASCII, width 1)."""
    return col + 1 if cell[0].isascii() and _width(cell[0]) == 1 else None


def _write_all_cells(out: list[str], frame: RenderFrame) -> None:
    """write_all_cells (render_ansi.rs:635-675): every cell, then a style reset."""
    last = ""
    for r, line in enumerate(frame.lines):
        for col, (jump, sgr, text) in _full_row(line, frame.cols):
            if jump:
                out.append(f"\x1b[{r + 1};{col + 1}H")
            if sgr != last:
                out.append(sgr)
                last = sgr
            out.append(text)
    out.append(SGR_RESET)


def _write_changed_cells(out: list[str], frame: RenderFrame, prev: RenderFrame) -> None:
    """write_changed_cells (render_ansi.rs:773-824): only cells that differ from the last
    frame (or that a wide cell's change invalidated), a style reset if anything was written.
    A row whose text did not change has no changed cell: it is passed over whole."""
    last = [""]
    for r, line in enumerate(frame.lines):
        if line == prev.lines[r]:
            continue
        cells = row_cells(line, frame.cols)
        before = row_cells(prev.lines[r], frame.cols)
        if cells == before:
            continue
        invalidated = 0
        to_skip = 0
        next_inline: int | None = None
        for c, cell in enumerate(cells):
            old = before[c]
            if (cell != old or invalidated > 0) and to_skip == 0:
                at = None if next_inline == c and invalidated == 0 else (r, c)
                _write_cell(out, at, cell, last)
                next_inline = _inline_next(cell, c)
            width = _width(cell[0])
            to_skip = width - 1 if width > 1 else 0
            affected = _width(old[0])  # max(width, old width, invalidated) - 1, not below 0
            if width > affected:
                affected = width
            if invalidated > affected:
                affected = invalidated
            invalidated = affected - 1 if affected > 0 else 0
    if last[0]:
        out.append(SGR_RESET)
