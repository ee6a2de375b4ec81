"""Bytecode for the suite before its workers start (``make test`` runs this first).

On a fresh clone every xdist worker would compile simherdr and rewrite the asserts of every
test module itself (pytest caches a rewritten module as ``__pycache__/*-pytest-X.pyc``), the
four of them at once: ~5 s of CPU each for the ~200 test modules. Here it is done once, on both
cores: ``compileall`` for the plain modules (the workers and every stand-in or server process
they start import them), and pytest's own rewrite for the test modules and conftests, written
with pytest's atomic pyc writer, so a worker finds a complete pyc or writes its own as before.

An optimisation only: if pytest's internals differ (another pytest), the rewrite step is
skipped with a one-line notice and the workers rewrite as they always did.
"""

from __future__ import annotations

import compileall
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAIN = ("simherdr", "client", "tests", "benchmarks", "tools")


def _rewrite(paths: list[str]) -> int:
    from _pytest.assertion import rewrite as rw

    class _State:  # what _write_pyc uses of pytest's AssertionState
        @staticmethod
        def trace(*_args: object) -> None:
            pass

    written = 0
    for name in paths:
        fn = Path(name)
        pyc = rw.get_cache_dir(fn) / (fn.name[:-3] + rw.PYC_TAIL)
        if rw._read_pyc(fn, pyc, _State.trace) is not None:
            continue
        source = fn.read_bytes()
        source_hash = rw.importlib.util.source_hash(source)
        tree = rw.ast.parse(source, filename=name)
        # config=None rewrites as the suite's config does (no enable_assertion_pass_hook);
        # verbosity is read when an assert fails, not when it is rewritten
        rw.rewrite_asserts(tree, source, name, None)
        co = compile(tree, name, "exec", dont_inherit=True)
        rw.try_makedirs(pyc.parent)
        written += bool(rw._write_pyc(_State, co, source_hash, pyc))
    return written


def main() -> int:
    for top in PLAIN:
        compileall.compile_dir(str(ROOT / top), quiet=1, workers=2)
    # pytest rewrites the test modules and conftests, and every module of the distribution
    # that registers its plugin (simherdr's pytest11 entry point: simherdr/ and client/)
    paths = [str(p) for top in ("simherdr", "client") for p in (ROOT / top).rglob("*.py")] + [
        str(p)
        for p in (ROOT / "tests").rglob("*.py")
        if p.name.startswith("test_") or p.name == "conftest.py"
    ]
    paths.sort()
    halves = [paths[0::2], paths[1::2]]
    try:
        with ProcessPoolExecutor(2) as pool:
            sum(pool.map(_rewrite, halves))
    except Exception as exc:  # an optimisation: never stop the suite for it
        print(
            f"tests/prewarm: pytest's assert rewrite skipped ({type(exc).__name__}: {exc})",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
