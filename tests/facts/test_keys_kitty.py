"""herdr's own encoder for character keys under the Kitty keyboard protocol an app pushed
(facts/keys.py ``_encode_char_kitty``; herdr 0.8.2 ``src/input/encode.rs``). Each case is one of
herdr's tests of that file (a press), named; plus the socket test of the shifted punctuation."""

from __future__ import annotations

import pytest

from simherdr.facts.keys import encode_keys

CASES = [
    # (herdr test, key, kitty flags, bytes)
    ("kitty_ctrl_shift_a", "ctrl+shift+a", 1, b"\x1b[97;6u"),
    ("kitty_shift_uppercase_letter_sends_text", "shift+L", 1, b"L"),
    ("kitty_shift_uppercase_letter_ignores_alternate_key_reporting_for_text", "shift+L", 7, b"L"),
    ("kitty_shift_lowercase_letter_sends_uppercase_text", "shift+l", 1, b"L"),
    ("kitty_alt_shift_uppercase_letter_uses_base_codepoint", "alt+shift+L", 1, b"\x1b[108;4u"),
    ("kitty_ctrl_shift_uppercase_letter_uses_base_codepoint", "ctrl+shift+L", 1, b"\x1b[108;6u"),
    ("kitty_plain_ctrl_c_uses_csi_u", "ctrl+c", 1, b"\x1b[99;5u"),
    ("kitty_plain_ctrl_c_includes_press_event_when_requested", "ctrl+c", 3, b"\x1b[99;5:1u"),
    ("kitty_unmodified_uses_legacy", "a", 1, b"a"),
    ("kitty_report_all_keys_encodes_printable_event_kinds (press)", "j", 15, b"\x1b[106;1:1u"),
    ("kitty_report_associated_text_embeds_shifted_printables", "shift+A", 25, b"\x1b[97;2;65u"),
    ("kitty_report_associated_text_embeds_shifted_printables", "shift+:", 25, b"\x1b[58;2;58u"),
    # kitty_associated_text_composes_with_alternates_and_events (press) encodes Char('A'); an
    # API key arrives lowercased with shift (src/config/keybinds.rs:1270-1272), so herdr
    # reports no alternate key for it
    (
        "kitty_associated_text_composes_with_alternates_and_events",
        "shift+A",
        31,
        b"\x1b[97;2:1;65u",
    ),
    # src/pane/terminal.rs ghostty_kitty_pane_preserves_legacy_ctrl_alt_letter (flags 5)
    ("ghostty_kitty_pane_preserves_legacy_ctrl_alt_letter", "ctrl+alt+f", 5, b"\x1b[102;7u"),
    # src/app/api/panes.rs api_pane_send_keys_sends_shifted_punctuation_as_text_in_kitty_mode
    ("api_pane_send_keys_sends_shifted_punctuation_as_text_in_kitty_mode", "shift+?", 7, b"?"),
]


@pytest.mark.parametrize(("test", "key", "flags", "want"), CASES, ids=[c[0] for c in CASES])
def test_character_keys_under_kitty_flags(test, key, flags, want):
    assert encode_keys([key], kitty_flags=flags) == want


def test_without_kitty_flags_characters_stay_legacy():
    assert encode_keys(["ctrl+c"]) == b"\x03"
    assert encode_keys(["ctrl+shift+a"]) == b"\x01"
    assert encode_keys(["alt+x"]) == b"\x1bx"
