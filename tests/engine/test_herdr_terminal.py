"""herdr's own terminal read tests, transcribed against the engine screen (simherdr/panes/
engine.py). Each cites its herdr test (herdr 0.8.2 ``src/pane/terminal.rs`` unless named
otherwise; the same tests at v0.8.0). herdr's ``Terminal::new(cols, rows, scrollback)`` is
``GhosttyScreen(cols, rows, scrollback)``; its ``recent_text(n)`` is ``read("recent", n)``
(the 0.8.x range: ``recent_includes_viewport`` off)."""

from __future__ import annotations

from simherdr.panes.engine import GhosttyScreen


def recent(screen: GhosttyScreen, lines: int, source: str = "recent", fmt: str = "text"):
    return screen.read(source, lines, fmt, recent_includes_viewport=False)


def numbered(screen: GhosttyScreen, count: int) -> None:
    """write_numbered_lines (terminal.rs tests): 000000, 000001, ... one per row."""
    screen.feed("\r\n".join(f"{i:06}" for i in range(count)))


def test_recent_unwrapped_text_ignores_soft_wraps():
    # terminal.rs:5189 recent_unwrapped_text_ignores_soft_wraps
    screen = GhosttyScreen(5, 3, 100)
    screen.feed(b"ABCDEFGHIJ")
    assert recent(screen, 3)[0] == "ABCDE\nFGHIJ\n"
    assert recent(screen, 3, "recent_unwrapped")[0] == "ABCDEFGHIJ"


def test_recent_snapshots_report_omitted_rendered_rows():
    # terminal.rs:5200 recent_snapshots_report_omitted_rendered_rows
    screen = GhosttyScreen(20, 3, 100)
    screen.feed(b"one\r\ntwo\r\nthree\r\nfour")
    for source in ("recent", "recent_unwrapped"):
        for fmt in ("text", "ansi"):
            assert recent(screen, 2, source, fmt)[1] is True
    assert recent(screen, 100)[1] is False


def test_plain_text_reads_skip_wide_character_spacer_cells():
    # terminal.rs:5214 plain_text_reads_skip_wide_character_spacer_cells
    screen = GhosttyScreen(40, 3, 100)
    screen.feed("日本語テスト ABC 123".encode())
    assert screen.read("visible")[0] == "日本語テスト ABC 123\n"
    assert recent(screen, 3)[0] == "日本語テスト ABC 123\n"
    assert recent(screen, 3, "recent_unwrapped")[0] == "日本語テスト ABC 123"
    assert screen.detection_text() == "日本語テスト ABC 123\n"


def test_visible_ansi_preserves_cell_style_sequences():
    # terminal.rs:5227 visible_ansi_preserves_cell_style_sequences
    screen = GhosttyScreen(20, 3, 100)
    screen.feed(b"\x1b[31;1mred\x1b[0m plain")
    ansi = screen.read("visible", None, "ansi")[0]
    assert "red" in ansi and "plain" in ansi and "\x1b[" in ansi


def test_recent_ansi_can_read_styled_scrollback():
    # terminal.rs:5240 recent_ansi_can_read_styled_scrollback
    screen = GhosttyScreen(20, 3, 100)
    screen.feed(b"\x1b[34mblue\x1b[0m\r\nline2\r\nline3\r\nline4")
    ansi = recent(screen, 4, fmt="ansi")[0]
    assert "blue" in ansi and "line4" in ansi and "\x1b[" in ansi


def test_detection_text_is_the_recent_text_of_the_screen_rows():
    # terminal.rs:5148 detection_text_stays_at_bottom_when_viewport_is_scrolled (the part a
    # simulator without a scrolled viewport can show)
    screen = GhosttyScreen(80, 3, 100)
    numbered(screen, 10)
    assert screen.detection_text() == recent(screen, 3)[0]
    assert "000009" in screen.detection_text()


def test_resize_shrinks_both_axes_with_cursor_at_old_bottom():
    # terminal.rs:5253 resize_shrinks_both_axes_with_cursor_at_old_bottom (herdr's
    # pane.resize(rows=3, cols=7))
    screen = GhosttyScreen(8, 4, 10_000)
    screen.feed(b"alpha\r\nbeta\r\ngamma\r\ndelta")
    screen.resize(7, 3)
    assert screen.read("visible")[0] == "beta\ngamma\ndelta\n"
    assert screen.detection_text() == "beta\ngamma\ndelta\n"
    assert screen.scroll_max() == 1


def test_grapheme_cluster_mode_renders_flag_and_zwj_family_in_one_cell():
    # terminal.rs:4980 grapheme_cluster_mode_renders_flag_emoji_in_single_wide_cell and :4995
    # ..._zwj_family_...: mode 2027 is on by default (vendor patch 0001)
    for grapheme in ("🇧🇷", "👨\u200d👩\u200d👧"):
        screen = GhosttyScreen(40, 1, 0)
        screen.feed(grapheme + "x")
        assert screen.read("visible")[0] == grapheme + "x\n"
        assert screen.cursor == (0, 3)  # one wide cell (two columns), then x


def test_grapheme_cluster_mode_survives_full_reset():
    # vendor/libghostty-vt.patches.md 0001: grapheme_cluster_mode_is_default_and_survives_full_reset
    screen = GhosttyScreen(40, 1, 0)
    assert screen.mode(2027)
    screen.feed(b"\x1bc")
    assert screen.mode(2027)
    screen.feed("🇧🇷x")
    assert screen.cursor == (0, 3)
    screen.feed(b"\x1b[?2027l")
    assert not screen.mode(2027)
    screen.feed(b"\x1b")  # a RIS split between two reads
    screen.feed(b"c")
    assert screen.mode(2027)


def test_combining_marks_stay_as_written():
    # issue 32: libghostty keeps e + U+0301 as written (pyte composed it to U+00E9)
    screen = GhosttyScreen(10, 1, 0)
    screen.feed("e\u0301!")
    assert screen.read("visible")[0] == "e\u0301!\n"
    assert screen.cursor == (0, 2)


def test_alternate_screen_reads_have_no_history():
    # herdr's alt-screen history rule: total_rows on the alternate screen is its grid
    # (src/pane/terminal.rs:2748 ghostty_recent_read_range over the active screen)
    screen = GhosttyScreen(10, 3, 100)
    numbered(screen, 10)
    assert recent(screen, 100)[0].startswith("000000\n")
    screen.feed(b"\x1b[?1049h\x1b[Hfull")
    assert screen.alternate_screen
    assert recent(screen, 100) == ("full\n", False)
    assert recent(screen, 2)[1] is True  # 3 rows > 2
    screen.feed(b"\x1b[?1049l")
    assert recent(screen, 100)[0].startswith("000000\n")


def test_titles_and_progress_from_osc():
    # src/pane/osc.rs:446-543 AgentOscStateTracker (OSC 0/2 title, OSC 9 progress)
    screen = GhosttyScreen(10, 1, 0)
    screen.feed(b"\x1b]0;first\x07\x1b]2;sec")
    screen.feed(b"ond\x1b\\\x1b]9;4;1;50\x07")
    assert (screen.title, screen.osc_title, screen.osc_progress) == ("second", "second", "4;1;50")
    screen.clear_agent_osc()
    assert (screen.title, screen.osc_title, screen.osc_progress) == ("second", "", "")


def test_modes_bracketed_paste_and_application_cursor():
    screen = GhosttyScreen(10, 1, 0)
    assert not screen.bracketed_paste and not screen.application_cursor
    screen.feed(b"\x1b[?2004h\x1b[?1h")
    assert screen.bracketed_paste and screen.application_cursor
    screen.feed(b"\x1b[?2004l\x1b[?1l")
    assert not screen.bracketed_paste and not screen.application_cursor


def test_device_status_reports_are_answered():
    screen = GhosttyScreen(10, 3, 0)
    answers: list[str] = []
    screen.respond = answers.append
    screen.feed(b"ab\x1b[6n")
    assert answers == ["\x1b[1;3R"]
    screen.respond = None
    screen.feed(b"\x1b[6n")
    assert answers == ["\x1b[1;3R"]


def test_resize_reflows_soft_wrapped_rows():
    # libghostty reflows the primary screen on a width change (herdr Terminal::resize)
    screen = GhosttyScreen(5, 3, 100)
    screen.feed(b"ABCDEFGHIJ")
    screen.resize(10, 3)
    assert screen.read("visible")[0] == "ABCDEFGHIJ\n"


def test_recent_includes_viewport_row_ends_at_the_cursor_or_last_text():
    # 0.9 (model/paneread.py notes): a short output on a fresh screen is read with few lines
    screen = GhosttyScreen(20, 10, 100)
    screen.feed(b"$ echo hi\r\nhi\r\n$ ")
    assert screen.read("recent", 3, "text", recent_includes_viewport=True)[0] == (
        "$ echo hi\nhi\n$\n"
    )
    assert screen.read("recent", 3, "text", recent_includes_viewport=False)[0] == ""


def test_unicode_widths_follow_terminal_layout_rules():
    # src/ghostty/mod.rs:3556 unicode_width_helpers_match_terminal_layout_rules, as the cursor
    # sees them: VS16 makes a wide cell, VS15 a narrow one; flags, skin tones and ZWJ families
    # are one wide cell; a combining mark takes no column
    for grapheme, width in [
        ("A", 1),
        ("e\u0301", 1),
        ("界", 2),
        ("\u26a0\ufe0f", 2),
        ("\u26a0\ufe0e", 1),
        ("🇧🇷", 2),
        ("👍🏽", 2),
        ("👨\u200d👩\u200d👧", 2),
    ]:
        screen = GhosttyScreen(20, 1, 0)
        screen.feed(grapheme)
        assert screen.cursor == (0, width), grapheme
        assert screen.read("visible")[0] == grapheme + "\n"


def test_zero_max_scrollback_disables_history():
    # src/ghostty/mod.rs:3690 zero_max_scrollback_disables_history
    screen = GhosttyScreen(80, 3, 0)
    numbered(screen, 3000)
    assert screen.history_rows == 0
    assert recent(screen, 1000)[0] == "002997\n002998\n002999\n"


def test_max_scrollback_limit_bytes_retains_more_history_for_larger_limits():
    # src/ghostty/mod.rs:3697 max_scrollback_limit_bytes_retains_more_history_for_larger_limits
    small, large = GhosttyScreen(80, 3, 1_000_000), GhosttyScreen(80, 3, 10_000_000)
    for screen in (small, large):
        numbered(screen, 100_000)
    assert 0 < small.history_rows < large.history_rows


def test_active_screen_and_cursor_visibility_contract():
    # src/ghostty/mod.rs:3785 active_screen_and_cursor_visibility_contract
    screen = GhosttyScreen(12, 3, 0)
    screen.feed(b"primary")
    assert not screen.alternate_screen and screen.frame().lines[0] == "primary"
    assert screen.frame().cursor_visible
    screen.feed(b"\x1b[?25l")
    assert not screen.frame().cursor_visible
    screen.feed(b"\x1b[?1049h\x1b[HALT")
    assert screen.alternate_screen and screen.frame().lines[0] == "ALT"
    screen.feed(b"\x1b[?1049l")
    assert not screen.alternate_screen and screen.frame().lines[0] == "primary"


def test_terminal_callbacks_report_pty_responses():
    # src/ghostty/mod.rs:3594 terminal_callbacks_report_pty_responses_and_pwd_changes (the
    # response half)
    screen = GhosttyScreen(8, 3, 100)
    answers: list[str] = []
    screen.respond = answers.append
    screen.feed(b"\x1b[6n\x1b]7;file:///tmp/herdr\x07")
    assert answers and "R" in "".join(answers)


def test_terminal_and_render_state_smoke_test():
    # src/ghostty/mod.rs:3818 terminal_and_render_state_smoke_test
    screen = GhosttyScreen(8, 3, 100)
    assert (screen.cols, screen.rows) == (8, 3)
    screen.feed(b"hello\r\nworld")
    frame = screen.frame()
    assert (frame.cols, frame.rows) == (8, 3)
    assert frame.lines == ("hello", "world", "")
    assert frame.cursor == (1, 5)


def test_detection_text_follows_the_release_recent_range():
    # ghostty_detection_text = the recent text of `rows` lines: herdr 0.8.2 terminal.rs:2584
    # over the range that ends at the bottom row; 0.9.3's fork, same function, over its range
    # ending at the cursor / last text, so a screen cleared (ED2) and redrawn from the top with
    # a short frame brings the history rows above the screen into the detection text
    screen = GhosttyScreen(20, 4, 100)
    numbered(screen, 8)
    screen.feed(b"\x1b[2J\x1b[Hframe")
    assert screen.detection_text() == "frame\n"
    assert screen.detection_text(True) == "000001\n000002\n000003\nframe\n"
    assert screen.read("detection", None, "text", True)[0] == screen.detection_text(True)
