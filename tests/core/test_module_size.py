"""No module of simherdr/ or client/ holds more than 700 lines of code (issue 24: a module a
newcomer can read whole). A line of code carries a token that is not a comment; docstrings and
blank lines do not count. Data that is written as code is allowed by name below, each with
why it is not split; the list only shrinks (an entry under the limit fails too)."""

from __future__ import annotations

import ast
import io
import pathlib
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
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in _NOT_CODE:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return len(lines - docstrings)


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


def test_no_module_over_the_limit(sizes):
    assert "simherdr/model/state.py" in sizes and "client/opener.py" in sizes  # the scan sees both
    over = {path: n for path, n in sorted(sizes.items()) if n > LIMIT and path not in ALLOWED}
    assert over == {}, f"split these by what they hold (at most {LIMIT} lines of code each)"


def test_the_allow_list_only_shrinks(sizes):
    stale = [path for path in ALLOWED if sizes.get(path, 0) <= LIMIT]
    assert stale == [], "under the limit now (or gone): remove them from ALLOWED"
