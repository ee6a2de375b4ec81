"""The suite's reply check (tests/herdr_reference.py) on jsonschema-rs: it accepts what
simherdr answers and refuses, with jsonschema's explanation and the failing path, a reply that
breaks herdr's published schema — the same verdicts as the pure-Python validator."""

from __future__ import annotations

import copy

import pytest

from simherdr.testing import Harness
from tests import herdr_reference as ref

VERSION = "0.9.3"
pytestmark = pytest.mark.skipif(not ref.available(VERSION), reason=ref.skip_reason(VERSION))


def _replies() -> list[dict]:
    seen: list[dict] = []
    with Harness(VERSION, validator=seen.append) as h:
        h.ok("workspace.create", label="a")
        h.ok("pane.split", pane_id="w1:p1", direction="right")
        h.ok("pane.list")
        h.ok("session.snapshot")
        h.call("pane.get", pane_id="w9:p9")
    return seen


def _python_verdict(kind: str, obj) -> bool:
    from jsonschema import Draft202012Validator  # not at collection (~40 ms): one test's

    doc = ref._document(ref.schema_version(VERSION))
    return Draft202012Validator(ref._root(doc, f"#/schemas/{kind}")).is_valid(obj)


def _broken(replies: list[dict]) -> list[tuple[str, dict]]:
    listed = copy.deepcopy(next(r for r in replies if r["result"].get("type") == "pane_list"))
    listed["result"]["panes"][0]["pane_id"] = 7  # a string in herdr's schema
    missing = copy.deepcopy(listed)
    missing["result"]["panes"][0] = {"pane_id": "w1:p1"}  # required fields gone
    tag = copy.deepcopy(replies[0])
    tag["result"]["type"] = "no_such_result"
    error = copy.deepcopy(next(r for r in replies if "error" in r))
    del error["error"]["code"]
    return [("success_response", listed), ("success_response", missing),
            ("success_response", tag), ("error_response", error)]  # fmt: skip


def test_simherdrs_replies_pass_and_broken_ones_are_refused_with_the_path():
    replies = _replies()
    assert len(replies) == 5 and any("error" in r for r in replies)
    for r in replies:
        ref.validate_reply(r, VERSION)
        assert _python_verdict("error_response" if "error" in r else "success_response", r)
    for kind, bad in _broken(replies):
        assert not _python_verdict(kind, bad), bad  # the pure-Python validator agrees
        with pytest.raises(ref.SchemaMismatch, match=rf"not a herdr {kind} \(0\.9\.3\) at \$"):
            ref.validate_reply(bad, VERSION)


def test_a_non_envelope_is_refused():
    with pytest.raises(AssertionError, match="not a herdr envelope"):
        ref.validate_reply({"id": "x"}, VERSION)


def test_a_kinds_validator_from_its_own_schema_gives_the_whole_documents_verdicts():
    import jsonschema_rs

    doc = ref._document(ref.schema_version(VERSION))
    assert doc is not None
    replies = _replies()
    kinds = ("success_response", "error_response")
    cases = [(k, r) for r in replies for k in kinds]
    # each validator built once, not once per case (the whole document's: ~250 KB converted)
    whole = {k: jsonschema_rs.validator_for(ref._root(doc, f"#/schemas/{k}")) for k in kinds}
    own = ref._Validators(doc)  # each kind's from its own schema, built at its first use
    for kind, obj in cases + _broken(replies):
        assert own[kind].is_valid(obj) == whole[kind].is_valid(obj), (kind, obj)


def test_a_kind_that_refers_to_another_is_built_from_the_whole_document():
    doc = {"schemas": {"a": {"$ref": "#/schemas/b"}, "b": {"type": "string"}}}
    a = ref._Validators(doc)["a"]
    assert a.is_valid("x") and not a.is_valid(1)
