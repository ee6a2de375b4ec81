"""The runner's cost cuts (tests/pytestcost.py) do what pytest does: the same code from a
rewritten module's pyc, the same ``tmp_path`` directories, kept or removed by pytest's rule."""

from __future__ import annotations

import marshal
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from _pytest.assertion import rewrite as rw
from _pytest.tmpdir import tmppath_result_key

from tests import prewarm, pytestcost


def test_a_rewritten_pyc_reads_as_the_same_code_and_this_run_reads_it_so(tmp_path):
    fn = tmp_path / "test_sample.py"
    fn.write_text("def test_x():\n    a = [1]\n    assert a == [2], 'shown'\n")
    assert prewarm._rewrite([str(fn)]) == 1
    pyc = rw.get_cache_dir(fn) / (fn.name[:-3] + rw.PYC_TAIL)
    with open(pyc, "rb") as fp:
        header = fp.read(16)
        fast = pytestcost._WholeFileMarshal.load(fp)
    with open(pyc, "rb") as fp:
        assert fp.read(16) == header
        assert fast == marshal.load(fp)  # code objects compare by bytecode, constants, names
    assert rw._read_pyc(fn, pyc) == fast
    assert rw.marshal is pytestcost._WholeFileMarshal  # installed by tests/__init__.py


def test_tmp_path_is_named_as_pytest_names_it(request, tmp_path, tmp_path_factory):
    assert tmp_path.is_dir() and not any(tmp_path.iterdir())
    assert tmp_path.parent == tmp_path_factory.getbasetemp()
    name = re.sub(r"[\W]", "_", request.node.name)[:30]
    assert re.fullmatch(re.escape(name) + r"\d+", tmp_path.name)


def test_numbering_passes_a_directory_the_factory_made(tmp_path_factory):
    request = SimpleNamespace(node=SimpleNamespace(name="test_numbering[a b/c]"))
    first = pytestcost.numbered_tmp_path(request, tmp_path_factory)
    assert first.name.startswith("test_numbering_a_b_c_")
    # tmp_path_factory.mktemp numbers by listing the base: it takes the next free number
    made = tmp_path_factory.mktemp(first.name[:-1], numbered=True)
    following = pytestcost.numbered_tmp_path(request, tmp_path_factory)
    assert len({first, made, following}) == 3 and following.is_dir()


@pytest.mark.parametrize(
    ("policy", "call_passed", "kept"),
    [("all", True, True), ("failed", False, True), ("failed", True, False)],
)
def test_a_directory_is_kept_or_removed_as_pytests_policy_says(tmp_path, policy, call_passed, kept):
    path = tmp_path / "of-a-test"
    (path / "inside").mkdir(parents=True)
    node = SimpleNamespace(stash=pytest.Stash())
    node.stash[tmppath_result_key] = {"setup": True, "call": call_passed}
    factory = SimpleNamespace(_retention_policy=policy)
    pytestcost.retain(SimpleNamespace(node=node), factory, path)  # type: ignore[arg-type]
    assert path.exists() == kept
    assert tmppath_result_key not in node.stash


def test_the_suite_package_sets_the_gc_thresholds_before_collection():
    import gc
    import importlib

    import tests

    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)  # CPython's defaults
    try:
        importlib.reload(tests)  # what pytest imports first, before the conftest and test modules
        assert gc.get_threshold() == pytestcost.GC_THRESHOLDS
    finally:
        gc.set_threshold(*before)


def test_simherdr_loads_from_its_plain_pyc_and_its_test_helper_rewritten():
    import importlib.machinery
    import sys

    import simherdr.simulator
    import simherdr.testing

    assert type(simherdr.simulator.__loader__) is importlib.machinery.SourceFileLoader
    assert isinstance(simherdr.testing.__loader__, rw.AssertionRewritingHook)
    assert isinstance(sys.modules[__name__].__loader__, rw.AssertionRewritingHook)  # tests: as ever
    # tests/prewarm.py writes the rewritten pyc of the same helpers
    assert [m.replace(".", "/") + ".py" for m in pytestcost.KEEP_REWRITTEN] == list(
        prewarm.KEEP_REWRITTEN
    )


def test_the_early_sweep_leaves_the_newest_runs_and_a_locked_one(tmp_path):
    import os
    import time

    from _pytest.pathlib import LOCK_TIMEOUT, create_cleanup_lock

    root = tmp_path / "pytest-of-someone"
    for n in range(1, 7):
        (root / f"pytest-{n}" / "popen-gw0" / "test_x0").mkdir(parents=True)
    create_cleanup_lock(root / "pytest-2")  # a run still going: pytest never sweeps it
    garbage = root / "garbage-0b1f"  # what an interrupted sweep leaves behind, stale
    garbage.mkdir()
    os.utime(garbage, (1, 1))
    pytestcost.start_sweep(root, 3, time.time() - LOCK_TIMEOUT)
    assert pytestcost.sweep_done(timeout=60)
    assert sorted(p.name for p in root.iterdir()) == [
        "pytest-2",
        "pytest-4",
        "pytest-5",
        "pytest-6",
    ]


def test_the_request_fixtures_argnames_come_without_a_signature(request):
    from _pytest import fixtures

    fixturedef = request._get_active_fixturedef("request")  # what pytest makes per use
    assert type(fixturedef) is fixtures.RequestFixtureDef and fixturedef.argnames == ()
    shim = fixtures.getfuncargnames
    assert shim.stock is not shim  # installed by tests/__init__.py
    assert fixturedef.func.__code__ is pytestcost._request_lambda()
    assert shim.stock(fixturedef.func, name="request") == ()  # pytest's own answer

    def other(a, b=1, *, c): ...

    assert shim(other, name="other") == shim.stock(other, name="other") == ("a", "c")


def test_the_controllers_summary_imports_nothing_not_imported_while_the_workers_collect():
    import dis

    import _hypothesis_pytestplugin as plugin

    imports = {
        i.argval
        for i in dis.get_instructions(plugin.pytest_terminal_summary)
        if i.opname == "IMPORT_NAME"
    }
    # on failing examples only (their reports already cost far more)
    imports.discard("hypothesis.extra._patching")
    assert imports and imports <= set(pytestcost.SUMMARY_IMPORTS)


def test_the_controller_imports_them_as_a_worker_is_ready(monkeypatch):
    from tests import conftest

    calls = []
    monkeypatch.setattr(pytestcost, "import_summary_modules", lambda: calls.append(1))
    conftest.pytest_testnodeready(node=None)
    assert calls == [1]


def test_only_what_can_lead_to_a_fixture_is_unwrapped_and_a_hidden_fixture_still_warns(
    request, monkeypatch
):
    import functools
    import types

    from _pytest.fixtures import FixtureManager

    check = FixtureManager._check_for_wrapped_fixture
    assert check.stock is not None  # installed by tests/__init__.py
    fm = request.session._fixturemanager
    unwrapped = []
    stock_find = FixtureManager._find_wrapped_fixture_def
    monkeypatch.setattr(
        FixtureManager,
        "_find_wrapped_fixture_def",
        lambda self, obj: unwrapped.append(obj) or stock_find(self, obj),
    )

    def plain():
        pass

    lazy = types.ModuleType("lazy")
    lazy.__getattr__ = lambda name: None  # type: ignore[method-assign]
    values = ["s", {"k": 1}, (1,), None, 3, plain, types.ModuleType("m")]
    for value in values:
        check(fm, "name", value)
    assert unwrapped == []  # answered at once: nothing to unwrap there

    @pytest.fixture
    def fx():
        return 1

    @functools.wraps(fx)
    def hidden():
        pass

    for value in (lazy, type("C", (), {})):
        check(fm, "name", value)
    with pytest.warns(pytest.PytestWarning, match="'hidden' due to being wrapped in decorators"):
        check(fm, "hidden", hidden)
    assert unwrapped[0] is lazy and unwrapped[-1] is hidden and len(unwrapped) == 3


def test_an_items_hook_proxy_is_pytests_made_once_per_path_until_the_conftests_change():
    from pathlib import Path

    from _pytest.main import FSHookProxy, Session

    shim = Session.gethookproxy
    assert shim.stock is not shim  # installed by tests/__init__.py
    import types

    here, other, later = (types.ModuleType(n) for n in ("here", "other", "later"))
    looked_up = []

    def conftests_of(path):
        looked_up.append(path)
        return [here]

    pm = SimpleNamespace(_conftest_plugins={here, other}, _getconftestmodules=conftests_of)
    session = SimpleNamespace(config=SimpleNamespace(pluginmanager=pm, hook=object()))
    path = Path("tests/core/test_x.py")
    first = shim(session, path)
    # pytest's answer: a proxy without the conftests not on the path
    assert type(first) is FSHookProxy and first.remove_mods == {other}
    assert shim(session, path) is first and looked_up == [path]  # made once
    pm._conftest_plugins.add(later)  # a conftest loaded since: pytest's function again
    again = shim(session, path)
    assert again is not first and again.remove_mods == {other, later} and len(looked_up) == 2


class _Reporter:
    """What pluggy sees of a terminal reporter: its per-test hooks and one at the end."""

    def __init__(self, file) -> None:
        self._tw = SimpleNamespace(_file=file)
        self.seen: list[str] = []

    def pytest_runtest_logstart(self, nodeid, location):
        self.seen.append("logstart")

    def pytest_runtest_logreport(self, report):
        self.seen.append("logreport")

    def pytest_terminal_summary(self, terminalreporter, exitstatus, config):
        self.seen.append("summary")


@pytest.mark.parametrize("where", ["devnull", "file"])
def test_a_workers_reporter_writing_to_dev_null_is_off_the_per_test_hooks_only(tmp_path, where):
    import os

    from _pytest.config import PytestPluginManager

    pm = PytestPluginManager()
    with open(os.devnull if where == "devnull" else tmp_path / "out", "w") as out:
        reporter = _Reporter(out)
        pm.register(reporter, "terminalreporter")
        config = SimpleNamespace(workerinput={}, pluginmanager=pm)
        assert pytestcost.quiet_discarded_terminal(config) == (where == "devnull")
        assert not pytestcost.quiet_discarded_terminal(SimpleNamespace(pluginmanager=pm))
    pm.hook.pytest_runtest_logstart(nodeid="t", location=("t.py", 1, "t"))
    pm.hook.pytest_runtest_logreport(report=None)
    pm.hook.pytest_terminal_summary(terminalreporter=reporter, exitstatus=0, config=config)
    per_test = ["logstart", "logreport"] if where == "file" else []
    assert reporter.seen == [*per_test, "summary"]  # still registered, its summary called
    assert pm.get_plugin("terminalreporter") is reporter


def test_in_an_xdist_worker_the_reporter_is_off_the_per_test_hooks(request):
    config = request.config
    if not hasattr(config, "workerinput"):
        pytest.skip("an xdist worker's reporter (make test's -n 3)")
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    assert reporter is not None  # Hypothesis' report hook looks it up
    for name in pytestcost.PER_TEST_TERMINAL_HOOKS:
        impls = getattr(config.pluginmanager.hook, name).get_hookimpls()
        assert impls and all(i.plugin is not reporter for i in impls)


def test_the_suite_package_freezes_the_heap_before_the_interpreters_last_collection():
    """In a pytest process the interpreter's finalization finds the heap frozen (its full
    collection then looks at nothing): an exit handler registered before the suite's package
    runs after the package's and sees the frozen objects."""
    import subprocess
    import sys

    code = (
        "import atexit, gc\n"
        "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0))\n"
        "import _pytest.assertion.rewrite\n"  # what makes the package install its cuts
        "import tests\n"
        "keep = [[i] for i in range(1000)]\n"
        "print('frozen before exit:', gc.get_freeze_count() > 0)\n"
    )
    root = str(Path(__file__).resolve().parents[2])
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines() == ["frozen before exit: False", "frozen at exit: True"]
