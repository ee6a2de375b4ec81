"""herdr's wire format: one JSON line per request, read with serde_json's rules.

Python's ``json`` is more permissive than serde_json in ways a client can observe (herdr
answers ``invalid_request``, id "", where Python would go on):
- ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON; serde_json refuses them
  ("expected value"), so a split with ``ratio: NaN`` never reaches a handler;
- a number whose value is beyond f64 (``1e400``, or an integer of 309+ digits) is
  "number out of range" (serde_json falls back from u64/i64 to f64 and refuses infinity);
- nesting is limited to 128 levels ("recursion limit exceeded"): serde_json's default
  ``remaining_depth`` of 128 is decremented on entering each array or object and fails at 0,
  so 127 nested containers parse and 128 do not;
- a duplicated field of a struct fails ("duplicate field `x`"): at the top level (Request's
  ``id`` / flattened ``method`` / ``params``, src/api/server.rs:1464-1469) and inside
  ``params``, whose variants are derived structs (checked in :func:`simherdr.params.parse`,
  which knows which keys are struct fields). A duplicated key of a map-typed field (``env``)
  is last-wins, as serde's HashMap is;
- a ``\\u`` escape of a lone UTF-16 surrogate fails ("lone leading surrogate in hex
  escape"): Python would accept it and then be unable to encode the string back.
The texts are serde's gist without its " at line 1 column N" (clients must not match on them,
SOCKET.md §1.3).

Two readings, one result (issue 26): a line is first read by json's C scanner into plain
dicts, with no Python call per object; that reading is kept only when it cannot differ from the
strict reader's (:func:`decode_strict`: a pairs hook that sees every duplicated key, and number
hooks), and any other line is read again by the strict reader, which then gives its own result
or error. tests/core/test_wire_decode.py checks the two agree on generated lines.
"""

from __future__ import annotations

import _json
import math
import re
from typing import Any

from .facts.jsonscan import make_scanner
from .params import JsonObject

MAX_DEPTH = 128  # serde_json's default recursion limit

# A JSON string (skipped whole) or one bracket: C-speed tokens for the depth scan (compiled
# by the first text deep enough to need it, not at import).
_DEPTH_PATTERN = r'"(?:[^"\\]|\\.)*"|[\[\]{}]'


def _pairs(pairs) -> JsonObject:
    obj = JsonObject()
    for k, v in pairs:
        if k in obj:
            obj.duplicates.add(k)
            obj.duplicate = obj.duplicate or k
        obj[k] = v
    return obj


def _constant(name: str):
    raise ValueError("expected value")


def _float(text: str) -> float:
    v = float(text)
    if math.isinf(v):
        raise ValueError("number out of range")
    return v


def _int(text: str) -> int:
    # 309 digits is where an integer can pass f64::MAX (serde_json's fallback for big integers)
    if len(text) >= 309 and math.isinf(float(text)):
        raise ValueError("number out of range")
    return int(text)


_DECODER: Any = None  # the strict reader, made by the first line that needs it (_strict)


def _strict() -> Any:
    """The strict reader (``json.JSONDecoder`` with serde's hooks); ``json`` is imported by
    the first line the plain reading cannot take, not at start (issue 34: its regexes)."""
    global _DECODER
    if _DECODER is None:
        import json

        _DECODER = json.JSONDecoder(
            object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float, parse_int=_int
        )
    return _DECODER


# The plain reading: json's C scanner building dicts itself (scan_once: no wrapper, no
# whitespace regex; the server has stripped the line). NaN and the infinities still raise.
# ``json.JSONDecoder(parse_constant=_constant).scan_once``, made without importing json.
_PLAIN_SCAN = make_scanner(_constant)
# An integer literal of 309+ characters (the length _int checks) is >= 10**307: more than
# 1000 bits. Any integer that large is left to the strict reader.
_PLAIN_INT_BITS = 1000
_ENCODER: Any = None  # json.JSONEncoder(separators=(",", ":"), ensure_ascii=False): _encoder()


def _encoder() -> Any:
    """The ``json.JSONEncoder`` of :func:`_encode_deep` (json imported there, not at start)."""
    global _ENCODER
    if _ENCODER is None:
        import json

        _ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    return _ENCODER


def _default(o: object) -> Any:
    """``json.JSONEncoder.default`` (Lib/json/encoder.py), its words: what is not JSON."""
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


# The C encoder behind _ENCODER (json's accelerator, _json), made once: JSONEncoder.encode
# builds a new one for every call (json/encoder.py iterencode), a third of a small reply's
# encoding time. No circular-reference markers: a reply is a tree.
_C_ENCODE = _json.make_encoder(
    None, _default, _json.encode_basestring, None, ":", ",", False, False, True
)


def too_deep(text: str) -> bool:
    """True when ``text`` nests MAX_DEPTH or more arrays/objects (serde_json refuses it)."""
    if len(text) < MAX_DEPTH or text.count("[") + text.count("{") < MAX_DEPTH:
        return False  # the common case: no scan at all (a short line cannot nest so deep)
    depth = 0
    for m in re.finditer(_DEPTH_PATTERN, text):  # re's own cache keeps it compiled
        tok = m.group()
        if tok in "[{":
            depth += 1
            if depth >= MAX_DEPTH:
                return True
        elif tok in "]}":
            depth -= 1
    return False


class DuplicateField(ValueError):
    """serde's "duplicate field" failure at the top level; ``obj`` is the decoded line (last
    value wins) and ``names`` every duplicated key, so 0.9.x can still recover the id."""

    def __init__(self, obj: dict, first: str, names: set):
        super().__init__(f"duplicate field `{first}`")
        self.obj = obj
        self.names = frozenset(names)


def decode_request(text: str):
    """One request line as serde_json would read it (see the module doc); ValueError with
    serde's text otherwise. The same result as :func:`decode_strict`, mostly read faster."""
    if too_deep(text):
        raise ValueError("recursion limit exceeded")
    try:
        obj, end = _PLAIN_SCAN(text, 0)
    except Exception:  # anything the plain reading refuses: the strict reader says why
        return decode_strict(text)
    if end != len(text) or not _plain_is_exact(obj, text.count(":")):
        return decode_strict(text)
    if "\\u" in text and _has_lone_surrogate(obj):
        raise ValueError("lone leading surrogate in hex escape")
    return obj


def decode_strict(text: str):
    """:func:`decode_request` with the strict reader alone (JsonObject for every object, its
    duplicated keys kept for :func:`simherdr.params.parse`)."""
    if too_deep(text):
        raise ValueError("recursion limit exceeded")
    obj = _strict().decode(text)
    if isinstance(obj, JsonObject) and obj.duplicate is not None:
        raise DuplicateField(obj, obj.duplicate, obj.duplicates)
    if "\\u" in text and _has_lone_surrogate(obj):
        raise ValueError("lone leading surrogate in hex escape")
    return obj


def _plain_is_exact(obj, colons: int) -> bool:
    """Whether the plain reading ``obj`` of a text with ``colons`` ':' characters is what the
    strict reader gives: no object lost a duplicated key (outside strings a ':' separates one
    key from its value, so with every ':' a pair of the result there is none; a ':' inside a
    string also sends the text to the strict reader), and no number its hooks refuse (a float
    out of f64 range reads as an infinity; a huge integer)."""
    pairs = 0
    stack = [obj]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is dict:
            pairs += len(v)
            stack.extend(v.values())
        elif t is list:
            stack.extend(v)
        elif t is float:
            if math.isinf(v):
                return False
        elif t is int and v.bit_length() > _PLAIN_INT_BITS:
            return False
    return pairs == colons


def _has_lone_surrogate(obj) -> bool:
    stack = [obj]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def encode(obj) -> bytes:
    return (dumps(obj) + "\n").encode()


def dumps(obj) -> str:
    """Compact JSON of any depth (serde_json writes any depth; Python's encoder recurses)."""
    try:
        if not isinstance(obj, str):
            return "".join(_C_ENCODE(obj, 0))
        return _json.encode_basestring(obj)  # what _ENCODER.encode does with a str
    except RecursionError:  # nested deeper than Python's stack (a deep layout tree)
        return _encode_deep(obj)


def _encode_deep(obj) -> str:
    """The same JSON as ``_ENCODER``, without recursion (serde_json writes any depth)."""
    out: list[str] = []
    stack: list = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item.text)
        elif isinstance(item, dict):
            parts: list = [_Raw("}")]
            for i, (k, v) in enumerate(reversed(list(item.items()))):
                parts.append(v)
                sep = "," if i < len(item) - 1 else ""
                parts.append(_Raw(sep + _json.encode_basestring(str(k)) + ":"))
            parts.append(_Raw("{"))
            stack.extend(parts)
        elif isinstance(item, (list, tuple)):
            parts = [_Raw("]")]
            for i, v in enumerate(reversed(item)):
                parts.append(v)
                if i < len(item) - 1:
                    parts.append(_Raw(","))
            parts.append(_Raw("["))
            stack.extend(parts)
        else:
            out.append(_encoder().encode(item))
    return "".join(out)


class _Raw:
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text
