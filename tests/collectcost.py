"""What each xdist worker spends collecting the suite, cut where pytest does more work than the
suite needs (every worker collects all ~4,900 tests; tests/pytestcost.py holds the runner's
other cuts). Each piece gives pytest's own result and steps aside (pytest's code runs) when
pytest's internals are not what it was written against.

- :func:`reorder_scoped_only`: pytest's ``reorder_items`` (its fixtures plugin's
  ``pytest_collection_modifyitems``) groups the items that share a module-, class-, package- or
  session-scoped parameter so that fixture is set up fewer times. It first derives, for every
  item and each of those four scopes, the item's parameter keys of that scope (the item's
  path's parent for the package scope, its class for the class scope: ~20,000 generator calls
  for this suite), ~40 ms of CPU per worker's collection, for the one module whose parameter
  is wider than a test (tests/hostile/test_fuzz_requests.py's ``vsrv``: ~10 items); every other
  parameter of the suite is function-scoped (``version``, every ``parametrize``), and an item
  with none yields no key. Here the keys are derived only for the items with a wider
  parameter (one look at each item's own parameters), and pytest's own grouping runs on them:
  the same keys, the same order.
- :func:`lazy_default_arg_names`: each ``parametrize`` call (~810 per worker's collection)
  checks that its argument names are the test's fixtures or arguments
  (``Metafunc._validate_if_using_arg_names``); pytest first reads the names of the test
  function's arguments with a default (``inspect.signature``), which only its error for a
  name that is neither uses. Here they are read only then (the method's CPU in a worker's
  collection ~15 -> ~4 ms): the same checks, the same error messages.
- :func:`fixturedefs_by_node`: pytest 9 finds the definitions of a fixture visible to an item
  (``FixtureManager.getfixturedefs``, ~10,800 calls per worker's collection) by node, and for
  each parent node also by its node id string (``_arg2nodeid2fixturedefs``: fixtures
  registered the legacy way, by node id; none in this suite), building each parent's node id
  for the look-up (~54,000 node ids per worker). Where no fixture of that name was registered
  by node id, the look-ups by node alone (~32 -> ~12 ms of a worker's collection): the same
  definitions, in the same order. Likewise the autouse fixtures' names visible to a test
  (``FixtureManager._getautousenames``, once per test function): by node alone where no
  autouse fixture was registered by node id.
"""

from __future__ import annotations

import hashlib
import inspect
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from typing import Any

import pytest


def has_scoped_params(item: pytest.Item, function_scope: object) -> bool:
    """Whether ``item`` has a parameter of a scope wider than ``function_scope`` (what pytest's
    ``get_param_argkeys`` yields keys for)."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return False
    scopes = callspec._arg2scope
    return any(scopes[argname] is not function_scope for argname in callspec.params)


def reorder_scoped_only() -> None:
    """pytest's fixtures module's ``reorder_items``, its keys derived only for the items with a
    parameter wider than function scope (the others have none at any scope)."""
    try:
        from _pytest import fixtures
        from _pytest.python import CallSpec
        from _pytest.scope import HIGH_SCOPES, Scope
    except ImportError:
        return
    stock = getattr(fixtures, "reorder_items", None)
    get_param_argkeys = getattr(fixtures, "get_param_argkeys", None)
    reorder_items_atscope = getattr(fixtures, "reorder_items_atscope", None)
    if (
        stock is None
        or getattr(stock, "stock", None) is not None
        or get_param_argkeys is None
        or reorder_items_atscope is None
        # what has_scoped_params reads of a CallSpec (pytest 8-9's dataclass fields)
        or not {"params", "_arg2scope"} <= set(getattr(CallSpec, "__dataclass_fields__", {}))
    ):
        return

    def reorder_items(items: Sequence[pytest.Item]) -> list[pytest.Item]:
        # pytest 9.2's reorder_items, its loops over the items with a wider parameter only
        scoped = [item for item in items if has_scoped_params(item, Scope.Function)]
        argkeys_by_item: dict = {}
        items_by_argkey: dict = {}
        for scope in HIGH_SCOPES:
            scoped_argkeys_by_item = argkeys_by_item[scope] = {}
            scoped_items_by_argkey = items_by_argkey[scope] = defaultdict(OrderedDict)
            for item in scoped:
                argkeys = dict.fromkeys(get_param_argkeys(item, scope))
                if argkeys:
                    scoped_argkeys_by_item[item] = argkeys
                    for argkey in argkeys:
                        scoped_items_by_argkey[argkey][item] = None
        items_set = dict.fromkeys(items)
        return list(
            reorder_items_atscope(items_set, argkeys_by_item, items_by_argkey, Scope.Session)
        )

    reorder_items.stock = stock  # type: ignore[attr-defined]
    fixtures.reorder_items = reorder_items


def _known_stock(owner: Any, name: str, digest: str) -> Any:
    """``owner.name`` when it is pytest's code as written against (the sha256 of its source is
    ``digest``) and not replaced yet; else None (then pytest's own runs)."""
    stock = getattr(owner, name, None)
    if stock is None or getattr(stock, "stock", None) is not None:
        return None
    try:
        source = inspect.getsource(stock)
    except (OSError, TypeError):
        return None
    return stock if hashlib.sha256(source.encode()).hexdigest() == digest else None


# sha256 of pytest 9.2's Metafunc._validate_if_using_arg_names (inspect.getsource): the code
# lazy_default_arg_names' version repeats; any other runs as it is
VALIDATE_ARG_NAMES_SOURCE = "9ca6cbdf8515cac96a9a19fa3717b78e86de879b23bd2cfca8c82fb09b303d94"


def lazy_default_arg_names() -> bool:
    """pytest's ``Metafunc._validate_if_using_arg_names``, the test function's arguments with a
    default read only when an argument name is not among its fixtures (pytest reads them for
    every call, for that error's message); whether it is installed."""
    try:
        from _pytest import python
        from _pytest.compat import get_default_arg_names
        from _pytest.outcomes import fail
    except ImportError:
        return False
    stock = _known_stock(python.Metafunc, "_validate_if_using_arg_names", VALIDATE_ARG_NAMES_SOURCE)
    if stock is None:
        return False  # not the code repeated below: pytest's own

    def _validate_if_using_arg_names(self, argnames, indirect) -> None:
        # pytest 9.2's, its first line (default_arg_names) moved to where it is used
        nodeid = self.definition.nodeid
        for arg in argnames:
            if arg not in self.fixturenames:
                default_arg_names = set(get_default_arg_names(self.function))
                if arg in default_arg_names:
                    fail(
                        f"In {nodeid}: function already takes an argument '{arg}' with a default value",
                        pytrace=False,
                    )
                else:
                    if isinstance(indirect, Sequence):
                        name = "fixture" if arg in indirect else "argument"
                    else:
                        name = "fixture" if indirect else "argument"
                    fail(
                        f"In {nodeid}: function uses no {name} '{arg}'",
                        pytrace=False,
                    )

    _validate_if_using_arg_names.stock = stock  # type: ignore[attr-defined]
    python.Metafunc._validate_if_using_arg_names = _validate_if_using_arg_names  # type: ignore[method-assign]
    return True


# sha256 of pytest 9.2's FixtureManager.getfixturedefs (inspect.getsource)
GETFIXTUREDEFS_SOURCE = "d7ec7fcc605812befa3715a1cc7488a0f9efb1d32ac97209bbb29ee9d7cb2cc8"


def fixturedefs_by_node() -> bool:
    """pytest's ``FixtureManager.getfixturedefs`` without the look-ups by node id when no
    fixture of that name was registered by node id (pytest's own otherwise); whether it is
    installed."""
    try:
        from _pytest.fixtures import FixtureManager
    except ImportError:
        return False
    stock = _known_stock(FixtureManager, "getfixturedefs", GETFIXTUREDEFS_SOURCE)
    if stock is None:
        return False  # not the code repeated below: pytest's own

    def getfixturedefs(self, argname, node):
        if self._arg2nodeid2fixturedefs.get(argname):
            return stock(self, argname, node)  # some registered by node id: pytest's own
        node2fixturedefs = self._arg2node2fixturedefs.get(argname)
        if not node2fixturedefs:
            return None
        # pytest 9.2's, each parent's definitions by node id (none) left out
        fixturedefs = [
            fixturedef
            for parent in node.iter_parents()
            for fixturedef in node2fixturedefs.get(parent, ())
        ]
        fixturedefs.reverse()
        return fixturedefs

    getfixturedefs.stock = stock  # type: ignore[attr-defined]
    FixtureManager.getfixturedefs = getfixturedefs  # type: ignore[method-assign]
    return True


# sha256 of pytest 9.2's FixtureManager._getautousenames (inspect.getsource)
GETAUTOUSENAMES_SOURCE = "3315da428307f70a176d93a82abd0f208ab93c65bd7aa8dac2db457c7e6cb79b"


def autousenames_by_node() -> bool:
    """pytest's ``FixtureManager._getautousenames`` without the look-ups by node id when no
    autouse fixture was registered by node id (pytest's own otherwise); whether installed."""
    try:
        from _pytest.fixtures import FixtureManager
    except ImportError:
        return False
    stock = _known_stock(FixtureManager, "_getautousenames", GETAUTOUSENAMES_SOURCE)
    if stock is None:
        return False  # not the code repeated below: pytest's own

    def _getautousenames(self, node):
        if self._nodeid_autousenames:  # some registered by node id: pytest's own
            yield from stock(self, node)
            return
        # pytest 9.2's, each parent's names by node id (none) left out
        for parentnode in node.listchain():
            basenames = self._node_autousenames.get(parentnode)
            if basenames:
                yield from basenames

    _getautousenames.stock = stock  # type: ignore[attr-defined]
    FixtureManager._getautousenames = _getautousenames  # type: ignore[method-assign]
    return True
