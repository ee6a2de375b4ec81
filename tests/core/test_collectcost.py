"""The collection cuts (tests/collectcost.py) give pytest's own order: its fixture reordering is
skipped only where it would keep the order, and runs where a wider-scoped parameter groups."""

from __future__ import annotations

import pytest
from _pytest import fixtures

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
