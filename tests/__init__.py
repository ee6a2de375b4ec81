"""The suite. pytest imports this package first (the package of tests/conftest.py): inside a
pytest process, the runner's cost cuts of tests/pytestcost.py go in here, before the conftest's
imports load simherdr and collection builds the items."""

import sys

if "_pytest.assertion.rewrite" in sys.modules:
    from tests import pytestcost

    pytestcost.fast_rewritten_pyc()
    pytestcost.plain_installed_modules()
    pytestcost.fewer_gc_passes()
    pytestcost.no_collection_at_exit()
    pytestcost.request_argnames_known()
    pytestcost.fewer_wrapped_fixture_checks()
    pytestcost.cached_hook_proxies()
