"""herdr's API key grammar and the bytes each key puts on a pane's PTY.

Used by ``pane.send_keys``, ``pane.send_input``, ``agent.send_keys`` (SOCKET.md §4.3).

Grammar, as herdr 0.8.2 parses it (``src/app/api_helpers.rs:11-23`` then
``src/config/keybinds.rs:1169-1282``):

* The whole key is trimmed (Rust ``str::trim``, Unicode White_Space). Then exactly
  ``"C-c"``/``"c-c"`` become ``ctrl+c`` and exactly ``"+"`` becomes ``plus``.
* The key is split on ``+``. Each part is trimmed; an empty part rejects the key
  (so ``ctrl++`` and ``ctrl+`` are invalid).
* A part that names a modifier (case-insensitive) adds it: ``ctrl|control``,
  ``shift``, ``alt|option|meta``, ``cmd|command|super``, ``hyper``. Modifiers may
  come in any position, also after the key (``c+ctrl`` is ``ctrl+c``), and may repeat.
* Exactly one non-modifier part is the key; none or two reject the key.
* Key names match case-insensitively: ``space``, ``enter|return``, ``esc|escape``,
  ``tab`` (with shift it becomes back-tab and shift is dropped), ``backspace|bs``,
  ``left|right|up|down``, the punctuation names of ``_NAMED_CHARS``, then any single
  character (case kept; an ASCII uppercase letter adds shift), then ``f<N>`` for any
  ``N`` that parses as a Rust ``u8`` (0..=255, ASCII digits, leading zeros allowed).
* There is no home/end/pageup/pagedown/delete/insert, and ``prefix+...`` is rejected
  (``prefix`` is neither a modifier nor a key).

Encoding, for a pane whose app has not pushed the Kitty keyboard protocol and has not
enabled xterm modifyOtherKeys (the only case a simulated pane has):

* Character keys (every single character and the punctuation names) always go through
  herdr's own legacy encoder (``src/pane/input.rs:40``
  ``ghostty_prefers_herdr_text_encoding``; encoder ``src/input/encode.rs:18-60,
  272-292, 383-413, 481-524``).
* ``ctrl+tab`` with no other modifier also uses herdr's encoder: a plain TAB
  (``src/pane/terminal.rs:1884-1889``).
* Every other named key goes through the vendored libghostty-vt legacy encoder
  (``vendor/libghostty-vt/src/input/key_encode.zig:325-548`` with its xterm
  "PC-style function key" table ``vendor/libghostty-vt/src/input/function_keys.zig``).
  libghostty is not told about ``hyper`` (``src/pane/input.rs:44-58``), so hyper
  does not change those keys.
* ``f0`` and ``f13``..``f255`` are valid keys that libghostty cannot encode; herdr's
  fallback then yields no bytes (``encode_f_key``), or a lone ESC with alt.

CHOICES (not decidable from herdr's source alone):

* The libghostty table rows for these keys were read from the vendored Zig source, not
  run; where that table and plain xterm agree nothing was chosen. The one quirk kept
  because the table says so: a modified F3 is ``CSI 13;<m>~`` rather than xterm's
  ``CSI 1;<m>R``.
* Arrow keys use normal cursor mode (``ESC [ A``) unless the caller passes
  ``application_cursor=True`` (DECCKM set by the app), as libghostty does.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .record import record

__all__ = [
    "ALT",
    "CTRL",
    "HYPER",
    "SHIFT",
    "SUPER",
    "UNSUPPORTED_KEY_MESSAGE",
    "InvalidKey",
    "KeyCombo",
    "encode_key",
    "encode_key_list",
    "encode_keys",
    "is_valid_key",
    "parse_key",
]

UNSUPPORTED_KEY_MESSAGE = "unsupported key {key}"

# Modifier bits. SHIFT/ALT/CTRL/SUPER are laid out so that ``1 + bits`` is the xterm
# modifier parameter (2 = shift, 3 = alt, 5 = ctrl, 9 = super, ...).
SHIFT = 1
ALT = 2
CTRL = 4
SUPER = 8
HYPER = 16
_GHOSTTY_MODS = SHIFT | ALT | CTRL | SUPER

# Rust's char::is_whitespace (Unicode White_Space). Python's str.strip() would also
# strip U+001C..U+001F, which Rust keeps.
_RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

_ALIASES = {"C-c": "ctrl+c", "c-c": "ctrl+c", "+": "plus"}

_MODIFIERS = {
    "ctrl": CTRL,
    "control": CTRL,
    "shift": SHIFT,
    "alt": ALT,
    "option": ALT,
    "meta": ALT,
    "cmd": SUPER,
    "command": SUPER,
    "super": SUPER,
    "hyper": HYPER,
}

_NAMED_KEYS = {
    "enter": "enter",
    "return": "enter",
    "esc": "esc",
    "escape": "esc",
    "tab": "tab",
    "backspace": "backspace",
    "bs": "backspace",
    "left": "left",
    "right": "right",
    "up": "up",
    "down": "down",
}

_NAMED_CHARS = {
    "space": " ",
    "minus": "-",
    "comma": ",",
    "period": ".",
    "slash": "/",
    "backslash": "\\",
    "quote": "'",
    "double_quote": '"',
    "double-quote": '"',
    "semicolon": ";",
    "colon": ":",
    "percent": "%",
    "ampersand": "&",
    "backtick": "`",
    "plus": "+",
}

_FKEY_DIGITS = re.compile(r"[0-9]+")


class InvalidKey(ValueError):
    """A key herdr refuses; ``str(err)`` is herdr's message, ``err.key`` the key as sent."""

    def __init__(self, key: str):
        self.key = key
        super().__init__(UNSUPPORTED_KEY_MESSAGE.format(key=key))


@record(frozen=True)
class KeyCombo:
    """A parsed key: ``code`` is ``char`` (see ``char``), ``f`` (see ``number``),
    ``enter``, ``esc``, ``tab``, ``backtab``, ``backspace``, ``left``, ``right``,
    ``up`` or ``down``; ``mods`` is a bit set of SHIFT/ALT/CTRL/SUPER/HYPER."""

    code: str
    mods: int = 0
    char: str | None = None
    number: int | None = None


def parse_key(key: str) -> KeyCombo:
    """Parse one API key string; raises InvalidKey exactly when herdr answers invalid_key."""
    if not isinstance(key, str):
        raise InvalidKey(str(key))
    trimmed = key.strip(_RUST_WHITESPACE)
    normalized = _ALIASES.get(trimmed, trimmed)
    mods = 0
    key_part: str | None = None
    for part in normalized.split("+"):
        token = part.strip(_RUST_WHITESPACE)
        if not token:
            raise InvalidKey(key)
        modifier = _MODIFIERS.get(token.lower())
        if modifier is not None:
            mods |= modifier
        elif key_part is not None:
            raise InvalidKey(key)
        else:
            key_part = token
    if key_part is None:
        raise InvalidKey(key)

    lower = key_part.lower()
    named = _NAMED_KEYS.get(lower)
    if named is not None:
        if named == "tab" and mods & SHIFT:
            return KeyCombo("backtab", mods & ~SHIFT)
        return KeyCombo(named, mods)
    char = _NAMED_CHARS.get(lower)
    if char is not None:
        return KeyCombo("char", mods, char=char)
    if len(key_part) == 1:
        if "A" <= key_part <= "Z":
            return KeyCombo("char", mods | SHIFT, char=key_part.lower())
        return KeyCombo("char", mods, char=key_part)
    if lower.startswith("f") and _FKEY_DIGITS.fullmatch(lower[1:]):
        number = int(lower[1:])
        if number <= 255:
            return KeyCombo("f", mods, number=number)
    raise InvalidKey(key)


def is_valid_key(key: str) -> bool:
    try:
        parse_key(key)
    except InvalidKey:
        return False
    return True


# --- herdr's own legacy encoder (character keys) -------------------------------------

_SHIFTED_PUNCTUATION = frozenset('!@#$%^&*()_+{}|:"<>?~')

_CTRL_SPECIALS = {
    " ": 0,
    "@": 0,
    "2": 0,
    "[": 27,
    "3": 27,
    "\\": 28,
    "4": 28,
    "]": 29,
    "5": 29,
    "^": 30,
    "6": 30,
    "_": 31,
    "/": 31,
    "7": 31,
    "-": 31,
}


def _shifted_text_char(ch: str) -> str | None:
    if "A" <= ch <= "Z" or ch in _SHIFTED_PUNCTUATION:
        return ch
    if "a" <= ch <= "z":
        return ch.upper()
    return None


def _legacy_char(ch: str, mods: int) -> bytes:
    if mods & CTRL:
        upper = ch.upper() if "a" <= ch <= "z" else ch
        if "A" <= upper <= "Z":
            return bytes([ord(upper) - 64])
        special = _CTRL_SPECIALS.get(upper)
        if special is not None:
            return bytes([special])
        return bytes([ord(ch) & 0xFF])  # Rust `ch as u8` keeps the low byte
    if mods == SHIFT:
        ch = _shifted_text_char(ch) or ch
    return ch.encode()


def _encode_char(ch: str, mods: int) -> bytes:
    if mods == 0:
        return ch.encode()
    if mods == SHIFT:
        shifted = _shifted_text_char(ch)
        if shifted is not None:
            return shifted.encode()
    if mods & ALT:
        return b"\x1b" + _legacy_char(ch, mods & ~ALT)
    return _legacy_char(ch, mods)


# herdr's own encoder under the Kitty keyboard protocol (src/input/encode.rs:18-60 with
# try_encode_csi_u :181-264, text_char_for_key :378-414, kitty_modifier :358-370; the protocol is
# the pane's live Kitty flags, KeyboardProtocol::from_kitty_flags, src/input/model.rs:281-297).
# An API key is a press with no shifted codepoint (src/app/api_helpers.rs:36-45).
_KITTY_EVENT_TYPES = 0b10
_KITTY_ALTERNATE_KEYS = 0b100
_KITTY_ALL_KEYS = 0b1000
_KITTY_ASSOCIATED_TEXT = 0b10000


def _is_control(ch: str) -> bool:
    """Rust ``char::is_control`` (general category Cc)."""
    return ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F


def _text_char(ch: str, mods: int) -> str | None:
    if mods == 0:
        return ch
    return _shifted_text_char(ch) if mods == SHIFT else None


def _kitty_csi_u(ch: str, mods: int, flags: int) -> bytes | None:
    report_all = flags & _KITTY_ALL_KEYS
    event = 1 if flags & _KITTY_EVENT_TYPES else None  # a press
    if mods == 0 and event is None and not report_all:
        return None
    upper = "A" <= ch <= "Z"
    base = ch.lower() if mods & SHIFT and upper else ch
    modifier = 1
    for bit, value in ((SHIFT, 1), (ALT, 2), (CTRL, 4), (SUPER, 8), (HYPER, 16)):
        if mods & bit:
            modifier += value
    seq = f"\x1b[{ord(base)}"
    if flags & _KITTY_ALTERNATE_KEYS and mods & SHIFT and upper:
        seq += f":{ord(ch)}"
    seq += f";{modifier}"
    if event is not None:
        seq += f":{event}"
    text = _text_char(ch, mods)
    if flags & _KITTY_ASSOCIATED_TEXT and text is not None and not _is_control(text):
        seq += f";{ord(text)}"
    return (seq + "u").encode()


def _encode_char_kitty(ch: str, mods: int, flags: int) -> bytes:
    """encode_terminal_key for a character key under Kitty ``flags`` (non-zero)."""
    if flags & _KITTY_ALL_KEYS:
        encoded = _kitty_csi_u(ch, mods, flags)
        if encoded is not None:
            return encoded
    text = _text_char(ch, mods)
    if text is not None:
        return text.encode()
    encoded = _kitty_csi_u(ch, mods, flags)
    return encoded if encoded is not None else _encode_char(ch, mods)


# --- libghostty's legacy table (all other keys) ---------------------------------------

_ARROW_FINAL = {"up": "A", "down": "B", "right": "C", "left": "D"}

# F1..F12: (unmodified sequence, modified format with {m} for the modifier parameter)
_FKEYS = {
    1: ("\x1bOP", "\x1b[1;{m}P"),
    2: ("\x1bOQ", "\x1b[1;{m}Q"),
    3: ("\x1bOR", "\x1b[13;{m}~"),
    4: ("\x1bOS", "\x1b[1;{m}S"),
    5: ("\x1b[15~", "\x1b[15;{m}~"),
    6: ("\x1b[17~", "\x1b[17;{m}~"),
    7: ("\x1b[18~", "\x1b[18;{m}~"),
    8: ("\x1b[19~", "\x1b[19;{m}~"),
    9: ("\x1b[20~", "\x1b[20;{m}~"),
    10: ("\x1b[21~", "\x1b[21;{m}~"),
    11: ("\x1b[23~", "\x1b[23;{m}~"),
    12: ("\x1b[24~", "\x1b[24;{m}~"),
}

# Backspace rows that apply while modifyOtherKeys state 2 is off; any combination not
# listed falls through to the plain DEL row (e.g. ctrl+alt+shift+backspace -> DEL).
_BACKSPACE = {
    0: b"\x7f",
    SHIFT: b"\x7f",
    ALT: b"\x1b\x7f",
    ALT | SHIFT: b"\x1b\x7f",
    CTRL: b"\x08",
    CTRL | SHIFT: b"\x08",
    ALT | CTRL: b"\x1b\x08",
    SUPER: b"\x7f",
    SUPER | SHIFT: b"\x7f",
    ALT | SUPER: b"\x1b\x7f",
    ALT | SUPER | SHIFT: b"\x1b\x7f",
    SUPER | CTRL: b"\x08",
    SUPER | CTRL | SHIFT: b"\x08",
    ALT | SUPER | CTRL: b"\x1b\x08",
    ALT | SUPER | CTRL | SHIFT: b"\x1b\x08",
}


def _csi27(gm: int, code: int) -> bytes:
    return f"\x1b[27;{gm + 1};{code}~".encode()


def _encode_special(combo: KeyCombo, application_cursor: bool, backtab_shift: bool) -> bytes:
    code = combo.code
    gm = combo.mods & _GHOSTTY_MODS
    if code == "enter":
        if gm == 0:
            return b"\r"
        return b"\x1b\r" if gm == ALT else _csi27(gm, 13)
    if code == "esc":
        if gm == 0:
            return b"\x1b"
        return b"\x1b\x1b" if gm == ALT else _csi27(gm, 27)
    if code == "tab":
        if combo.mods == CTRL:
            return b"\t"  # herdr's own encoder handles exactly ctrl+tab in legacy mode
        if gm == 0:
            return b"\t"
        if gm == SHIFT:
            return b"\x1b[Z"
        return b"\x1b\t" if gm == ALT else _csi27(gm, 9)
    if code == "backtab":
        if not backtab_shift:
            # herdr 0.8.0 (row backtab_keeps_shift false, 346411fa:src/pane/input.rs): the
            # back-tab reaches libghostty as its Tab key with the other modifiers only.
            # (Not herdr's own ctrl+tab path: that one takes KeyCode::Tab only.)
            if gm == 0:
                return b"\t"
            return b"\x1b\t" if gm == ALT else _csi27(gm, 9)
        gm |= SHIFT  # libghostty sees back-tab as shift+tab
        return b"\x1b[Z" if gm == SHIFT else _csi27(gm, 9)
    if code == "backspace":
        return _BACKSPACE.get(gm, b"\x7f")
    if code in _ARROW_FINAL:
        final = _ARROW_FINAL[code]
        if gm:
            return f"\x1b[1;{gm + 1}{final}".encode()
        return ("\x1bO" if application_cursor else "\x1b[").encode() + final.encode()
    if code == "f":
        entry = _FKEYS.get(combo.number or 0)
        if entry is None:
            # libghostty has no such key; herdr's fallback encodes F0/F13+ as nothing,
            # and its alt handling still prefixes ESC.
            return b"\x1b" if combo.mods & ALT else b""
        plain, modified = entry
        return (modified.format(m=gm + 1) if gm else plain).encode()
    raise AssertionError(f"unhandled key code {code}")  # pragma: no cover


# The pane's terminal engine encoding a named key against its live keyboard state (herdr's
# libghostty path, simherdr/panes/enginekeys.py): the bytes, or None for herdr's own encoder.
KeyEngineFn = Callable[[KeyCombo, bool], "bytes | None"]


def encode_combo(
    combo: KeyCombo,
    *,
    application_cursor: bool = False,
    backtab_shift: bool = True,
    engine: KeyEngineFn | None = None,
    kitty_flags: int = 0,
) -> bytes:
    """``backtab_shift``: the release's row backtab_keeps_shift (0.8.2 true, #2259).
    ``engine``: the pane's libghostty key encoder; without one, the legacy rows above.
    ``kitty_flags``: the Kitty keyboard flags the pane's app pushed (characters)."""
    if combo.code == "char":
        assert combo.char is not None
        if kitty_flags:
            return _encode_char_kitty(combo.char, combo.mods, kitty_flags)
        return _encode_char(combo.char, combo.mods)
    if engine is not None:
        encoded = engine(combo, backtab_shift)
        if encoded is not None:
            return encoded
    return _encode_special(combo, application_cursor, backtab_shift)


def encode_key(key: str, *, application_cursor: bool = False, backtab_shift: bool = True) -> bytes:
    """The bytes one API key writes to the PTY; raises InvalidKey."""
    return encode_combo(
        parse_key(key), application_cursor=application_cursor, backtab_shift=backtab_shift
    )


def encode_key_list(
    keys: list[str],
    *,
    application_cursor: bool = False,
    backtab_shift: bool = True,
    engine: KeyEngineFn | None = None,
    kitty_flags: int = 0,
) -> list[bytes]:
    """Per-key encodings, validating every key before returning any (herdr 0.8.2
    ``pane.send_keys`` writes them one key at a time, ``src/app/api/panes.rs:1628-1637``)."""
    combos = [parse_key(key) for key in keys]
    return [
        encode_combo(
            c,
            application_cursor=application_cursor,
            backtab_shift=backtab_shift,
            engine=engine,
            kitty_flags=kitty_flags,
        )
        for c in combos
    ]


def encode_keys(
    keys: list[str],
    *,
    application_cursor: bool = False,
    backtab_shift: bool = True,
    engine: KeyEngineFn | None = None,
    kitty_flags: int = 0,
) -> bytes:
    """All keys' bytes concatenated; raises InvalidKey for the first bad key before
    encoding anything."""
    return b"".join(
        encode_key_list(
            keys,
            application_cursor=application_cursor,
            backtab_shift=backtab_shift,
            engine=engine,
            kitty_flags=kitty_flags,
        )
    )
