"""No module of simherdr/ or client/ holds more than 700 lines of code (issue 24: a module a
newcomer can read whole). A line of code carries a token that is not a comment; docstrings and
blank lines do not count. Data that is written as code is allowed by name below, each with
why it is not split; the list only shrinks (an entry under the limit fails too)."""

from __future__ import annotations

import ast
import bisect
import io
import pathlib
import re
import tokenize

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIMIT = 700
_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
}

ALLOWED = {
    # herdr's clap tree transcribed (src/cli/spec.rs); the stand-in imports it only for help.
    "simherdr/stub/cli/spec.py": "data: herdr's clap tree",
}


def code_lines(source: str) -> int:
    """Lines carrying a token other than a comment, docstrings excluded."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return len(token_lines(source) - docstrings)


# What can hold a quote or a `#` that is not code: strings (a triple-quoted or backslash-
# continued one spans lines) and comments; and the runs of anything else that is not white
# space or a backslash. For valid Python, the lines where a string or a run starts, with
# every line a string spans, are the lines where tokenize gives a token other than a comment
# (or NL, NEWLINE, INDENT, DEDENT, ENDMARKER): the same set for every .py file of the
# repository when written, at ~1/5 of tokenize's CPU (a fresh clone counts the whole tree:
# 1.8 -> 0.7 s). test_the_scan_gives_tokenizes_lines holds the two together.
_TOKENS = re.compile(
    r"""
    (?P<s>
        \"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"
      | '''(?:[^'\\]|\\.|'(?!''))*'''
      | "(?:[^"\\\n]|\\.)*"
      | '(?:[^'\\\n]|\\.)*'
    )
  | (?P<c>\#[^\n]*)
  | (?P<x>[^\s\#'"\\]+)
    """,
    re.S | re.X,
)


def token_lines(source: str) -> set[int]:
    """The lines (1-based) carrying a token other than a comment."""
    ends = [i for i, ch in enumerate(source) if ch == "\n"]
    lines: set[int] = set()
    for m in _TOKENS.finditer(source):
        if m.lastgroup == "c":
            continue
        first = bisect.bisect_left(ends, m.start()) + 1
        if m.lastgroup == "s":
            lines.update(range(first, bisect.bisect_left(ends, m.end() - 1) + 2))
        else:
            lines.add(first)
    return lines


def tokenize_lines(source: str) -> set[int]:
    """:func:`token_lines` by its definition: tokenize's tokens."""
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in _NOT_CODE:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return lines


def _count(config: pytest.Config) -> dict[str, int]:
    from tests import filescan

    files = [*(ROOT / "simherdr").rglob("*.py"), *(ROOT / "client").rglob("*.py")]
    counted = filescan.per_file(config, "module-size", __file__, files, code_lines)
    return {str(f.relative_to(ROOT)): n for f, n in counted}  # type: ignore[misc]


@pytest.fixture
def sizes(request) -> dict[str, int]:
    """Every test reads the same tree: counted once per run (tests/background.py: once),
    whichever xdist worker gets a test first; a file tokenized again only when its bytes (or
    this module) changed (tests/filescan.py)."""
    from tests import background

    sizes = background.once(request.config, "module-sizes", lambda: _count(request.config))
    return sizes  # type: ignore[return-value]


def test_code_lines_skip_docstrings_comments_and_blank_lines():
    source = '"""Module\ndoc."""\n\n# a comment\ndef f():\n    """Doc."""\n    return {\n        1: 2,\n    }\n'
    assert code_lines(source) == 4  # def, return {, 1: 2, }


TRICKY = "\n".join(
    [
        'x = r"\\"" + rb\'\\\'\' + f"{a[\'k\']}#" + "#not a comment"  # one',
        "y = (",
        "    # only a comment",
        "",
        "    'a'",
        "    # between",
        "    'b'",
        ")",
        "s = '''",
        "line with a ''' + \"\"\"",
        '\\""" still in',
        "",
        '"""',
        'c = "back\\',
        'slash"; d = 1 + \\',
        "    2",
        "class K:",
        "    '''Doc",
        "",
        "    more.'''",
        "",
        "    def f(self):  # c",
        "        return b'#'",
        "\f",
        "# end",
        "",
    ]
)


def test_the_scan_gives_tokenizes_lines():
    for source in (TRICKY, pathlib.Path(__file__).read_text()):
        assert token_lines(source) == tokenize_lines(source)
    assert len(token_lines(TRICKY)) == 19


def test_no_module_over_the_limit(sizes):
    assert "simherdr/model/state.py" in sizes and "client/opener.py" in sizes  # the scan sees both
    over = {path: n for path, n in sorted(sizes.items()) if n > LIMIT and path not in ALLOWED}
    assert over == {}, f"split these by what they hold (at most {LIMIT} lines of code each)"


def test_the_allow_list_only_shrinks(sizes):
    stale = [path for path in ALLOWED if sizes.get(path, 0) <= LIMIT]
    assert stale == [], "under the limit now (or gone): remove them from ALLOWED"
