"""A pane's screen on libghostty-vt, herdr's own terminal engine (:mod:`.ghostty`).

:class:`GhosttyScreen` is the :class:`~simherdr.model.panescreen.PaneScreen` of every pane,
real (PTY) and simulated alike: output is written to a libghostty-vt terminal and every read
is derived from the engine's formatter and state the way herdr's wrapper derives it (herdr
0.8.2 ``src/ghostty/mod.rs``, ``src/pane/terminal.rs``; the same at v0.8.0):

* ``visible`` text: the viewport's rows, each right-trimmed, trailing blank rows dropped,
  joined with ``\\n`` plus a final ``\\n`` (``ghostty_visible_text``, terminal.rs:2552-2568;
  ``lines_to_text``/``trim_trailing_blank_rows``, :3296-3309). Read here with the formatter
  (plain, unwrap off, trim on) over the viewport, which emits the same rows.
* ``visible`` ansi: the formatter in VT mode over the viewport, unwrap off, trim on
  (``ghostty_visible_ansi`` :2570-2582, ``read_ansi_viewport`` mod.rs:1192-1206).
* ``recent``: the last ``lines`` of history + screen (``ghostty_recent_read_range``
  :2748-2760: the range always ends at the bottom row), each row right-trimmed, trailing blank
  rows dropped, joined like visible (``ghostty_recent_text_for_terminal`` :2703-2716).
* ``recent_unwrapped``: the formatter, plain, unwrap on, trim on, over that range
  (``read_text_screen`` mod.rs:1208-1222); ansi reads: the formatter in VT mode, unwrap for
  ``recent_unwrapped`` (``ghostty_recent_ansi_for_terminal`` :2732-2746).
* ``truncated``: total rows (history + screen) > ``lines`` (``finish_recent_snapshot``).
* ``detection``: the recent text of ``rows`` lines (``ghostty_detection_text`` :2584-2592), on
  the release's range.
* The release row ``recent_includes_viewport`` (0.9) ends the recent range at the later of the
  cursor row and the last non-blank row on the primary screen (model/paneread.py notes).
* Grapheme clustering (DEC mode 2027) is on from the start and after a full reset: herdr's
  local patch 0001 of its vendored library (``vendor/libghostty-vt.patches.md``). The pinned
  library has no C API for a mode's default, so it is set after creation and after each RIS.
* Scrollback is limited in bytes, as herdr configures it (``scrollback_limit_bytes``, default
  ``DEFAULT_SCROLLBACK_LIMIT_BYTES`` = 10,000,000, src/config.rs:53).
* Titles and OSC 9 progress: :class:`.oscwatch.OscWatch` on the raw output (herdr's
  AgentOscStateTracker); DSR/DA answers go to ``respond`` (libghostty's write_pty callback).
"""

from __future__ import annotations

import ctypes as C
import weakref
from collections.abc import Callable

from ..facts.keys import KeyCombo
from ..model.paneread import (
    DEFAULT_RECENT_LINES,
    MAX_READ_LINES,
    HerdrReadContract,
    limit_snapshot_lines,
)
from ..model.panescreen import ScreenFrame
from ..model.screenrows import char_width
from . import ghostty as G
from .enginekeys import KeyEngine
from .oscwatch import OscWatch

__all__ = ["DEFAULT_SCROLLBACK_LIMIT_BYTES", "GhosttyScreen"]

DEFAULT_SCROLLBACK_LIMIT_BYTES = 10_000_000  # herdr src/config.rs:53

_RIS = b"\x1bc"

if G.lib is None:
    raise ImportError(G.UNAVAILABLE_REASON)
lib = G.lib
_GRID_REF_SIZE = C.sizeof(G.GridRef)


class _Row:
    """One row of history + screen for the 0.9 selection/link views: ``cells`` (one string per
    column, '' for a wide character's second half), ``wraps``, ``cont``, ``text()``."""

    __slots__ = ("cells", "cont", "wraps")

    def __init__(self, text: str, cols: int, wraps: bool, cont: bool) -> None:
        cells: list[str] = []
        for ch in text:
            width = char_width(ch)
            if width == 0 and cells:
                cells[-1 if cells[-1] else -2] += ch
            elif width == 2:
                cells += [ch, ""]
            else:
                cells.append(ch)
        self.cells = cells[:cols]
        self.wraps = wraps
        self.cont = cont

    def text(self) -> str:
        return "".join(self.cells).rstrip()

    def plain(self) -> str:
        return "".join(self.cells).rstrip(" ")


class _Scratch:
    """A screen's formatter arguments, made once (a read then only fills them in)."""

    __slots__ = (
        "end_ref",
        "formatter",
        "formatter_ref",
        "length",
        "length_ref",
        "options",
        "out",
        "out_ref",
        "point",
        "selection",
        "start_ref",
    )

    def __init__(self) -> None:
        self.selection = G.Selection()
        self.selection.size = C.sizeof(G.Selection)
        self.selection.start.size = self.selection.end.size = _GRID_REF_SIZE
        # the nested structures are views into ``selection``'s own memory
        self.start_ref = C.byref(self.selection.start)
        self.end_ref = C.byref(self.selection.end)
        self.point = G.Point()
        self.options = G.FormatterTerminalOptions()
        self.options.size = C.sizeof(G.FormatterTerminalOptions)
        self.options.extra.size = C.sizeof(G.FormatterTerminalExtra)
        self.options.extra.screen.size = C.sizeof(G.FormatterScreenExtra)
        self.options.selection = C.pointer(self.selection)
        self.formatter = C.c_void_p()
        self.formatter_ref = C.byref(self.formatter)
        self.out = C.POINTER(C.c_uint8)()
        self.out_ref = C.byref(self.out)
        self.length = C.c_size_t()
        self.length_ref = C.byref(self.length)


class GhosttyScreen(HerdrReadContract):
    """A pane's terminal on libghostty-vt, read the way herdr reads it."""

    def __init__(
        self,
        cols: int = 80,
        rows: int = 24,
        scrollback_bytes: int = DEFAULT_SCROLLBACK_LIMIT_BYTES,
    ):
        if cols < 1 or rows < 1:
            raise ValueError("a screen needs at least one column and one row")
        self.cols = cols
        self.rows = rows
        self.scrollback_bytes = scrollback_bytes
        handle = C.c_void_p()
        options = G.TerminalOptions(cols, rows, scrollback_bytes)
        if lib.ghostty_terminal_new(None, C.byref(handle), options) != G.SUCCESS:
            raise MemoryError("libghostty-vt could not create a terminal")
        self._t = handle
        weakref.finalize(self, lib.ghostty_terminal_free, handle)
        lib.ghostty_terminal_mode_set(handle, G.MODE_GRAPHEME_CLUSTER, True)
        self._respond: Callable[[str], None] | None = None
        self._write_pty: object = None  # the C callback while ``respond`` is set (kept alive here)
        self._osc = OscWatch()
        self.title = ""  # herdr's terminal title (OSC 0/2, sanitized)
        self.osc_title = ""  # retained for detection (cleared on agent change)
        self.osc_progress = ""  # latest OSC 9 payload (cleared on agent change)
        self.content_seq = 0
        self._keys: KeyEngine | None = None
        self._scratch: _Scratch | None = None
        self._esc_tail = False  # the last write ended with ESC (a RIS may be split)
        self._cache: dict[tuple, tuple[str, bool]] = {}
        self._cache_seq = -1
        self._u16 = C.c_uint16()
        self._size = C.c_size_t()
        self._bool = C.c_bool()

    # ------------------------------------------------------------------ state

    @property
    def respond(self) -> Callable[[str], None] | None:
        return self._respond

    @respond.setter
    def respond(self, fn: Callable[[str], None] | None) -> None:
        self._respond = fn
        if fn is None:
            self._write_pty = None
            lib.ghostty_terminal_set(self._t, G.OPT_WRITE_PTY, None)
            return

        def write_pty(_terminal, _userdata, data, length):  # libghostty's answers (DSR, DA)
            if length:
                fn(C.string_at(data, length).decode("utf-8", "replace"))

        callback = G.WritePtyFn(write_pty)
        self._write_pty = callback
        lib.ghostty_terminal_set(self._t, G.OPT_WRITE_PTY, C.cast(callback, C.c_void_p))

    def encode_key(self, combo: KeyCombo, backtab_shift: bool) -> bytes | None:
        """herdr's libghostty key path against this terminal's keyboard state
        (:mod:`.enginekeys`); None where herdr uses its own encoder."""
        if self._keys is None:
            self._keys = KeyEngine(self._t)
            weakref.finalize(self, self._keys.close)
        return self._keys.encode(combo, backtab_shift)

    def mode(self, mode: int) -> bool:
        lib.ghostty_terminal_mode_get(self._t, mode, C.byref(self._bool))
        return self._bool.value

    def _get_u16(self, key: int) -> int:
        lib.ghostty_terminal_get(self._t, key, C.byref(self._u16))
        return self._u16.value

    def _get_size(self, key: int) -> int:
        lib.ghostty_terminal_get(self._t, key, C.byref(self._size))
        return self._size.value

    @property
    def bracketed_paste(self) -> bool:
        return self.mode(G.MODE_BRACKETED_PASTE)

    @property
    def application_cursor(self) -> bool:
        return self.mode(G.MODE_APPLICATION_CURSOR_KEYS)

    @property
    def kitty_keyboard_flags(self) -> int:
        out = C.c_uint8()
        lib.ghostty_terminal_get(self._t, G.DATA_KITTY_KEYBOARD_FLAGS, C.byref(out))
        return out.value

    @property
    def alternate_screen(self) -> bool:
        out = C.c_int()
        lib.ghostty_terminal_get(self._t, G.DATA_ACTIVE_SCREEN, C.byref(out))
        return out.value == G.SCREEN_ALTERNATE

    @property
    def cursor(self) -> tuple[int, int]:
        """(row, column) of the cursor in the active grid, 0-based."""
        return self._get_u16(G.DATA_CURSOR_Y), self._get_u16(G.DATA_CURSOR_X)

    @property
    def cursor_visible(self) -> bool:
        lib.ghostty_terminal_get(self._t, G.DATA_CURSOR_VISIBLE, C.byref(self._bool))
        return self._bool.value

    @property
    def total_rows(self) -> int:
        """libghostty's total_rows of the active screen: history plus the grid."""
        return self._get_size(G.DATA_TOTAL_ROWS)

    @property
    def history_rows(self) -> int:
        return self._get_size(G.DATA_SCROLLBACK_ROWS)

    def clear_agent_osc(self) -> None:
        self.osc_title = ""
        self.osc_progress = ""

    def clear(self) -> None:
        """Wipe the active screen's history and grid and home the cursor."""
        self._write(b"\x1b[H\x1b[2J\x1b[3J")
        self.content_seq += 1

    def reset(self) -> None:
        self.feed(_RIS)
        self.title = self.osc_title = self.osc_progress = ""

    # ------------------------------------------------------------------ feeding

    def feed(self, data: str | bytes) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not data:
            return
        self.content_seq += 1
        title, progress = self._osc.observe(data)
        if title is not None:
            self.title = self.osc_title = title
        if progress is not None:
            self.osc_progress = progress
        self._write(data)

    def _write(self, data: bytes) -> None:
        # herdr's patch keeps grapheme clustering as the reset default: set it after each RIS
        # (also one split between two reads: ESC at the end of one, ``c`` at the next's start).
        if self._esc_tail and data[:1] == b"c":
            lib.ghostty_terminal_vt_write(self._t, data, 1)
            lib.ghostty_terminal_mode_set(self._t, G.MODE_GRAPHEME_CLUSTER, True)
            data = data[1:]
        self._esc_tail = data[-1:] == b"\x1b"
        if _RIS not in data:
            lib.ghostty_terminal_vt_write(self._t, data, len(data))
            return
        parts = data.split(_RIS)
        for i, part in enumerate(parts):
            if i:
                lib.ghostty_terminal_vt_write(self._t, _RIS, 2)
                lib.ghostty_terminal_mode_set(self._t, G.MODE_GRAPHEME_CLUSTER, True)
            if part:
                lib.ghostty_terminal_vt_write(self._t, part, len(part))

    def resize(self, cols: int, rows: int) -> None:
        """New size; libghostty reflows soft-wrapped rows of the primary screen (herdr's
        ``Terminal::resize``, mod.rs:905-931)."""
        if cols < 1 or rows < 1:
            raise ValueError("a screen needs at least one column and one row")
        if (cols, rows) == (self.cols, self.rows):
            return
        if lib.ghostty_terminal_resize(self._t, cols, rows, 1, 1) != G.SUCCESS:
            raise ValueError(f"libghostty-vt refused the size {cols}x{rows}")
        self.cols, self.rows = cols, rows
        self.content_seq += 1

    # ------------------------------------------------------------------ the formatter

    def _grid_ref(self, tag: int, x: int, y: int, out: G.GridRef) -> bool:
        out.size = _GRID_REF_SIZE
        point = G.Point(tag, G._PointValue(x, y, 0))
        return lib.ghostty_terminal_grid_ref(self._t, point, C.byref(out)) == G.SUCCESS

    def _format(
        self, tag: int, first: int, last: int, *, vt: bool, unwrap: bool, trim: bool = True
    ) -> str:
        """The formatter's output for rows ``first``..``last`` (inclusive) of ``tag``'s
        coordinate space (herdr's read_formatted_selection, mod.rs:1300-1372)."""
        k = self._scratch
        if k is None:
            k = self._scratch = _Scratch()
        point = k.point
        point.tag = tag
        point.value.x = 0
        point.value.y = first
        if lib.ghostty_terminal_grid_ref(self._t, point, k.start_ref):
            return ""
        point.value.x = self.cols - 1
        point.value.y = last
        if lib.ghostty_terminal_grid_ref(self._t, point, k.end_ref):
            return ""
        options = k.options
        options.emit = G.FORMAT_VT if vt else G.FORMAT_PLAIN
        options.unwrap = unwrap
        options.trim = trim
        if lib.ghostty_formatter_terminal_new(None, k.formatter_ref, self._t, options):
            return ""
        result = lib.ghostty_formatter_format_alloc(k.formatter, None, k.out_ref, k.length_ref)
        lib.ghostty_formatter_free(k.formatter)
        out, length = k.out, k.length.value
        if result != G.SUCCESS or not out:
            return ""
        data = C.string_at(out, length)
        lib.ghostty_free(None, out, length)
        return data.decode("utf-8", "replace")

    @staticmethod
    def _herdr_join(text: str) -> str:
        """herdr's own row join (lines_to_text): rows right-trimmed (Rust ``trim_end``),
        trailing blank rows dropped, a final newline."""
        rows = [row.rstrip() for row in text.split("\n")]
        while rows and not rows[-1].strip():
            rows.pop()
        return "\n".join(rows) + "\n" if rows else ""

    def _visible_text(self) -> str:
        return self._herdr_join(
            self._format(G.POINT_VIEWPORT, 0, self.rows - 1, vt=False, unwrap=False)
        )

    def _recent_range(self, lines: int, includes_viewport: bool) -> tuple[int, int] | None:
        total = self.total_rows
        if total == 0 or lines == 0:
            return None
        end = total - 1
        if includes_viewport and not self.alternate_screen:
            used = self._visible_text().count("\n")
            if used:
                top = total - self.rows
                end = max(top + used - 1, min(top + self.cursor[0], total - 1))
        return max(0, end + 1 - lines), end

    # ------------------------------------------------------------------ reading

    def read(
        self,
        source: str,
        lines: int | None = None,
        fmt: str = "text",
        recent_includes_viewport: bool = True,
    ) -> tuple[str, bool]:
        """``(text, truncated)`` for a pane.read of ``source`` (the module notes)."""
        self.check_read_args(source, lines, fmt)
        # A read of unchanged content answers from the last one (waits re-read on every poll).
        key = (source, lines, fmt, recent_includes_viewport)
        if self._cache_seq != self.content_seq:
            self._cache.clear()
            self._cache_seq = self.content_seq
        else:
            hit = self._cache.get(key)
            if hit is not None:
                return hit
        answer = self._read(source, lines, fmt, recent_includes_viewport)
        self._cache[key] = answer
        return answer

    def _read(
        self, source: str, lines: int | None, fmt: str, recent_includes_viewport: bool
    ) -> tuple[str, bool]:
        limit = None if lines is None else min(lines, MAX_READ_LINES)
        if source == "visible":
            if fmt == "ansi":
                text = self._format(G.POINT_VIEWPORT, 0, self.rows - 1, vt=True, unwrap=False)
            else:
                text = self._visible_text()
            return limit_snapshot_lines(text, limit)
        if source == "detection":
            return limit_snapshot_lines(self.detection_text(recent_includes_viewport), limit)
        count = DEFAULT_RECENT_LINES if limit is None else limit
        truncated = self.total_rows > count
        span = self._recent_range(count, recent_includes_viewport)
        if span is None:
            return "", truncated
        unwrap = source == "recent_unwrapped"
        if fmt == "text" and not unwrap:
            plain = self._format(G.POINT_SCREEN, *span, vt=False, unwrap=False)
            return self._herdr_join(plain), truncated
        return self._format(G.POINT_SCREEN, *span, vt=(fmt == "ansi"), unwrap=unwrap), truncated

    def detection_text(self, recent_includes_viewport: bool = False) -> str:
        """herdr's detection text: the recent text of ``rows`` lines (terminal.rs:2584-2592) on
        the release's recent range (0.9.3's fork: the same function over its range)."""
        span = self._recent_range(self.rows, recent_includes_viewport)
        if span is None:
            return ""
        return self._herdr_join(self._format(G.POINT_SCREEN, *span, vt=False, unwrap=False))

    def frame(self) -> ScreenFrame:
        """The viewport as the terminal plane draws it: each row through the formatter in VT
        mode (styles as SGR, no cursor motion)."""
        lines = tuple(
            self._format(G.POINT_VIEWPORT, y, y, vt=True, unwrap=False) for y in range(self.rows)
        )
        return ScreenFrame(self.cols, self.rows, lines, self.cursor, self.cursor_visible)

    def _read_total(self) -> int:
        return self.total_rows

    def _all_rows(self) -> list:
        """History rows, oldest first, then the active grid (the 0.9 selection views)."""
        total = self.total_rows
        text = self._format(G.POINT_SCREEN, 0, total - 1, vt=False, unwrap=False, trim=False)
        texts = text.split("\n")
        texts += [""] * (total - len(texts))
        ref = G.GridRef()
        row = C.c_uint64()
        flag = C.c_bool()
        out = []
        for y in range(total):
            wraps = cont = False
            if self._grid_ref(G.POINT_SCREEN, 0, y, ref) and not lib.ghostty_grid_ref_row(
                C.byref(ref), C.byref(row)
            ):
                lib.ghostty_row_get(row.value, G.ROW_WRAP, C.byref(flag))
                wraps = flag.value
                lib.ghostty_row_get(row.value, G.ROW_WRAP_CONTINUATION, C.byref(flag))
                cont = flag.value
            out.append(_Row(texts[y], self.cols, wraps, cont))
        return out

    def visible_lines(self) -> list[str]:
        """The viewport's rows as herdr renders them (right-trimmed), blank ones included."""
        rows = self._format(G.POINT_VIEWPORT, 0, self.rows - 1, vt=False, unwrap=False)
        out = [row.rstrip() for row in rows.split("\n")] if rows else []
        return out + [""] * (self.rows - len(out))

    def last_line(self) -> str:
        """The last non-blank row of history + screen (right-trimmed), or ''."""
        for row in reversed(self.visible_lines()):
            if row.strip():
                return row
        history = self.history_rows
        if history:
            text = self._format(G.POINT_SCREEN, 0, history - 1, vt=False, unwrap=False)
            for row in reversed(text.split("\n")):
                if row.strip():
                    return row.rstrip()
        return ""
