"""The simulated pane screen and herdr's pane.read rules (SOCKET.md §4.3, §7.4)."""

import pytest

from simherdr.model.paneread import first_matching_line, limit_snapshot_lines, rust_lines
from simherdr.model.screen import Screen

V082 = {"recent_includes_viewport": False}
V09 = {"recent_includes_viewport": True}


def screen(text="", cols=20, rows=5, **kw):
    s = Screen(cols=cols, rows=rows, **kw)
    s.feed(text)
    return s


# --------------------------------------------------------------------- basic text


def test_defaults():
    s = Screen()
    assert (s.cols, s.rows, s.scrollback_limit) == (80, 24, 10000)
    assert s.read("visible", None) == ("", False)
    assert s.title == "" and not s.bracketed_paste and not s.alternate_screen


def test_newline_variants_make_rows():
    s = screen("one\ntwo\r\nthree")
    assert s.read("visible", None) == ("one\ntwo\nthree\n", False)
    assert s.cursor == (2, 5)


def test_carriage_return_overwrites_row():
    s = screen("hello world\rHELLO")
    assert s.read("visible", None)[0] == "HELLO world\n"
    s.feed("\r\x1b[Kdone")
    assert s.read("visible", None)[0] == "done\n"


def test_progress_bar_keeps_last_frame():
    s = screen("".join(f"\r{i:3d}%" for i in range(101)) + "\n")
    assert s.read("visible", None)[0] == "100%\n"


def test_backspace_moves_left_without_erasing():
    s = screen("abc\b\bX")
    assert s.read("visible", None)[0] == "aXc\n"
    s = screen("\b\bab")
    assert s.read("visible", None)[0] == "ab\n"


def test_tabs_stop_every_eight_columns():
    s = screen("a\tb\tc", cols=40)
    assert s.read("visible", None)[0] == "a       b       c\n"
    s = screen("1234567\tx", cols=40)
    assert s.read("visible", None)[0] == "1234567 x\n"
    s = screen("12345678\tx", cols=40)
    assert s.read("visible", None)[0] == "12345678        x\n"


def test_tab_is_capped_at_last_column():
    s = screen("abcdefghijklmnopq\t\tZ", cols=20)
    assert s.read("visible", None)[0] == "abcdefghijklmnopq  Z\n"


def test_trailing_spaces_are_trimmed_and_inner_blank_rows_kept():
    s = screen("a   \n\n  b  \n\n\n", rows=10)
    assert s.read("visible", None) == ("a\n\n  b\n", False)
    s = screen("a\n\n  b\n\n\n", rows=5)  # six rows on a five-row screen: "a" scrolled off
    assert s.read("visible", None) == ("\n  b\n", False)


def test_bell_and_other_controls_are_ignored():
    s = screen("a\x07b\x00c\x0ed\x7fe\x85f")
    assert s.read("visible", None)[0] == "abcdef\n"


def test_vertical_tab_is_a_line_feed_without_carriage_return():
    s = screen("ab\x0bcd")
    assert s.read("visible", None)[0] == "ab\n  cd\n"


# --------------------------------------------------------------------- wrapping


def test_line_of_exactly_cols_does_not_wrap():
    s = screen("abcde\nxy", cols=5)
    assert s.read("visible", None)[0] == "abcde\nxy\n"
    assert s.read("recent_unwrapped", None)[0] == "abcde\nxy"


def test_wrap_at_cols_marks_continuation():
    s = screen("ABCDEFGHIJ", cols=5, rows=3)
    assert s.read("recent", 3, **V082) == ("ABCDE\nFGHIJ\n", False)
    assert s.read("recent_unwrapped", 3, **V082) == ("ABCDEFGHIJ", False)
    assert s.read("visible", None) == ("ABCDE\nFGHIJ\n", False)
    assert s.cursor == (1, 4)


def test_cols_plus_one_wraps_one_char():
    s = screen("abcdef", cols=5)
    assert s.read("visible", None)[0] == "abcde\nf\n"
    assert s.read("recent_unwrapped", None)[0] == "abcdef"


def test_unwrap_keeps_spaces_at_the_wrap_point():
    s = screen("abcd efgh", cols=5)
    assert s.read("recent", None)[0] == "abcd\nefgh\n"
    assert s.read("recent_unwrapped", None)[0] == "abcd efgh"


def test_unwrap_joins_only_soft_wraps():
    s = screen("1234567\nab\n", cols=5)
    assert s.read("recent_unwrapped", None)[0] == "1234567\nab"


def test_wrapping_a_long_line_over_many_rows():
    s = screen("x" * 23 + "\nend", cols=5, rows=10)
    assert s.read("visible", None)[0] == "xxxxx\nxxxxx\nxxxxx\nxxxxx\nxxx\nend\n"
    assert s.read("recent_unwrapped", None)[0] == "x" * 23 + "\nend"


def test_wide_characters_take_two_cells():
    s = screen("\u65e5\u672c\u8a9e\u30c6\u30b9\u30c8 ABC 123", cols=40, rows=3)
    assert s.read("visible", None)[0] == "\u65e5\u672c\u8a9e\u30c6\u30b9\u30c8 ABC 123\n"
    assert s.read("recent", 3)[0] == "\u65e5\u672c\u8a9e\u30c6\u30b9\u30c8 ABC 123\n"
    assert s.read("recent_unwrapped", 3)[0] == "\u65e5\u672c\u8a9e\u30c6\u30b9\u30c8 ABC 123"
    assert s.cursor == (0, 20)  # six wide characters take twelve cells


def test_wide_character_that_does_not_fit_wraps_whole():
    s = screen("abcd\u65e5", cols=5)
    assert s.read("visible", None)[0] == "abcd\n\u65e5\n"
    assert s.read("recent_unwrapped", None)[0] == "abcd\u65e5"


def test_combining_marks_join_the_previous_cell():
    s = screen("cafe\u0301!", cols=5)
    assert s.read("visible", None)[0] == "cafe\u0301!\n"
    assert s.cursor == (0, 4)


# --------------------------------------------------------------------- escapes


def test_sgr_is_stripped_for_text_and_kept_for_ansi():
    s = screen("\x1b[31;1mred\x1b[0m plain")
    assert s.read("visible", None)[0] == "red plain\n"
    ansi = s.read("visible", None, "ansi")[0]
    assert ansi.startswith("\x1b[31;1mred\x1b[0m")
    assert "plain" in ansi


def test_ansi_rows_are_separated_by_crlf_without_trailing_newline():
    s = screen("\x1b[34mblue\x1b[0m\nline2\n\nline4\n")
    assert s.read("recent", None, "ansi")[0] == "\x1b[34mblue\x1b[0m\r\nline2\r\n\r\nline4"
    assert s.read("visible", None, "ansi")[0] == "\x1b[34mblue\x1b[0m\r\nline2\r\n\r\nline4"


def test_ansi_style_is_replayed_on_a_new_row_and_closed():
    s = screen("\x1b[32mgreen\nstill green\x1b[0m\nplain\n")
    rows = s.read("recent", None, "ansi")[0].split("\r\n")
    assert rows[0] == "\x1b[32mgreen\x1b[0m"
    assert rows[1] == "\x1b[32mstill green\x1b[0m"
    assert "\x1b[32m" not in rows[2]
    assert s.read("recent", None)[0] == "green\nstill green\nplain\n"


def test_ansi_unwrapped_joins_soft_wraps():
    s = screen("\x1b[1mABCDEFGH\x1b[0m\nz", cols=5)
    text = s.read("recent_unwrapped", None, "ansi")[0]
    assert "\r\n" in text
    plain = text.replace("\x1b[1m", "").replace("\x1b[0m", "")
    assert plain == "ABCDEFGH\r\nz"


def test_detection_is_always_plain_text():
    s = screen("\x1b[31mred\x1b[0m")
    assert s.read("detection", None, "ansi") == ("red\n", False)


def test_osc_sets_title_and_is_not_shown():
    s = screen("\x1b]0;first\x07a\x1b]2;second title\x1b\\b\x1b]1;icon\x07c")
    assert s.title == "second title"
    assert s.read("visible", None)[0] == "abc\n"


def test_other_strings_are_consumed():
    s = screen("a\x1bP1$r0m\x1b\\b\x1b_Gf=100;AAAA\x1b\\c\x1b]8;;http://x\x1b\\d")
    assert s.read("visible", None)[0] == "abcd\n"


def test_unknown_csi_and_esc_are_ignored():
    s = screen("a\x1b[?25lb\x1b[>4;2mc\x1b(Bd\x1b=e\x1b[2 qf\x1b[6n")
    assert s.read("visible", None)[0] == "abcdef\n"


def test_escape_split_across_feeds():
    s = Screen(cols=20, rows=3)
    s.feed("a\x1b")
    s.feed("[3")
    s.feed("1mb\x1b]0;ti")
    s.feed("tle\x1b")
    s.feed("\\c\x1b[?20")
    s.feed("04h")
    assert s.read("visible", None)[0] == "abc\n"
    assert s.title == "title"
    assert s.bracketed_paste
    assert "\x1b[31mb" in s.read("visible", None, "ansi")[0]


def test_bytes_are_decoded_across_feeds():
    s = Screen(cols=20, rows=3)
    data = "\u00e9t\u00e9 \u65e5".encode()
    for i in range(len(data)):
        s.feed(data[i : i + 1])
    assert s.read("visible", None)[0] == "\u00e9t\u00e9 \u65e5\n"


def test_bracketed_paste_toggle():
    s = screen("\x1b[?2004h")
    assert s.bracketed_paste
    s.feed("\x1b[?2004l")
    assert not s.bracketed_paste
    s.feed("\x1b[?1;2004h")
    assert s.bracketed_paste and s.application_cursor


def test_erase_line_modes():
    s = screen("abcdef\x1b[3D\x1b[K")
    assert s.read("visible", None)[0] == "abc\n"
    s = screen("abcdef\x1b[3D\x1b[1K")
    assert s.read("visible", None)[0] == "    ef\n"
    s = screen("abcdef\x1b[2K")
    assert s.read("visible", None)[0] == ""


def test_cursor_positioning_and_erase_display():
    s = screen("top\nmiddle\nbottom")
    s.feed("\x1b[2;1Hm\x1b[1;5H!")
    assert s.read("visible", None)[0] == "top !\nmiddle\nbottom\n"
    s.feed("\x1b[2J")
    assert s.read("visible", None)[0] == ""
    s.feed("\x1b[Hfresh")
    assert s.read("visible", None)[0] == "fresh\n"


def test_clear_screen_keeps_history_until_ed3():
    s = screen("1\n2\n3\n4\n5\n6\n7", rows=3)
    assert s.history_rows == 4
    s.feed("\x1b[H\x1b[2J")
    assert s.read("visible", None)[0] == ""
    assert s.history_rows == 4
    s.feed("\x1b[3J")
    assert s.history_rows == 0


def test_alternate_screen_is_separate_and_restored():
    s = screen("shell$ vim\n", rows=4)
    s.feed("\x1b[?1049h")
    assert s.alternate_screen
    assert s.read("visible", None)[0] == ""
    s.feed("EDITOR CONTENT")
    assert s.read("visible", None)[0] == "EDITOR CONTENT\n"
    s.feed("\x1b[?1049l")
    assert not s.alternate_screen
    assert s.read("visible", None)[0] == "shell$ vim\n"
    assert s.cursor == (1, 0)


def test_alternate_screen_has_no_history():
    s = screen("\x1b[?1049h" + "".join(f"row{i}\n" for i in range(10)), rows=3)
    assert s.history_rows == 0
    assert s.total_rows == 3
    assert s.read("recent", None) == ("row8\nrow9\n", False)


def test_reset_escape():
    s = screen("x\x1b]0;t\x07\x1b[?2004h\x1bc")
    assert (s.title, s.bracketed_paste, s.read("visible", None)[0]) == ("", False, "")


# --------------------------------------------------------------------- scrollback


def test_scrollback_limit_drops_oldest_rows():
    s = Screen(cols=10, rows=2, scrollback_limit=3)
    s.feed("".join(f"{i}\n" for i in range(10)))
    assert s.history_rows == 3
    # history 6 7 8, grid "9" and the blank cursor row
    assert s.read("recent", None) == ("6\n7\n8\n9\n", False)
    assert s.read("recent", 3) == ("8\n9\n", True)


def test_zero_scrollback_keeps_only_the_grid():
    s = Screen(cols=10, rows=2, scrollback_limit=0)
    s.feed("a\nb\nc\nd")
    assert s.history_rows == 0
    assert s.read("recent", None) == ("c\nd\n", False)


def test_clear_wipes_history_and_grid():
    s = screen("a\nb\nc\nd\ne\nf\ng", rows=3, cols=10)
    s.feed("\x1b]0;keep\x07")
    s.clear()
    assert s.read("recent", None) == ("", False)
    assert s.history_rows == 0 and s.cursor == (0, 0)
    assert s.title == "keep"
    s.feed("after")
    assert s.read("visible", None)[0] == "after\n"


def test_last_line():
    assert Screen().last_line() == ""
    s = screen("first\nsecond   \n\n")
    assert s.last_line() == "second"
    s = screen("".join(f"l{i}\n" for i in range(30)) + "\x1b[2J", rows=3)
    assert s.last_line() == "l27"  # ESC[2J erased l28 and l29 from the grid


# --------------------------------------------------------------------- read rules


def test_recent_default_is_80_rows_and_cap_is_1000():
    s = Screen(cols=10, rows=5)
    s.feed("\n".join(f"r{i}" for i in range(2000)))
    text, truncated = s.read("recent", None)
    assert truncated
    assert text.splitlines() == [f"r{i}" for i in range(1920, 2000)]
    text, truncated = s.read("recent", 5000)
    assert len(text.splitlines()) == 1000 and truncated
    assert text.splitlines()[0] == "r1000"
    text, truncated = s.read("recent", 3000, **V09)
    assert len(text.splitlines()) == 1000


def test_recent_truncated_counts_total_rendered_rows():
    s = Screen(cols=20, rows=3)
    s.feed("one\r\ntwo\r\nthree\r\nfour")
    for source in ("recent", "recent_unwrapped"):
        for fmt in ("text", "ansi"):
            assert s.read(source, 2, fmt)[1] is True
    assert s.read("recent", 100) == ("one\ntwo\nthree\nfour\n", False)
    assert s.read("recent", 4) == ("one\ntwo\nthree\nfour\n", False)
    assert s.read("recent", 3) == ("two\nthree\nfour\n", True)
    assert s.read("recent_unwrapped", 3) == ("two\nthree\nfour", True)


def test_recent_lines_zero():
    s = screen("abc")
    assert s.read("recent", 0) == ("", True)
    assert s.read("visible", 0) == ("", True)
    assert Screen(rows=1).read("visible", 0) == ("", False)


def test_082_recent_counts_blank_rows_below_the_cursor():
    s = Screen(cols=20, rows=24)
    s.feed("$ echo hi\nhi\n$ ")
    assert s.read("recent", 10, **V082) == ("", True)
    assert s.read("recent", 24, **V082) == ("$ echo hi\nhi\n$\n", False)
    assert s.read("recent", None, **V082) == ("$ echo hi\nhi\n$\n", False)


def test_09_recent_ends_at_last_content_or_cursor_row():
    s = Screen(cols=20, rows=24)
    s.feed("$ echo hi\nhi\n$ ")
    assert s.read("recent", 10, **V09) == ("$ echo hi\nhi\n$\n", True)
    assert s.read("recent", 2, **V09) == ("hi\n$\n", True)
    assert s.read("recent_unwrapped", 2, **V09) == ("hi\n$", True)


def test_09_recent_counts_the_cursor_row_when_it_is_below_content():
    s = Screen(cols=20, rows=24)
    s.feed("out\n\n\n")
    assert s.cursor == (3, 0)
    assert s.read("recent", 2, **V09) == ("", True)
    assert s.read("recent", 4, **V09) == ("out\n", True)


def test_both_versions_agree_once_the_screen_is_full():
    s = Screen(cols=10, rows=3)
    s.feed("".join(f"{i}\n" for i in range(10)) + "9x")
    for source in ("recent", "recent_unwrapped"):
        assert s.read(source, 4, **V082) == s.read(source, 4, **V09)
    assert s.read("recent", 4) == ("7\n8\n9\n9x\n", True)


def test_09_on_alternate_screen_reads_to_the_bottom():
    s = Screen(cols=10, rows=5)
    s.feed("\x1b[?1049htop")
    assert s.read("recent", 2, **V09) == ("", True)
    assert s.read("recent", 5, **V09) == ("top\n", False)


def test_empty_screen_recent():
    s = Screen(cols=10, rows=3)
    assert s.read("recent", None, **V082) == ("", False)
    assert s.read("recent", None, **V09) == ("", False)
    assert s.read("recent", 2, **V09) == ("", True)


def test_recent_unwraps_after_selection():
    s = Screen(cols=5, rows=4)
    s.feed("ABCDEFGHIJKL\n")  # rows ABCDE / FGHIJ / KL, cursor on row 3
    assert s.read("recent", 3, **V09) == ("FGHIJ\nKL\n", True)
    assert s.read("recent_unwrapped", 3, **V09) == ("FGHIJKL", True)
    assert s.read("recent_unwrapped", 4, **V09) == ("ABCDEFGHIJKL", False)


def test_visible_and_detection_keep_last_lines():
    s = Screen(cols=10, rows=4)
    s.feed("a\nb\nc\nd\ne\nf")
    assert s.read("visible", None) == ("c\nd\ne\nf\n", False)
    assert s.read("visible", 2) == ("e\nf\n", True)
    assert s.read("visible", 4) == ("c\nd\ne\nf\n", False)
    assert s.read("visible", 9) == ("c\nd\ne\nf\n", False)
    assert s.read("detection", None) == s.read("visible", None)
    assert s.read("detection", 1) == ("f\n", True)


def test_visible_is_the_viewport_only():
    s = Screen(cols=10, rows=3)
    s.feed("".join(f"line{i}\n" for i in range(10)))
    assert s.read("visible", None) == ("line8\nline9\n", False)
    assert s.read("recent", 5) == ("line6\nline7\nline8\nline9\n", True)


def test_visible_ansi_lines_limit():
    s = screen("\x1b[1ma\x1b[0m\nb\nc", rows=5)
    assert s.read("visible", 2, "ansi") == ("b\r\nc", True)


def test_read_validates_arguments():
    s = Screen()
    with pytest.raises(ValueError):
        s.read("scrollback", None)
    with pytest.raises(ValueError):
        s.read("visible", None, "html")
    with pytest.raises(ValueError):
        s.read("recent", -1)


# Speed (1 MB feeds, recent reads over long histories) is measured by `make bench`
# (benchmarks/screen.py), not asserted here.
def test_long_history_keeps_the_newest_rows():
    s = Screen(cols=80, rows=24, scrollback_limit=10000)
    s.feed("".join(f"row {i}\n" for i in range(20000)))
    assert s.read("recent", 2, **V09)[0] == "row 19999\n"
    assert s.history_rows == 10000


def test_feeding_build_output_keeps_styles_out_of_text():
    line = "compiling crate foo v1.2.3 (/work/src) ... \x1b[32mok\x1b[0m\r\n"
    s = Screen()
    s.feed(line * 20000)
    assert s.last_line().endswith("ok")
    assert s.history_rows == 10000


# --------------------------------------------------------------------- helpers


def test_limit_snapshot_lines_matches_herdr():
    assert limit_snapshot_lines("one\ntw\u00f8\n\u4e09\n", 2) == ("tw\u00f8\n\u4e09\n", True)
    assert limit_snapshot_lines("one\ntwo\nthree", 1) == ("three", True)
    assert limit_snapshot_lines("one\ntwo", 0) == ("", True)
    assert limit_snapshot_lines("", 2) == ("", False)
    assert limit_snapshot_lines("one\ntwo\n", None) == ("one\ntwo\n", False)
    assert limit_snapshot_lines("one\ntwo\n", 2) == ("one\ntwo\n", False)


def test_rust_lines():
    assert rust_lines("") == []
    assert rust_lines("a\n") == ["a"]
    assert rust_lines("\n") == [""]
    assert rust_lines("a\r\nb\n\nc") == ["a", "b", "", "c"]
    assert rust_lines("a\rb\n") == ["a\rb"]
    assert rust_lines("a\x0bb\u2028c") == ["a\x0bb\u2028c"]


def test_first_matching_line():
    assert first_matching_line("a1\nb2\nb3\n", lambda line: line.startswith("b")) == "b2"
    assert first_matching_line("a\nb", lambda line: "z" in line) is None
    assert first_matching_line("x\r\n", lambda line: line == "x") == "x"


def test_lines_matching_reads_recent_unwrapped():
    s = Screen(cols=5, rows=5)
    s.feed("ready: OK\nnext")
    assert s.lines_matching(lambda line: "ready: OK" in line, "recent") == "ready: OK"
    assert s.lines_matching(lambda line: "ready: OK" in line, "recent_unwrapped") == "ready: OK"
    assert s.lines_matching(lambda line: "ready: OK" in line, "visible") is None
    assert s.lines_matching(lambda line: line.startswith("re"), "visible") == "ready"
    assert s.lines_matching(lambda line: "next" in line, "detection", 1) == "next"
    assert s.lines_matching(lambda line: "ready" in line, "detection", 1) is None


def test_lines_matching_respects_version_switch():
    s = Screen(cols=20, rows=24)
    s.feed("build done\n")
    pred = lambda line: "done" in line
    assert s.lines_matching(pred, "recent", 5, recent_includes_viewport=False) is None
    assert s.lines_matching(pred, "recent", 5, recent_includes_viewport=True) == "build done"


def test_huge_and_non_ascii_csi_parameters_do_not_crash():
    s = Screen(cols=10, rows=3)
    s.feed("\x1b[" + "9" * 5000 + "Hx")  # clamped: bottom-right corner
    s.feed("\x1b[\u00b2Ay")  # "²" is no parameter digit
    text, _ = s.read("visible", None, "text")
    assert "x" in text and "y" in text
