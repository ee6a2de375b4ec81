"""The TerminalAnsi blit, black-box: herdr's own render_ansi.rs tests (0.8.2, names kept) on
simherdr's encoder, and what a client that strips escapes reads of a diff (IvoryHeart/herdr-web's
live smoke waits for ``stty size``'s "28 91" as ``2891``: herdr jumps over the unchanged blank)."""

from __future__ import annotations

import re

from simherdr.model.screen import Screen
from simherdr.terminalplane.encoder import FrameEncoder, RenderFrame, row_cells

WIDE = "汉"


def frame(cols: int, *lines: str) -> RenderFrame:
    return RenderFrame(cols, len(lines), lines, (0, 0), False)


def blit(curr: RenderFrame, prev: RenderFrame | None = None) -> str:
    enc = FrameEncoder()
    if prev is not None:
        enc.commit(prev)
    return enc.encode(curr)[0].decode()


def test_blit_frame_diff_only_writes_changed_cells():  # render_ansi.rs:1427
    out = blit(frame(2, "X!", "! "), frame(2, "H!", "! "))
    assert "\x1b[2J" not in out
    assert "X" in out and out.count("!") == 0


def test_build_sgr_resets_previous_modifiers_when_cell_is_plain():  # render_ansi.rs:934
    assert row_cells("a", 1)[0] == ("a", "\x1b[0;39;49m")


def test_build_sgr_preserves_curly_underline_style():  # render_ansi.rs:939
    assert row_cells("\x1b[4:3ma", 1)[0][1] == "\x1b[0;4:3;39;49m"
    # a palette colour is herdr's Color::Indexed (src/pane/terminal.rs:3277-3293)
    assert row_cells("\x1b[1;32;48;2;1;2;3ma", 1)[0][1] == "\x1b[0;1;38;5;2;48;2;1;2;3m"


def test_scroll_sized_ascii_shift_batches_changed_cells_by_row():  # render_ansi.rs:1465
    out = blit(frame(140, *["B" * 140] * 50), frame(140, *["A" * 140] * 50))
    assert out.count("H") <= 50 + 2


def test_full_redraw_skips_trailing_cells_covered_by_wide_graphemes():  # render_ansi.rs:1831
    out = blit(frame(3, WIDE + "Z"))
    assert "\x1b[1;1H" in out and "\x1b[1;2H" not in out and "\x1b[1;3H" in out


def test_diff_redraw_reveals_cells_hidden_by_previous_wide_graphemes():  # render_ansi.rs:1879
    out = blit(frame(3, "A Z"), frame(3, WIDE + "Z"))
    assert "\x1b[1;1H" in out and "\x1b[1;2H" in out


def test_encoder_size_change_repaints_without_clearing():  # render_ansi.rs:1517
    enc = FrameEncoder()
    enc.commit(frame(2, "AA", "AA"))
    data, full = enc.encode(frame(3, "BBB", "BBB"))
    assert full and b"\x1b[2J" not in data and data.count(b"B") >= 6


def test_an_unchanged_blank_between_changed_cells_is_jumped_over():
    """`stty size` under a line printed in the same frame: herdr writes "28", a CUP, "91"
    (write_changed_cells 773-824), never the blank; a full redraw writes every cell, no EL."""
    prev = frame(10, "$ stty", "", "")
    curr = frame(10, "$ stty", "MARK_λ", "28 91")
    out = blit(curr, prev)
    assert "28\x1b[3;4H91" in out and "\x1b[K" not in out
    plain = re.sub(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x1b]*\x1b\\)", "", out)
    assert "MARK_λ2891" in plain
    full = blit(curr)
    assert "\x1b[K" not in full and "28 91     " in full
    screen = Screen(cols=10, rows=3)  # both frames draw the same screen
    screen.feed(blit(prev).encode())
    screen.feed(out.encode())
    assert [re.sub(r"\x1b\[[0-9;:]*m", "", line) for line in screen.frame().lines] == [
        "$ stty",
        "MARK_λ",
        "28 91",
    ]
