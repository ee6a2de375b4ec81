"""server.live_handoff over the socket, both versions (src/server/headless.rs:1235-1300,
3636-3660): herdr's param and pane-count checks, then simherdr's named refusal
(facts/errors.py HANDOFF_UNSUPPORTED); the server keeps serving. Replies schema-checked."""

from __future__ import annotations

import pytest

from simherdr.facts.errors import HANDOFF_UNSUPPORTED
from simherdr.handlers.server import MAX_FDS_PER_HANDOFF
from tests.core.socketclient import request


def call(server, method, params=None):
    return request(server.path, method, params, rid="h")


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"import_exe": "/usr/bin/herdr", "expected_protocol": 1, "expected_version": "0.8.2"},
        {"import_exe": None, "expected_protocol": None, "expected_version": None},
    ],
)
def test_handoff_fails_honestly_and_the_server_keeps_serving(server, version, params):
    request(server.path, "workspace.create", {})
    reply = call(server, "server.live_handoff", params)
    assert reply == {"id": "h", "error": {"code": "handoff_failed", "message": HANDOFF_UNSUPPORTED}}
    assert call(server, "ping")["result"]["type"] == "pong"
    assert len(call(server, "workspace.list")["result"]["workspaces"]) == 1


@pytest.mark.parametrize(
    "params",
    [{"expected_protocol": -1}, {"expected_protocol": "1"}, {"import_exe": 7}],
)
def test_params_are_checked_first(server, version, params):
    reply = call(server, "server.live_handoff", params)
    assert reply["error"]["code"] == "invalid_request"


def test_more_panes_than_one_handoff_carries(server, version):
    for _ in range(MAX_FDS_PER_HANDOFF):
        request(server.path, "workspace.create", {})
    assert call(server, "server.live_handoff")["error"]["message"] == HANDOFF_UNSUPPORTED
    request(server.path, "workspace.create", {})
    assert call(server, "server.live_handoff")["error"] == {
        "code": "handoff_failed",
        "message": "live handoff supports at most 64 panes in one update; close panes or "
        "restart herdr normally",
    }
