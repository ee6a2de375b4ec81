"""Every message variant of every protocol round-trips through the codec (value -> bytes ->
value), and its JSON form round-trips too; strategies come from the tables themselves."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simherdr.protocol import PROTOCOLS, FrameDecoder, encode_frame, wire_for
from tests.budget import examples
from tests.protocol import strategies

CASES = [
    pytest.param(p, root, name, id=f"p{p}-{root.removesuffix('Message')}-{name}")
    for p in PROTOCOLS
    for root, name in strategies.message_variants(wire_for(p).table)
]


@pytest.mark.parametrize(("protocol", "root", "name"), CASES)
@settings(max_examples=examples(5), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_variant_round_trips(protocol, root, name, data):
    wire = wire_for(protocol)
    _round_trips(
        wire, root, name, data.draw(strategies.variant(wire.table, wire.table.enum(root), name))
    )


def _round_trips(wire, root: str, name: str, value) -> None:
    """(Out of the test function: Hypothesis keys its example database on the test's own
    source, read and tokenized again for each of the 92 cases.)"""
    payload = wire.encode(root, value)
    assert wire.decode(root, payload) == value
    # the first bytes are the variant's declaration index (a varint: one byte below 251)
    assert payload[0] == wire.table.enum(root).variant(name).index
    # the cassette form is plain JSON and comes back to the same value
    as_json = json.loads(json.dumps(wire.to_json(root, value)))
    assert wire.from_json(root, as_json) == value
    # framed and reassembled from 3-byte reads (herdr's ChunkedReader test reads 7), unchanged
    decoder = FrameDecoder()
    frame = encode_frame(payload)
    got = [p for i in range(0, len(frame), 3) for p in decoder.feed(frame[i : i + 3])]
    assert got == [payload]
    assert decoder.buffered == 0
