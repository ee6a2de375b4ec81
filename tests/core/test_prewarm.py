"""tests/prewarm.py writes the pyc pytest itself would write for a test module (make test runs
it before the workers start)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import hypothesis.core  # noqa: F401  (imported by the suite's property tests: loaded plain)
import pytest
from _pytest.assertion import rewrite as rw

from tests import prewarm


def test_prewarm_writes_the_rewritten_pyc_pytest_reads(tmp_path, pytestconfig):
    fn = tmp_path / "test_sample.py"
    fn.write_text("def test_x():\n    a = [1]\n    assert a == [2], 'shown'\n")
    assert prewarm._rewrite([str(fn)]) == 1
    pyc = rw.get_cache_dir(fn) / (fn.name[:-3] + rw.PYC_TAIL)
    co = rw._read_pyc(fn, pyc)
    assert co is not None
    # the same code pytest's own hook compiles for this module under the suite's config
    _hash, expected = rw._rewrite_test(fn, pytestconfig)
    assert co == expected  # code objects compare by bytecode, constants and names
    assert prewarm._rewrite([str(fn)]) == 0  # a current pyc is kept


def test_prewarm_writes_the_constants_file_hypothesis_reads(tmp_path):
    import hashlib

    from hypothesis.configuration import storage_directory

    fn = tmp_path / "sample.py"
    fn.write_text("MARK = 'prewarm-7f3a'\n")
    cached = storage_directory("constants").path / hashlib.sha1(fn.read_bytes()).hexdigest()[:16]
    cached.unlink(missing_ok=True)
    try:
        assert prewarm._constants([str(fn)]) == 1
        # the file a worker's collection reads instead of parsing the module again
        assert "prewarm-7f3a" in cached.read_text()
    finally:
        cached.unlink(missing_ok=True)


def test_prewarm_rewrites_the_modules_pytest_imports_rewritten():
    ours = [p.removeprefix(str(prewarm.ROOT) + "/") for p in prewarm._rewritten_paths()]
    assert "tests/conftest.py" in ours and "tests/core/test_prewarm.py" in ours
    assert [p for p in ours if not p.startswith("tests/")] == ["simherdr/testing.py"]
    assert not [p for p in ours if p.startswith("tests/") and p.endswith("/prewarm.py")]
    # prewarm's own process: the plugins' entry modules, as pytest loads them
    out = subprocess.run(
        [sys.executable, "-c", "from tests import prewarm; print(*prewarm._plugin_modules())"],
        cwd=prewarm.ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    plugins = out.stdout.split()
    for module in ("xdist/plugin.py", "syrupy/__init__.py", "_hypothesis_pytestplugin.py"):
        assert any(p.endswith("site-packages/" + module) for p in plugins), module
    # what pytest imports after the suite package unmarked it loads plain (pip's pycs) ...
    assert not [p for p in plugins if "/hypothesis/" in p or "/simherdr/" in p]
    assert type(sys.modules["hypothesis.core"].__loader__) is not rw.AssertionRewritingHook
    # ... and every installed module this worker loaded rewritten is one prewarm writes
    rewritten = sorted(
        m.__file__
        for m in list(sys.modules.values())
        if isinstance(getattr(m, "__loader__", None), rw.AssertionRewritingHook)
        and "site-packages" in (getattr(m, "__file__", None) or "")
        and "/_pytest/" not in m.__file__  # pytester's own register_assert_rewrite, if loaded
    )
    assert rewritten and set(rewritten) <= set(plugins)


def test_prewarm_writes_the_unicode_tables_hypothesis_reads():
    from hypothesis.internal import charmap

    written = [Path(p) for p in prewarm._unicode_tables()]
    # where a worker's first text strategy looks before computing them over every code point
    assert written == [charmap.charmap_file(), charmap.charmap_file("codec-v2-utf-8")]
    assert all(p.stat().st_size > 0 for p in written)


def _one_at_a_time(codec: str, start: int, stop: int) -> tuple[list, list]:
    """Hypothesis' ``intervals_from_codec`` loop (one code point at a time), merged."""
    encodable: list = []
    lossy: list = []
    for i in range(start, stop):
        try:
            encoded = chr(i).encode(codec)
        except UnicodeEncodeError:
            continue
        encodable.append(i)
        if encoded.decode(codec, errors="replace") != chr(i):
            lossy.append(i)

    def merged(points: list) -> list:
        out: list = []
        for i in points:
            if out and out[-1][1] == i - 1:
                out[-1] = (out[-1][0], i)
            else:
                out.append((i, i))
        return out

    return merged(encodable), merged(lossy)


def test_prewarm_computes_a_codec_table_a_block_at_a_time_as_hypothesis_does_per_code_point():
    # utf-8 around the surrogates (the block that fails goes one at a time), ascii and latin-1
    # across their edges; blocks that do not divide the range
    for codec, start, stop in (
        ("utf-8", 0xD000, 0xE100),
        ("ascii", 0, 0x300),
        ("latin-1", 0, 0x300),
    ):
        assert prewarm.codec_intervals(codec, start, stop, block=100) == _one_at_a_time(
            codec, start, stop
        ), codec
    assert prewarm.codec_intervals("utf-8") == ([(0, 0xD7FF), (0xE000, sys.maxunicode)], [])


def test_prewarm_codec_table_is_the_file_hypothesis_reads():
    import gzip
    import json

    from hypothesis.internal import charmap

    prewarm._unicode_tables()
    with gzip.open(charmap.charmap_file("codec-v2-utf-8")) as f:
        written = json.load(f)
    encodable, lossy = charmap.intervals_from_codec("utf-8")  # what a text strategy uses
    assert written == [[list(i) for i in encodable.intervals], [list(i) for i in lossy.intervals]]
    assert written == json.loads(json.dumps(list(prewarm.codec_intervals("utf-8"))))


ASSERTS = """
import os

def test_shapes(tmp_path):
    a, b = [1, {"k": (2, 3)}], "x"
    assert a
    assert a[1]["k"][0] == 2 < 3 <= len(a) + 2, f"chain {a!r}"
    assert not (b == "y" or b.startswith("z")) and os.path.join("p", b).endswith(b)
    assert (n := len(b)) == 1, n
    assert all(x in (1, 2) for x in [1, 2]), [y for y in a if y]
    assert {k: v for k, v in a[1].items()} == {"k": (2, 3)}
    assert -a[0] is not None and a[0] not in [5] and (lambda z: z)(b) is b
    assert a[0] \\
        == 1, (
        "multi-line"
    )

class TestC:
    async def test_async(self):
        assert await self.f() == [*range(2)], {**{"a": 1}}
"""


def _positions(co) -> list:
    """Every instruction's (line, end line, column, end column), nested code objects too."""
    out = list(co.co_positions())
    for const in co.co_consts:
        if hasattr(const, "co_positions"):
            out += _positions(const)
    return out


def test_prewarm_rewrites_as_pytest_with_its_location_walk(tmp_path, pytestconfig):
    """The prewarm's location fix (LocationFix: the assert's location set while walking, no
    copy_location per node) gives the code pytest's own traverse_node and copy_location give,
    line numbers and columns included: a sample of assert shapes and real modules."""
    stock_walk, stock_visit = rw.traverse_node, rw.AssertionRewriter.__dict__["visit_Assert"]
    assert prewarm._fast_location_fix(rw)  # this pytest: the fix is used
    with prewarm.fast_location_fix(rw) as fix:
        assert fix is not None and rw.traverse_node == fix.walk
    assert rw.traverse_node is stock_walk  # pytest's own again
    assert rw.AssertionRewriter.__dict__["visit_Assert"] is stock_visit
    (tmp_path / "test_shapes.py").write_text(ASSERTS)
    here = Path(__file__)
    for real in (
        here,
        here.parent.parent / "conftest.py",
        here.parent / "test_collectcost.py",
        here.parent.parent / "model" / "test_layout.py",
    ):
        (tmp_path / real.name).write_bytes(real.read_bytes())  # their pycs left as they are
    for fn in sorted(tmp_path.glob("*.py")):
        assert prewarm._rewrite([str(fn)]) == 1, fn
        co = rw._read_pyc(fn, rw.get_cache_dir(fn) / (fn.name[:-3] + rw.PYC_TAIL))
        _hash, expected = rw._rewrite_test(fn, pytestconfig)
        assert co == expected, fn  # bytecode, constants, names, line and exception tables
        assert _positions(co) == _positions(expected), fn  # every line and column
    assert rw.traverse_node is stock_walk
    assert rw.AssertionRewriter.__dict__["visit_Assert"] is stock_visit


def _unlocated_tree() -> ast.Module:
    """A statement of new nodes (no location) around a parsed, located expression."""
    located = ast.parse("f(a, *b, k=c)[0] == (lambda x: x)(1)").body[0]
    assert isinstance(located, ast.Expr)
    call = ast.Call(ast.Name("g", ast.Load()), [located.value], [ast.keyword("k", located.value)])
    return ast.Module([ast.If(ast.UnaryOp(ast.Not(), call), [ast.Pass()], [])], [])


@pytest.mark.parametrize("missing", [(), ("end_lineno",), ("end_col_offset", "col_offset")])
def test_location_fix_sets_what_copy_location_sets(missing):
    """LocationFix.walk inside an assert sets on each node without a line what pytest's loop
    (traverse_node, then ast.copy_location from the assert) sets, and yields nothing for that
    loop to copy again: an assert with its four attributes (the four set at once) and with
    some missing or None (copy_location's rule, attribute by attribute)."""
    assert_ = ast.parse("assert x").body[0]
    for attr in missing:
        if attr.startswith("end_"):
            setattr(assert_, attr, None)  # copied as None
        else:
            delattr(assert_, attr)  # not copied
    ours, theirs = _unlocated_tree(), _unlocated_tree()
    fix = prewarm.LocationFix(None)
    fix.location = prewarm.copied_location(assert_)
    assert list(fix.walk(ours)) == []
    for node in rw.traverse_node(theirs):
        if getattr(node, "lineno", None) is None:
            ast.copy_location(node, assert_)
    assert ast.dump(ours, include_attributes=True) == ast.dump(theirs, include_attributes=True)
    # outside an assert: the nodes pytest's loop would fix, as traverse_node finds them
    fix.location = None
    left = _unlocated_tree()
    expected = [n for n in rw.traverse_node(left) if getattr(n, "lineno", None) is None]
    found = list(fix.walk(left))
    assert {id(n) for n in found} == {id(n) for n in expected if "lineno" in n._attributes}


def test_location_fix_walks_every_field_that_can_hold_a_located_node():
    """child_fields leaves out only the fields whose values are no nodes, or nodes with neither
    fields nor a location (contexts, operators: copy_location copies nothing to them): checked
    on every node type of the ast module and every node of a few real modules."""
    kinds = [k for k in vars(ast).values() if isinstance(k, type) and issubclass(k, ast.AST)]
    for kind in kinds:
        walked = prewarm.child_fields(kind)
        assert [f for f in kind._fields if f in walked] == list(walked), kind
    for name in ("expr_context", "operator", "unaryop", "boolop", "cmpop"):
        for kind in getattr(ast, name).__subclasses__():
            assert kind._fields == () and kind._attributes == (), kind
    assert prewarm.child_fields(ast.Compare) == ("left", "comparators")
    assert prewarm.child_fields(ast.Bytes) == ast.Bytes._fields  # not its declaration: all
    here = Path(__file__)
    sources = [ASSERTS] + [p.read_text() for p in (here, Path(prewarm.__file__))]
    seen = 0
    for node in (n for source in sources for n in ast.walk(ast.parse(source))):
        walked = prewarm.child_fields(type(node))
        for field in set(node._fields) - set(walked):
            value = getattr(node, field, None)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ast.AST):
                    assert not item._fields and not item._attributes, (node, field)
                    seen += 1
    assert seen > 100  # contexts and operators were met
