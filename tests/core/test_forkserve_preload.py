"""tests/forkserve.py's forkserver imports :data:`PRELOAD` once per worker; multiprocessing
skips a name that does not import without a word (forkserver.main), so a renamed module would
quietly come back as an import in every forked child: each name is a module."""

from __future__ import annotations

import importlib.util

from tests import forkserve


def test_every_preloaded_name_is_a_module():
    missing = [name for name in forkserve.PRELOAD if importlib.util.find_spec(name) is None]
    assert missing == []
    assert len(set(forkserve.PRELOAD)) == len(forkserve.PRELOAD)
