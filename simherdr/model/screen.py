"""A simulated terminal screen with scrollback, for panes that have no real process.

It is fed the pane's output as text and answers ``pane.read`` the way herdr 0.8.2
does (SOCKET.md §4.3 pane.read, §7.4 pane.wait_for_output, VERSIONS.md §1.6).

HOW HERDR READS A PANE (herdr 0.8.2, read, not guessed)
------------------------------------------------------
* ``src/app/api_helpers.rs:109-158``: ``lines`` is capped at 1000; recent sources
  default to 80 rows; ``visible`` and ``detection`` return the whole snapshot and,
  when ``lines`` is set, keep the last ``lines`` newline-terminated pieces
  (``split_inclusive('\\n')``), ``truncated`` = more pieces than that. ``detection`` is
  plain text even when ``format`` is ``ansi``.
* The rendered rows are the scrollback history followed by the active screen's
  full grid of ``rows`` rows, blank rows below the cursor included
  (libghostty ``total_rows`` = history + rows, ``src/pane/terminal.rs:2727-2739``,
  ``vendor/libghostty-vt/src/terminal/c/terminal.zig:872``).
* ``recent``/``recent_unwrapped`` select the last ``lines`` of those rows
  (``ghostty_recent_read_range``), and ``truncated`` is ``total rows > lines``
  (``finish_recent_snapshot``, ``src/pane/terminal.rs:2655-2680``) — so a fresh
  24-row screen read with ``lines=10`` is truncated.
* Text join for ``visible``, ``detection`` and ``recent`` (herdr's own join,
  ``src/pane/terminal.rs:2510-2527,2682-2694,3275-3298``): each row right-trimmed
  (Rust ``trim_end``), trailing blank rows dropped *after* the rows were selected,
  rows joined with ``\\n``, and a final ``\\n`` added when the text is non-empty.
  Leading and inner blank rows are kept as empty lines.
* ``recent_unwrapped`` text and every ``ansi`` read go through libghostty's
  formatter (``read_text_screen``/``read_ansi_screen``,
  ``vendor/libghostty-vt/src/terminal/formatter.zig:1040-1160``): blank rows are only
  written when a later row has text, so there is **no trailing newline**; rows are
  separated by ``\\n`` (plain) or ``\\r\\n`` (ansi); with unwrapping, a soft-wrapped row
  and its continuation are joined with no separator and the wrapped row's trailing
  blank cells are kept when the continuation has text.
  Example (5 columns, ``ABCDEFGHIJ``): recent ``"ABCDE\\nFGHIJ\\n"``, recent_unwrapped
  ``"ABCDEFGHIJ"`` (herdr's own test, ``src/pane/terminal.rs:5175-5183``).
* Line matching for ``pane.wait_for_output`` uses Rust ``str::lines`` (split on
  ``\\n``, one trailing ``\\r`` dropped per line, no empty last line) and the first
  matching line wins (``src/api/subscriptions.rs:20-37``).

VERSION SWITCH ``recent_includes_viewport``
------------------------------------------
* ``False`` = herdr 0.8.2 as read above: the selection always ends at the bottom row
  of the grid, so blank rows below the cursor use up the ``lines`` budget. A short
  output at the top of a fresh screen read with a small ``lines`` comes back as
  empty text — the defect 0.9.0 fixed (VERSIONS.md §1.6, #3444).
  NOTE: this is *not* "history rows only"; 0.8.2's source reads the viewport too,
  it just counts the blank rows under the cursor.
* ``True`` (0.9.x): on the primary screen the selection ends at the later of the
  cursor row and the last non-blank row of the grid (bottom row when the grid is
  blank); the alternate screen still ends at its bottom row. ``truncated`` stays
  ``total rows > lines``. CHOICE: no 0.9 source tree was available; this follows a
  0.9-era fork's ``ghostty_recent_read_range`` (found by searching public code) and
  the changelog wording.
* ``detection`` is the same as ``visible`` in both modes (CHOICE for 0.9: its
  detection text is built on the recent read and might reach into history).

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
import unicodedata
from collections import deque
from collections.abc import Callable

__all__ = [
    "DEFAULT_RECENT_LINES",
    "MAX_READ_LINES",
    "READ_FORMATS",
    "READ_SOURCES",
    "Screen",
    "first_matching_line",
    "limit_snapshot_lines",
    "rust_lines",
]

DEFAULT_RECENT_LINES = 80
MAX_READ_LINES = 1000
READ_SOURCES = ("visible", "recent", "recent_unwrapped", "detection")
READ_FORMATS = ("text", "ansi")

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
_SGR_RESET = ("\x1b[m", "\x1b[0m")

_WIDTH_CACHE: dict[str, int] = {}


def _char_width(ch: str) -> int:
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


class _Row:
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


class _Buffer:
    __slots__ = ("cx", "cy", "grid", "history", "saved", "wrap_pending")

    def __init__(self, rows: int, scrollback_limit: int) -> None:
        self.history: deque[_Row] = deque(maxlen=max(0, scrollback_limit))
        self.grid: list[_Row] = [_Row() for _ in range(rows)]
        self.cx = 0
        self.cy = 0
        self.wrap_pending = False
        self.saved: tuple[int, int] | None = None


CSI_PARAM_MAX = 65535  # terminals clamp numeric parameters; huge ones must not cost time


def _csi_param(p: str) -> int:
    """A CSI numeric parameter: ASCII digits only ("²" is not a digit here), clamped."""
    if not p or not (p.isascii() and p.isdigit()):
        return 0
    return CSI_PARAM_MAX if len(p) > 5 else min(int(p), CSI_PARAM_MAX)


def limit_snapshot_lines(text: str, limit: int | None) -> tuple[str, bool]:
    """herdr's ``limit_snapshot_lines``: keep the last ``limit`` pieces of
    ``split_inclusive('\\n')``; truncated when pieces were dropped."""
    if limit is None:
        return text, False
    if limit < 0:
        raise ValueError("lines must not be negative")
    if not text:
        return "", False
    pieces = text.split("\n")
    count = len(pieces) - 1 + (1 if pieces[-1] else 0)
    if count <= limit:
        return text, False
    if limit == 0:
        return "", True
    # Find where the last `limit` pieces start: after the (count - limit)-th newline.
    drop = count - limit
    index = -1
    for _ in range(drop):
        index = text.index("\n", index + 1)
    return text[index + 1 :], True


def rust_lines(text: str) -> list[str]:
    """Rust ``str::lines``: split on ``\\n``, drop one trailing ``\\r`` per line, no
    empty last line for a final ``\\n``."""
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def first_matching_line(text: str, predicate: Callable[[str], bool]) -> str | None:
    """pane.wait_for_output's matcher: the first line (``rust_lines``) that matches."""
    for line in rust_lines(text):
        if predicate(line):
            return line
    return None


class HerdrReadContract:
    """herdr's pane.read rules over a grid of rows, shared by the simulated :class:`Screen` and
    the PTY screen (simherdr/panes/vt.py). A subclass provides the rows:

    - ``_read_grid()``: the active screen's rows;
    - ``_read_total()``: history rows plus grid rows (libghostty's total_rows);
    - ``_read_recent(count, includes_viewport)``: the rows a recent read selects, or None;
    - ``_blank_cells(row)``: trailing blank cells of a soft-wrapped row.
    Rows offer ``text()``, ``plain()``, ``ansi()``, ``wraps`` and ``cont``.
    """

    rows: int  # the grid's size (subclasses set them)
    cols: int
    content_seq = 0  # bumped by every change of content (subclasses)
    # The OSC 0/2 title. ``on_title`` (set by the simulator) hears every change, so herdr's
    # revision / pane_updated rules can follow it (model/titles.py).
    on_title = None
    _title = ""

    @property
    def title(self) -> str:
        return self._title

    @title.setter
    def title(self, value: str) -> None:
        if value != self._title:
            self._title = value
            if self.on_title is not None:
                self.on_title()

    # The rows a subclass provides (see the class notes).
    def _read_grid(self) -> list:
        raise NotImplementedError

    def _read_total(self) -> int:
        raise NotImplementedError

    def _read_recent(self, count: int, includes_viewport: bool) -> list | None:
        raise NotImplementedError

    def _blank_cells(self, row) -> int:
        raise NotImplementedError

    @staticmethod
    def _join_herdr(rows) -> str:
        texts = [row.text() for row in rows]
        while texts and not texts[-1].strip():
            texts.pop()
        return "\n".join(texts) + "\n" if texts else ""

    def _join_formatter(self, rows, *, unwrap: bool, ansi: bool) -> str:
        sep = "\r\n" if ansi else "\n"
        out: list[str] = []
        blank_rows = 0
        blank_cells = 0
        for row in rows:
            plain = row.plain()
            if not plain:
                blank_rows += 1
                continue
            if blank_rows:
                out.append(sep * blank_rows)
                blank_rows = 0
            if not (unwrap and row.wraps):
                blank_rows += 1
            if not (unwrap and row.cont):
                blank_cells = 0
            if blank_cells:
                out.append(" " * blank_cells)
            out.append(row.ansi() if ansi else plain)
            blank_cells = self._blank_cells(row)
        return "".join(out)

    # --- 0.9.x scrollback and copy-mode views ([H093] src/app/api/panes.rs) ----------------

    def _all_rows(self) -> list:
        """History rows, oldest first, then the active grid (absolute row numbers)."""
        raise NotImplementedError

    def content_revision(self) -> int:
        """herdr's content_seq as pane.selection.read / copy methods compare it (even while
        the content is stable). CHOICE: twice the screen's change counter."""
        return 2 * self.content_seq

    def scroll_max(self) -> int:
        """max_offset_from_bottom: the rows above the viewport."""
        return max(0, self._read_total() - self.rows)

    def selection_text(self, anchor: tuple[int, int], cursor: tuple[int, int]) -> str | None:
        """The text of an absolute (row, col) range, both ends inclusive, in reading order;
        None when a row is outside the content (herdr: selection_unavailable). CHOICE: each
        row right-trimmed, rows joined by "\n" except across a soft wrap; columns are cells."""
        rows = self._all_rows()
        (r0, c0), (r1, c1) = sorted((anchor, cursor))
        if r1 >= len(rows):
            return None
        out = []
        for r in range(r0, r1 + 1):
            cells = list(rows[r].cells)
            lo = c0 if r == r0 else 0
            hi = c1 + 1 if r == r1 else len(cells)
            out.append("".join(cells[lo:hi]).rstrip())
            if r < r1 and not rows[r].wraps:
                out.append("\n")
        return "".join(out)

    def read(
        self,
        source: str,
        lines: int | None = None,
        fmt: str = "text",
        recent_includes_viewport: bool = True,
    ) -> tuple[str, bool]:
        """``(text, truncated)`` for a pane.read of ``source`` (see the module notes).
        ``lines`` is the request's value (None when omitted); defaults and the 1000
        cap are applied here."""
        if source not in READ_SOURCES:
            raise ValueError(f"unknown read source {source!r}")
        if fmt not in READ_FORMATS:
            raise ValueError(f"unknown read format {fmt!r}")
        if lines is not None and lines < 0:
            raise ValueError("lines must not be negative")
        limit = None if lines is None else min(lines, MAX_READ_LINES)
        if source in ("visible", "detection"):
            grid = self._read_grid()
            if fmt == "ansi" and source == "visible":
                text = self._join_formatter(grid, unwrap=False, ansi=True)
            else:
                text = self._join_herdr(grid)
            return limit_snapshot_lines(text, limit)

        count = DEFAULT_RECENT_LINES if limit is None else limit
        truncated = self._read_total() > count
        rows = self._read_recent(count, recent_includes_viewport) if count else None
        if not rows:
            return "", truncated
        unwrap = source == "recent_unwrapped"
        if fmt == "text" and not unwrap:
            return self._join_herdr(rows), truncated
        return self._join_formatter(rows, unwrap=unwrap, ansi=(fmt == "ansi")), truncated


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
        self._primary = _Buffer(rows, scrollback_limit)
        self._alt: _Buffer | None = None
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
        buf.grid = [_Row() for _ in range(self.rows)]
        buf.cx = buf.cy = 0
        buf.wrap_pending = False
        self._pending_sgr = []
        self._sgr_state = []
        self._row_fresh = True

    def reset(self) -> None:
        """Full reset (ESC c): primary screen, blank, no history, modes off, no title."""
        self._primary = _Buffer(self.rows, self.scrollback_limit)
        self._alt = None
        self._buf = self._primary
        self.title = ""
        self.bracketed_paste = False
        self.application_cursor = False
        self._partial = ""
        self._pending_sgr = []
        self._sgr_state = []
        self._row_fresh = True

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
                buf.grid.append(_Row())
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
            buf.history.extend(_Row() for _ in range(blanks))
            buf.grid = [_Row() for _ in range(self.rows)]
        else:
            buf.history.extend(buf.grid[:scroll])
            buf.grid = buf.grid[scroll:] + [_Row() for _ in range(scroll)]

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

    def _put(self, row: _Row, cx: int, chunk, width: int) -> None:
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
        width = _char_width(ch)
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
                buf.grid[r] = _Row()
        elif mode == 1:
            for r in range(buf.cy):
                buf.grid[r] = _Row()
            self._erase_line(1)
        elif mode == 2:
            buf.grid = [_Row() for _ in range(self.rows)]
        elif mode == 3:
            buf.history.clear()
        buf.wrap_pending = False

    def _dec_mode(self, mode: str, on: bool) -> None:
        if mode == "2004":
            self.bracketed_paste = on
        elif mode == "1":
            self.application_cursor = on
        elif mode in ("47", "1047", "1049"):
            self._switch_screen(on, save_cursor=(mode == "1049"))

    def _switch_screen(self, alternate: bool, *, save_cursor: bool) -> None:
        if alternate and self._buf is self._primary:
            if save_cursor:
                self._primary.saved = (self._primary.cy, self._primary.cx)
            self._alt = _Buffer(self.rows, 0)
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
                buf.grid.insert(0, _Row())
                buf.grid.pop()
            buf.wrap_pending = False
            self._row_fresh = True
        elif final == "c":
            self.reset()

    # ------------------------------------------------------------------ reading

    def _row(self, index: int) -> _Row:
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

    def lines_matching(
        self,
        pattern_fn: Callable[[str], bool],
        source: str,
        lines: int | None = None,
        *,
        recent_includes_viewport: bool = True,
    ) -> str | None:
        """pane.wait_for_output's test on the current screen: a text read (``recent``
        read as ``recent_unwrapped``), matched line by line, first match wins."""
        if source == "recent":
            source = "recent_unwrapped"
        text, _ = self.read(source, lines, "text", recent_includes_viewport)
        return first_matching_line(text, pattern_fn)

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
