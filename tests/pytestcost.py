"""The test runner's own cost, cut where pytest does more work than the suite needs (issue 34).

Each piece does what pytest does, with the same result, and steps aside (pytest's own code
runs) when pytest's internals are not what it was written against.

- :func:`fast_rewritten_pyc`: pytest reads each rewritten module's cached code with
  ``marshal.load(file)``, which reads the file in one small call per object; ``marshal.loads``
  of the whole file gives the same code object ~5x faster. Every xdist worker loads ~470 of
  them (the test modules, conftests, and simherdr and client, which pytest rewrites as the
  distribution of a pytest11 plugin): ~0.1 s of CPU each (a collection: 1.59 -> 1.47 s).
- :func:`numbered_tmp_path`: pytest's ``tmp_path`` numbers each new directory by listing the
  whole base directory (``make_numbered_dir``) and adds a ``<name>current`` symlink beside it,
  so the n-th directory costs O(n): ~700 per worker in a run, quadratic (1,200 of them: 0.86 s
  of CPU). Here the number comes from a counter of this process (the base directory is its
  own), the directory is the same ``<test name, 30 characters><n>``, kept or removed after the
  test as ``tmp_path_retention_policy`` says (:func:`retain`, pytest's rule).
- :func:`plain_installed_modules`: pytest rewrites the asserts of every module of a
  distribution that registers a pytest11 plugin: all of simherdr (~240 modules) and of
  Hypothesis, syrupy, xdist and pytest-timeout (~130) went through the rewrite hook: parsed,
  rewritten and compiled a second time on a fresh clone (tests/prewarm.py: ~2 s of CPU for
  simherdr, ~1 s for the others; their plain pycs exist anyway: pip's, and compileall's for the
  processes the tests start), each import reading and hashing its source. Here the modules
  imported from then on load as they do everywhere else, from their plain pyc, except the test
  helper the suite's tests call (``simherdr.testing``). What pytest imported before the suite
  package (the plugins' entry modules: ~25) stays rewritten; tests/prewarm.py writes those.
- :func:`sweep_old_runs_early`: pytest deletes the run directories past its retention count
  (``/tmp/pytest-of-<user>/pytest-<n>``, the 4th newest: a whole earlier run's tree, ~20,000
  entries for this suite) at the end of the session, after the last test, in the controller:
  ~0.5-2 s of (mostly kernel) CPU on the run's critical path whenever three newer runs exist.
  Here pytest's own function does it from the start of the session, in a process at the lowest
  priority (on the cores the tests leave idle); pytest's call at the end finds nothing left, or
  takes what a starved sweep has not reached (its cleanup locks keep two sweeps off one dir).
- :func:`request_argnames_known`: every use of the ``request`` fixture (the suite's
  ``tmp_path``, ``version``, most fixtures) makes a ``RequestFixtureDef`` whose argnames pytest
  reads with ``inspect.signature`` of the lambda it wraps (~13 us, ~6 per test): answered
  ``()`` (pytest's own answer for that parameterless lambda) without it.
- :func:`import_summary_modules`: the controller of an xdist run never collects, so it has not
  imported Hypothesis when its terminal summary runs, after the last test: Hypothesis' pytest
  plugin reads ``hypothesis.internal.observability`` there, importing all of Hypothesis (~0.1 s
  of CPU; on tests/facts ``-n 4`` 0.23 s of the controller's 0.6 s between the last report and
  its exit). tests/conftest.py imports it as the first worker is ready, while the workers
  collect (the controller idles then); the summary finds it imported.
- :func:`fewer_wrapped_fixture_checks`: pytest 9's parsing of fixtures unwraps every name of
  every module, class and plugin it reads (``_check_for_wrapped_fixture``: a warning for a
  fixture hidden behind a decorator), ~9,600 per worker, ~5 us each (a collection: ~45 ms of
  CPU). Most are values that cannot lead to a fixture: a builtin value (str, dict, ...: no
  attributes of their own), a plain function or module with no ``__wrapped__`` (nor a module
  ``__getattr__``); those are answered at once, the others checked by pytest as before.
- :func:`cached_hook_proxies`: every hook pytest calls on an item or a fixture goes through
  ``item.ihook``, which pytest 9 (``Session.gethookproxy``) builds anew at each use: the
  conftests loaded so far minus the item's own (the suite's 12 sub-directory conftests, all
  loaded in each worker), an ``FSHookProxy`` of them, and at each hook named on it
  ``subset_hook_caller`` (a set of the 12, intersected with the hook's implementations). ~12
  uses a test (runtest protocol, reports, each fixture's set-up and finish). Here one proxy per
  path, made by pytest's own function, until the set of loaded conftests changes (upstream:
  pytest-dev/pytest#8991, open; #9125 proposed the same cache, keyed the same way).
- :func:`quiet_discarded_terminal`: an xdist worker's terminal reporter writes to /dev/null
  (execnet's popen gateway points the worker's stdout there; the controller reports), yet per
  report it asked ``pytest_report_teststatus``, kept the report in its stats, wrote a letter and
  measured the line's width for the progress (~0.24 M instructions a test of ~2.5 for an empty
  one). In a worker whose reporter's file is /dev/null its per-test hooks are taken off the
  hook callers; it stays registered (Hypothesis and pytest-timeout look it up there).
- :func:`fewer_gc_passes`: collection builds ~100,000 objects that live to the end (modules,
  items, fixture closures); at the default thresholds the collector ran ~390 young, ~36 middle
  and 3 full passes over them during a worker's start and collection (0.25 s of CPU; 0.07 s
  with these thresholds, set before the imports). tests/conftest.py freezes what collection
  built and keeps the thresholds for the run (issue 26).
- :func:`no_collection_at_exit`: after pytest has returned, the interpreter's finalization
  (3.11 ``Py_FinalizeEx`` -> ``finalize_modules`` -> ``_PyGC_CollectNoFail``) runs one more full
  collection over everything the run made since the freeze above: ~0.3 s of CPU in the
  controller (its reports), ~0.1-0.2 s in each worker, all of it after the last test, on the
  run's critical path (the last test to `make`'s exit: 1.27-1.40 -> 0.67-0.84 s). pytest has
  already collected at its unconfigure and cleanup (its unraisable-exception plugin, which
  reports what those passes find, then restores the previous hook): an ``atexit`` handler
  freezes the heap, so finalization's pass looks at nothing; the process's memory goes with it.
"""

from __future__ import annotations

import gc
import importlib
import marshal
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# CHOICE (issue 26): the young generation collected every 20,000 allocations (700), the older
# ones 20 times rarer each (10): what the suite keeps is long-lived, its cycles few
GC_THRESHOLDS = (20_000, 20, 20)


def fewer_gc_passes() -> None:
    gc.set_threshold(*GC_THRESHOLDS)


def no_collection_at_exit() -> None:
    """Freeze the heap at exit, before the interpreter's final collection (registered early:
    ``atexit`` runs it after the handlers registered later, the run's own)."""
    import atexit

    atexit.register(gc.freeze)


class _WholeFileMarshal:
    """What pytest's rewrite module uses of ``marshal``, reading a pyc in one call."""

    dumps = staticmethod(marshal.dumps)

    @staticmethod
    def load(fp):
        return marshal.loads(fp.read())


def fast_rewritten_pyc() -> None:
    """Install :class:`_WholeFileMarshal` as the ``marshal`` of pytest's assertion rewriter
    (for the modules imported from then on)."""
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    if getattr(rewrite, "marshal", None) is marshal:
        rewrite.marshal = _WholeFileMarshal  # type: ignore[assignment]


# CHOICE: installed modules (simherdr's and the other pytest plugins') keep their plain asserts
# in the suite (what a user's run executes; an assert failing inside Hypothesis reads as it does
# outside pytest); the test modules, the conftests and this test helper are rewritten as before
KEEP_REWRITTEN = ("simherdr.testing",)


def plain_installed_modules() -> None:
    """Unmark every name pytest marked for rewriting so far (the pytest11 plugins'
    distributions: simherdr, client, hypothesis, syrupy, xdist, ...), for the modules imported
    from then on, keeping :data:`KEEP_REWRITTEN`. The test modules and conftests are rewritten
    by their file names (``python_files``), not by these marks; later marks (a conftest's
    ``pytest_plugins``, pytester's ``register_assert_rewrite``) are added after this runs."""
    try:
        from _pytest.assertion.rewrite import AssertionRewritingHook
    except ImportError:
        return
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        cache = getattr(finder, "_marked_for_rewrite_cache", None)
        if isinstance(finder, AssertionRewritingHook) and isinstance(marked, set):
            if "simherdr" not in marked or not isinstance(cache, dict):
                return  # not pytest's marks as this was written against: pytest's own rule
            marked.clear()
            cache.clear()
            finder.mark_rewrite(*KEEP_REWRITTEN)
            return


# CHOICE: the modules the controller's end-of-run hooks import on a passing run (Hypothesis'
# pytest_terminal_summary; with failing examples it also imports hypothesis.extra._patching,
# which the failure's own report costs anyway): imported early, same modules, same summary
SUMMARY_IMPORTS = ("hypothesis.internal.observability",)


def import_summary_modules() -> None:
    """Import :data:`SUMMARY_IMPORTS` now (each once; a missing one is left to its hook)."""
    for name in SUMMARY_IMPORTS:
        if name not in sys.modules:
            try:
                importlib.import_module(name)
            except ImportError:
                pass


# exact types whose instances hold no attributes: ``__wrapped__`` is never found on them
_NO_ATTRIBUTES = frozenset(
    {str, bytes, int, float, complex, bool, tuple, list, dict, set, frozenset, type(None)}
)


def fewer_wrapped_fixture_checks() -> None:
    """pytest's ``FixtureManager._check_for_wrapped_fixture``, answered at once for an object
    ``inspect.unwrap`` would return as is (no ``__wrapped__`` to follow) and that is no fixture
    definition itself: the check finds nothing to warn of there; any other as before."""
    try:
        from _pytest.fixtures import FixtureManager
    except ImportError:
        return
    stock = getattr(FixtureManager, "_check_for_wrapped_fixture", None)
    if stock is None or getattr(stock, "stock", None) is not None:
        return
    function, module = type(fewer_wrapped_fixture_checks), type(sys)

    def _check_for_wrapped_fixture(self, name, obj):
        kind = type(obj)
        if kind in _NO_ATTRIBUTES:
            return None
        if kind is function or kind is module:
            own = obj.__dict__  # where either finds an attribute (a module: or its __getattr__)
            if "__wrapped__" not in own and "__getattr__" not in own:
                return None
        return stock(self, name, obj)

    _check_for_wrapped_fixture.stock = stock  # type: ignore[attr-defined]
    FixtureManager._check_for_wrapped_fixture = _check_for_wrapped_fixture  # type: ignore[method-assign]


def cached_hook_proxies() -> None:
    """pytest's ``Session.gethookproxy``, its answer kept per path while the set of loaded
    conftests (``pluginmanager._conftest_plugins``: only conftests change which hooks a path
    sees) is the one it was made with; another set empties the cache."""
    try:
        from _pytest.main import Session
    except ImportError:
        return
    stock = getattr(Session, "gethookproxy", None)
    if stock is None or getattr(stock, "stock", None) is not None:
        return

    def gethookproxy(self, fspath):
        conftests = getattr(self.config.pluginmanager, "_conftest_plugins", None)
        if not isinstance(conftests, set):
            return stock(self, fspath)  # not pytest's internals as this was written against
        cache = self.__dict__.get(_PROXIES)
        if cache is None or cache[0] != conftests:
            cache = self.__dict__[_PROXIES] = (set(conftests), {})
        proxies = cache[1]
        proxy = proxies.get(fspath)
        if proxy is None:
            proxy = proxies[fspath] = stock(self, fspath)
        return proxy

    gethookproxy.stock = stock  # type: ignore[attr-defined]
    Session.gethookproxy = gethookproxy  # type: ignore[method-assign]


_PROXIES = "_simherdr_hook_proxies"


# the terminal reporter's hooks called for each test (pytest 8-9)
PER_TEST_TERMINAL_HOOKS = ("pytest_runtest_logstart", "pytest_runtest_logreport")


def quiet_discarded_terminal(config: pytest.Config) -> bool:
    """In an xdist worker, take the terminal reporter off :data:`PER_TEST_TERMINAL_HOOKS` when
    what it writes goes to /dev/null (nothing it would show is lost); whether it did."""
    if not hasattr(config, "workerinput"):
        return False
    pm = config.pluginmanager
    reporter = pm.get_plugin("terminalreporter")
    try:
        out = os.fstat(reporter._tw._file.fileno())
        null = os.stat(os.devnull)
    except (AttributeError, OSError, ValueError):
        return False
    if (out.st_dev, out.st_ino) != (null.st_dev, null.st_ino):
        return False  # its output is seen somewhere: pytest's own reporting
    for name in PER_TEST_TERMINAL_HOOKS:
        caller = getattr(pm.hook, name, None)
        if caller is not None and any(i.plugin is reporter for i in caller.get_hookimpls()):
            caller._remove_plugin(reporter)
    return True


def _request_lambda():
    """The code of the lambda ``RequestFixtureDef`` wraps the request in (``func=lambda:
    request``), if it is one without parameters (then its argnames are ``()``)."""
    try:
        from _pytest.fixtures import RequestFixtureDef
    except ImportError:
        return None
    init = getattr(RequestFixtureDef.__init__, "__code__", None)
    codes = [c for c in getattr(init, "co_consts", ()) if isinstance(c, type(init))]
    if len(codes) != 1 or codes[0].co_name != "<lambda>":
        return None
    code = codes[0]
    if code.co_argcount or code.co_kwonlyargcount or code.co_flags & (0x04 | 0x08):
        return None  # *args / **kwargs
    return code


def request_argnames_known() -> None:
    """pytest's fixtures module's ``getfuncargnames``, answering ``()`` at once for the lambda
    a ``RequestFixtureDef`` wraps (made for every use of ``request``: ``inspect.signature``
    of it each time, ~13 us); any other function as before."""
    try:
        from _pytest import fixtures
    except ImportError:
        return
    stock = getattr(fixtures, "getfuncargnames", None)
    code = _request_lambda()
    if code is None or stock is None or getattr(stock, "stock", None) is not None:
        return

    def getfuncargnames(function, *, name="", cls=None):
        if getattr(function, "__code__", None) is code:
            return ()
        return stock(function, name=name, cls=cls)

    getfuncargnames.stock = stock  # type: ignore[attr-defined]
    fixtures.getfuncargnames = getfuncargnames  # type: ignore[assignment]


_MAXNAME = 30  # pytest's _pytest.tmpdir._mk_tmp
_next: dict[str, int] = {}


def numbered_tmp_path(request: pytest.FixtureRequest, factory: pytest.TempPathFactory) -> Path:
    """A new directory ``<basetemp>/<test name><n>`` as pytest's ``tmp_path`` makes it
    (name: non-word characters as ``_``, 30 characters), numbered without listing the base."""
    name = re.sub(r"[\W]", "_", request.node.name)[:_MAXNAME]
    base = factory.getbasetemp()
    n = _next.get(name, 0)
    while True:
        path = base / f"{name}{n}"
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:  # made by tmp_path_factory.mktemp(name) in this process
            n += 1
            continue
        _next[name] = n + 1
        return path


def retain(request: pytest.FixtureRequest, factory: pytest.TempPathFactory, path: Path) -> None:
    """After the test: pytest's ``tmp_path`` teardown (policy ``failed``: a passed test's
    directory is removed; the default, ``all``, keeps every one)."""
    try:
        from _pytest.tmpdir import tmppath_result_key
    except ImportError:
        return
    outcome = request.node.stash.get(tmppath_result_key, {})
    if getattr(factory, "_retention_policy", "all") == "failed" and outcome.get("call", True):
        shutil.rmtree(path, ignore_errors=True)
    if tmppath_result_key in request.node.stash:
        del request.node.stash[tmppath_result_key]


_sweeper: subprocess.Popen | None = None

# pytest's sweep, in a process of its own at the lowest priority (a thread would share the
# controller's GIL: starved while holding it, it would stall the scheduling of tests)
_SWEEP = """
import os, sys
from pathlib import Path
try:
    os.nice(19)
except OSError:
    pass
from _pytest.pathlib import cleanup_numbered_dir
cleanup_numbered_dir(Path(sys.argv[1]), "pytest-", int(sys.argv[2]), float(sys.argv[3]))
"""


def sweep_old_runs_early(config: pytest.Config) -> None:
    """In the process that numbers the run directory (the controller, or a serial run; not
    an xdist worker, whose basetemp is given): start pytest's ``cleanup_numbered_dir`` of the
    older runs now (:func:`start_sweep`)."""
    try:
        from _pytest.pathlib import LOCK_TIMEOUT

        if config.option.collectonly:
            return  # nothing runs: no run directory to number (pytest makes none either)
        factory = config._tmp_path_factory  # type: ignore[attr-defined]
        if factory._given_basetemp is not None or factory._retention_policy == "none":
            return  # a given basetemp is not numbered; "none" deletes this run's too, at the end
        keep = int(factory._retention_count)
        base = factory.getbasetemp()  # numbered and locked now (pytest does it at the same call)
        before = base.stat().st_mtime - LOCK_TIMEOUT
    except Exception:  # pytest's internals differ: its own sweep at the end does it all
        return
    if keep > 0:
        start_sweep(base.parent, keep, before)


def start_sweep(root: Path, keep: int, before: float) -> None:
    """pytest's own sweep of ``root`` (``pytest-<n>`` past the ``keep`` newest, stale
    ``garbage-*``), in a process of its own at the lowest priority."""
    global _sweeper
    _sweeper = subprocess.Popen(
        [sys.executable, "-c", _SWEEP, str(root), str(keep), repr(before)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )


def sweep_done(timeout: float = 0.0) -> bool:
    """Whether :func:`start_sweep`'s process is over (waiting up to ``timeout``). At the end
    of the session one still running (starved at its priority on a busy machine) is left to
    finish on its own: pytest's sweep right after takes what it has not reached (their
    locks keep them apart)."""
    if _sweeper is None:
        return True
    try:
        _sweeper.wait(timeout)
    except subprocess.TimeoutExpired:
        return False
    return True
