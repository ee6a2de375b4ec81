"""The collection cuts (tests/collectcost.py) give pytest's own order: its fixture reordering is
skipped only where it would keep the order, and runs where a wider-scoped parameter groups."""

from __future__ import annotations

import pytest
from _pytest import fixtures, python

from tests import collectcost

SCOPED = """
import pytest

@pytest.fixture(scope="module", params=[1, 2])
def m(request):
    return request.param

def test_a(m):
    pass

def test_b(m):
    pass
"""

FUNCTION_SCOPED = """
import pytest

@pytest.fixture(params=[1, 2])
def f(request):
    return request.param

@pytest.mark.parametrize("x", [1, 2])
def test_a(f, x):
    pass

def test_b(f):
    pass

def test_c():
    pass
"""


def _items(pytester: pytest.Pytester, source: str) -> list[pytest.Item]:
    """The session's items in their final order (after every collection_modifyitems)."""
    pytester.makepyfile(test_sample=source)
    rec = pytester.inline_run("--collect-only", "-p", "no:cacheprovider")
    [call] = rec.getcalls("pytest_collection_finish")
    return call.session.items


def _order(pytester: pytest.Pytester, source: str) -> list[str]:
    return [item.name for item in _items(pytester, source)]


def test_this_run_reorders_through_the_cut():
    assert getattr(fixtures.reorder_items, "stock", None) is not None  # tests/conftest.py


def test_a_module_scoped_parameter_still_groups_the_tests_as_pytest_does(pytester):
    # pytest's own grouping: every test of the module on m=1, then on m=2
    assert _order(pytester, SCOPED) == ["test_a[1]", "test_b[1]", "test_a[2]", "test_b[2]"]


def test_function_scoped_parameters_keep_the_collection_order(pytester):
    names = _order(pytester, FUNCTION_SCOPED)
    assert names == [
        "test_a[1-1]",
        "test_a[1-2]",
        "test_a[2-1]",
        "test_a[2-2]",
        "test_b[1]",
        "test_b[2]",
        "test_c",
    ]


MIXED = """
import pytest

@pytest.fixture(scope="module", params=["m1", "m2"])
def m(request):
    return request.param

@pytest.fixture(scope="class", params=["c1", "c2"])
def c(request):
    return request.param

@pytest.fixture(params=[1, 2])
def f(request):
    return request.param

def test_plain():
    pass

@pytest.mark.parametrize("x", [1, 2])
def test_f(f, x):
    pass

def test_m(m, f):
    pass

class TestC:
    def test_c(self, c):
        pass

    def test_cm(self, c, m):
        pass

    def test_none(self):
        pass

@pytest.mark.parametrize("s", ["s1", "s2"], scope="module")
def test_direct_module_scope(s):
    pass

def test_m_again(m):
    pass
"""


def test_the_cut_orders_as_pytest_with_parameters_of_every_scope(pytester):
    from _pytest.scope import Scope

    pytester.makepyfile(test_sample=MIXED)
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider")  # in collection order
    assert len(items) == 20
    stock = fixtures.reorder_items.stock  # type: ignore[attr-defined]
    for order in (items, items[::-1], items[1::2] + items[::2]):
        assert fixtures.reorder_items(order) == stock(order)
    scoped = {i.name for i in items if collectcost.has_scoped_params(i, Scope.Function)}
    assert "test_plain" not in scoped and "test_f[1-1]" not in scoped
    assert {
        "test_m[m1-1]",
        "test_cm[m1-c1]",
        "test_c[c2]",
        "test_direct_module_scope[s1]",
    } <= scoped


BAD_PARAMETRIZE = {
    "test_default": """
@pytest.mark.parametrize("x", [1])
def test_default(fx, x=3):
    pass
""",
    "test_unknown": """
@pytest.mark.parametrize("y", [1])
def test_unknown(fx):
    pass
""",
    "test_unknown_fixture": """
@pytest.mark.parametrize("z", [1], indirect=True)
def test_unknown_fixture(fx):
    pass
""",
    "test_unknown_listed": """
@pytest.mark.parametrize("w", [1], indirect=["w"])
def test_unknown_listed(fx):
    pass
""",
    "test_good": """
@pytest.mark.parametrize(("fx", "v"), [(1, 2)])
def test_good(fx, v, u=5):
    pass
""",
}


def test_parametrize_checks_its_names_as_pytest_does(pytester):
    """With the argument names' check reading the defaults only when a name is unknown
    (collectcost.lazy_default_arg_names, installed by tests/conftest.py), pytest's errors stay
    word for word: a name the function takes with a default, an unknown argument, an unknown
    fixture (indirect, all or listed); a good parametrize collects."""
    assert getattr(python.Metafunc._validate_if_using_arg_names, "stock", None) is not None
    assert not collectcost.lazy_default_arg_names()  # once
    head = "import pytest\n\n@pytest.fixture\ndef fx():\n    return 1\n"
    pytester.makepyfile(**{name: head + body for name, body in BAD_PARAMETRIZE.items()})
    result = pytester.runpytest_inprocess(
        "--collect-only", "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors"
    )
    out = result.stdout.str()
    for line in (
        "In test_default.py::test_default: function already takes an argument 'x' with a "
        "default value",
        "In test_unknown.py::test_unknown: function uses no argument 'y'",
        "In test_unknown_fixture.py::test_unknown_fixture: function uses no fixture 'z'",
        "In test_unknown_listed.py::test_unknown_listed: function uses no fixture 'w'",
    ):
        assert line in out
    assert "test_good.py::test_good[1-2]" in out


OVERRIDES = """
import pytest

@pytest.fixture
def fx(fx):
    return fx + ["module"]

@pytest.fixture(params=[1, 2])
def p(request):
    return request.param

def test_module(fx, p, tmp_path):
    assert fx == ["conftest", "module"]

class TestC:
    @pytest.fixture
    def fx(self, fx):
        return fx + ["class"]

    def test_class(self, fx, request):
        assert fx == ["conftest", "module", "class"]
"""


def test_fixture_definitions_found_as_pytest_finds_them(pytester):
    """FixtureManager.getfixturedefs without the node-id look-ups where no fixture of the name
    was registered by node id (collectcost.fixturedefs_by_node, installed by tests/conftest.py)
    gives pytest's own definitions, the same objects in the same order, for every item and
    every fixture name: overrides in a conftest, a module and a class, and names registered
    the legacy way, by node id (there pytest's own runs)."""
    from _pytest.fixtures import FixtureManager

    stock = getattr(FixtureManager.getfixturedefs, "stock", None)
    assert stock is not None and not collectcost.fixturedefs_by_node()  # installed, once
    pytester.makeconftest("import pytest\n@pytest.fixture\ndef fx():\n    return ['conftest']\n")
    pytester.makepyfile(test_sample=OVERRIDES)
    rec = pytester.inline_run("-p", "no:cacheprovider")
    rec.assertoutcome(passed=3)
    [call] = rec.getcalls("pytest_collection_finish")
    fm = call.session._fixturemanager
    items = call.session.items
    with pytest.warns(Warning):  # pytest deprecates registering by node id
        fm._register_fixture(name="legacy", func=lambda: 1, nodeid="test_sample.py")
        fm._register_fixture(name="fx", func=lambda: 2, nodeid="test_sample.py::TestC")
    names = set(fm._arg2node2fixturedefs) | set(fm._arg2nodeid2fixturedefs) | {"nothing"}
    assert {"fx", "p", "tmp_path", "legacy"} <= names
    for item in items:
        for name in sorted(names):
            assert fm.getfixturedefs(name, item) == stock(fm, name, item), (item, name)
    [module_item] = [i for i in items if i.name == "test_module[1]"]
    assert [d.baseid for d in fm.getfixturedefs("fx", module_item)] == ["", "test_sample.py"]
    # the autouse fixtures' names (collectcost.autousenames_by_node) as pytest's own: by node
    # (tmp_path's plugin has some at the session), and with one registered by node id
    stock_auto = getattr(FixtureManager._getautousenames, "stock", None)
    assert stock_auto is not None and not collectcost.autousenames_by_node()
    for item in items:
        assert list(fm._getautousenames(item)) == list(stock_auto(fm, item)), item
    assert all(list(stock_auto(fm, item)) for item in items)  # some by node
    assert not fm._nodeid_autousenames
    with pytest.warns(Warning):
        fm._register_fixture(name="auto", func=lambda: 3, nodeid="test_sample.py", autouse=True)
    assert fm._nodeid_autousenames
    for item in items:
        assert list(fm._getautousenames(item)) == list(stock_auto(fm, item)), item
        assert "auto" in list(fm._getautousenames(item))
