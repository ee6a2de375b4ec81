"""How the simulated shell reads a submitted command line: POSIX words, as ``shlex`` splits
them.

Most lines typed into a simulated pane are neither ``cd`` nor an agent, and ``shlex`` costs
about 50 us a line (a 200,000-line paste spent most of its time in it), so callers look at the
first word first: it can be read without a full parse whenever it holds no quote or escape.
"""

from __future__ import annotations

import re
import shlex

__all__ = ["first_word", "split"]

# shlex's whitespace (" \t\r\n"); a quote or backslash in the first word needs the full parse.
_FIRST = re.compile(r"[ \t\r\n]*([^ \t\r\n]*)")
_QUOTING = re.compile(r"['\"\\]")


def first_word(line: str) -> str | None:
    """The first of ``split(line)``'s words without splitting the rest ("" for a blank line),
    or None when it cannot be told without the full parse (a quote or backslash in it)."""
    m = _FIRST.match(line)
    word = m.group(1) if m else ""
    return None if _QUOTING.search(word) else word


def split(line: str) -> list[str] | None:
    """The line's words, or None for a line the shell cannot parse (an open quote)."""
    try:
        return shlex.split(line)
    except ValueError:
        return None
