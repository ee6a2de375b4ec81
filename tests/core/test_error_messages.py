"""herdr's error messages have one place on the socket's side: simherdr/facts/errors.py
(CONTRIBUTING: "New error codes and messages go in facts/errors.py"). A handler raises a
builder from there; it writes no message text itself. A message another layer owns (git's,
a plugin manifest's, a release row's) is passed through a builder as a value.

A module not moved yet would be listed in NOT_MOVED with its count; the list only shrinks."""

from __future__ import annotations

import ast
import functools
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
HANDLERS = ROOT / "simherdr" / "handlers"

# Not moved yet (issue 24 item 5): module -> HerdrError(...) calls with a literal message.
NOT_MOVED: dict[str, int] = {}  # every handler module moved (issue 24 item 5)


def _has_text(node: ast.expr) -> bool:
    return any(
        isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant) and isinstance(n.value, str))
        for n in ast.walk(node)
    )


def literal_messages(source: str) -> int:
    """``HerdrError(code, message)`` calls whose message is (or is built from) literal text."""
    if "HerdrError" not in source:
        return 0  # no such call (the scan below matches the name only): nothing to parse
    count = 0
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name == "HerdrError" and len(node.args) >= 2 and _has_text(node.args[1]):
            count += 1
    return count


@functools.cache  # the handlers, scanned once for the tests that read the counts
def _counts() -> dict[str, int]:
    return {p.name: literal_messages(p.read_text()) for p in sorted(HANDLERS.glob("*.py"))}


def test_the_scan_sees_a_literal_message():
    assert literal_messages('raise E.HerdrError("x", f"agent {t} not found")') == 1
    assert literal_messages('raise E.HerdrError("x", "a" if y else "b")') == 1
    assert literal_messages("raise E.HerdrError(e.code, e.message)") == 0
    assert literal_messages("raise E.agent_not_found(target)") == 0


def test_handlers_write_no_message_text():
    counts = _counts()
    assert "agent.py" in counts and "worktree.py" in counts  # the scan sees the package
    written = {m: n for m, n in counts.items() if n and m not in NOT_MOVED}
    assert written == {}, "move these messages to simherdr/facts/errors.py builders"


def test_the_not_moved_list_only_shrinks():
    counts = _counts()
    grown_or_moved = {m: counts.get(m, 0) for m, n in NOT_MOVED.items() if counts.get(m, 0) != n}
    assert grown_or_moved == {}, "update NOT_MOVED: drop a moved module, never grow a count"
