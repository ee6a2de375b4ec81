"""The id forms are read by string tests, not regexes compiled at import (issue 26): the same
answers as the regexes they replaced, for any text."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from simherdr.facts import ids

_WS_EXACT = re.compile(r"^w([1-9A-HJKMNP-TV-Z0]+)$")
_POSITIVE_INT = re.compile(r"[0-9]+")
_TEXT = st.text(alphabet=st.sampled_from("w_0123456789AIJLOUZaz\n ²٣-+"), max_size=8) | st.text()


@given(_TEXT)
def test_workspace_id_as_the_regex(text):
    assert ids._is_workspace_id(text) == bool(_WS_EXACT.fullmatch(text))


@given(_TEXT)
def test_index_as_the_regex(text):
    expected = int(text) if _POSITIVE_INT.fullmatch(text) and int(text) <= ids.U64_MAX else None
    assert ids.parse_index(text) == expected


def test_examples():
    assert ids._is_workspace_id("w1") and ids._is_workspace_id("wZ0")
    assert not any(map(ids._is_workspace_id, ["w", "wI", "w1\n", "W1", "w_1", " w1"]))
    assert ids.parse_index("18446744073709551615") == ids.U64_MAX
    assert ids.parse_index("18446744073709551616") is None
    assert ids.parse_index("²") is None and ids.parse_index("") is None
