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
    lines, spanning = _scan(source)
    return len(lines - docstring_lines(source, spanning))


def ast_docstring_lines(source: str) -> set[int]:
    """The lines of the module's, each class's and each function's docstring statement, by
    their definition: the AST's (a body's first statement, an expression that is a str
    constant). :func:`docstring_lines` gives the same without a parse."""
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
    return docstrings


# What can hold a quote or a `#` that is not code: strings (a triple-quoted or backslash-
# continued one spans lines) and comments; and the runs of anything else that is not white
# space or a backslash. For valid Python, the lines where a string or a run starts, with
# every line a string spans, are the lines where tokenize gives a token other than a comment
# (or NL, NEWLINE, INDENT, DEDENT, ENDMARKER): the same set for every .py file of the
# repository when written, at ~1/5 of tokenize's CPU (a fresh clone counts the whole tree:
# 1.8 -> 0.7 s). test_the_scan_gives_tokenizes_lines holds the two together. _STRING: a string
# literal, its prefix aside.
_STRING = r"""(?:\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'''(?:[^'\\]|\\.|'(?!''))*'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
_TOKENS = re.compile(rf"(?P<s>{_STRING})|(?P<c>\#[^\n]*)|(?P<x>[^\s\#'\"\\]+)", re.S)


def token_lines(source: str) -> set[int]:
    """The lines (1-based) carrying a token other than a comment."""
    return _scan(source)[0]


def _scan(source: str) -> tuple[set[int], list[tuple[int, int]]]:
    """:func:`token_lines`, and the (start, end) offsets of the strings that span lines."""
    ends = [m.start() for m in _NEWLINE.finditer(source)]
    lines: set[int] = set()
    spanning: list[tuple[int, int]] = []
    for m in _TOKENS.finditer(source):
        if m.lastgroup == "c":
            continue
        first = bisect.bisect_left(ends, m.start()) + 1
        if m.lastgroup == "s":
            last = bisect.bisect_left(ends, m.end() - 1) + 1
            lines.update(range(first, last + 1))
            if last > first:
                spanning.append((m.start(), m.end()))
        else:
            lines.add(first)
    return lines, spanning


# Docstrings without a parse (this module's CPU on a fresh clone, serially: 1.42 -> 0.77 s; the
# AST of the tree alone was ~1 s): a docstring is the first statement of the module or of a def's or a class's body
# when that statement is string literals only (implicitly concatenated, in parentheses or not;
# no f-string, no bytes). A def or a class begins a line (no compound statement follows a `;`
# or a `:`) outside a string that spans lines; its header ends at its first `:` outside
# brackets, strings and comments (a lambda's, an annotation's or a dict's is in brackets). The
# same lines as the AST's for every .py file of the repository when written (548 files);
# test_the_docstring_scan_gives_the_asts_lines holds the two together.
_NEWLINE = re.compile("\n")
_HEADER = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)(?=[\s(\\])", re.M)
_HEADER_TOKENS = re.compile(
    rf"(?P<s>{_STRING})|(?P<c>\#[^\n]*)|(?P<o>[(\[{{])|(?P<e>[)\]}}])|(?P<k>:(?!=))", re.S
)
_GAP = re.compile(r"(?:[ \t\f\r\n]|\\\n|\#[^\n]*)*")  # white space, comments, line joins
_STATEMENT = re.compile(
    rf"(?P<s>[rRbBuUfF]{{0,2}}{_STRING})|(?P<o>\()|(?P<e>\))"
    r"|(?P<g>(?:[ \t\f\r]|\\\n|\#[^\n]*)+)|(?P<n>\n)|(?P<x>.)",
    re.S,
)


def _string_statement(source: str, pos: int) -> tuple[int, int] | None:
    """The (start, end) offsets of the statement at ``pos`` if it is string literals only."""
    depth, end = 0, None
    for m in _STATEMENT.finditer(source, pos):
        kind = m.lastgroup
        if kind == "s":
            text = m.group()
            if {"b", "f"} & set(text[: len(text) - len(text.lstrip("rRbBuUfF"))].lower()):
                return None  # bytes, or an f-string (a JoinedStr)
            end = m.end()
        elif kind == "o":
            if end is not None:
                return None  # "a"(...): a call
            depth += 1
        elif kind == "e":
            if depth == 0 or end is None:
                return None
            depth -= 1
            end = m.end()
        elif kind == "n":
            if depth == 0:
                break
        elif kind == "x":
            if m.group() == ";" and depth == 0 and end is not None:
                break
            return None  # an operator, a name, a subscript: not a constant alone
    if end is None or depth:
        return None
    return pos, end


def docstring_lines(source: str, spanning: list[tuple[int, int]] | None = None) -> set[int]:
    """:func:`ast_docstring_lines` by a scan; ``spanning``: :func:`_scan`'s strings."""
    if spanning is None:
        spanning = _scan(source)[1]
    starts = [start for start, _ in spanning]
    lines: set[int] = set()

    def take(pos: int) -> None:
        gap = _GAP.match(source, pos)
        found = _string_statement(source, gap.end() if gap else pos)
        if found is not None:
            first = source.count("\n", 0, found[0]) + 1
            lines.update(range(first, first + source.count("\n", found[0], found[1]) + 1))

    take(0)  # the module's
    for header in _HEADER.finditer(source):
        i = bisect.bisect_right(starts, header.start()) - 1
        if i >= 0 and header.start() < spanning[i][1]:
            continue  # a line inside a string
        depth = 0
        for m in _HEADER_TOKENS.finditer(source, header.end()):
            if m.lastgroup == "o":
                depth += 1
            elif m.lastgroup == "e":
                depth -= 1
            elif m.lastgroup == "k" and depth == 0:
                take(m.end())
                break
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


TRICKY_DOCS = "\n".join(
    [
        "#!/usr/bin/env python",
        "# -*- coding: utf-8 -*-",
        "",
        '"Module" \\',
        '   " doc."',
        "import x",
        "@decorator(key=lambda v: v)",
        "async def f(a: 'int' = {'k': 1}, b=(c := 2)) -> \"str\":  # a comment",
        "    # before it",
        "",
        "    (",
        "        'parenthesised'",
        "        u'doc'",
        "    )",
        "    def g(): 'one line'; return 1",
        "    def h(): return 'no doc'",
        "    class K(Base, metaclass=M): x: 'an annotation'",
        "    def i(x,",
        "          y) \\",
        "            -> int:",
        "        r'''raw",
        "        def fake():",
        "            'inside a string'",
        "        '''",
        "    if a:",
        "        'not a docstring'",
        "    def j(): f'formatted'",
        "    def k(): b'bytes'",
        "    def m(): 'a'.upper()",
        "    def n(): 'a' + 'b'",
        "    def o(): ('a')[0]",
        "    def p(): 'a'(1)",
        "    def q(): 'a', 'b'",
        "    def r():",
        "        'first'",
        "        'second'",
        "class L:",
        "    '''Doc.'''  # trailing",
        "    def s(self): ...",
        "    def t(self): 'doc';",
        "def u(): ''",
        "",
    ]
)


def test_the_docstring_scan_gives_the_asts_lines():
    """The scan and the AST agree on these spellings and on real modules (the repository's
    548 .py files agreed when written: a new spelling they disagree on belongs above)."""
    sources = [TRICKY_DOCS, pathlib.Path(__file__).read_text()]
    sources += [(ROOT / "simherdr" / name).read_text() for name in ("cli.py", "clock.py")]
    for source in sources:
        assert docstring_lines(source) == ast_docstring_lines(source)
    assert sorted(docstring_lines(TRICKY_DOCS)) == [
        4,
        5,
        11,
        12,
        13,
        14,
        15,
        21,
        22,
        23,
        24,
        35,
        38,
        40,
        41,
    ]


def test_no_module_over_the_limit(sizes):
    assert "simherdr/model/state.py" in sizes and "client/opener.py" in sizes  # the scan sees both
    over = {path: n for path, n in sorted(sizes.items()) if n > LIMIT and path not in ALLOWED}
    assert over == {}, f"split these by what they hold (at most {LIMIT} lines of code each)"


def test_the_allow_list_only_shrinks(sizes):
    stale = [path for path in ALLOWED if sizes.get(path, 0) <= LIMIT]
    assert stale == [], "under the limit now (or gone): remove them from ALLOWED"
