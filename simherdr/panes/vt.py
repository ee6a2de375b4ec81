"""A real terminal screen for PTY-backed panes: pyte's emulator behind herdr's read contract.

:class:`PtyScreen` is fed the raw bytes a pane's processes write to their terminal and answers
``read(source, lines, fmt, recent_includes_viewport)`` exactly like the simulated
:class:`simherdr.model.screen.Screen` (the herdr facts are documented in model/paneread.py:
SOCKET.md §4.3, §7.4, VERSIONS.md §1.6, ``src/app/api_helpers.rs:109-158``,
``src/pane/terminal.rs``). The emulation itself (cursor movement, erasing, scrolling regions, charsets, SGR, wide characters)
is pyte's; this module adds what pyte lacks and herdr needs:

* scrollback: rows that scroll off the top of the primary screen (full-screen scroll region
  only, like xterm/libghostty) go to a bounded history;
* soft wraps: a row that auto-wrapped is marked ``wraps`` and the next one ``cont``, so
  ``recent_unwrapped`` can join them (libghostty formatter rules, as in model/paneread.py);
* the alternate screen (DECSET 47/1047/1049): a separate, blank, history-less grid; 1049 also
  saves and restores the cursor;
* modes read by herdr: bracketed paste (DECSET 2004, ``bracketed_paste``) and application
  cursor keys (DECSET 1);
* OSC capture for detection, as herdr's AgentOscStateTracker does (``src/pane/osc.rs:446-543``):
  the latest OSC 0/2 payload (control characters removed, at most 256 characters, an empty
  payload clears it) is ``title`` and ``osc_title``; the latest OSC 9 payload (the part after
  ``9;``) is ``osc_progress``. ``clear_agent_osc()`` drops both retained values (herdr does so
  when the foreground agent changes, ``src/pane.rs:833-835``) but keeps ``title``.

CHOICES: answers to terminal queries (DSR/DA) are written back to the process through
``respond`` when one is set (a real terminal answers them; pyte generates the replies). ANSI
reads re-encode pyte's cell attributes as SGR (named colours as 30-37/90-97, others as 24-bit
``38;2``/``48;2``), which approximates libghostty's re-encoding. Rows made only of spaces count
as blank, as in the simulated screen.
"""

from __future__ import annotations

import copy
import re
from collections import defaultdict, deque
from collections.abc import Callable

import pyte
from pyte import modes as mo
from pyte.screens import Char, Cursor, Margins, StaticDefaultDict

from ..model.paneread import HerdrReadContract
from ..model.panescreen import ScreenFrame
from .oscwatch import OscWatch

# Terminals clamp numeric CSI parameters; a run of 6+ digits becomes 65535 before pyte sees it
# (pyte would call int() on thousands of digits and raise).
_LONG_PARAM = re.compile(rb"(?<=[\[;:?])[0-9]{6,}")

__all__ = ["PtyScreen"]

_ALT_MODES = {47 << 5, 1047 << 5, 1049 << 5}
_SAVE_CURSOR_MODE = 1049 << 5
_BRACKETED_PASTE = 2004 << 5
_APP_CURSOR = 1 << 5


_NAMED = {
    "black": 0,
    "red": 1,
    "green": 2,
    "brown": 3,
    "yellow": 3,
    "blue": 4,
    "magenta": 5,
    "cyan": 6,
    "white": 7,
}


def _colour(value: str, fg: bool) -> str | None:
    if value == "default":
        return None
    base = 30 if fg else 40
    if value in _NAMED:
        return str(base + _NAMED[value])
    if value.startswith("bright") and value[6:] in _NAMED:
        return str(base + 60 + _NAMED[value[6:]])
    if re.fullmatch(r"[0-9a-fA-F]{6}", value):
        r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
        return f"{38 if fg else 48};2;{r};{g};{b}"
    return None


def _sgr(char) -> str:
    """SGR parameters for a pyte cell ('' for the default style)."""
    parts = []
    if char.bold:
        parts.append("1")
    if char.italics:
        parts.append("3")
    if char.underscore:
        parts.append("4")
    if char.blink:
        parts.append("5")
    if char.reverse:
        parts.append("7")
    if char.strikethrough:
        parts.append("9")
    for value, fg in ((char.fg, True), (char.bg, False)):
        code = _colour(value, fg)
        if code:
            parts.append(code)
    return ";".join(parts)


# The primary screen's (buffer, saved cursor) while the alternate screen is on.
_SavedPrimary = tuple[dict[int, StaticDefaultDict[int, Char]], Cursor | None]


def _set_mark(line: StaticDefaultDict[int, Char], mark: str) -> None:
    """A soft-wrap mark ("wraps"/"cont") on a pyte line, kept in the line's own ``__dict__``
    (pyte's lines are plain dicts; :class:`_Row` reads the marks, erasing pops them)."""
    line.__dict__[mark] = True


class _Emulator(pyte.Screen):
    """pyte's screen plus scrollback, soft-wrap marks and the alternate screen."""

    def __init__(self, columns: int, lines: int, scrollback: int):
        self.history: deque = deque(maxlen=max(0, scrollback))
        # (buffer, saved cursor) of the primary screen while the alternate screen is on
        self.saved_primary: _SavedPrimary | None = None
        self.respond: Callable[[str], None] | None = None
        super().__init__(columns, lines)

    # --- scrollback ------------------------------------------------------------------------

    def index(self) -> None:
        top, bottom = self.margins or Margins(0, self.lines - 1)
        if self.cursor.y == bottom and top == 0 and self.saved_primary is None:
            self.history.append(self.buffer[top])
        super().index()

    # --- soft wraps ------------------------------------------------------------------------

    def draw(self, data: str) -> None:
        if self.cursor.x + 2 * len(data) < self.columns or mo.DECAWM not in self.mode:
            super().draw(data)
            return
        for ch in data:
            if self.cursor.x == self.columns:
                _set_mark(self.buffer[self.cursor.y], "wraps")
                super().draw(ch)
                _set_mark(self.buffer[self.cursor.y], "cont")
            else:
                super().draw(ch)

    def erase_in_line(self, how: int = 0, private: bool = False) -> None:
        super().erase_in_line(how, private=private)
        if how in (0, 2):
            line = self.buffer[self.cursor.y]
            line.__dict__.pop("wraps", None)
            if how == 2:
                line.__dict__.pop("cont", None)

    # --- modes: alternate screen -----------------------------------------------------------

    def set_mode(self, *modes: int, **kwargs) -> None:
        if kwargs.get("private") and any((m << 5) in _ALT_MODES for m in modes):
            self._alternate(True, save_cursor=any((m << 5) == _SAVE_CURSOR_MODE for m in modes))
            modes = tuple(m for m in modes if (m << 5) not in _ALT_MODES)
        super().set_mode(*modes, **kwargs)

    def reset_mode(self, *modes: int, **kwargs) -> None:
        if kwargs.get("private") and any((m << 5) in _ALT_MODES for m in modes):
            self._alternate(False, save_cursor=any((m << 5) == _SAVE_CURSOR_MODE for m in modes))
            modes = tuple(m for m in modes if (m << 5) not in _ALT_MODES)
        super().reset_mode(*modes, **kwargs)

    def _alternate(self, on: bool, *, save_cursor: bool) -> None:
        if on and self.saved_primary is None:
            self.saved_primary = (self.buffer, copy.copy(self.cursor) if save_cursor else None)
            primary = self.buffer
            assert isinstance(primary, defaultdict)  # pyte's buffer (pyte.screens.Screen.reset)
            self.buffer = defaultdict(primary.default_factory)
            self.dirty.update(range(self.lines))
        elif not on and self.saved_primary is not None:
            buffer, cursor = self.saved_primary
            self.saved_primary = None
            self.buffer = buffer
            if cursor is not None:
                self.cursor = cursor
            self.dirty.update(range(self.lines))

    def reset(self) -> None:
        super().reset()
        if getattr(self, "saved_primary", None) is not None:
            self.saved_primary = None
        if hasattr(self, "history"):
            self.history.clear()

    def erase_in_display(self, how: int = 0, *args, **kwargs) -> None:
        y = self.cursor.y
        super().erase_in_display(how, *args, **kwargs)
        if how == 3:
            self.history.clear()
        rows = {0: range(y + 1, self.lines), 1: range(0, y), 2: range(self.lines)}.get(how, ())
        for r in rows:
            line = self.buffer.get(r)
            if line is not None:
                line.__dict__.pop("wraps", None)
                line.__dict__.pop("cont", None)

    # --- replies to queries (DSR, DA) ------------------------------------------------------

    def write_process_input(self, data: str) -> None:
        if self.respond is not None:
            self.respond(data)


class _Row:
    """A read-only view of one pyte line, with the helpers the joins need."""

    __slots__ = ("_cells", "cols", "line")

    def __init__(self, line, cols: int):
        self.line = line
        self.cols = cols
        self._cells: list[str] | None = None

    @property
    def wraps(self) -> bool:
        return getattr(self.line, "wraps", False)

    @property
    def cont(self) -> bool:
        return getattr(self.line, "cont", False)

    def cells(self) -> list[str]:
        if self._cells is None:
            line = self.line
            self._cells = [line[x].data for x in range(self.cols)]
        return self._cells

    def text(self) -> str:
        return "".join(self.cells()).rstrip()

    def plain(self) -> str:
        return "".join(self.cells()).rstrip(" ")

    def trailing_blank_cells(self) -> int:
        cells = self.cells()
        i = len(cells) - 1
        while i >= 0 and cells[i] in (" ", ""):
            i -= 1
        return cells[i + 1 :].count(" ")

    def ansi(self) -> str:
        line = self.line
        cells = self.cells()
        last = len(cells) - 1
        while last >= 0 and cells[last] in (" ", "") and not _sgr(line[last]):
            last -= 1
        out = []
        current = ""
        for x in range(last + 1):
            style = _sgr(line[x])
            if style != current:
                out.append(f"\x1b[{style}m" if style else "\x1b[0m")
                current = style
            out.append(cells[x])
        if current:
            out.append("\x1b[0m")
        return "".join(out)


class PtyScreen(HerdrReadContract):
    """A pane's real terminal screen (pyte-backed) with herdr's read contract."""

    def __init__(self, cols: int = 80, rows: int = 24, scrollback_limit: int = 10000):
        if cols < 1 or rows < 1:
            raise ValueError("a screen needs at least one column and one row")
        self.cols = cols
        self.rows = rows
        self.scrollback_limit = scrollback_limit
        self._emu = _Emulator(cols, rows, scrollback_limit)
        self._stream = pyte.ByteStream(self._emu)
        self._osc = OscWatch()
        self.title = ""  # herdr's terminal_title (OSC 0/2, sanitized)
        self.osc_title = ""  # retained for detection (cleared on agent change)
        self.osc_progress = ""  # latest OSC 9 payload (cleared on agent change)
        self.content_seq = 0  # bumped on every non-empty feed (detection_content_seq)

    # ------------------------------------------------------------------ state

    @property
    def respond(self):
        return self._emu.respond

    @respond.setter
    def respond(self, fn) -> None:
        self._emu.respond = fn

    @property
    def bracketed_paste(self) -> bool:
        return _BRACKETED_PASTE in self._emu.mode

    @property
    def application_cursor(self) -> bool:
        return _APP_CURSOR in self._emu.mode

    @property
    def alternate_screen(self) -> bool:
        return self._emu.saved_primary is not None

    def mode(self, mode: int) -> bool:
        """Whether DEC private mode ``mode`` is set (model/seams.py ReportsModes)."""
        if mode in (47, 1047, 1049):
            return self.alternate_screen
        return (mode << 5) in self._emu.mode

    @property
    def cursor(self) -> tuple[int, int]:
        return self._emu.cursor.y, min(self._emu.cursor.x, self.cols - 1)

    @property
    def history_rows(self) -> int:
        return 0 if self.alternate_screen else len(self._emu.history)

    @property
    def total_rows(self) -> int:
        return self.history_rows + self.rows

    def clear_agent_osc(self) -> None:
        self.osc_title = ""
        self.osc_progress = ""

    def clear(self) -> None:
        """Wipe the active screen's history and grid and home the cursor."""
        self._stream.feed(b"\x1b[H\x1b[2J\x1b[3J")

    def reset(self) -> None:
        self._stream.feed(b"\x1bc")
        self.title = self.osc_title = self.osc_progress = ""

    def frame(self) -> ScreenFrame:
        """The active grid as the terminal plane draws it (one styled line per row)."""
        cursor = self._emu.cursor
        return ScreenFrame(
            self.cols,
            self.rows,
            tuple(row.ansi() for row in self._grid()),
            self.cursor,
            not cursor.hidden,
        )

    def resize(self, cols: int, rows: int) -> None:
        """New size, with the simulated screen's rules (model/screen.py ``Screen.resize``):
        a row shrink drops blank rows below the cursor, then moves top rows into history; a
        grow pulls them back; columns are cut, never reflowed."""
        if cols < 1 or rows < 1:
            raise ValueError("a screen needs at least one column and one row")
        emu = self._emu
        if (cols, rows) == (self.cols, self.rows):
            return
        self.content_seq += 1
        history = emu.history if emu.saved_primary is None else None
        emu.buffer = self._resized(emu.buffer, emu.cursor, rows, history)
        if emu.saved_primary is not None:
            buffer, saved = emu.saved_primary
            emu.saved_primary = (self._resized(buffer, saved, rows, emu.history), saved)
        if cols < self.cols:
            buffers = [emu.buffer, *([emu.saved_primary[0]] if emu.saved_primary else [])]
            for line in (*emu.history, *(ln for b in buffers for ln in b.values())):
                for x in range(cols, self.cols):
                    line.pop(x, None)
        emu.lines, emu.columns = rows, cols
        emu.margins = None
        emu.cursor.x = min(emu.cursor.x, cols - 1)
        emu.cursor.y = min(emu.cursor.y, rows - 1)
        emu.dirty.update(range(rows))
        self.cols, self.rows = cols, rows

    def _resized(self, buffer, cursor: Cursor | None, rows: int, history: deque | None):
        """A pyte buffer with ``rows`` rows (``cursor``'s row moves with its row)."""
        lines = [buffer[y] for y in range(self.rows)]
        y = cursor.y if cursor is not None else len(lines) - 1
        if rows < len(lines):
            excess = len(lines) - rows
            while (
                excess
                and len(lines) - 1 > y
                and not any(ch.data.strip() for ch in lines[-1].values())
            ):
                lines.pop()
                excess -= 1
            if excess:
                if history is not None:
                    history.extend(lines[:excess])
                del lines[:excess]
                y = max(0, y - excess)
        elif rows > len(lines) and history is not None:
            pulled = min(rows - len(lines), len(history))
            for _ in range(pulled):
                lines.insert(0, history.pop())
            y += pulled
        if cursor is not None:
            cursor.y = y
        out: defaultdict[int, StaticDefaultDict[int, Char]] = defaultdict(buffer.default_factory)
        for i, line in enumerate(lines[:rows]):
            out[i] = line
        return out

    # ------------------------------------------------------------------ feeding

    def feed(self, data: str | bytes) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not data:
            return
        self.content_seq += 1
        self._observe_osc(data)
        data = _LONG_PARAM.sub(b"65535", data)
        try:
            self._stream.feed(data)
        except ValueError:
            # A numeric parameter split across reads can still overflow pyte's int(); a real
            # terminal clamps it. Drop the broken sequence rather than the pane's reader.
            self._stream = type(self._stream)(self._stream.listener)

    def _observe_osc(self, data: bytes) -> None:
        title, progress = self._osc.observe(data)
        if title is not None:
            self.title = self.osc_title = title
        if progress is not None:
            self.osc_progress = progress

    # ------------------------------------------------------------------ reading

    def _grid(self) -> list[_Row]:
        emu = self._emu
        return [_Row(emu.buffer[y], self.cols) for y in range(self.rows)]

    def _history(self) -> list[_Row]:
        if self.alternate_screen:
            return []
        return [_Row(line, self.cols) for line in self._emu.history]

    # --- HerdrReadContract hooks (the read rules themselves live in model/paneread.py) ----

    def _read_grid(self):
        return self._grid()

    def _all_rows(self) -> list:
        return self._history() + self._grid()

    def _read_total(self) -> int:
        return len(self._emu.history) + self.rows if not self.alternate_screen else self.rows

    def _read_recent(self, count: int, includes_viewport: bool):
        grid = self._grid()
        history = self._history()
        total = len(history) + self.rows
        end = total - 1
        if includes_viewport and not self.alternate_screen:
            for r in range(self.rows - 1, -1, -1):
                if grid[r].text():
                    end = max(len(history) + r, min(len(history) + self.cursor[0], total - 1))
                    break
        start = max(0, end + 1 - count)
        return (history + grid)[start : end + 1]

    @staticmethod
    def _blank_cells(row) -> int:
        return row.trailing_blank_cells()

    def detection_text(self, recent_includes_viewport: bool = False) -> str:
        """What herdr's detection reads (src/pane/terminal.rs:2023, model/paneread.py)."""
        return self.read("detection", None, "text", recent_includes_viewport)[0]

    def last_line(self) -> str:
        for row in reversed(self._grid()):
            text = row.text()
            if text.strip():
                return text
        for row in reversed(self._history()):
            text = row.text()
            if text.strip():
                return text
        return ""

    def visible_lines(self) -> list[str]:
        return [row.text() for row in self._grid()]
