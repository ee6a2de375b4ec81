"""libghostty-vt, herdr's terminal engine, loaded from the ``pyghostty`` wheel.

herdr renders every pane through libghostty-vt (``vendor/libghostty-vt``, vendored at
c5a21edf, ``vendor/libghostty-vt.vendor.json``) behind its wrapper ``src/ghostty/mod.rs``.
The ``pyghostty`` distribution (PyPI, Apache-2.0) bundles a build of that library; its
0.1.0/0.1.1 library exports every C function herdr 0.8.2's ``src/ghostty/bindings.rs``
declares (0.1.3 dropped ``ghostty_terminal_mode_get``/``_set`` and the render-state colours),
hence the exact pin in pyproject.toml.

This module declares, with ctypes, only the part of the C API simherdr calls, and opens the
bundled library without importing pyghostty's Python layer (which parses its whole generated
header with cffi, ~0.4 s per process).

:data:`AVAILABLE` says whether the library loaded; :data:`UNAVAILABLE_REASON` says why not.
"""

from __future__ import annotations

import ctypes as C
import importlib.util
import os

__all__ = ["AVAILABLE", "UNAVAILABLE_REASON", "lib"]

# The C enums' values in the pinned library (pyghostty 0.1.1's generated header).
SUCCESS = 0
FORMAT_PLAIN = 0
FORMAT_VT = 1
POINT_ACTIVE = 0
POINT_VIEWPORT = 1
POINT_SCREEN = 2
OPT_USERDATA = 0
OPT_WRITE_PTY = 1
DATA_COLS = 1
DATA_ROWS = 2
DATA_CURSOR_X = 3
DATA_CURSOR_Y = 4
DATA_ACTIVE_SCREEN = 6
DATA_CURSOR_VISIBLE = 7
DATA_KITTY_KEYBOARD_FLAGS = 8
DATA_TOTAL_ROWS = 14
DATA_SCROLLBACK_ROWS = 15
ROW_WRAP = 1
ROW_WRAP_CONTINUATION = 2
SCREEN_ALTERNATE = 1
KEY_ACTION_PRESS = 1

# DEC private modes herdr reads (src/ghostty/mod.rs MODE_* constants).
MODE_APPLICATION_CURSOR_KEYS = 1
MODE_BRACKETED_PASTE = 2004
MODE_GRAPHEME_CLUSTER = 2027  # src/ghostty/mod.rs:180

# --- the C types -------------------------------------------------------------------------------


class TerminalOptions(C.Structure):
    _fields_ = [("cols", C.c_uint16), ("rows", C.c_uint16), ("max_scrollback", C.c_size_t)]


class GridRef(C.Structure):
    _fields_ = [
        ("size", C.c_size_t),
        ("node", C.c_void_p),
        ("x", C.c_uint16),
        ("y", C.c_uint16),
    ]


class Selection(C.Structure):
    _fields_ = [
        ("size", C.c_size_t),
        ("start", GridRef),
        ("end", GridRef),
        ("rectangle", C.c_bool),
    ]


class _PointValue(C.Structure):
    _fields_ = [("x", C.c_uint16), ("y", C.c_uint32), ("pad", C.c_uint64)]


class Point(C.Structure):
    """GhosttyPoint: a tag and a 16-byte union (the coordinate arm), passed by value."""

    _fields_ = [("tag", C.c_int), ("value", _PointValue)]


class FormatterScreenExtra(C.Structure):
    _fields_ = [
        ("size", C.c_size_t),
        ("cursor", C.c_bool),
        ("style", C.c_bool),
        ("hyperlink", C.c_bool),
        ("protection", C.c_bool),
        ("kitty_keyboard", C.c_bool),
        ("charsets", C.c_bool),
    ]


class FormatterTerminalExtra(C.Structure):
    _fields_ = [
        ("size", C.c_size_t),
        ("palette", C.c_bool),
        ("modes", C.c_bool),
        ("scrolling_region", C.c_bool),
        ("tabstops", C.c_bool),
        ("pwd", C.c_bool),
        ("keyboard", C.c_bool),
        ("screen", FormatterScreenExtra),
    ]


class FormatterTerminalOptions(C.Structure):
    _fields_ = [
        ("size", C.c_size_t),
        ("emit", C.c_int),
        ("unwrap", C.c_bool),
        ("trim", C.c_bool),
        ("extra", FormatterTerminalExtra),
        ("selection", C.POINTER(Selection)),
    ]


# void (*)(GhosttyTerminal, void *userdata, const uint8_t *data, size_t len)
WritePtyFn = C.CFUNCTYPE(None, C.c_void_p, C.c_void_p, C.POINTER(C.c_uint8), C.c_size_t)

_P = C.c_void_p
_I = C.c_int
_SIGNATURES: dict[str, tuple] = {
    "ghostty_terminal_new": (_I, [_P, C.POINTER(_P), TerminalOptions]),
    "ghostty_terminal_free": (None, [_P]),
    "ghostty_terminal_resize": (_I, [_P, C.c_uint16, C.c_uint16, C.c_uint32, C.c_uint32]),
    "ghostty_terminal_set": (_I, [_P, _I, _P]),
    "ghostty_terminal_vt_write": (None, [_P, C.c_char_p, C.c_size_t]),
    "ghostty_terminal_mode_get": (_I, [_P, C.c_uint16, C.POINTER(C.c_bool)]),
    "ghostty_terminal_mode_set": (_I, [_P, C.c_uint16, C.c_bool]),
    "ghostty_terminal_get": (_I, [_P, _I, _P]),
    "ghostty_terminal_grid_ref": (_I, [_P, Point, C.POINTER(GridRef)]),
    "ghostty_grid_ref_row": (_I, [C.POINTER(GridRef), C.POINTER(C.c_uint64)]),
    "ghostty_row_get": (_I, [C.c_uint64, _I, _P]),
    "ghostty_formatter_terminal_new": (_I, [_P, C.POINTER(_P), _P, FormatterTerminalOptions]),
    "ghostty_formatter_format_alloc": (
        _I,
        [_P, _P, C.POINTER(C.POINTER(C.c_uint8)), C.POINTER(C.c_size_t)],
    ),
    "ghostty_formatter_free": (None, [_P]),
    "ghostty_free": (None, [_P, C.POINTER(C.c_uint8), C.c_size_t]),
    "ghostty_key_event_new": (_I, [_P, C.POINTER(_P)]),
    "ghostty_key_event_free": (None, [_P]),
    "ghostty_key_event_set_action": (None, [_P, _I]),
    "ghostty_key_event_set_key": (None, [_P, _I]),
    "ghostty_key_event_set_mods": (None, [_P, C.c_uint16]),
    "ghostty_key_event_set_utf8": (None, [_P, C.c_char_p, C.c_size_t]),
    "ghostty_key_event_set_unshifted_codepoint": (None, [_P, C.c_uint32]),
    "ghostty_key_encoder_new": (_I, [_P, C.POINTER(_P)]),
    "ghostty_key_encoder_free": (None, [_P]),
    "ghostty_key_encoder_setopt_from_terminal": (None, [_P, _P]),
    "ghostty_key_encoder_encode": (
        _I,
        [_P, _P, C.c_char_p, C.c_size_t, C.POINTER(C.c_size_t)],
    ),
}


def _library_path() -> str:
    override = os.environ.get("SIMHERDR_LIBGHOSTTY_VT")
    if override:
        return override
    spec = importlib.util.find_spec("pyghostty")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise OSError("the pyghostty wheel is not installed")
    for location in spec.submodule_search_locations:
        for ext in (".so", ".dylib"):
            path = os.path.join(location, "_lib", f"libghostty-vt{ext}")
            if os.path.exists(path):
                return path
    raise OSError("pyghostty has no bundled libghostty-vt for this platform")


def _load() -> tuple[C.CDLL | None, str]:
    try:
        lib = C.CDLL(_library_path())
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(lib, name)  # 0.1.3+ lacks ghostty_terminal_mode_get/_set: refused
            fn.restype = restype
            fn.argtypes = argtypes
    except (OSError, AttributeError) as e:
        return None, str(e)
    return lib, ""


lib, UNAVAILABLE_REASON = _load()
AVAILABLE = lib is not None
