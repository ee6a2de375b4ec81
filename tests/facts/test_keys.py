"""herdr's API key grammar and encodings (SOCKET.md §4.3; see simherdr/facts/keys.py)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simherdr.facts.keys import (
    ALT,
    CTRL,
    HYPER,
    SHIFT,
    SUPER,
    UNSUPPORTED_KEY_MESSAGE,
    InvalidKey,
    KeyCombo,
    encode_key,
    encode_key_list,
    encode_keys,
    is_valid_key,
    parse_key,
)

ENCODINGS = [
    # named keys
    ("enter", b"\r"),
    ("return", b"\r"),
    ("ENTER", b"\r"),
    ("Return", b"\r"),
    ("tab", b"\t"),
    ("shift+tab", b"\x1b[Z"),
    ("tab+shift", b"\x1b[Z"),
    ("SHIFT+TAB", b"\x1b[Z"),
    ("esc", b"\x1b"),
    ("escape", b"\x1b"),
    ("backspace", b"\x7f"),
    ("bs", b"\x7f"),
    ("up", b"\x1b[A"),
    ("down", b"\x1b[B"),
    ("right", b"\x1b[C"),
    ("left", b"\x1b[D"),
    ("Left", b"\x1b[D"),
    ("space", b" "),
    # function keys
    ("f1", b"\x1bOP"),
    ("f2", b"\x1bOQ"),
    ("f3", b"\x1bOR"),
    ("f4", b"\x1bOS"),
    ("f5", b"\x1b[15~"),
    ("F5", b"\x1b[15~"),
    ("f6", b"\x1b[17~"),
    ("f7", b"\x1b[18~"),
    ("f8", b"\x1b[19~"),
    ("f9", b"\x1b[20~"),
    ("f10", b"\x1b[21~"),
    ("f11", b"\x1b[23~"),
    ("f12", b"\x1b[24~"),
    ("f012", b"\x1b[24~"),
    ("f0", b""),
    ("f13", b""),
    ("f255", b""),
    ("shift+f1", b"\x1b[1;2P"),
    ("ctrl+f1", b"\x1b[1;5P"),
    ("shift+f3", b"\x1b[13;2~"),  # libghostty's F3 row, not xterm's CSI 1;2R
    ("ctrl+f4", b"\x1b[1;5S"),
    ("alt+f5", b"\x1b[15;3~"),
    ("ctrl+shift+f12", b"\x1b[24;6~"),
    ("super+f2", b"\x1b[1;9Q"),
    ("alt+f13", b"\x1b"),
    # ctrl + character -> control byte
    ("ctrl+c", b"\x03"),
    ("C-c", b"\x03"),
    ("c-c", b"\x03"),
    ("control+c", b"\x03"),
    ("CTRL+c", b"\x03"),
    ("c+ctrl", b"\x03"),
    ("ctrl+C", b"\x03"),
    ("ctrl+shift+c", b"\x03"),
    ("ctrl+a", b"\x01"),
    ("ctrl+z", b"\x1a"),
    ("ctrl+d", b"\x04"),
    ("ctrl+space", b"\x00"),
    ("ctrl+@", b"\x00"),
    ("ctrl+2", b"\x00"),
    ("ctrl+[", b"\x1b"),
    ("ctrl+3", b"\x1b"),
    ("ctrl+backslash", b"\x1c"),
    ("ctrl+]", b"\x1d"),
    ("ctrl+^", b"\x1e"),
    ("ctrl+_", b"\x1f"),
    ("ctrl+slash", b"\x1f"),
    ("ctrl+minus", b"\x1f"),
    ("ctrl+7", b"\x1f"),
    ("ctrl+8", b"8"),
    ("ctrl+?", b"?"),
    ("ctrl+\u00e9", b"\xe9"),  # Rust `char as u8` keeps the low byte
    ("ctrl+\u20ac", b"\xac"),
    # alt / option / meta -> ESC prefix
    ("alt+x", b"\x1bx"),
    ("option+x", b"\x1bx"),
    ("meta+x", b"\x1bx"),
    ("alt+X", b"\x1bX"),
    ("alt+shift+x", b"\x1bX"),
    ("alt+ctrl+c", b"\x1b\x03"),
    ("alt+space", b"\x1b "),
    ("alt+enter", b"\x1b\r"),
    ("alt+tab", b"\x1b\t"),
    ("alt+esc", b"\x1b\x1b"),
    ("alt+backspace", b"\x1b\x7f"),
    ("alt+up", b"\x1b[1;3A"),
    # modified arrows
    ("shift+up", b"\x1b[1;2A"),
    ("ctrl+up", b"\x1b[1;5A"),
    ("ctrl+shift+left", b"\x1b[1;6D"),
    ("ctrl+alt+right", b"\x1b[1;7C"),
    ("super+down", b"\x1b[1;9B"),
    ("cmd+down", b"\x1b[1;9B"),
    ("hyper+up", b"\x1b[A"),  # libghostty is not told about hyper
    # enter / escape / tab / backspace with modifiers (libghostty table)
    ("shift+enter", b"\x1b[27;2;13~"),
    ("ctrl+enter", b"\x1b[27;5;13~"),
    ("ctrl+shift+enter", b"\x1b[27;6;13~"),
    ("super+enter", b"\x1b[27;9;13~"),
    ("hyper+enter", b"\r"),
    ("shift+esc", b"\x1b[27;2;27~"),
    ("ctrl+esc", b"\x1b[27;5;27~"),
    ("ctrl+tab", b"\t"),  # herdr's own encoder for exactly ctrl+tab
    ("ctrl+hyper+tab", b"\x1b[27;5;9~"),
    ("ctrl+shift+tab", b"\x1b[27;6;9~"),
    ("alt+shift+tab", b"\x1b[27;4;9~"),
    ("ctrl+alt+tab", b"\x1b[27;7;9~"),
    ("super+tab", b"\x1b[27;9;9~"),
    ("ctrl+backspace", b"\x08"),
    ("ctrl+shift+backspace", b"\x08"),
    ("ctrl+alt+backspace", b"\x1b\x08"),
    ("shift+backspace", b"\x7f"),
    ("ctrl+alt+shift+backspace", b"\x7f"),
    ("super+backspace", b"\x7f"),
    # single characters and punctuation names
    ("a", b"a"),
    ("A", b"A"),
    ("shift+a", b"A"),
    ("shift+A", b"A"),
    ("Z", b"Z"),
    ("1", b"1"),
    ("shift+1", b"1"),
    ("shift+!", b"!"),
    ("shift+space", b" "),
    ("f", b"f"),
    ("F", b"F"),
    ("\u00e9", "\u00e9".encode()),
    ("\u00c9", "\u00c9".encode()),
    ("\u65e5", "\u65e5".encode()),
    ("\U0001f642", "\U0001f642".encode()),
    ("-", b"-"),
    ("+", b"+"),
    (" + ", b"+"),
    ("plus", b"+"),
    ("PLUS", b"+"),
    ("minus", b"-"),
    ("comma", b","),
    ("period", b"."),
    ("slash", b"/"),
    ("backslash", b"\\"),
    ("quote", b"'"),
    ("double_quote", b'"'),
    ("double-quote", b'"'),
    ("semicolon", b";"),
    ("colon", b":"),
    ("percent", b"%"),
    ("ampersand", b"&"),
    ("backtick", b"`"),
    ("super+a", b"a"),
    ("command+a", b"a"),
    ("hyper+a", b"a"),
    # whitespace handling: Rust trim (Unicode White_Space)
    ("  enter  ", b"\r"),
    ("\tenter\n", b"\r"),
    ("\u3000enter", b"\r"),
    ("ctrl + c", b"\x03"),
    (" C-c ", b"\x03"),
    ("ctrl+ctrl+c", b"\x03"),
]


@pytest.mark.parametrize(("key", "expected"), ENCODINGS)
def test_encoding(key, expected):
    assert encode_key(key) == expected


def test_application_cursor_mode_changes_only_unmodified_arrows():
    assert encode_key("up", application_cursor=True) == b"\x1bOA"
    assert encode_key("left", application_cursor=True) == b"\x1bOD"
    assert encode_key("ctrl+up", application_cursor=True) == b"\x1b[1;5A"
    assert encode_keys(["down", "enter"], application_cursor=True) == b"\x1bOB\r"


INVALID = [
    "",
    " ",
    "\t",
    "home",
    "end",
    "pageup",
    "pagedown",
    "delete",
    "insert",
    "prefix+c",
    "prefix",
    "ctrl+",
    "ctrl++",
    "+a",
    "a+",
    "a+b",
    "ctrl",
    "shift+ctrl",
    "ab",
    "enterr",
    "f256",
    "f-1",
    "f1a",
    "f",  # valid as a character -> see below; kept out of this list
    "ctrl+C-c",
    "C-C",
    "ctrl-c",
    "\x1center",  # U+001C is not Rust whitespace
    "enter\x00",
    "space bar",
]
INVALID.remove("f")


@pytest.mark.parametrize("key", INVALID)
def test_invalid_keys(key):
    with pytest.raises(InvalidKey) as info:
        encode_key(key)
    assert info.value.key == key
    assert str(info.value) == f"unsupported key {key}"
    assert not is_valid_key(key)


def test_invalid_key_is_a_value_error_with_herdr_message():
    err = InvalidKey("home")
    assert isinstance(err, ValueError)
    assert UNSUPPORTED_KEY_MESSAGE.format(key="home") == "unsupported key home"
    assert str(err) == "unsupported key home"


def test_invalid_key_keeps_the_untrimmed_key_as_sent():
    with pytest.raises(InvalidKey) as info:
        encode_key("  pageup ")
    assert info.value.key == "  pageup "
    assert str(info.value) == "unsupported key   pageup "


def test_encode_keys_concatenates_in_order():
    assert encode_keys(["h", "i", "enter"]) == b"hi\r"
    assert encode_keys(["ctrl+c", "C-c", "up"]) == b"\x03\x03\x1b[A"
    assert encode_keys([]) == b""


def test_encode_keys_rejects_the_tenth_key_before_encoding_anything():
    keys = ["a"] * 9 + ["home"] + ["b"]
    with pytest.raises(InvalidKey) as info:
        encode_keys(keys)
    assert info.value.key == "home"


def test_encode_keys_reports_the_first_bad_key():
    with pytest.raises(InvalidKey) as info:
        encode_keys(["enter", "pagedown", "prefix+x", "home"])
    assert info.value.key == "pagedown"


def test_encode_key_list_keeps_one_entry_per_key():
    assert encode_key_list(["a", "f13", "enter"]) == [b"a", b"", b"\r"]
    with pytest.raises(InvalidKey):
        encode_key_list(["a", "nope"])


def test_parse_key_structure():
    assert parse_key("ctrl+shift+tab") == KeyCombo("backtab", CTRL)
    assert parse_key("A") == KeyCombo("char", SHIFT, char="a")
    assert parse_key("alt+meta+option+x") == KeyCombo("char", ALT, char="x")
    assert parse_key("cmd+hyper+F7") == KeyCombo("f", SUPER | HYPER, number=7)
    assert parse_key("double-quote") == KeyCombo("char", 0, char='"')
    assert parse_key("C-c") == KeyCombo("char", CTRL, char="c")


@given(st.characters(blacklist_categories=("Cs",)))
def test_any_single_character_except_whitespace_and_plus_is_itself(ch):
    rust_whitespace = (
        "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
        "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
    )
    if ch in rust_whitespace:
        assert not is_valid_key(ch)
    else:
        assert encode_key(ch) == ch.encode()
