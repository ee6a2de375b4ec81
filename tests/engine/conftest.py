"""The libghostty-vt screen engine (simherdr/panes/engine.py): skipped, with the reason, where
the pinned pyghostty wheel is not installed."""

from __future__ import annotations

import pytest

from simherdr.panes import ghostty

if not ghostty.AVAILABLE:
    pytest.skip(
        f"libghostty-vt is not available: {ghostty.UNAVAILABLE_REASON}", allow_module_level=True
    )
