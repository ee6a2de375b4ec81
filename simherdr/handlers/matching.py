"""Output matching for ``pane.wait_for_output`` and ``pane.output_matched`` subscriptions.

herdr compiles ``match.type == "regex"`` with Rust's ``regex`` crate (src/api/wait.rs:35,
src/api/subscriptions.rs:219), which runs in linear time and has no backreferences or
lookaround. Python's ``re`` backtracks: ``(a*)*b`` against a line of ``a``s takes time
exponential in the line and would stall every client of the one event loop. RE2 is a
linear-time engine with the same feature set (both refuse backreferences and lookaround),
so the patterns herdr refuses are refused here too (``invalid_regex``, herdr's code).

CHOICE(regex-dialect): RE2's ``\\w``, ``\\d``, ``\\s`` and ``\\b`` are ASCII where Rust's are
Unicode-aware, and RE2's parse-error texts are RE2's (herdr's message is the regex crate's
``Display``); the common subset clients use (literals, classes, anchors, ``\\p{..}``,
``(?i)``, repetition) agrees.
"""

from __future__ import annotations

from collections.abc import Callable

import re2

from ..facts import errors as E

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would print every refused pattern to the server's stderr

LinePredicate = Callable[[str], bool]


def compile_match(match: dict) -> LinePredicate:
    """A line predicate for ``{"type": "substring"|"regex", "value": ...}``."""
    value = match["value"]
    if match["type"] == "substring":
        return lambda line: value in line
    try:
        rx = re2.compile(value, _OPTIONS)
    except re2.error as e:
        detail = (
            e.args[0].decode("utf-8", "replace")
            if e.args and isinstance(e.args[0], bytes)
            else str(e)
        )
        raise E.invalid_regex(detail) from None
    return lambda line: rx.search(line) is not None
