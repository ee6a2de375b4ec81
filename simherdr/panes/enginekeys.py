"""Keys as herdr encodes them: libghostty-vt's key encoder, against the pane's live keyboard
state (herdr 0.8.2 ``src/pane/terminal.rs:1870-1930`` ``encode_terminal_key``; the event is
built by ``src/pane/input.rs:1-38`` ``ghostty_key_event_from_terminal_key``).

herdr gives libghostty every named key that is not a character (``Char`` keys and, in the
legacy protocol, exactly ``ctrl+tab`` go through herdr's own encoder: facts/keys.py). The
encoder takes its options from the terminal (``ghostty_key_encoder_setopt_from_terminal``:
DECCKM application cursor keys, the Kitty keyboard flags an app pushed, modifyOtherKeys), so
``enter`` after an app pushed Kitty flags is what that app asked for. An empty result falls
back to herdr's own encoder (facts/keys.py), as herdr does.
"""

from __future__ import annotations

import ctypes as C

from ..facts import keys as K
from . import ghostty as G

__all__ = ["KeyEngine"]

# src/pane/input.rs:215-260 ghostty_key_from_crossterm_key_code (pyghostty 0.1.1's GhosttyKey)
_KEYS = {
    "backspace": 53,
    "enter": 58,
    "left": 76,
    "right": 77,
    "up": 78,
    "down": 75,
    "tab": 64,
    "backtab": 64,  # KeyCode::BackTab -> GHOSTTY_KEY_TAB
    "esc": 120,
}
_F_KEYS = {n: 120 + n for n in range(1, 13)}  # GHOSTTY_KEY_F1 = 121 .. F12 = 132

# src/ghostty/bindings.rs:64-67 GHOSTTY_MODS_* from facts/keys.py's bits (hyper is not told)
_MODS = ((K.SHIFT, 1), (K.CTRL, 2), (K.ALT, 4), (K.SUPER, 8))


class KeyEngine:
    """libghostty's key encoder for one terminal (made on first use)."""

    __slots__ = ("_encoder", "_event", "_terminal")

    def __init__(self, terminal: C.c_void_p) -> None:
        self._terminal = terminal
        self._encoder: C.c_void_p | None = None
        self._event: C.c_void_p | None = None

    def _ready(self) -> tuple[C.c_void_p, C.c_void_p]:
        lib = G.lib
        assert lib is not None
        if self._encoder is None or self._event is None:
            encoder, event = C.c_void_p(), C.c_void_p()
            lib.ghostty_key_encoder_new(None, C.byref(encoder))
            lib.ghostty_key_event_new(None, C.byref(event))
            self._encoder, self._event = encoder, event
        return self._encoder, self._event

    def close(self) -> None:
        lib = G.lib
        if lib is not None and self._encoder is not None and self._event is not None:
            lib.ghostty_key_encoder_free(self._encoder)
            lib.ghostty_key_event_free(self._event)
        self._encoder = self._event = None

    def encode(self, combo: K.KeyCombo, backtab_shift: bool) -> bytes | None:
        """The bytes herdr's libghostty path writes for ``combo``; None where herdr uses its
        own encoder (characters, legacy ``ctrl+tab``, keys libghostty does not know)."""
        if combo.code == "char":
            return None
        key = _F_KEYS.get(combo.number or 0) if combo.code == "f" else _KEYS.get(combo.code)
        if key is None:
            return None
        mods = 0
        for bit, ghostty_bit in _MODS:
            if combo.mods & bit:
                mods |= ghostty_bit
        if combo.code == "backtab" and backtab_shift:
            mods |= 1  # src/pane/input.rs:17-20: back-tab is Tab with Shift
        lib = G.lib
        assert lib is not None
        encoder, event = self._ready()
        # ctrl+tab in the legacy protocol is herdr's own (terminal.rs:1904-1910)
        if combo.code == "tab" and combo.mods == K.CTRL and self.kitty_flags() == 0:
            return None
        lib.ghostty_key_encoder_setopt_from_terminal(encoder, self._terminal)
        lib.ghostty_key_event_set_action(event, G.KEY_ACTION_PRESS)
        lib.ghostty_key_event_set_key(event, key)
        lib.ghostty_key_event_set_mods(event, mods)
        lib.ghostty_key_event_set_utf8(event, b"", 0)
        lib.ghostty_key_event_set_unshifted_codepoint(event, 0)
        buf = C.create_string_buffer(128)
        length = C.c_size_t()
        if lib.ghostty_key_encoder_encode(encoder, event, buf, 128, C.byref(length)):
            return None
        return buf.raw[: length.value] or None

    def kitty_flags(self) -> int:
        lib = G.lib
        assert lib is not None
        out = C.c_uint8()
        lib.ghostty_terminal_get(self._terminal, G.DATA_KITTY_KEYBOARD_FLAGS, C.byref(out))
        return out.value
