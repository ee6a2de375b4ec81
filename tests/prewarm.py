"""Bytecode for the suite before its workers start (``make test`` runs this first).

On a fresh clone every xdist worker would compile simherdr and rewrite the asserts of every
test module itself (pytest caches a rewritten module as ``__pycache__/*-pytest-X.pyc``), the
four of them at once: ~5 s of CPU each for the ~200 test modules. Here it is done once, on both
cores: ``compileall`` for the plain modules (the workers and every stand-in or server process
they start import them), and pytest's own rewrite for the test modules and conftests, written
with pytest's atomic pyc writer, so a worker finds a complete pyc or writes its own as before.
The installed modules load from their plain pycs in the suite (tests/pytestcost.py), but the
plugins' entry modules (xdist's, syrupy's, pytest-timeout's, Hypothesis' pytest plugin: ~25
modules) are imported rewritten before the suite can say so: on a new virtualenv every worker
rewrote them at once; here once.

And Hypothesis' local constants: when a run has property tests, Hypothesis reads the string
and number literals of every local module imported (simherdr's, client's: ~230 files) to bias
its examples, and keeps each file's under ``.hypothesis/constants`` by content. On a fresh
clone each worker parsed them all itself (~1 s of CPU each, at its collection); here they are
written once, with Hypothesis' own function, so the workers only read them. Likewise its
Unicode tables (``.hypothesis/unicode_data``: the character categories, and the characters
``st.text()`` may draw, those utf-8 encodes): on a fresh clone the first property test with a
text strategy on each worker computed them itself (~1.3 s of CPU each, over every code point);
here the utf-8 table is computed a block of code points at a time (~0.06 s, not ~1.2 s).

An optimisation only: if pytest's or Hypothesis' internals differ (another version), that
step is skipped with a one-line notice and the workers do it as they always did.
"""

from __future__ import annotations

import ast
import compileall
import contextlib
import gc
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PLAIN = ("simherdr", "client", "tests", "benchmarks", "tools")
# test modules and conftests: pytest imports them rewritten only, their plain pyc is never read
REWRITTEN_ONLY = re.compile(r"/(test_[^/]*|conftest)\.py$")


def _compile(paths: list[str]) -> int:
    """The plain pycs (``compileall``'s own freshness check: the pyc's recorded mtime and size)."""
    return sum(bool(compileall.compile_file(name, quiet=1)) for name in paths)


def _current(source: Path, pyc: Path) -> bool:
    """Whether ``pyc`` is pytest's rewritten pyc of ``source`` as it is now: its header only
    (magic, hash-based flags, the source's hash), as pytest checks before reading the code."""
    import importlib.util

    try:
        with open(pyc, "rb") as f:
            head = f.read(16)
        digest = importlib.util.source_hash(source.read_bytes())
    except OSError:
        return False
    return head[:8] == importlib.util.MAGIC_NUMBER + b"\x03\x00\x00\x00" and head[8:] == digest


# pytest's one use of traverse_node (rewrite.py, AssertionRewriter.visit_Assert): every node of
# the statements an assert became that has no line yet gets the assert's location
_LOCATION_FIX = (
    "for node in traverse_node(stmt):",
    'if getattr(node, "lineno", None) is None:',
    "ast.copy_location(node, assert_)",
)


def _unlocated(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes under ``node`` (itself included) that pytest's location fix changes: those
    with a line attribute (``ast.copy_location`` copies nothing to the others: operators,
    contexts) that have no line yet. Walked with a stack: pytest's ``traverse_node`` yields
    every node through a generator per level (``yield from``), ~5 million resumptions for the
    suite's test modules, ~0.35 s of a fresh clone's CPU; the order differs, which the fix
    does not see (each node gets the same assert's location)."""
    stack = [node]
    pop, push, AST = stack.pop, stack.append, ast.AST
    while stack:
        n = pop()
        if "lineno" in n._attributes and getattr(n, "lineno", None) is None:
            yield n
        for field in n._fields:
            value = getattr(n, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        push(item)
            elif isinstance(value, AST):
                push(value)


# the attributes ast.copy_location copies (Python 3.8+), in its order
_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def copied_location(old: ast.AST) -> tuple[tuple[str, Any], ...]:
    """The ``(attribute, value)`` pairs ``ast.copy_location(new, old)`` sets on a ``new`` node
    that has every attribute of :data:`_LOCATION` (its rule: an attribute ``old`` has, not None;
    an end attribute even when None)."""
    out = []
    for attr in _LOCATION:
        if attr in old._attributes:
            value = getattr(old, attr, None)
            if value is not None or (hasattr(old, attr) and attr.startswith("end_")):
                out.append((attr, value))
    return tuple(out)


class LocationFix:
    """pytest's location fix of an assert's statements done while walking them: every node
    without a line (``getattr(node, "lineno", None) is None``) gets what ``ast.copy_location``
    would copy from the assert, set directly (the four attributes at once where the node has
    them all: ~476k nodes for the suite, ~0.35-0.5 s of a fresh clone's CPU in the generic
    ``copy_location``). While prewarm rewrites, :meth:`visit_Assert` (around pytest's) keeps
    the assert's location and :meth:`walk` stands in for ``traverse_node``: it yields no node,
    so pytest's loop copies nothing again; outside an assert it yields :func:`_unlocated`'s.
    The walk looks only at the fields :func:`child_fields` names (no context, operator, name or
    constant; the walk ~0.5 -> ~0.35 s of CPU for the suite)."""

    def __init__(self, stock_visit: Any) -> None:
        self.stock_visit = stock_visit
        self.location: tuple[tuple[str, Any], ...] | None = None
        # a node type's attributes of _LOCATION and its fields to walk (child_fields)
        self.shapes: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}

    def visit_Assert(self, rewriter: Any, assert_: ast.Assert) -> Any:
        outer, self.location = self.location, copied_location(assert_)
        try:
            return self.stock_visit(rewriter, assert_)
        finally:
            self.location = outer

    def walk(self, node: ast.AST) -> Iterator[ast.AST]:
        location = self.location
        if location is None:
            yield from _unlocated(node)
            return
        full = len(location) == 4  # then each of the four, in _LOCATION's order
        values = tuple(value for _attr, value in location)
        shapes = self.shapes
        stack = [node]
        pop, push, AST = stack.pop, stack.append, ast.AST
        while stack:
            n = pop()
            kind = type(n)
            shape = shapes.get(kind)
            if shape is None:
                attrs = tuple(a for a in _LOCATION if a in kind._attributes)
                shape = shapes[kind] = (attrs, child_fields(kind))
            attrs, fields = shape
            if attrs and getattr(n, "lineno", None) is None:
                if full and len(attrs) == 4:
                    n.lineno, n.col_offset, n.end_lineno, n.end_col_offset = values  # type: ignore[attr-defined]
                else:
                    for attr, value in location:
                        if attr in attrs:
                            setattr(n, attr, value)
            for field in fields:
                value = getattr(n, field, None)
                if isinstance(value, list):
                    for item in value:
                        if isinstance(item, AST):
                            push(item)
                elif isinstance(value, AST):
                    push(value)


# the field types of the AST's grammar (its ASDL) whose values are no nodes (identifier, int,
# string, constant) or nodes without fields or a location (contexts, operators)
_NO_WALK = frozenset(
    {
        "identifier",
        "int",
        "string",
        "constant",
        "expr_context",
        "operator",
        "unaryop",
        "boolop",
        "cmpop",
    }
)
_DECLARATION = re.compile(r"(\w+)[*?]? (\w+)")


def child_fields(kind: type) -> tuple[str, ...]:
    """The fields of the AST node type ``kind`` whose values may hold a node that has fields or
    a location, from its grammar's declaration (CPython's docstring of the class: ``Name(identifier
    id, expr_context ctx)`` -> ``()``); all of its fields when that does not declare exactly
    them (another Python, a subclass). The location fix finds nothing to change elsewhere:
    ``ast.copy_location`` copies nothing to a context or an operator."""
    fields = tuple(getattr(kind, "_fields", ()))
    head, paren, rest = (kind.__doc__ or "").partition("(")
    if not paren or head != kind.__name__ or not rest.endswith(")"):
        return fields
    declared = _DECLARATION.findall(rest[:-1])
    if tuple(name for _type, name in declared) != fields or rest[:-1].count(",") != max(
        len(declared) - 1, 0
    ):
        return fields
    return tuple(name for type_, name in declared if type_ not in _NO_WALK)


def _fast_location_fix(rw: Any) -> bool:
    """Whether pytest's ``traverse_node`` is used only by its location fix as written above
    (then :func:`_unlocated` stands in for it while prewarm rewrites); else pytest's own."""
    import inspect

    try:
        source = inspect.getsource(rw)
        fix = inspect.getsource(rw.AssertionRewriter.visit_Assert)
    except (OSError, TypeError, AttributeError):
        return False
    lines = [line.strip() for line in fix.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    at = [i for i, line in enumerate(lines) if line == _LOCATION_FIX[0]]
    return (
        len(at) == 1
        and tuple(lines[at[0] : at[0] + 3]) == _LOCATION_FIX
        and source.count("traverse_node(") == 3  # its definition, its recursion, that use
    )


@contextlib.contextmanager
def fast_location_fix(rw: Any) -> Iterator[LocationFix | None]:
    """While inside: :class:`LocationFix` does pytest's location fix in its rewrite module
    ``rw`` (its ``traverse_node`` and ``AssertionRewriter.visit_Assert``), if that fix is as
    :data:`_LOCATION_FIX` says; else (None) pytest's own. Both restored after."""
    if not _fast_location_fix(rw):
        yield None
        return
    cls = rw.AssertionRewriter
    stock_walk, stock_visit = rw.traverse_node, cls.__dict__["visit_Assert"]
    fix = LocationFix(stock_visit)
    rw.traverse_node = fix.walk
    cls.visit_Assert = lambda self, assert_: fix.visit_Assert(self, assert_)
    try:
        yield fix
    finally:
        rw.traverse_node = stock_walk
        cls.visit_Assert = stock_visit


def _rewrite(paths: list[str]) -> int:
    from _pytest.assertion import rewrite as rw

    class _State:  # what _write_pyc uses of pytest's AssertionState
        @staticmethod
        def trace(*_args: object) -> None:
            pass

    todo = []
    for name in paths:
        fn = Path(name)
        pyc = rw.get_cache_dir(fn) / (fn.name[:-3] + rw.PYC_TAIL)
        if not _current(fn, pyc):
            todo.append((fn, pyc))
    if not todo:
        return 0
    with fast_location_fix(rw):
        written = 0
        for fn, pyc in todo:
            source = fn.read_bytes()
            source_hash = rw.importlib.util.source_hash(source)
            tree = rw.ast.parse(source, filename=str(fn))
            # config=None rewrites as the suite's config does (no enable_assertion_pass_hook);
            # verbosity is read when an assert fails, not when it is rewritten
            rw.rewrite_asserts(tree, source, str(fn), None)
            co = compile(tree, str(fn), "exec", dont_inherit=True)
            rw.try_makedirs(pyc.parent)
            written += bool(rw._write_pyc(_State, co, source_hash, pyc))
        return written


def _constants(paths: list[str]) -> int:
    """Hypothesis' cached constants for each of ``paths`` (its ``constants_from_module``: the
    same file, named by the source's hash, that a worker's collection would write)."""
    import types

    from hypothesis.internal.constants_ast import constants_from_module

    for name in paths:
        module = types.ModuleType("_prewarm")
        module.__file__ = name  # all constants_from_module reads of a module
        constants_from_module(module)
    return len(paths)


Intervals = list[tuple[int, int]]


def codec_intervals(
    codec: str, start: int = 0, stop: int = sys.maxunicode + 1, block: int = 4096
) -> tuple[Intervals, Intervals]:
    """The code points in ``range(start, stop)`` that ``codec`` encodes, and those of them that
    do not decode back to themselves, as sorted merged ``(first, last)`` intervals: what
    Hypothesis' ``intervals_from_codec`` computes one code point at a time (~1.2 s of CPU for
    utf-8), here a ``block`` of code points at a time, one at a time only in a block that fails
    (utf-8: the one holding the surrogates). For a stateless codec such as utf-8, whose output
    is the concatenation of its characters' outputs: a block encodes iff each of its characters
    does, and decodes back to itself iff each character does."""
    encodable: Intervals = []
    lossy: Intervals = []

    def add(out: Intervals, first: int, last: int) -> None:
        if out and out[-1][1] == first - 1:
            out[-1] = (out[-1][0], last)
        else:
            out.append((first, last))

    for lo in range(start, stop, block):
        hi = min(lo + block, stop)
        chars = "".join(map(chr, range(lo, hi)))
        try:
            if chars.encode(codec).decode(codec) == chars:
                add(encodable, lo, hi - 1)
                continue
        except Exception:  # a character in the block fails: one at a time, as Hypothesis does
            pass
        for i in range(lo, hi):
            try:
                encoded = chr(i).encode(codec)
            except Exception:
                continue
            add(encodable, i, i)
            try:
                back = encoded.decode(codec) == chr(i)
            except Exception:
                back = False
            if not back:
                add(lossy, i, i)
    return encodable, lossy


def _write_codec_table(codec: str) -> None:
    """Hypothesis' cached table for ``codec`` (``intervals_from_codec``'s file: gzipped JSON of
    its two interval lists, written with mtime 1, atomically) from :func:`codec_intervals`;
    then read back by Hypothesis' own function, which would compute it again had it not
    understood the file."""
    import gzip
    import json
    import os
    import tempfile

    from hypothesis.internal import charmap

    target = charmap.charmap_file(f"codec-v2-{codec}")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent)
    os.close(fd)
    with gzip.GzipFile(tmp, "wb", mtime=1) as f:
        f.write(json.dumps(list(codec_intervals(codec))).encode())
    os.replace(tmp, target)


def _unicode_tables() -> list[str]:
    """Hypothesis' cached Unicode tables (its ``charmap``, and ``intervals_from_codec`` for
    utf-8: ``st.text()``'s default codec), as a worker's first text strategy would write them;
    the files written. The codec's table is computed here a block at a time
    (:func:`codec_intervals`) unless Hypothesis already has it."""
    from hypothesis.internal import charmap

    charmap.charmap()
    if not charmap.charmap_file("codec-v2-utf-8").exists():
        _write_codec_table("utf-8")
    charmap.intervals_from_codec("utf-8")
    return [str(charmap.charmap_file()), str(charmap.charmap_file("codec-v2-utf-8"))]


# the simherdr modules the suite keeps rewritten (tests/pytestcost.py: KEEP_REWRITTEN)
KEEP_REWRITTEN = ("simherdr/testing.py",)


def _rewritten_paths() -> list[str]:
    """The repository's modules pytest imports rewritten: the test modules, the conftests and
    :data:`KEEP_REWRITTEN`."""
    return [
        str(p)
        for p in (ROOT / "tests").rglob("*.py")
        if p.name.startswith("test_") or p.name == "conftest.py"
    ] + [str(ROOT / name) for name in KEEP_REWRITTEN]


def _plugin_modules() -> list[str]:
    """The installed pytest11 plugins' modules (simherdr's aside) that pytest imports rewritten:
    those imported as it loads and registers the plugins (their ``pytest_addhooks``,
    ``pytest_addoption``), before the suite package unmarks the rest (tests/pytestcost.py
    ``plain_installed_modules``; the modules imported later load from pip's plain pycs). Found
    as pytest finds them: the plugins loaded here by pytest's plugin manager, then the loaded
    modules of those distributions' top-level names (pytest's rule)."""
    import importlib.metadata as md

    from _pytest.config import _iter_rewritable_modules, get_config

    names: set[str] = set()
    for dist in md.distributions():
        if dist.metadata["Name"] != "simherdr" and any(
            ep.group == "pytest11" for ep in dist.entry_points
        ):
            names |= set(_iter_rewritable_modules(str(f) for f in dist.files or []))
    config = get_config()
    config.pluginmanager.load_setuptools_entrypoints("pytest11")
    config.hook.pytest_addhooks.call_historic(kwargs={"pluginmanager": config.pluginmanager})
    out = {
        getattr(module, "__file__", None) or ""
        for name, module in list(sys.modules.items())
        if name.partition(".")[0] in names
    }
    return sorted(f for f in out if f.endswith(".py"))


def _parts(paths: list[str], n: int = 8) -> list[list[str]]:
    """``paths`` dealt into ``n`` parts of about the same work (every n-th)."""
    return [part for part in (paths[i::n] for i in range(n)) if part]


# the young generation collected every 20,000 allocations, the older ones 20 times rarer each
GC_THRESHOLDS = (20_000, 20, 20)


def main() -> int:
    # here, not at the top: tests/core/test_prewarm.py imports this module at collection
    from concurrent.futures import ProcessPoolExecutor

    # What the parts import, imported once here: the pool's processes are forked from this one
    # (and the plugins' process: pytest), so they start with them instead of importing each
    # (a warm run's prewarm: ~0.69 -> ~0.46 s of CPU). Hypothesis only as a library: its pytest
    # plugin, which watches for storage access from its import on, loads in the plugins'
    # process only.
    import _pytest.assertion.rewrite  # noqa: F401
    import hypothesis.internal.charmap
    import hypothesis.internal.constants_ast  # noqa: F401

    # CHOICE: the garbage collector rarely, for this process and the forked ones: the parts
    # build millions of AST nodes (a tree, freed by reference counting when its module is
    # done), and at the default thresholds the collector's passes over them (and over the
    # modules imported above, frozen out of them here) took ~12% of a fresh clone's prewarm
    # (cold, alternating: 6.1 -> 5.35 s of CPU). The suite's own workers do the same
    # (tests/pytestcost.py GC_THRESHOLDS).
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)

    plain = sorted(
        str(p)
        for top in PLAIN
        for p in (ROOT / top).rglob("*.py")
        if not REWRITTEN_ONLY.search(str(p))
    )
    paths = _rewritten_paths()
    # the local modules Hypothesis scans (it skips tests and site-packages)
    local = sorted(str(p) for top in ("simherdr", "client") for p in (ROOT / top).rglob("*.py"))
    # Small parts, queued on both cores without a barrier between the steps (the cores stay busy
    # to the end); the plugins' modules are found meanwhile, in a process of their own: loading
    # Hypothesis' pytest plugin marks a process as a plugin's initialisation, where Hypothesis
    # warns of the constants' storage access.
    with ProcessPoolExecutor(1) as once, ProcessPoolExecutor(2) as pool:
        found = once.submit(_plugin_modules)
        steps = [
            # first: one part (~0.3 s; the categories of every code point), the small parts
            # fill the other core
            ("Hypothesis' Unicode tables", [pool.submit(_unicode_tables)]),
            ("the plain pycs", [pool.submit(_compile, part) for part in _parts(plain)]),
            (
                "Hypothesis' local constants",
                [pool.submit(_constants, part) for part in _parts(local)],
            ),
        ]
        try:
            paths += found.result()
        except Exception as exc:  # an optimisation: the workers rewrite them as they always did
            print(
                f"tests/prewarm: plugins' modules skipped ({type(exc).__name__}: {exc})",
                file=sys.stderr,
            )
        paths.sort()
        steps.append(("pytest's assert rewrite", [pool.submit(_rewrite, p) for p in _parts(paths)]))
        for what, futures in steps:
            try:
                for future in futures:
                    future.result()
            except Exception as exc:  # an optimisation: never stop the suite for it
                print(
                    f"tests/prewarm: {what} skipped ({type(exc).__name__}: {exc})",
                    file=sys.stderr,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
