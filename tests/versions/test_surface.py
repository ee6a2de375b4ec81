"""0.8.2 -> 0.9.3 deltas of the socket surface, each answered by both profiles side by side
(the release rows, simherdr/facts/releases/; VERSIONS.md §5)."""

from __future__ import annotations

import json

import pytest

from simherdr.facts.methods import METHODS_0_8_2, METHODS_0_9_3
from tests import herdr_reference as ref
from tests.core.socketclient import raw, request
from tests.releases import BASE, releases_where, resolve


def _schema_methods(version: str) -> set[str]:
    path = ref.schema_path(version)
    if path is None:
        pytest.skip(ref.skip_reason(version))
    doc = json.loads(path.read_text())
    return {v["properties"]["method"]["const"] for v in doc["schemas"]["request"]["oneOf"]}


@pytest.mark.parametrize("version", releases_where(lambda v: v.schema_published))
def test_method_set_is_the_published_schemas(version):
    """Every method the version's schema lists parses; 0.8.2 also has pane.graphics.stream
    (src/api/schema.rs, not in its published schema)."""
    methods = resolve(version).methods
    assert _schema_methods(version) <= methods
    extra = methods - _schema_methods(version)
    assert extra == (
        {"pane.graphics.stream"} if "pane.graphics.stream" in resolve(version).methods else set()
    )


def test_method_sets_differ_by_the_new_and_retired_methods():
    assert {
        "server.ssh_agent.register",
        "product_announcement.dismiss",
        "release_notes.dismiss",
        "command.invoke",
        "client_shell.surface.set",
        "pane.scroll",
        "pane.clear",
        "pane.edit_scrollback",
        "pane.selection.read",
        "pane.copy_motion",
        "pane.copy_search",
        "pane.link.activate",
        "pane.link.resolve",
        "integration.list",
    } == METHODS_0_9_3 - METHODS_0_8_2
    assert {
        f"pane.graphics.{m}" for m in ("info", "set", "clear", "stream")
    } == METHODS_0_8_2 - METHODS_0_9_3


def test_ping_capabilities_side_by_side(server, version):
    caps = request(server.path, "ping")["result"]["capabilities"]
    if resolve(version).rows.capabilities == resolve(BASE).rows.capabilities:
        assert caps == {"live_handoff": True, "detached_server_daemon": True}
    else:
        assert caps["endpoint_protocol_generation"] == 1
        assert caps["surface_interest"] is caps["health_check"] is True
        assert caps["ssh_agent_registration"] is True


# [H093] src/api/server.rs test invalid_requests_preserve_only_unambiguous_string_ids
ID_CASES = [
    (
        b'{"id":"mine","method":"pane.report_agent","params":{"pane_id":"w1:p1","status":"working","source":"x"}}',
        "mine",
    ),
    (b'{"id":"escaped\\"id","method":"unknown"}', 'escaped"id'),
    (b'{"method":"unknown","params":{"id":"nested"}}', ""),
    (b'{"id":123,"method":"unknown"}', ""),
    (b'{"id":"first","id":"second","method":"ping","params":{}}', ""),
    (b'{"id":"truncated","method":"ping"', ""),
    (b'["not-an-object"]', ""),
    (b'{"id":"dup-method","method":"ping","method":"ping","params":{}}', "dup-method"),
]


@pytest.mark.parametrize("line,id093", ID_CASES)
def test_invalid_request_id_side_by_side(server, version, line, id093):
    reply = json.loads(raw(server.path, line + b"\n"))
    ref.validate_reply(reply, version)
    assert reply["error"]["code"] == "invalid_request"
    assert reply["error"]["message"].startswith("invalid request: ")
    assert reply["id"] == (id093 if resolve(version).rows.invalid_request_keeps_id else "")


@pytest.mark.parametrize("name", ["info", "set", "clear", "stream"])
def test_retired_graphics_methods_side_by_side(server, version, name):
    method = f"pane.graphics.{name}"
    line = json.dumps({"id": "g", "method": method, "params": {"pane_id": "w1:p1"}})
    reply = json.loads(raw(server.path, line.encode() + b"\n", timeout=2, shut_write=True))
    ref.validate_reply(reply, version)
    if method not in resolve(version).retired_methods:  # a known method: never unknown
        assert reply["error"]["code"] != "unknown_method" if "error" in reply else True
    else:
        assert reply == {
            "id": "g",
            "error": {"code": "unknown_method", "message": f"unknown method: {method}"},
        }


def test_retired_name_wins_over_other_parse_failures(server, version):
    """Checked once the Request fails to parse: no id, no params, a non-string id."""
    for line, rid in (
        (b'{"method":"pane.graphics.set"}', ""),
        (b'{"id":5,"method":"pane.graphics.info","params":{}}', ""),
        (b'{"id":"a","id":"b","method":"pane.graphics.clear"}', ""),
        (b'{"id":"k","method":"pane.graphics.clear"}', "k"),
    ):
        reply = json.loads(raw(server.path, line + b"\n"))
        code = "unknown_method" if resolve(version).retired_methods else "invalid_request"
        assert reply["error"]["code"] == code, line
        assert reply["id"] == (rid if resolve(version).retired_methods else ""), line
