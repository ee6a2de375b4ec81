"""0.9.x copy-mode reads: pane.selection.read, pane.copy_motion, pane.copy_search
([H093] src/app/api/panes.rs pane_selection_text, handle_pane_copy_motion,
handle_pane_copy_search). Rows are absolute (scrollback first, then the grid), columns cells."""

from __future__ import annotations

import re

from .. import params as P
from ..facts import errors as E
from .registry import method


def U16(v):
    v = P.U64(v)
    if v > 65535:
        raise P.ParamError(f"invalid value: integer `{v}`, expected u16")
    return v


POINT = P.struct(row=P.req(P.U32), col=P.req(U16))
RANGE = P.struct(start=P.req(POINT), end=P.req(POINT))
MOTIONS = (
    "line_end",
    "first_non_blank",
    "next_word_start",
    "previous_word_start",
    "next_word_end",
    "next_big_word_start",
    "previous_big_word_start",
    "next_big_word_end",
    "previous_paragraph",
    "next_paragraph",
)
MAX_QUERY_BYTES = 4096
MAX_RETURNED_MATCHES = 1024


def _stale():
    return E.stale_content()


def _checked(sim, p, *, message_form: bool = False):
    """The pane and its screen, after the content_revision check (odd means mid-update)."""
    pane = sim.session.find_pane(p["pane_id"])
    if pane is None:
        if message_form:  # pane_selection_text's own wording
            raise E.pane_not_found_colon(p["pane_id"])
        raise E.pane_not_found(p["pane_id"])
    screen = pane.screen
    rev = p.get("content_revision")
    now = screen.content_revision()
    if rev is not None and (rev != now or now % 2):
        raise _stale()
    return pane, screen


@method(
    "pane.selection.read",
    pane_id=P.req(P.STR),
    anchor=P.req(POINT),
    cursor=P.req(POINT),
    content_revision=P.opt(P.U64),
)
def selection_read(sim, p):
    pane, screen = _checked(sim, p, message_form=True)
    text = screen.selection_text(
        (p["anchor"]["row"], p["anchor"]["col"]), (p["cursor"]["row"], p["cursor"]["col"])
    )
    if text is None:
        raise E.selection_unavailable()
    return {"type": "pane_selection", "pane_id": p["pane_id"], "text": text}


# --- motions: CHOICE vi-style classes (word: [A-Za-z0-9_] runs or other non-blank runs;
# WORD: non-blank runs; paragraph: the next/previous blank row), within a row for words.


def _row_text(screen, row: int) -> str | None:
    rows = screen._all_rows()
    if row >= len(rows):
        return None
    return "".join(c if c else "" for c in rows[row].cells)


def _class(ch: str, big: bool) -> int:
    if ch.isspace() or ch == "":
        return 0
    if big:
        return 1
    return 1 if (ch.isalnum() or ch == "_") else 2


def _word_motion(text: str, col: int, motion: str) -> int:
    big = "big" in motion
    n = len(text)
    col = min(col, max(n - 1, 0))
    if motion.startswith("next") and motion.endswith("start"):
        i = col
        cls = _class(text[i], big) if i < n else 0
        while i < n and cls and _class(text[i], big) == cls:
            i += 1
        while i < n and _class(text[i], big) == 0:
            i += 1
        return i if i < n else col
    if motion.startswith("next") and motion.endswith("end"):
        i = col + 1
        while i < n and _class(text[i], big) == 0:
            i += 1
        if i >= n:
            return col
        cls = _class(text[i], big)
        while i + 1 < n and _class(text[i + 1], big) == cls:
            i += 1
        return i
    i = col - 1  # previous word start
    while i >= 0 and _class(text[i], big) == 0:
        i -= 1
    if i < 0:
        return col
    cls = _class(text[i], big)
    while i - 1 >= 0 and _class(text[i - 1], big) == cls:
        i -= 1
    return i


@method(
    "pane.copy_motion",
    pane_id=P.req(P.STR),
    cursor=P.req(POINT),
    motion=P.req(P.enum(*MOTIONS)),
    content_revision=P.opt(P.U64),
)
def copy_motion(sim, p):
    pane, screen = _checked(sim, p)
    row, col = p["cursor"]["row"], p["cursor"]["col"]
    motion = p["motion"]
    width = max(screen.cols, 1)
    if motion in ("line_end", "first_non_blank"):
        text = _row_text(screen, row)
        if text is None:
            raise E.copy_row_unavailable()
        if motion == "line_end":
            stripped = text.rstrip()
            col = max(len(stripped) - 1, 0)
        else:
            col = len(text) - len(text.lstrip()) if text.strip() else 0
        col = min(col, width - 1)
    elif motion.endswith("paragraph"):
        step = -1 if motion == "previous_paragraph" else 1
        rows = screen._all_rows()
        r = row + step
        while 0 <= r < len(rows) and rows[r].text():
            r += step
        if 0 <= r < len(rows):
            row = r
    else:
        text = _row_text(screen, row)
        if text:
            col = _word_motion(text, col, motion)
    return {
        "type": "pane_copy_motion",
        "pane_id": p["pane_id"],
        "cursor": {"row": row, "col": col},
        "content_revision": screen.content_revision(),
    }


@method(
    "pane.copy_search",
    pane_id=P.req(P.STR),
    query=P.req(P.STR),
    direction=P.req(P.enum("forward", "backward")),
    cursor=P.req(POINT),
    content_revision=P.req(P.U64),
    previous=P.opt(RANGE),
)
def copy_search(sim, p):
    """Matches of ``query`` (smart case: case-sensitive when it has an upper-case letter),
    in reading order; ``current`` is the first match after (forward) or before (backward) the
    cursor. CHOICE: plain substring matches within a row, at most 1024 returned."""
    pane = sim.session.find_pane(p["pane_id"])
    if pane is None:
        raise E.pane_not_found(p["pane_id"])
    if len(p["query"].encode()) > MAX_QUERY_BYTES:
        raise E.copy_query_too_large()
    pane, screen = _checked(sim, p)
    query = p["query"]
    flags = 0 if any(c.isupper() for c in query) else re.IGNORECASE
    found = []
    if query:
        pattern = re.compile(re.escape(query), flags)
        for r, row in enumerate(screen._all_rows()):
            text = "".join(row.cells)
            for m in pattern.finditer(text):
                found.append((r, m.start(), m.end() - 1))
    cur = (p["cursor"]["row"], p["cursor"]["col"])
    current = None
    if found:
        if p["direction"] == "forward":
            after = [i for i, (r, c, _) in enumerate(found) if (r, c) > cur]
            current = after[0] if after else 0
        else:
            before = [i for i, (r, c, _) in enumerate(found) if (r, c) < cur]
            current = before[-1] if before else len(found) - 1
    shown = found[:MAX_RETURNED_MATCHES]
    out = {
        "type": "pane_copy_search",
        "pane_id": p["pane_id"],
        "content_revision": screen.content_revision(),
        "matches": [
            {"start": {"row": r, "col": a}, "end": {"row": r, "col": b}} for r, a, b in shown
        ],
        "total": len(found),
    }
    if current is not None:
        out["current_global"] = current
        if current < len(shown):
            out["current"] = current
    return out
