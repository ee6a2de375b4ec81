"""json's C scanner (``_json.make_scanner``) without importing :mod:`json`.

``import json`` compiles six regular expressions (json.decoder, json.scanner, json.encoder):
about a tenth of what ``simherdr serve`` costs above a bare asyncio server before its first
reply (issue 34). A server reads its first request with the scanner alone, which is what
``json.JSONDecoder(...).scan_once`` is: the C scanner reading these attributes of its
decoder (Lib/json/decoder.py JSONDecoder.__init__, Modules/_json.c scanner_new). Stdlib only.
"""

from __future__ import annotations

import _json
from collections.abc import Callable

TYPE_CHECKING = False  # (not typing's: importing typing costs a stand-in call ~7 ms)
if TYPE_CHECKING:
    from typing import Any, ClassVar

_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Context:
    """What the C scanner reads of a ``json.JSONDecoder`` made with no hooks."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: ClassVar[dict] = {}  # read by no C scanner (it keeps its own); JSONDecoder has one

    def __init__(self, parse_constant: Callable[[str], Any]) -> None:
        self.parse_constant = parse_constant


def make_scanner(
    parse_constant: Callable[[str], Any] = _CONSTANTS.__getitem__,
) -> Callable[[str, int], tuple[Any, int]]:
    """``json.JSONDecoder(parse_constant=parse_constant).scan_once``: ``(value, end)`` of the
    JSON value at an index; StopIteration where none starts, json.JSONDecodeError (a
    ValueError) for a malformed one."""
    return _json.make_scanner(_Context(parse_constant))  # type: ignore[arg-type]


def raw_decode(text: str) -> tuple[Any, int]:
    """``json.JSONDecoder().raw_decode(text)``: the JSON document at the start of ``text`` and
    where it ends; json's own JSONDecodeError (a ValueError) if none starts there."""
    try:
        return _SCAN(text, 0)
    except StopIteration:  # json's own error (raw_decode's words): json is imported only here
        import json

        return json.JSONDecoder().raw_decode(text)


_SCAN = make_scanner()
