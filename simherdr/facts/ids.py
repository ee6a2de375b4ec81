"""herdr's public identifiers (SOCKET.md §2).

Numbers are written in herdr's bijective base-32 over ``123456789ABCDEFGHJKMNPQRSTVWXYZ0``
(src/workspace.rs:107,114-139): 1-9, then A (10) ... Z (31), 0 (32), 11 (33). The tenth pane
is ``pA``, never ``p10``.
"""

from __future__ import annotations

ALPHABET = "123456789ABCDEFGHJKMNPQRSTVWXYZ0"
_BASE = len(ALPHABET)
_DIGIT = {c: i + 1 for i, c in enumerate(ALPHABET)}


def encode(n: int) -> str:
    if n < 1:
        raise ValueError(f"herdr ids start at 1, got {n}")
    out = []
    while n > 0:
        n -= 1
        out.append(ALPHABET[n % _BASE])
        n //= _BASE
    return "".join(reversed(out))


U64_MAX = 2**64 - 1


def decode(text: str) -> int | None:
    """Inverse of :func:`encode`; case-sensitive like herdr. ``None`` if not a number, or if
    it does not fit herdr's 64-bit integers (CHOICE: overflow is "no such id"; it also keeps
    a megabyte-long id from costing quadratic big-integer time)."""
    if not text:
        return None
    n = 0
    for c in text:
        d = _DIGIT.get(c)
        if d is None:
            return None
        n = n * _BASE + d
        if n > U64_MAX:
            return None
    return n


def parse_index(text: str) -> int | None:
    """A decimal ``usize`` like Rust's ``str::parse``: ASCII digits only, no sign, no
    whitespace, at most 64 bits; else ``None`` (Python's ``int`` would accept ``"²"``-like
    digits, surrounding whitespace, and raise on more than 4300 digits)."""
    if not (text.isascii() and text.isdigit()):  # ASCII digits only, at least one
        return None
    n = int(text) if len(text) <= 20 else U64_MAX + 1
    return n if n <= U64_MAX else None


def workspace_id(n: int) -> str:
    return "w" + encode(n)


def tab_id(ws: str, n: int) -> str:
    return f"{ws}:t{encode(n)}"


def pane_id(ws: str, n: int) -> str:
    return f"{ws}:p{encode(n)}"


def terminal_id(epoch_micros: int, counter: int) -> str:
    """``term_`` + hex(micros since epoch) + hex(global counter) (src/terminal/id.rs:12-22)."""
    return f"term_{epoch_micros:x}{counter:x}"


# --- lenient input forms (SOCKET.md §2.2, src/app/ids.rs) -----------------------------------

# An exact workspace id: "w" and one or more of herdr's id digits (src/app/ids.rs), as string
# tests (no regex compiled at import: `simherdr serve`'s start, issue 26).
_WS_DIGITS = frozenset(ALPHABET)


def _is_workspace_id(text: str) -> bool:
    return len(text) > 1 and text[0] == "w" and _WS_DIGITS.issuperset(text[1:])


def parse_workspace_ref(text: str) -> tuple[str, object] | None:
    """Classify a workspace reference.

    Returns ``("id", "w3")`` for an exact id, ``("pos", k)`` for ``w_<k>`` / bare ``<k>``
    (1-based sidebar position, not bounds-checked here: callers check, which is where
    tab.create's ``tab_create_failed`` quirk comes from), or ``None``.
    """
    if _is_workspace_id(text):
        return ("id", text)
    k = parse_index(text[2:]) if text.startswith("w_") else None
    if k is not None:
        return ("pos", k)
    k = parse_index(text)
    if k is not None:
        return ("pos", k)
    return None


def split_scoped(text: str, marker: str) -> tuple[str, str] | None:
    """Split ``<ws>:<marker><N>`` into (ws_ref, encoded N)."""
    ws, sep, rest = text.rpartition(":")
    if not sep or not ws:
        return None
    if marker and rest.startswith(marker):
        return ws, rest[len(marker) :]
    return None
