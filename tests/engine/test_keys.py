"""Keys as herdr encodes them: libghostty-vt's key encoder against the pane's live keyboard
state (simherdr/panes/enginekeys.py; herdr 0.8.2 ``src/pane/terminal.rs:1870-1930``). One
case per keyboard state: legacy, application cursor (DECCKM), Kitty flags an app pushed,
xterm modifyOtherKeys 2. herdr's own tests are cited where a case is theirs."""

from __future__ import annotations

import pytest

from simherdr.facts.keys import encode_keys
from simherdr.panes.engine import GhosttyScreen


def keys(setup: bytes, *names: str, backtab_shift: bool = True) -> list[bytes]:
    screen = GhosttyScreen(80, 24, 0)
    screen.feed(setup)
    return [
        encode_keys(
            [name],
            application_cursor=screen.application_cursor,
            backtab_shift=backtab_shift,
            engine=screen.encode_key,
            kitty_flags=screen.kitty_keyboard_flags,  # as handlers/common.key_bytes does
        )
        for name in names
    ]


NAMED = ["enter", "shift+enter", "tab", "shift+tab", "up", "ctrl+up", "alt+enter", "esc"]
NAMED += ["backspace", "f1", "f5", "ctrl+tab", "ctrl+c", "ctrl+h", "shift+?"]

STATES = {
    "legacy": (
        b"",
        [b"\r", b"\x1b[27;2;13~", b"\t", b"\x1b[Z", b"\x1b[A", b"\x1b[1;5A", b"\x1b\r", b"\x1b"]
        + [b"\x7f", b"\x1bOP", b"\x1b[15~", b"\t", b"\x03", b"\x08", b"?"],
    ),
    "application cursor": (
        b"\x1b[?1h",
        [b"\r", b"\x1b[27;2;13~", b"\t", b"\x1b[Z", b"\x1bOA", b"\x1b[1;5A", b"\x1b\r", b"\x1b"]
        + [b"\x7f", b"\x1bOP", b"\x1b[15~", b"\t", b"\x03", b"\x08", b"?"],
    ),
    "kitty disambiguate (flags 1)": (
        b"\x1b[>1u",
        [b"\r", b"\x1b[13;2u", b"\t", b"\x1b[9;2u", b"\x1b[A", b"\x1b[1;5A", b"\x1b[13;3u"]
        + [b"\x1b[27u", b"\x7f", b"\x1b[P", b"\x1b[15~", b"\x1b[9;5u", b"\x1b[99;5u"]
        + [b"\x1b[104;5u", b"?"],
    ),
    "kitty all keys as escapes (flags 31)": (
        b"\x1b[>31u",
        [b"\x1b[13u", b"\x1b[13;2u", b"\x1b[9u", b"\x1b[9;2u", b"\x1b[1;1:1A", b"\x1b[1;5:1A"]
        + [b"\x1b[13;3u", b"\x1b[27u", b"\x1b[127u", b"\x1b[1;1:1P", b"\x1b[15~", b"\x1b[9;5u"]
        + [b"\x1b[99;5:1u", b"\x1b[104;5:1u", b"\x1b[63;2:1;63u"],
    ),
    "modifyOtherKeys 2": (
        b"\x1b[>4;2m",
        [b"\r", b"\x1b[27;2;13~", b"\t", b"\x1b[27;2;9~", b"\x1b[A", b"\x1b[1;5A"]
        + [b"\x1b[27;3;13~", b"\x1b", b"\x7f", b"\x1bOP", b"\x1b[15~", b"\t", b"\x03", b"\x08"]
        + [b"?"],
    ),
}


@pytest.mark.parametrize("state", list(STATES))
def test_named_keys_per_keyboard_state(state):
    setup, want = STATES[state]
    assert dict(zip(NAMED, keys(setup, *NAMED), strict=True)) == dict(zip(NAMED, want, strict=True))


def test_the_engine_agrees_with_the_legacy_table_in_the_legacy_state():
    # facts/keys.py's rows were read from libghostty's Zig source; the engine confirms them
    named = NAMED + ["alt+backspace", "ctrl+backspace", "shift+up", "alt+left", "f12", "f13"]
    screen = GhosttyScreen(80, 24, 0)
    for name in named:
        assert encode_keys([name], engine=screen.encode_key) == encode_keys([name]), name


def test_application_cursor_mode():
    # terminal.rs:4448 ghostty_key_encoding_honors_application_cursor_mode
    assert keys(b"\x1b[?1h", "up") == [b"\x1bOA"]


def test_encoder_follows_kitty_flag_changes():
    # terminal.rs:4584 ghostty_key_encoder_updates_after_kitty_flag_changes
    screen = GhosttyScreen(80, 24, 0)
    before = encode_keys(["ctrl+shift+enter"], engine=screen.encode_key)
    screen.feed(b"\x1b[>1u")
    after = encode_keys(["ctrl+shift+enter"], engine=screen.encode_key)
    assert before != after and after == b"\x1b[13;6u"
    screen.feed(b"\x1b[<u")  # the app pops its flags: legacy again
    assert encode_keys(["ctrl+shift+enter"], engine=screen.encode_key) == before


def test_kitty_pane_encodes_shift_enter_as_csi_u():
    # terminal.rs ghostty_kitty_pane_encodes_shift_enter_as_csi_u (flags 5)
    assert keys(b"\x1b[>5u", "shift+enter") == [b"\x1b[13;2u"]


def test_backtab_row_of_0_8_0_drops_shift():
    # release row backtab_keeps_shift (0.8.0 false): back-tab reaches libghostty as Tab
    assert keys(b"", "shift+tab", backtab_shift=False) == [b"\t"]
    assert keys(b"\x1b[>1u", "shift+tab", backtab_shift=False) == [b"\t"]


def test_control_navigation_chords_and_shift_tab():
    # src/app/api/panes.rs:2008 api_pane_send_keys_accepts_control_navigation_chords, :2035
    # api_pane_send_keys_encodes_shift_tab_as_backtab
    assert keys(b"", "ctrl+h", "ctrl+j", "ctrl+k", "ctrl+l", "shift+tab") == [
        b"\x08",
        b"\x0a",
        b"\x0b",
        b"\x0c",
        b"\x1b[Z",
    ]
