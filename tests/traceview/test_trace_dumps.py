"""The trace's lines are ``json.dumps(entry, ensure_ascii=False, separators=(",", ":"),
default=repr)`` written by json's C encoder without importing json (simherdr.trace.dumps): the
same text for every kind of value an entry holds."""

from __future__ import annotations

import json

import pytest

from simherdr.trace import dumps


class _Opaque:
    def __repr__(self) -> str:
        return "<opaque é>"


VALUES = [
    {"kind": "request", "method": "pane.get", "params": {"pane_id": "w1:p1"}, "seq": 3},
    {"text": 'é ✓ 🐑 \u2028 \x00 "quoted" \\ back', "n": -0.0, "big": 10**40},
    {"floats": [0.1, 1e300, 2.5e-320, float("nan"), float("inf"), float("-inf")]},
    {"nested": {"a": [1, [2, {"b": None, "c": True, "d": False}]], "t": (1, 2)}},
    {"opaque": _Opaque(), "set": {1}, "bytes": b"x"},
    {1: "int key", 2.5: "float key", None: "none key", False: "bool key"},
    {"lone": "\ud800 surrogate"},
    "a top-level string é",
    [1, "two", {"three": 3}],
    42,
    None,
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_the_same_text_as_json_dumps(value):
    want = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=repr)
    assert dumps(value) == want


def test_a_circular_entry_is_refused_as_json_refuses_it():
    loop: dict = {}
    loop["self"] = loop
    with pytest.raises(ValueError, match="Circular reference detected"):
        json.dumps(loop, ensure_ascii=False, separators=(",", ":"), default=repr)
    with pytest.raises(ValueError, match="Circular reference detected"):
        dumps(loop)
