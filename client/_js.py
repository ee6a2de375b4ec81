"""JavaScript semantics the real clients rely on (they are Node programs).

- :func:`js_trim`: ``String.prototype.trim`` (ECMAScript WhiteSpace + LineTerminator), which is
  not Python's ``str.strip`` (that one also strips U+001C..U+001F and U+0085, and keeps U+FEFF);
- :func:`utf16_length`: ``string.length`` (UTF-16 code units);
- :func:`json_stringify`: ``JSON.stringify`` of a string (well-formed, ES2019): raw non-ASCII,
  short escapes, other C0 as ``\\u00xx`` lowercase, lone surrogates as ``\\udxxx``;
- :func:`is_cc` / :func:`has_cc`: ``\\p{Cc}`` (C0, DEL, C1);
- :func:`js_truthy`: JS truthiness of a parsed JSON value;
- :func:`parse_json`: ``JSON.parse`` (no NaN/Infinity, whitespace = space, tab, LF, CR).
"""

from __future__ import annotations

import json

# ECMAScript WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP, Zs) and LineTerminator (LF, CR, LS, PS).
_JS_SPACE = frozenset(
    "\u0009\u000b\u000c\u0020\u00a0\ufeff"
    "\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
    "\u000a\u000d\u2028\u2029"
)


def js_trim(s: str) -> str:
    start, end = 0, len(s)
    while start < end and s[start] in _JS_SPACE:
        start += 1
    while end > start and s[end - 1] in _JS_SPACE:
        end -= 1
    return s[start:end]


def utf16_length(s: str) -> int:
    return sum(2 if ord(c) > 0xFFFF else 1 for c in s)


def is_cc(c: str) -> bool:
    o = ord(c)
    return o <= 0x1F or 0x7F <= o <= 0x9F


def has_cc(s: str) -> bool:
    return any(is_cc(c) for c in s)


_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def json_stringify(s: str) -> str:
    parts = ['"']
    for c in s:
        o = ord(c)
        if c in _SHORT:
            parts.append(_SHORT[c])
        elif o < 0x20 or 0xD800 <= o <= 0xDFFF:
            parts.append("\\u%04x" % o)
        else:
            parts.append(c)
    parts.append('"')
    return "".join(parts)


def js_truthy(v) -> bool:
    if v is None or v is False:
        return False
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v == v and v != 0
    if isinstance(v, str):
        return v != ""
    return True  # true, objects and arrays (even empty ones)


def _no_constant(name):
    raise ValueError("not JSON: " + name)


def parse_json(text: str):
    """``JSON.parse(text)``; raises ValueError where JS would throw."""
    if not isinstance(text, str):
        raise ValueError("not a string")
    stripped = text.strip(" \t\n\r")
    return json.loads(stripped, parse_constant=_no_constant)
