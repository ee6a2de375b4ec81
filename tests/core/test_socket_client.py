"""simherdr.testing.SocketClient: the public socket client the suites and benchmarks share."""

from __future__ import annotations

import pytest

from simherdr.testing import SocketClient
from tests import herdr_reference as ref


def test_request_ok_and_validator(server):
    seen = []
    client = SocketClient(server.path, 5.0, seen.append)
    assert client.request("ping")["result"]["type"] == "pong"
    ws = client.ok("workspace.create", {"cwd": "/"})["workspace"]
    assert ws["workspace_id"] == "w1"
    assert [r["id"] for r in seen] == ["simherdr", "simherdr"]
    with pytest.raises(RuntimeError, match=r"pane\.get failed"):
        client.ok("pane.get", {"pane_id": "w9:p9"})


def test_exchange_is_raw_and_replies_parse_every_line(server):
    client = SocketClient(server.path, 5.0, ref.validator(server.sim.version.name))
    assert client.exchange(b"\n") == b""  # a blank line closes silently
    [reply] = client.replies(b"not json\n")
    assert reply["error"]["code"] == "invalid_request"


def test_stream_yields_each_line_until_closed(server):
    client = SocketClient(server.path, 5.0, ref.validator(server.sim.version.name))
    with client.stream("events.subscribe", {"subscriptions": [{"type": "workspace.created"}]}) as s:
        assert next(s)["result"]["type"] == "subscription_started"
        client.ok("workspace.create", {"cwd": "/"})
        event = next(s)
        assert event["event"] == "workspace_created"
        assert event["data"]["workspace"]["workspace_id"] == "w1"
