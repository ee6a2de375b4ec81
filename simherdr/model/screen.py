"""A simulated terminal screen with scrollback, for panes that have no real process.

It is fed the pane's output as text and answers ``pane.read`` the way herdr does: the read
rules (herdr's, with their sources and the ``recent_includes_viewport`` version switch) are
:mod:`.paneread`'s; the cells are :mod:`.screenrows`'. This module is the terminal emulation.

SIMULATION CHOICES (not herdr facts)
-----------------------------------
* ``\\n`` is a carriage return plus line feed (what a PTY's default ONLCR does to
  program output); ``\\r`` alone returns to column 0 and later text overwrites the row;
  ``\\b`` moves left one column without erasing; TAB moves to the next multiple of 8
  (capped at the last column) without writing; VT/FF are line feeds without CR;
  other C0/C1 controls are ignored.
* Autowrap uses a pending-wrap flag like xterm/libghostty: text that exactly fills
  ``cols`` columns followed by ``\\n`` makes one row, not two. A wrapped row is marked
  ``wraps`` and the next row ``cont`` (continuation).
* East Asian Wide/Fullwidth characters take two cells; combining marks (Mn, Me) and
  format characters (Cf, except U+00AD) take none and join the previous cell.
* Understood escapes: CSI ``m`` (kept for ansi), ``K``, ``J`` (0/1/2/3), ``H``/``f``,
  ``A``..``G``, ``d``, ``X``, DEC private modes ``?1`` (application cursor keys),
  ``?47``/``?1047``/``?1049`` (alternate screen: a flag plus a separate, blank,
  history-less buffer; 1049 also saves/restores the cursor), ``?2004`` (bracketed
  paste); OSC 0 and 2 set ``title``; ESC 7/8/D/E/M/c. All other CSI, OSC, DCS, APC, PM
  and SOS sequences are consumed and ignored. A sequence split across two ``feed``
  calls is completed by the next call.
* ANSI reads are an approximation of libghostty's re-encoded styles: the SGR
  sequences as received are replayed before the cell they preceded, the active SGR
  state is replayed at the first cell printed on a new row, and a row that carried
  any SGR ends with ``ESC[0m``. Blank-row, separator and unwrap rules are the
  formatter's (above).
* A row made only of spaces counts as blank (libghostty distinguishes printed spaces
  from never-written cells; this model does not).
* ``scrollback_limit`` counts rows (libghostty limits bytes).
"""

from __future__ import annotations

import codecs
import re

from .paneread import HerdrReadContract
from .panescreen import ScreenFrame
from .screenrows import Buffer, Row, char_width

__all__ = ["Screen"]

_MAX_PARTIAL = 65536  # an unterminated escape sequence longer than this is dropped

_TOKEN = re.compile(
    r"(?P<line>[\x20-\x7e]+)\r*\n"
    r"|(?P<text>[^\x00-\x1f\x7f-\x9f]+)"
    r"|(?P<nl>(?:\r*\n)+)"
    r"|(?P<cr>\r)"
    r"|(?P<csi>\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e])"
    r"|(?P<osc>\x1b\][^\x07\x1b]*(?:\x07|\x1b\\))"
    r"|(?P<oscabort>\x1b\][^\x07\x1b]*(?=\x1b[^\\]))"
    r"|(?P<str>\x1b[P^_X][\s\S]*?(?:\x1b\\|\x07))"
    r"|(?P<esc>\x1b[\x20-\x2f]*[\x30-\x7e])"
    r"|(?P<ctl>[\x00-\x1f\x7f-\x9f])"
)

# What an escape sequence cut off by the end of the fed text can look like.
_PARTIAL = re.compile(
    r"\x1b(?:"
    r"\[[\x30-\x3f]*[\x20-\x2f]*"
    r"|\][^\x07\x1b]*\x1b?"
    r"|[P^_X][\s\S]*"
    r"|[\x20-\x2f]*"
    r")\Z"
)

_ASCII_SPLIT = re.compile(r"[\x20-\x7e]+|[^\x20-\x7e]+")


CSI_PARAM_MAX = 65535  # terminals clamp numeric parameters; huge ones must not cost time


def _csi_param(p: str) -> int:
    """A CSI numeric parameter: ASCII digits only ("²" is not a digit here), clamped."""
    if not p or not (p.isascii() and p.isdigit()):
        return 0
    return CSI_PARAM_MAX if len(p) > 5 else min(int(p), CSI_PARAM_MAX)


class Screen(HerdrReadContract):
    """A pane's simulated terminal: feed it output, read it like herdr."""

    def __init__(self, cols: int = 80, rows: int = 24, scrollback_limit: int = 10000):
        if cols < 1 or rows < 1:
            raise ValueError("a screen needs at least one column and one row")
        self.cols = cols
        self.rows = rows
        self.scrollback_limit = scrollback_limit
        self.title = ""
        self.bracketed_paste = False
        self.application_cursor = False
        self.cursor_visible = True  # DECTCEM (CSI ?25 h/l)
        self._modes: set[int] = set()  # other DEC private modes set (mouse tracking, ...)
        self._primary = Buffer(rows, scrollback_limit)
        self._alt: Buffer | None = None
        self._buf = self._primary
        self._partial = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending_sgr: list[tuple[str, str]] = []
        self._sgr_state: list[str] = []
        self._row_fresh = True

    # ------------------------------------------------------------------ state

    @property
    def alternate_screen(self) -> bool:
        return self._buf is not self._primary

    @property
    def cursor(self) -> tuple[int, int]:
        """(row, column) of the cursor in the active grid, 0-based."""
        return self._buf.cy, self._buf.cx

    @property
    def history_rows(self) -> int:
        return len(self._buf.history)

    @property
    def total_rows(self) -> int:
        """libghostty's total_rows for the active screen: history plus the grid."""
        return len(self._buf.history) + self.rows

    def clear(self) -> None:
        """Wipe the active screen's history and grid and home the cursor (what
        ``clear`` does: ESC[H ESC[2J ESC[3J). Modes and title are kept."""
        self.content_seq += 1
        buf = self._buf
        buf.history.clear()
        buf.grid = [Row() for _ in range(self.rows)]
        buf.cx = buf.cy = 0
        buf.wrap_pending = False
        self._pending_sgr = []
        self._sgr_state = []
        self._row_fresh = True

    def reset(self) -> None:
        """Full reset (ESC c): primary screen, blank, no history, modes off, no title."""
        self._primary = Buffer(self.rows, self.scrollback_limit)
        self._alt = None
        self._buf = self._primary
        self.title = ""
        self.bracketed_paste = False
        self.application_cursor = False
        self.cursor_visible = True
        self._modes = set()
        self._partial = ""
        self._pending_sgr = []
        self._sgr_state = []
        self._row_fresh = True

    def frame(self) -> ScreenFrame:
        """The active grid as the terminal plane draws it (one styled line per row)."""
        buf = self._buf
        return ScreenFrame(
            self.cols,
            self.rows,
            tuple(row.ansi() for row in buf.grid),
            (buf.cy, buf.cx),
            self.cursor_visible,
        )

    def resize(self, cols: int, rows: int) -> None:
        """New size. Rows: a shrink first drops blank rows below the cursor, then moves top
        rows into history (the alternate screen discards them); a grow pulls rows back from
        history, then adds blank rows. Columns: rows are cut or padded, never reflowed
        (SIMULATION CHOICE of this model; libghostty reflows soft-wrapped rows)."""
        if cols < 1 or rows < 1:
            raise ValueError("a screen needs at least one column and one row")
        if (cols, rows) == (self.cols, self.rows):
            return
        self.content_seq += 1
        for buf in (self._primary, self._alt):
            if buf is not None:
                self._resize_rows(buf, rows)
                self._resize_cols(buf, cols)
        self.cols, self.rows = cols, rows
        self._row_fresh = True

    @staticmethod
    def _resize_rows(buf: Buffer, rows: int) -> None:
        grid = buf.grid
        if rows < len(grid):
            excess = len(grid) - rows
            while excess and len(grid) - 1 > buf.cy and not grid[-1].cells:
                grid.pop()
                excess -= 1
            if excess:
                buf.history.extend(grid[:excess])
                del grid[:excess]
                buf.cy = max(0, buf.cy - excess)
                if buf.saved is not None:
                    buf.saved = (max(0, buf.saved[0] - excess), buf.saved[1])
        elif rows > len(grid):
            pulled = min(rows - len(grid), len(buf.history))
            for _ in range(pulled):
                grid.insert(0, buf.history.pop())
            buf.cy += pulled
            grid.extend(Row() for _ in range(rows - len(grid)))
        if grid and grid[0].cont and not buf.history:
            grid[0].cont = False

    @staticmethod
    def _resize_cols(buf: Buffer, cols: int) -> None:
        for row in (*buf.history, *buf.grid):
            if len(row.cells) > cols:
                del row.cells[cols:]
                if row.cells and row.cells[-1] != "" and char_width(row.cells[-1][:1]) == 2:
                    row.cells[-1] = " "  # the first half of a cut wide character
                row.clear_styles(cols)
        if buf.cx >= cols:
            buf.cx = cols - 1
        buf.wrap_pending = False
        if buf.saved is not None:
            buf.saved = (buf.saved[0], min(buf.saved[1], cols - 1))

    # ------------------------------------------------------------------ feeding

    def feed(self, text: str | bytes) -> None:
        """Append program output. Bytes are decoded as UTF-8 (invalid bytes become
        U+FFFD; a character split across two calls is completed by the next call)."""
        if text:
            self.content_seq += 1
        if isinstance(text, (bytes, bytearray)):
            text = self._decoder.decode(bytes(text))
        if self._partial:
            text = self._partial + text
            self._partial = ""
        if not text:
            return
        for m in _TOKEN.finditer(text):
            kind = m.lastgroup
            if kind == "line":
                self._print_ascii(m.group(1))
                self._buf.cx = 0
                self._linefeed()
            elif kind == "text":
                run = m.group()
                if run.isascii():
                    self._print_ascii(run)
                else:
                    self._print(run)
            elif kind == "nl":
                self._buf.cx = 0
                self._linefeed(m.group().count("\n"))
            elif kind == "cr":
                self._buf.cx = 0
                self._buf.wrap_pending = False
            elif kind == "csi":
                self._csi(m.group())
            elif kind == "osc":
                self._osc(m.group())
            elif kind == "esc":
                seq = m.group()
                if len(seq) == 2 and seq[1] in "[]P^_X" and self._hold_partial(text, m.start()):
                    return
                self._esc(seq)
            elif kind == "ctl":
                ch = m.group()
                if ch == "\x1b":
                    if self._hold_partial(text, m.start()):
                        return
                else:
                    self._control(ch)
            # "str" (DCS/APC/PM/SOS) and "oscabort" are consumed and ignored.

    def _hold_partial(self, text: str, start: int) -> bool:
        if _PARTIAL.match(text, start):
            rest = text[start:]
            if len(rest) <= _MAX_PARTIAL:
                self._partial = rest
            return True
        return False

    def _control(self, ch: str) -> None:
        buf = self._buf
        if ch == "\b":
            if buf.cx > 0:
                buf.cx -= 1
            buf.wrap_pending = False
        elif ch == "\t":
            if buf.cx < self.cols - 1:
                buf.cx = min((buf.cx // 8 + 1) * 8, self.cols - 1)
        elif ch in "\x0b\x0c":
            self._linefeed()
        # everything else (BEL, SO/SI, NUL, DEL, C1, ...) is ignored

    def _linefeed(self, count: int = 1) -> None:
        """Move the cursor down ``count`` rows, scrolling rows into history at the bottom."""
        buf = self._buf
        buf.wrap_pending = False
        self._row_fresh = True
        if self._pending_sgr:
            self._commit_pending_resets()
        if count == 1:
            if buf.cy < self.rows - 1:
                buf.cy += 1
            else:
                buf.history.append(buf.grid.pop(0))
                buf.grid.append(Row())
            return
        room = self.rows - 1 - buf.cy
        if count <= room:
            buf.cy += count
            return
        buf.cy = self.rows - 1
        scroll = count - room
        if scroll >= self.rows:
            buf.history.extend(buf.grid)
            blanks = scroll - self.rows
            if buf.history.maxlen is not None:
                blanks = min(blanks, buf.history.maxlen)
            buf.history.extend(Row() for _ in range(blanks))
            buf.grid = [Row() for _ in range(self.rows)]
        else:
            buf.history.extend(buf.grid[:scroll])
            buf.grid = buf.grid[scroll:] + [Row() for _ in range(scroll)]

    def _commit_pending_resets(self) -> None:
        """At a line feed, an SGR reset still waiting for a cell belongs to the row
        being left (its ansi rendering already ends with a reset), not to the next."""
        pending = self._pending_sgr
        for i in range(len(pending) - 1, -1, -1):
            if pending[i][1] in ("", "0"):
                del pending[: i + 1]
                self._sgr_state = []
                return

    def _wrap(self) -> None:
        buf = self._buf
        buf.grid[buf.cy].wraps = True
        self._linefeed()
        buf.grid[buf.cy].cont = True
        buf.cx = 0

    def _take_style(self) -> str:
        """The SGR text to put before the cell being printed: the committed style state
        when this is the first cell printed on a new row, then the pending sequences
        (which then become part of the committed state)."""
        parts: list[str] = []
        if self._row_fresh:
            self._row_fresh = False
            if not any(body in ("", "0") for _, body in self._pending_sgr):
                parts.extend(self._sgr_state)
        for seq, body in self._pending_sgr:
            parts.append(seq)
            if body in ("", "0"):
                self._sgr_state = []
            else:
                self._sgr_state.append(seq)
                if len(self._sgr_state) > 16:
                    del self._sgr_state[0]
        self._pending_sgr = []
        return "".join(parts)

    def _put(self, row: Row, cx: int, chunk, width: int) -> None:
        """Write ``width`` cells (``chunk``: a str of narrow chars or a list of cells)."""
        cells = row.cells
        length = len(cells)
        if (
            cx == length
            and not row.styles
            and not self._pending_sgr
            and not (self._row_fresh and self._sgr_state)
        ):
            cells.extend(chunk)
            self._row_fresh = False
            return
        if cx >= length:
            if cx > length:
                cells.extend(" " * (cx - length))
            cells.extend(chunk)
        else:
            end = cx + width
            if cells[cx] == "" and cx > 0 and cells[cx - 1] not in ("", " "):
                cells[cx - 1] = " "  # overwrote the second half of a wide character
            if end < length and cells[end] == "":
                cells[end] = " "  # overwrote the first half of a wide character
            cells[cx:end] = chunk
        if row.styles:
            row.clear_styles(cx, cx + width)
        if self._pending_sgr or (self._row_fresh and self._sgr_state):
            prefix = self._take_style()
            if prefix:
                if row.styles is None:
                    row.styles = {}
                row.styles[cx] = prefix
        else:
            self._row_fresh = False

    def _print(self, run: str) -> None:
        if run.isascii():
            self._print_ascii(run)
            return
        for segment in _ASCII_SPLIT.findall(run):
            if segment.isascii():
                self._print_ascii(segment)
            else:
                for ch in segment:
                    self._print_char(ch)

    def _print_ascii(self, run: str) -> None:
        buf = self._buf
        cols = self.cols
        n = len(run)
        if not buf.wrap_pending and buf.cx + n < cols:
            self._put(buf.grid[buf.cy], buf.cx, run, n)
            buf.cx += n
            return
        i = 0
        while i < n:
            if buf.wrap_pending:
                self._wrap()
            cx = buf.cx
            take = min(cols - cx, n - i)
            self._put(buf.grid[buf.cy], cx, run[i : i + take] if (i or take < n) else run, take)
            i += take
            cx += take
            if cx >= cols:
                buf.cx = cols - 1
                buf.wrap_pending = True
            else:
                buf.cx = cx

    def _print_char(self, ch: str) -> None:
        buf = self._buf
        cols = self.cols
        width = char_width(ch)
        if width == 0:
            row = buf.grid[buf.cy]
            target = buf.cx if buf.wrap_pending else buf.cx - 1
            if 0 <= target < len(row.cells):
                if row.cells[target] == "" and target > 0:
                    target -= 1
                row.cells[target] += ch
            return
        if width == 2 and cols < 2:
            return  # cannot be shown at all
        if buf.wrap_pending:
            self._wrap()
        if width == 2 and buf.cx == cols - 1:
            # No room for both halves: the last cell becomes a spacer, then wrap.
            cells = buf.grid[buf.cy].cells
            if len(cells) < cols:
                cells.extend(" " * (cols - 1 - len(cells)))
                cells.append("")
            else:
                cells[cols - 1] = ""
            self._wrap()
        cx = buf.cx
        self._put(buf.grid[buf.cy], cx, [ch, ""] if width == 2 else [ch], width)
        cx += width
        if cx >= cols:
            buf.cx = cols - 1
            buf.wrap_pending = True
        else:
            buf.cx = cx

    # ------------------------------------------------------------------ escapes

    def _csi(self, seq: str) -> None:
        final = seq[-1]
        body = seq[2:-1]
        private = ""
        if body[:1] in ("?", "<", "=", ">"):
            private, body = body[0], body[1:]
        if body and body[-1] in " !\"#$%&'()*+,-./":
            return  # sequences with intermediates (DECSCUSR, ...) are ignored
        if private:
            if private == "?" and final in "hl":
                for mode in body.split(";"):
                    self._dec_mode(mode, final == "h")
            return
        if final == "m":
            self._sgr(seq, body)
            return
        params = [_csi_param(p) for p in body.split(";")] if body else []

        def arg(i: int, default: int) -> int:
            value = params[i] if i < len(params) else 0
            return value or default

        buf = self._buf
        if final in "Hf":
            self._move_to(arg(0, 1) - 1, arg(1, 1) - 1)
        elif final == "A":
            self._move_to(buf.cy - arg(0, 1), buf.cx)
        elif final in "Be":
            self._move_to(buf.cy + arg(0, 1), buf.cx)
        elif final in "Ca":
            self._move_to(buf.cy, buf.cx + arg(0, 1))
        elif final == "D":
            self._move_to(buf.cy, buf.cx - arg(0, 1))
        elif final == "E":
            self._move_to(buf.cy + arg(0, 1), 0)
        elif final == "F":
            self._move_to(buf.cy - arg(0, 1), 0)
        elif final in "G`":
            self._move_to(buf.cy, arg(0, 1) - 1)
        elif final == "d":
            self._move_to(arg(0, 1) - 1, buf.cx)
        elif final == "K":
            self._erase_line(params[0] if params else 0)
        elif final == "J":
            self._erase_display(params[0] if params else 0)
        elif final == "X":
            row = buf.grid[buf.cy]
            end = min(buf.cx + arg(0, 1), len(row.cells))
            for col in range(buf.cx, end):
                row.cells[col] = " "
            row.clear_styles(buf.cx, end)
            buf.wrap_pending = False

    def _move_to(self, row: int, col: int) -> None:
        buf = self._buf
        row = min(max(row, 0), self.rows - 1)
        if row != buf.cy:
            self._row_fresh = True
        buf.cy = row
        buf.cx = min(max(col, 0), self.cols - 1)
        buf.wrap_pending = False

    def _sgr(self, seq: str, body: str) -> None:
        if body in ("", "0"):
            self._pending_sgr = [(seq, body)]  # a reset makes earlier pending SGR moot
        else:
            self._pending_sgr.append((seq, body))
            if len(self._pending_sgr) > 32:
                del self._pending_sgr[0]

    def _erase_line(self, mode: int) -> None:
        buf = self._buf
        row = buf.grid[buf.cy]
        cx = buf.cx
        if mode == 0:
            del row.cells[cx:]
            row.clear_styles(cx)
            row.wraps = False
        elif mode == 1:
            end = min(cx + 1, len(row.cells))
            for col in range(end):
                row.cells[col] = " "
            row.clear_styles(0, cx + 1)
        elif mode == 2:
            row.cells = []
            row.styles = None
            row.wraps = False
        buf.wrap_pending = False

    def _erase_display(self, mode: int) -> None:
        buf = self._buf
        if mode == 0:
            self._erase_line(0)
            for r in range(buf.cy + 1, self.rows):
                buf.grid[r] = Row()
        elif mode == 1:
            for r in range(buf.cy):
                buf.grid[r] = Row()
            self._erase_line(1)
        elif mode == 2:
            buf.grid = [Row() for _ in range(self.rows)]
        elif mode == 3:
            buf.history.clear()
        buf.wrap_pending = False

    def mode(self, mode: int) -> bool:
        """Whether DEC private mode ``mode`` is set (model/seams.py ReportsModes)."""
        if mode == 1:
            return self.application_cursor
        if mode == 25:
            return self.cursor_visible
        if mode == 2004:
            return self.bracketed_paste
        if mode in (47, 1047, 1049):
            return self.alternate_screen
        return mode in self._modes

    def _dec_mode(self, mode: str, on: bool) -> None:
        if mode.isdigit() and len(mode) <= 5:
            (self._modes.add if on else self._modes.discard)(int(mode))
        if mode == "2004":
            self.bracketed_paste = on
        elif mode == "1":
            self.application_cursor = on
        elif mode == "25":
            self.cursor_visible = on
        elif mode in ("47", "1047", "1049"):
            self._switch_screen(on, save_cursor=(mode == "1049"))

    def _switch_screen(self, alternate: bool, *, save_cursor: bool) -> None:
        if alternate and self._buf is self._primary:
            if save_cursor:
                self._primary.saved = (self._primary.cy, self._primary.cx)
            self._alt = Buffer(self.rows, 0)
            self._buf = self._alt
            self._row_fresh = True
        elif not alternate and self._buf is not self._primary:
            self._buf = self._primary
            self._alt = None
            if save_cursor and self._primary.saved is not None:
                self._primary.cy, self._primary.cx = self._primary.saved
                self._primary.wrap_pending = False
            self._row_fresh = True

    def _osc(self, seq: str) -> None:
        payload = seq[2:-1] if seq.endswith("\x07") else seq[2:-2]
        number, _, value = payload.partition(";")
        if number in ("0", "2"):
            self.title = value

    def _esc(self, seq: str) -> None:
        if len(seq) != 2:
            return  # charset designations and other intermediates: ignored
        final = seq[1]
        buf = self._buf
        if final == "7":
            buf.saved = (buf.cy, buf.cx)
        elif final == "8":
            if buf.saved is not None:
                self._move_to(*buf.saved)
        elif final == "D":
            self._linefeed()
        elif final == "E":
            buf.cx = 0
            self._linefeed()
        elif final == "M":
            if buf.cy > 0:
                buf.cy -= 1
            else:
                buf.grid.insert(0, Row())
                buf.grid.pop()
            buf.wrap_pending = False
            self._row_fresh = True
        elif final == "c":
            self.reset()

    # ------------------------------------------------------------------ reading

    def _row(self, index: int) -> Row:
        buf = self._buf
        history = len(buf.history)
        return buf.history[index] if index < history else buf.grid[index - history]

    # --- HerdrReadContract hooks -------------------------------------------------------------

    def _read_grid(self):
        return self._buf.grid

    def _all_rows(self) -> list:
        return list(self._buf.history) + list(self._buf.grid)

    def _read_total(self) -> int:
        return self.total_rows

    def _read_recent(self, count: int, includes_viewport: bool):
        span = self._recent_range(count, includes_viewport)
        if span is None:
            return None
        start, end = span
        return [self._row(i) for i in range(start, end + 1)]

    def _blank_cells(self, row) -> int:
        return row.trailing_blank_cells(self.cols)

    def _recent_range(self, lines: int, includes_viewport: bool) -> tuple[int, int] | None:
        buf = self._buf
        history = len(buf.history)
        total = history + self.rows
        if lines == 0:
            return None
        end = total - 1
        if includes_viewport and buf is self._primary:
            for r in range(self.rows - 1, -1, -1):
                if buf.grid[r].text():
                    end = max(history + r, min(history + buf.cy, total - 1))
                    break
        start = max(0, end + 1 - lines)
        return start, end

    def last_line(self) -> str:
        """The last non-blank rendered row of the active screen (right-trimmed), or ''."""
        buf = self._buf
        for row in reversed(buf.grid):
            text = row.text()
            if text.strip():
                return text
        for row in reversed(buf.history):
            text = row.text()
            if text.strip():
                return text
        return ""

    def visible_lines(self) -> list[str]:
        """The grid's rows as herdr renders them (right-trimmed), blank ones included."""
        return [row.text() for row in self._buf.grid]
