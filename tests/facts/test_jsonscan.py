"""simherdr.facts.jsonscan reads as json's own decoder reads (issue 34: serve's start reads its
release data and first request with _json's scanner, without importing json)."""

from __future__ import annotations

import json

import pytest

from simherdr import wire
from simherdr.facts import jsonscan

TEXTS = [
    '{"a":[1,2.5,NaN,-Infinity,true,null,"\\u00e9"]} tail',
    '{"a":1,"a":2}',
    "[1e400, 123456789012345678901234567890]",
    "  [1]",
    "",
    " x",
    '{"a":',
    '"\\ud800"',
    "1.5",
]


def _outcome(fn, text):
    try:
        return repr(fn(text))
    except Exception as e:  # the same type and words as json's
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("text", TEXTS)
def test_raw_decode_is_json_decoders(text):
    assert _outcome(jsonscan.raw_decode, text) == _outcome(json.JSONDecoder().raw_decode, text)


@pytest.mark.parametrize("text", TEXTS)
def test_a_scanner_is_json_decoders_scan_once(text):
    def hook(name):
        raise ValueError(f"no {name}")

    def ours(t):
        return jsonscan.make_scanner(hook)(t, 0)

    def theirs(t):
        return json.JSONDecoder(parse_constant=hook).scan_once(t, 0)

    assert _outcome(ours, text) == _outcome(theirs, text)


@pytest.mark.parametrize("value", [object(), {1, 2}, b"x", {"a": [object()]}])
def test_wire_refuses_what_json_refuses_in_its_words(value):
    with pytest.raises(TypeError) as ours:
        wire.dumps(value)
    with pytest.raises(TypeError) as theirs:
        json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode(value)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("value", ['é\n"\\\x00', "\ud800", ["a", {"k": 1.5}]])
def test_wire_writes_what_json_writes(value):
    assert wire.dumps(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)
