"""A differential record, not a gate: random printable text, SGR, cursor moves and wraps fed to
the old pure-Python model screen (simherdr/model/screen.py, the fallback) and to libghostty-vt
(simherdr/panes/engine.py), classifying where their reads disagree.

Run it with ``SIMHERDR_DIFFERENTIAL=1 pytest tests/engine/test_differential.py -s`` (skipped in
``make test``: it is slow by design and its outcome is information). Last recorded (500
examples, 2026-12-07, pyghostty 0.1.1):

* text reads disagree on 25 of 500 feeds, where the model approximates a terminal:
  a bare ``\n`` (the model's SIMULATION CHOICE makes it CR+LF, as a PTY's ONLCR does for a
  program's output; libghostty, fed the bytes a PTY delivers, moves down only), and a wide
  character partly overwritten or erased (a backspace onto its second half, then text or
  ``ESC[K``: libghostty blanks the whole character, the model keeps its first half);
  plain text, CR+LF, wraps and cursor moves agree;
* the cursor differs on 21 (the same two causes);
* ansi reads disagree on 145: libghostty re-encodes styles from cells (``ESC[0m`` then
  palette colours as ``38;5;N``, printed trailing spaces kept), the model replays the SGR
  bytes as received.
"""

from __future__ import annotations

import collections
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simherdr.model.screen import Screen
from simherdr.panes.engine import GhosttyScreen

pytestmark = pytest.mark.skipif(
    not os.environ.get("SIMHERDR_DIFFERENTIAL"),
    reason="a record, not a gate: SIMHERDR_DIFFERENTIAL=1 runs it",
)

_PIECES = st.one_of(
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=30),
    st.sampled_from(["\r\n", "\r", "\n", "\b", "\t"]),
    st.sampled_from(["\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[42m", "\x1b[1;34m", "\x1b[m"]),
    st.builds(lambda n, f: f"\x1b[{n}{f}", st.integers(1, 12), st.sampled_from("ABCDGd")),
    st.builds(lambda r, c: f"\x1b[{r};{c}H", st.integers(1, 8), st.integers(1, 20)),
    st.sampled_from(["\x1b[K", "\x1b[2K", "\x1b[J", "\x1b[2J"]),
    st.sampled_from(["\u65e5\u672c", "e\u0301", "\U0001f680", "\u00e9"]),
)

FOUND: collections.Counter = collections.Counter()


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_PIECES, max_size=40))
def test_record_where_the_model_and_the_engine_disagree(pieces):
    data = "".join(pieces)
    old, new = Screen(cols=20, rows=8), GhosttyScreen(20, 8)
    old.feed(data)
    new.feed(data)
    for source in ("visible", "recent", "recent_unwrapped", "detection"):
        for fmt in ("text", "ansi"):
            if old.read(source, None, fmt, False) != new.read(source, None, fmt, False):
                FOUND[(source, fmt)] += 1
    if old.cursor != new.cursor:
        FOUND[("cursor", "")] += 1


def teardown_module():
    if FOUND:
        print("\ndisagreements (reads of 500 random feeds):")
        for (source, fmt), n in sorted(FOUND.items()):
            print(f"  {source} {fmt}: {n}")
