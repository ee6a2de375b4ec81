"""No version string decides behaviour outside the release data (issue 20).

A release's differences are rows of facts/releases/*.toml, read through the version object
(facts/versions.py); code never defaults to a version, compares one, or tests a prefix of one.
This AST scan of simherdr/ fails on a version-like string literal ("0.8.2", "0.9") used as:
a parameter default, a class-level (dataclass field) default, an operand of a comparison, the
argument of ``.startswith``/``.endswith``, a ``default=`` keyword, or an ``or`` fallback.
Table keys ("0.8.2" naming the table read from that release) are dict keys, never compared,
and pass. ``ALLOWED`` lists what is still being converted, by file and literal; an entry
that no longer occurs fails too, so the list only shrinks.

The suite (tests/) is scanned too, with one difference: a comparison that is the whole test of
an ``assert`` (or one term of its ``and``) states a fact (``assert v.name == "0.8.2"``) and
passes; one that decides what a test expects (``if version == ...``, ``x if version == ...``,
``(a in out) == (version == ...)``, a helper returning one) fails. A test asks the row the
behaviour depends on (tests/releases.py: ``rows(v)``, ``tables(v)``, ``grammar(v)``).
"""

from __future__ import annotations

import ast
import bisect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "simherdr"
TESTS = Path(__file__).resolve().parents[1]
VERSION_LIKE = re.compile(r"^\d+\.\d+(\.\d+)?$")

# (path under simherdr/, literal): what is still being converted (empty: keep it so).
ALLOWED: set[tuple[str, str]] = set()

# (path under tests/, literal): each with its reason.
ALLOWED_TESTS: set[tuple[str, str]] = {
    # a plugin manifest's min_herdr_version field (herdr's plugin format), not a release choice
    ("plugins/helpers.py", "0.8.0"),
}


def _is_version(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and bool(VERSION_LIKE.match(node.value))
    )


def _asserted(tree: ast.AST) -> set[int]:
    """The comparisons that are an assert's whole test or one term of its ``and``."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            terms = node.test.values if isinstance(node.test, ast.BoolOp) else [node.test]
            if isinstance(node.test, ast.BoolOp) and not isinstance(node.test.op, ast.And):
                terms = [node.test]
            out.update(id(t) for t in terms if isinstance(t, (ast.Compare, ast.Call)))
    return out


def _hits(tree: ast.AST, facts: set[int] = frozenset()):  # type: ignore[assignment]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for d in [*node.args.defaults, *node.args.kw_defaults]:
                if d is not None and _is_version(d):
                    yield d, "a parameter default"
        elif isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                    if _is_version(stmt.value):
                        yield stmt.value, "a field default"
        elif isinstance(node, ast.Compare) and id(node) not in facts:
            for operand in [node.left, *node.comparators]:
                if _is_version(operand):
                    yield operand, "a comparison"
                elif isinstance(operand, (ast.Tuple, ast.List, ast.Set)):
                    for elt in operand.elts:
                        if _is_version(elt):
                            yield elt, "a comparison"
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("startswith", "endswith"):
                for a in node.args:
                    if _is_version(a):
                        yield a, f"a .{func.attr}() prefix test"
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "at_least"
                and id(node) not in facts
            ):
                for a in node.args:
                    if _is_version(a):
                        yield a, "an .at_least() comparison"
            for kw in node.keywords:
                if kw.arg == "default" and _is_version(kw.value):
                    yield kw.value, "a default= keyword"
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            for v in node.values:
                if _is_version(v):
                    yield v, "an `or` fallback"


# A version-like str constant (digits, dots: VERSION_LIKE) is one literal, or pieces implicitly
# concatenated, each written with digits, dots, escapes and backslash-newlines only. One of its
# pieces then holds a dot (".", or an escape that may be one) and a digit (or an escape), or a
# piece with a dot and no digit is followed by another piece ("0" "." "8": a version ends with
# a digit). A file with none of these holds no such constant and is not parsed (simherdr/: 19
# of 237 files, tests/: 96 of 285; when any digits and dots or any escape sent a file to the
# parse: 84 and 178). test_the_prefilter_lets_every_spelling_of_a_version_through holds it to
# each spelling.
_ESCAPE = r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}\n]*\}|[0-7]{1,3}|\n)"
_UNIT = rf"(?:[\d.]|{_ESCAPE})"  # what a piece of a version constant is written with
_DOT = r"(?:\.|\\x2[eE]|\\u002[eE]|\\U0000002[eE]|\\N\{[^}\n]*\}|\\0?56)"  # a dot's spellings
_DIGIT = rf"(?:\d|{_ESCAPE})"  # a digit's (an escape may be one)
_DOTS = rf"(?:\.|{_ESCAPE})"  # no digit
_GAP = r"(?:\s|\#[^\n]*|\\\n)*[rRuU]{0,2}"  # between two pieces: space, comments, a prefix
MAYBE_VERSION = re.compile(
    rf"""(?P<q>["']){_UNIT}*(?:{_DIGIT}{_UNIT}*{_DOT}|{_DOT}{_UNIT}*{_DIGIT}){_UNIT}*(?P=q)"""
    rf"""|(?P<a>["']){_DOTS}*{_DOT}{_DOTS}*(?P=a){_GAP}(?P<b>["']){_UNIT}*(?P=b)"""
)


def _candidate_lines(source: str) -> list[tuple[int, int]]:
    """The first and last line of each :data:`MAYBE_VERSION` match. A version constant holds
    one of its matches (a piece with a dot and a digit, or a dot-only piece and the next), so
    it lies in a top-level statement that overlaps one of these spans."""
    starts = [0]
    at = source.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = source.find("\n", at + 1)
    return [
        (bisect.bisect_right(starts, m.start()), bisect.bisect_right(starts, m.end() - 1))
        for m in MAYBE_VERSION.finditer(source)
    ]


def _scan_source(source: str, tests: bool) -> list[tuple[int, str, str]]:
    spans = _candidate_lines(source)
    if not spans:
        return []
    tree = ast.parse(source)
    # only the top-level statements (with their decorators) that hold a candidate are walked:
    # ~1 in 10 of a scanned file's (the walk: ~60% less CPU, the same hits in the same order)
    kept = []
    for stmt in tree.body:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
        last = stmt.end_lineno or stmt.lineno
        if any(first <= hi and lo <= last for lo, hi in spans):
            kept.append(stmt)
    module = ast.Module(body=kept, type_ignores=[])
    return [
        (node.lineno, node.value, how)  # type: ignore[attr-defined]
        for node, how in _hits(module, _asserted(module) if tests else set())
    ]


def scan(
    root: Path = ROOT, *, tests: bool = False, config: pytest.Config | None = None
) -> list[tuple[str, int, str, str]]:
    """Every hit under ``root``; with ``config``, a file's hits are kept by its bytes in
    pytest's cache (tests/filescan.py) and only changed files are parsed again."""
    files = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if tests and rel.startswith("contract/corpus/"):
            continue  # recorded conversations, not tests
        files.append(path)

    def one(source: str) -> list[tuple[int, str, str]]:
        return _scan_source(source, tests)

    if config is None:
        hits = [(path, one(path.read_text(encoding="utf-8"))) for path in files]
    else:
        from tests import filescan

        kind = "version-literals-tests" if tests else "version-literals"
        hits = filescan.per_file(config, kind, __file__, files, one)  # type: ignore[assignment]
    return [
        (path.relative_to(root).as_posix(), line, value, how)
        for path, found in hits
        for line, value, how in found  # type: ignore[union-attr]
    ]


def test_no_version_literal_decides_behaviour(request):
    found = scan(config=request.config)
    bad = [
        f"simherdr/{p}:{line}: {lit!r} as {how}"
        for p, line, lit, how in found
        if (p, lit) not in ALLOWED
    ]
    assert not bad, (
        "a version string decides behaviour; add a row to facts/releases/*.toml (or a table "
        "key) and read it through the version object instead:\n" + "\n".join(bad)
    )
    stale = ALLOWED - {(p, lit) for p, _, lit, _ in found}
    assert not stale, f"converted: remove from ALLOWED: {sorted(stale)}"


def test_no_version_literal_decides_a_test(request):
    found = scan(TESTS, tests=True, config=request.config)
    bad = [
        f"tests/{p}:{line}: {lit!r} as {how}"
        for p, line, lit, how in found
        if (p, lit) not in ALLOWED_TESTS
    ]
    assert not bad, (
        "a test branches on a version string; ask the row it depends on instead "
        "(tests/releases.py: rows(v).<row>, tables(v).<table>, grammar(v).<row>, "
        "distinguishing(<row>)):\n" + "\n".join(bad)
    )
    stale = ALLOWED_TESTS - {(p, lit) for p, _, lit, _ in found}
    assert not stale, f"converted: remove from ALLOWED_TESTS: {sorted(stale)}"


def test_the_tests_scan_lets_asserted_facts_pass(tmp_path):
    (tmp_path / "t.py").write_text(
        "assert v.name == '0.8.2'\n"  # a fact: fine
        "assert ok and v.name == '0.8.2'\n"  # a fact: fine
        "if version == '0.8.2': pass\n"
        "x = 1 if version == '0.9.3' else 2\n"
        "assert ('a' in out) == (version == '0.8.2')\n"
        "def old(v): return v == '0.8.0'\n"
        "def call(version='0.9.3'): pass\n"
        "if v.at_least('0.9.0'): pass\n"
        "assert v.at_least('0.9.0')\n"  # a fact: fine
    )
    hows = [how for _, _, _, how in scan(tmp_path, tests=True)]
    assert hows.count("a comparison") == 4 and hows.count("a parameter default") == 1
    assert hows.count("an .at_least() comparison") == 1
    assert len(scan(tmp_path)) == 9  # the code's scan lets no comparison pass


def test_the_scan_catches_each_form(tmp_path):
    (tmp_path / "m.py").write_text(
        "def f(v='0.8.2'): pass\n"
        "class C:\n    kinds: str = '0.8.2'\n"
        "x = v == '0.9.3'\n"
        "y = v in ('0.9.0', '0.9.1')\n"
        "z = v.startswith('0.8')\n"
        "p.add_argument('--v', default='0.9.3')\n"
        "w = v or '0.9.3'\n"
        "TABLES = {'0.8.2': 1}\n"  # a table key: fine
        "DEFAULT_VERSION = '0.9.3'\n"  # a named constant: fine
        "@option(\n    default='0.8.0',\n)\ndef g():\n    pass\n"  # in a decorator, lines above
    )
    hows = [how for _, _, _, how in scan(tmp_path)]
    assert hows.count("a comparison") == 3 and hows.count("a default= keyword") == 2
    assert {
        "a parameter default",
        "a field default",
        "a .startswith() prefix test",
        "a default= keyword",
        "an `or` fallback",
    } <= set(hows)
    assert len(hows) == 9


@pytest.mark.parametrize(
    "literal",
    ['"0.8.2"', "'0.9'", 'r"0.8.2"', '"""0.8.2"""', '"0" ".8"', '"0" "." "8"', '"0\\x2e8"',
     '"0\\u002e9"', '"0\\N{FULL STOP}9"', '"0.\\\n8"', '"0\\0568"', '"0\\N{full stop}8"',
     '"0" "\\56" "8"', '"\\x30" "\\x2E" "\\x38"', '("0"  # a comment\n ".8")', '"""0""" """.8"""',
     '"0" r"." u"9"'],
)  # fmt: skip
def test_the_prefilter_lets_every_spelling_of_a_version_through(literal):
    """Each spelling of a version constant reaches the AST scan (the filter skips files)."""
    source = f"def f(v={literal}):\n    return v\n"
    assert ast.literal_eval(literal) in ("0.8.2", "0.9", "0.8"), literal
    assert MAYBE_VERSION.search(source), literal
    assert [how for _, _, how in _scan_source(source, tests=False)] == ["a parameter default"]
    assert _scan_source('x = "v0.8.2"\nif y == "0.8.x":\n    pass\n', tests=False) == []
    # what is not one is not parsed: an escape, a lone dot, digits without a dot
    assert not MAYBE_VERSION.search('a = "\\x1b[K" + "\\0"; b = s.split("."); c = "1" "2"')
