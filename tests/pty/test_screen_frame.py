"""The screen seam the terminal plane draws from (model/panescreen.py ``ScreenFrame``,
``PaneScreen.frame``/``resize``/``cols``): the same answers from every screen."""

from __future__ import annotations

import pytest

from simherdr.model.panescreen import PaneScreen, ScreenFrame
from simherdr.model.screen import Screen
from simherdr.panes.vt import PtyScreen

pytestmark = pytest.mark.pty

SCREENS = [Screen, PtyScreen]


def _feed(screen, text: str) -> None:
    screen.feed(text if isinstance(screen, Screen) else text.encode())


@pytest.mark.parametrize("kind", SCREENS)
def test_frame_has_one_line_per_row_and_the_cursor(kind):
    screen = kind(cols=10, rows=4)
    assert isinstance(screen, PaneScreen)
    _feed(screen, "hello\r\nwor")
    frame = screen.frame()
    assert isinstance(frame, ScreenFrame)
    assert (frame.cols, frame.rows) == (10, 4)
    assert frame.lines == ("hello", "wor", "", "")
    assert frame.cursor == (1, 3)
    assert frame.cursor_visible is True


@pytest.mark.parametrize("kind", SCREENS)
def test_frame_lines_carry_styles_and_end_reset(kind):
    screen = kind(cols=20, rows=2)
    _feed(screen, "a\x1b[31mred\x1b[0mb")
    line = screen.frame().lines[0]
    assert line.startswith("a\x1b[")
    assert "31" in line and "red" in line
    plain = line.replace("\x1b[31m", "").replace("\x1b[0m", "").replace("\x1b[m", "")
    assert plain == "aredb"


@pytest.mark.parametrize("kind", SCREENS)
def test_frame_hides_the_cursor_with_dectcem(kind):
    screen = kind(cols=10, rows=2)
    _feed(screen, "\x1b[?25l")
    assert screen.frame().cursor_visible is False
    _feed(screen, "\x1b[?25h")
    assert screen.frame().cursor_visible is True


@pytest.mark.parametrize("kind", SCREENS)
def test_frame_shows_the_alternate_screen(kind):
    screen = kind(cols=10, rows=3)
    _feed(screen, "shell\r\n\x1b[?1049h\x1b[2;3Hfull")
    frame = screen.frame()
    assert frame.lines == ("", "  full", "")
    assert frame.cursor == (1, 6)
    _feed(screen, "\x1b[?1049l")
    assert screen.frame().lines[0] == "shell"


@pytest.mark.parametrize("kind", SCREENS)
def test_frame_wide_characters_take_two_columns(kind):
    screen = kind(cols=10, rows=1)
    _feed(screen, "\u4e2dx")
    assert screen.frame().lines == ("\u4e2dx",)
    assert screen.frame().cursor == (0, 3)


@pytest.mark.parametrize("kind", SCREENS)
def test_resize_shrink_moves_top_rows_to_history(kind):
    screen = kind(cols=10, rows=4)
    _feed(screen, "a\r\nb\r\nc\r\nd")
    screen.resize(8, 2)
    assert (screen.cols, screen.rows) == (8, 2)
    frame = screen.frame()
    assert (frame.cols, frame.rows) == (8, 2)
    assert frame.lines == ("c", "d")
    assert frame.cursor == (1, 1)
    assert screen.read("recent", None, "text")[0] == "a\nb\nc\nd\n"


@pytest.mark.parametrize("kind", SCREENS)
def test_resize_shrink_drops_blank_rows_below_the_cursor_first(kind):
    screen = kind(cols=10, rows=5)
    _feed(screen, "top\r\nnext")
    screen.resize(10, 3)
    assert screen.frame().lines == ("top", "next", "")
    assert screen.frame().cursor == (1, 4)


@pytest.mark.parametrize("kind", SCREENS)
def test_resize_grow_pulls_history_back(kind):
    screen = kind(cols=10, rows=2)
    _feed(screen, "a\r\nb\r\nc")
    screen.resize(10, 4)
    assert screen.frame().lines == ("a", "b", "c", "")
    assert screen.frame().cursor == (2, 1)
    _feed(screen, "\r\nd")
    assert screen.read("visible", None, "text")[0] == "a\nb\nc\nd\n"


@pytest.mark.parametrize("kind", SCREENS)
def test_resize_narrower_cuts_rows_and_keeps_the_cursor_inside(kind):
    screen = kind(cols=10, rows=2)
    _feed(screen, "abcdefghi")
    screen.resize(4, 2)
    frame = screen.frame()
    assert frame.lines == ("abcd", "")
    assert frame.cursor == (0, 3)
    _feed(screen, "\r\nxyzw")
    assert screen.frame().lines == ("abcd", "xyzw")


@pytest.mark.parametrize("kind", SCREENS)
def test_resize_rejects_an_empty_size(kind):
    screen = kind(cols=10, rows=2)
    with pytest.raises(ValueError):
        screen.resize(0, 2)
    assert (screen.cols, screen.rows) == (10, 2)


@pytest.mark.parametrize("kind", SCREENS)
def test_dec_private_modes_are_reported(kind):
    # model/seams.py ReportsModes: the terminal plane reads mouse tracking through mode()
    screen = kind(cols=10, rows=2)
    _feed(screen, "\x1b[?1002h\x1b[?1006h\x1b[?2004h")
    assert (screen.mode(1002), screen.mode(1006), screen.mode(2004)) == (True, True, True)
    assert not screen.mode(1003) and not screen.mode(1049)
    _feed(screen, "\x1b[?1002l\x1b[?1049h")
    assert not screen.mode(1002) and screen.mode(1049)
