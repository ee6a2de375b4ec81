"""``InputEvents`` (herdr's structured ``ClientInputEvent``s) as the bytes they type.

CHOICE(input-events): herdr routes a client's structured events through its app input layer
(src/server/headless.rs:3083-3109 -> src/app/mod.rs:1765 route_client_events_from), which
types them into the focused terminal with libghostty's key encoder. simherdr has no app
surface: an attached client's events are encoded here and written to the terminal it owns,
with the API key grammar's encoder (facts/keys.py) for the keys that grammar names and xterm's
sequences for the others. Key releases, mouse and focus events type nothing.
"""

from __future__ import annotations

from typing import Any

from ..facts.keys import encode_key

# crossterm KeyModifiers bits (wire.rs ClientInputEvent.modifiers)
_SHIFT, _CTRL, _ALT, _SUPER = 0x1, 0x2, 0x4, 0x8

_NAMED = {
    "Backspace": "backspace",
    "Enter": "enter",
    "Left": "left",
    "Right": "right",
    "Up": "up",
    "Down": "down",
    "Tab": "tab",
    "BackTab": "shift+tab",
    "Esc": "esc",
}
# keys the API grammar lacks: xterm's PC-style sequences, unmodified
_XTERM = {
    "Home": b"\x1b[H",
    "End": b"\x1b[F",
    "PageUp": b"\x1b[5~",
    "PageDown": b"\x1b[6~",
    "Delete": b"\x1b[3~",
    "Insert": b"\x1b[2~",
    "Null": b"\x00",
}


def _key_bytes(code: Any, modifiers: int, application_cursor: bool) -> bytes:
    if isinstance(code, str):
        if code in _XTERM:
            return _XTERM[code]
        name = _NAMED.get(code)
    elif isinstance(code, dict) and "Char" in code:
        name = "plus" if code["Char"] == "+" else str(code["Char"])
    elif isinstance(code, dict) and "F" in code:
        name = f"f{code['F']}"
    else:
        name = None
    if name is None:
        return b""
    mods = [
        m
        for bit, m in ((_CTRL, "ctrl"), (_ALT, "alt"), (_SHIFT, "shift"), (_SUPER, "super"))
        if modifiers & bit
    ]
    try:
        return encode_key("+".join([*mods, name]), application_cursor=application_cursor)
    except ValueError:
        return b""


def event_sizes(events: list) -> tuple[int, int, int]:
    """input_event_limit's counts (src/server/client_transport.rs:431-470): events with each
    key's repeat count expanded, the bytes of pastes, the bytes typed otherwise (generated
    text times its repeats, VT bytes, text commits)."""
    expanded = paste = typed = 0
    for event in events:
        body: Any = None
        kind = event
        if isinstance(event, dict):
            ((kind, body),) = event.items()
        if kind == "Key":
            repeats = max(1, int(body.get("repeat_count") or 1))
            expanded += repeats
            if body.get("generated_text"):
                typed += len(str(body["generated_text"]).encode()) * repeats
            source = body.get("source")
            if isinstance(source, dict) and "Vt" in source:
                typed += len(source["Vt"]["bytes"])
            continue
        expanded += 1
        if kind == "TextCommit":
            typed += len(str(body).encode())
        elif kind == "Paste":
            paste += len(str(body["text"]).encode())
    return expanded, paste, typed


def event_bytes(event: Any, *, application_cursor: bool, bracketed_paste: bool) -> bytes:
    """The bytes one ``ClientInputEvent`` types (serde's externally tagged value)."""
    if not isinstance(event, dict) or len(event) != 1:
        return b""  # FocusGained / FocusLost
    ((kind, body),) = event.items()
    if kind == "TextCommit":
        return str(body).encode()
    if kind == "Paste":
        text = str(body["text"]).encode()
        return b"\x1b[200~" + text + b"\x1b[201~" if bracketed_paste and text else text
    if kind != "Key" or body.get("kind") == "Release":
        return b""
    times = max(1, int(body.get("repeat_count") or 1))
    source = body.get("source")
    if isinstance(source, dict) and "Vt" in source:
        one = bytes(source["Vt"]["bytes"])
    elif body.get("generated_text"):
        one = str(body["generated_text"]).encode()
    else:
        one = _key_bytes(body.get("code"), int(body.get("modifiers") or 0), application_cursor)
    return one * times


_BUTTONS = {"Left": 0, "Middle": 1, "Right": 2}
_WHEELS = {"ScrollUp": 64, "ScrollDown": 65, "ScrollLeft": 66, "ScrollRight": 67}


def mouse_report(kind: Any, column: int, row: int, modifiers: int, sgr: bool, mode: int) -> bytes:
    """One ``ClientMouseKind`` as the app reads it under its tracking ``mode`` (9 X10: presses
    only; 1000: presses, releases, wheels; 1002: and drags; 1003: and any motion): xterm's
    reports, as libghostty's mouse encoder writes them. b"" where the mode does not report it.

    CHOICE(attach-mouse): herdr 0.9 routes AttachMouse through libghostty's encoder
    ([H093] src/server/pane_input.rs); this is xterm's documented encoding of the same."""
    release = False
    if isinstance(kind, str) and kind in _WHEELS:
        if mode == 9:
            return b""
        button = _WHEELS[kind]
    elif kind == "Moved":
        if mode != 1003:
            return b""
        button = 35  # motion, no button
    elif isinstance(kind, dict) and len(kind) == 1:
        ((what, which),) = kind.items()
        button = _BUTTONS.get(str(which), 0)
        if what == "Up":
            if mode == 9:
                return b""
            release = True
        elif what == "Drag":
            if mode not in (1002, 1003):
                return b""
            button += 32
        elif what != "Down":
            return b""
    else:
        return b""
    button += 4 * bool(modifiers & _SHIFT) + 8 * bool(modifiers & _ALT)
    button += 16 * bool(modifiers & _CTRL)
    x, y = column + 1, row + 1
    if sgr:
        return f"\x1b[<{button};{x};{y}{'m' if release else 'M'}".encode()
    if release:
        button = (button & ~3) | 3  # the legacy release: button 3
    return b"\x1b[M" + bytes(min(v + 32, 255) for v in (button, x, y))


def wheel_report(up: bool, column: int, row: int, modifiers: int, sgr: bool) -> bytes:
    """A mouse wheel as the app that tracks the mouse reads it (xterm's encoding, which
    libghostty's mouse encoder writes: buttons 64/65, +4 shift, +8 alt, +16 ctrl; SGR 1006
    ``CSI < b ; x ; y M``, else the legacy ``CSI M`` with each value + 32)."""
    button = (64 if up else 65) + 4 * bool(modifiers & _SHIFT)
    button += 8 * bool(modifiers & _ALT) + 16 * bool(modifiers & _CTRL)
    x, y = column + 1, row + 1
    if sgr:
        return f"\x1b[<{button};{x};{y}M".encode()
    return b"\x1b[M" + bytes(min(v + 32, 255) for v in (button, x, y))
