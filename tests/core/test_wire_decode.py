"""The request decoder's plain reading (simherdr.wire.decode_request, issue 26) gives what the
strict reader (decode_strict: serde's duplicate-field, number and surrogate rules) gives, on
generated lines rich in what the plain reading must hand over: duplicated keys, ':' inside
strings, NaN/Infinity, numbers beyond f64, huge integers, surrogate escapes, deep nesting,
whitespace, trailing bytes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simherdr import params as P
from simherdr.wire import MAX_DEPTH, DuplicateField, decode_request, decode_strict
from tests.budget import examples

pytestmark = pytest.mark.hostile  # hostile lines: `make fuzz` runs these deeper (tests/budget.py)

_KEYS = ["id", "method", "params", "a", "b", "", ":", "a:b", "pane_id", "env"]
_WS = ["", "", "", " ", "\n", "\t", "  "]
KEYS = st.sampled_from(_KEYS)
WS = st.sampled_from(_WS)
# An object member's head (whitespace, key, whitespace, ':', whitespace) and an array item's
# whitespace on either side, each drawn at once: the same values at the same weights as WS,
# KEYS, WS, WS drawn one by one, in a third fewer of Hypothesis' draws (its cost per example)
HEADS = st.sampled_from([f'{a}"{k}"{b}:{c}' for a in _WS for k in _KEYS for b in _WS for c in _WS])
AROUND = st.sampled_from([(a, b) for a in _WS for b in _WS])
NUMBERS = st.one_of(
    st.integers(min_value=-(10**6), max_value=10**6).map(str),
    st.integers(min_value=-(10**330), max_value=10**330).map(str),
    st.sampled_from(["0", "-0", "1.5", "-0.0", "1e308", "1e309", "-1e400", "2.5E-400", "1" * 309]),
    st.sampled_from(
        [
            "-" + "9" * 308,
            "9" * 308,
            "1" + "0" * 308,
            "17976931348623157" + "0" * 292,
            "2" + "0" * 308,
            "-" + "2" + "0" * 308,
        ]
    ),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "01", "1.", ".5", "+1"]),
)
STRING_BODIES = st.one_of(
    st.text(max_size=6),
    st.sampled_from(
        ["x:y", "\\u003a", "\\ud800", "\\udc00", "\\ud83d\\ude00", '\\"', "\\\\", "\\n"]
    ),
)
STRINGS = STRING_BODIES.map(lambda b: '"' + b.replace("\n", "\\n").replace('"', '\\"') + '"')
RAW_STRINGS = STRING_BODIES.map(lambda b: '"' + b + '"')  # escapes kept as written
SCALARS = st.one_of(NUMBERS, STRINGS, RAW_STRINGS, st.sampled_from(["true", "false", "null"]))


def _obj(pairs):
    return "{" + ",".join(pairs) + "}"


def _item(around_value):
    (before, after), value = around_value
    return before + value + after


def _request(parts):
    rid, method, params, extra, ws = parts
    return ws + _obj([f'"id":{rid}', f'"method":{method}', f'"params":{params}', *extra]) + ws


VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(st.tuples(AROUND, inner).map(_item), max_size=4).map(
            lambda xs: "[" + ",".join(xs) + "]"
        ),
        st.lists(st.tuples(HEADS, inner).map("".join), max_size=5).map(_obj),
    ),
    max_leaves=12,
)
REQUESTS = st.tuples(
    st.one_of(STRINGS, SCALARS),  # the id
    st.one_of(st.just('"ping"'), STRINGS),  # the method
    VALUES,  # the params
    st.lists(st.tuples(HEADS, VALUES).map("".join), max_size=2),  # extra members
    WS,
).map(_request)
TRAILING = st.sampled_from(["", "", "x", "}", " 1", ",", "\x00"])
LINES = st.one_of(
    st.tuples(REQUESTS, TRAILING).map("".join),
    st.tuples(VALUES, TRAILING).map("".join),
    st.text(max_size=20),
    st.integers(min_value=MAX_DEPTH - 3, max_value=MAX_DEPTH + 1).map(lambda n: "[" * n + "]" * n),
)


def outcome(decode, text):
    try:
        obj = decode(text)
    except DuplicateField as e:
        return ("dup", str(e), e.obj, e.names)
    except (ValueError, RecursionError) as e:
        return ("error", type(e).__name__, str(e))
    return ("ok", obj, _shape(obj))


def _shape(v):
    """The value's containers, each object's duplicated keys (what params.parse reads: a plain
    dict has none) and scalar types, so 1 and 1.0 and True do not pass for each other."""
    if isinstance(v, dict):
        dups = sorted(v.duplicates) if isinstance(v, P.JsonObject) else []
        return (dups, {k: _shape(x) for k, x in v.items()})
    if isinstance(v, list):
        return [_shape(x) for x in v]
    return type(v).__name__


@settings(max_examples=examples(400), deadline=None)
@given(LINES)
def test_plain_reading_agrees_with_the_strict_reader(text):
    strict = outcome(decode_strict, text)
    fast = outcome(decode_request, text)
    assert fast == strict


@settings(max_examples=examples(100), deadline=None)
@given(
    st.dictionaries(
        KEYS,
        st.recursive(
            st.integers() | st.text(max_size=5),
            lambda c: st.lists(c, max_size=3) | st.dictionaries(KEYS, c, max_size=3),
            max_leaves=8,
        ),
    )
)
def test_well_formed_json_agrees(obj):
    text = json.dumps(obj, ensure_ascii=False)
    assert outcome(decode_request, text) == outcome(decode_strict, text)


def test_a_duplicated_params_field_still_reaches_params_parse():
    """Nested duplicates (inside params) are not the top-level DuplicateField: the strict
    reader's JsonObject carries them to params.parse, so the plain reading must not be kept."""
    text = '{"id":"a","method":"pane.get","params":{"pane_id":"w1:p1","pane_id":"w1:p2"}}'
    obj = decode_request(text)
    assert isinstance(obj["params"], P.JsonObject)
    assert obj["params"].duplicates == {"pane_id"}


def test_the_common_request_is_read_plainly():
    obj = decode_request('{"id":"bench","method":"ping","params":{}}')
    assert type(obj) is dict and type(obj["params"]) is dict


def test_nesting_limit_at_the_length_boundary():
    """serde_json's 128 levels: a line of exactly 128 opening brackets is refused (the short
    line shortcut in too_deep must not skip it); 127 are read."""
    from simherdr.wire import too_deep

    assert too_deep("[" * MAX_DEPTH) and too_deep("{" * MAX_DEPTH)
    assert not too_deep("[" * (MAX_DEPTH - 1))
    assert decode_request("[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)) is not None
