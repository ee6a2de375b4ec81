"""herdr's pane.read rules (SOCKET.md §4.3 pane.read, §7.4 pane.wait_for_output, VERSIONS.md
§1.6), over the rows of a screen: shared by the simulated screen (:mod:`.screen`) and the PTY
screen (simherdr/panes/vt.py).

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
* ``detection`` is the recent text of ``rows`` lines on the release's range
  (``ghostty_detection_text``, herdr 0.8.2 ``src/pane/terminal.rs:2584-2592``; the same in
  0.9.3's fork, whose range ends at the cursor / last text): at 0.8.x the grid, as
  ``visible``; at 0.9 it can reach into history when the screen's text ends above its
  bottom row.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = [
    "DEFAULT_RECENT_LINES",
    "MAX_READ_LINES",
    "READ_FORMATS",
    "READ_SOURCES",
    "HerdrReadContract",
    "first_matching_line",
    "limit_snapshot_lines",
    "rust_lines",
]

DEFAULT_RECENT_LINES = 80
MAX_READ_LINES = 1000
READ_SOURCES = ("visible", "recent", "recent_unwrapped", "detection")
READ_FORMATS = ("text", "ansi")


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
    on_title: Callable[[], None] | None = None
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

    @staticmethod
    def check_read_args(source: str, lines: int | None, fmt: str) -> None:
        """A read's arguments as every screen checks them (ValueError: one line)."""
        if source not in READ_SOURCES:
            raise ValueError(f"unknown read source {source!r}")
        if fmt not in READ_FORMATS:
            raise ValueError(f"unknown read format {fmt!r}")
        if lines is not None and lines < 0:
            raise ValueError("lines must not be negative")

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
        self.check_read_args(source, lines, fmt)
        limit = None if lines is None else min(lines, MAX_READ_LINES)
        if source == "visible":
            grid = self._read_grid()
            if fmt == "ansi":
                text = self._join_formatter(grid, unwrap=False, ansi=True)
            else:
                text = self._join_herdr(grid)
            return limit_snapshot_lines(text, limit)
        if source == "detection":  # plain text even when ansi is asked for
            selected = self._read_recent(self.rows, recent_includes_viewport)
            return limit_snapshot_lines(self._join_herdr(selected) if selected else "", limit)

        count = DEFAULT_RECENT_LINES if limit is None else limit
        truncated = self._read_total() > count
        rows = self._read_recent(count, recent_includes_viewport) if count else None
        if not rows:
            return "", truncated
        unwrap = source == "recent_unwrapped"
        if fmt == "text" and not unwrap:
            return self._join_herdr(rows), truncated
        return self._join_formatter(rows, unwrap=unwrap, ansi=(fmt == "ansi")), truncated
