"""agent.start's checks in herdr's order (SOCKET.md §6.5, CLIENTS.md §1), in-process and over
the socket; every reply is validated against herdr's schema."""

from __future__ import annotations

import pytest

from simherdr.clock import ScaledClock
from simherdr.testing import ThreadServer
from tests import herdr_reference as ref
from tests.core.socketclient import request

NAME_MSG = (
    "agent name must start with a lowercase letter and contain only lowercase letters, "
    "digits, '-' or '_' (1-32 characters)"
)
TIMEOUT_MSG = "agent start timeout must be greater than 3000ms and at most 300000ms"
ARG_MSG = "agent arguments cannot be encoded safely for the target shell"

# (params, expected error code, expected message or None). Each row breaks one rule and
# the later ones too: the first broken rule must win.
CASES = [
    (
        {"name": "Bad", "kind": "nope", "pane_id": "w9:p9", "args": ["a\nb"], "timeout_ms": 1},
        "invalid_agent_name",
        NAME_MSG,
    ),
    ({"name": "a" * 33, "kind": "claude", "pane_id": "w1:p1"}, "invalid_agent_name", NAME_MSG),
    (
        {"name": "ok", "kind": "nope", "pane_id": "w9:p9", "args": ["a\nb"]},
        "unsupported_agent_kind",
        "unsupported interactive agent kind nope",
    ),
    # a multi-line arg to a missing pane: the argument error comes first
    (
        {"name": "ok", "kind": "claude", "pane_id": "w9:p9", "args": ["line1\nline2"]},
        "invalid_agent_argument",
        ARG_MSG,
    ),
    (
        {"name": "ok", "kind": "claude", "pane_id": "w1:p1", "args": ["escape\x1b[201~"]},
        "invalid_agent_argument",
        ARG_MSG,
    ),
    (
        {"name": "ok", "kind": "claude", "pane_id": "w1:p1", "args": ["c1\x85"]},
        "invalid_agent_argument",
        ARG_MSG,
    ),
    # a one-line arg to a missing pane: the pane error
    (
        {"name": "ok", "kind": "claude", "pane_id": "w9:p9", "args": ["one line"]},
        "agent_pane_not_found",
        "agent target pane w9:p9 not found",
    ),
    # legacy and positional forms are refused
    (
        {"name": "ok", "kind": "claude", "pane_id": "w1-1"},
        "agent_pane_not_found",
        "agent target pane w1-1 not found",
    ),
    ({"name": "ok", "kind": "claude", "pane_id": "1:p1"}, "agent_pane_not_found", None),
    # bad timeout with a bad pane: the pane error
    (
        {"name": "ok", "kind": "claude", "pane_id": "w9:p9", "timeout_ms": 3000},
        "agent_pane_not_found",
        "agent target pane w9:p9 not found",
    ),
    (
        {"name": "ok", "kind": "claude", "pane_id": "w1:p1", "timeout_ms": 3000},
        "invalid_agent_timeout",
        TIMEOUT_MSG,
    ),
    (
        {"name": "ok", "kind": "claude", "pane_id": "w1:p1", "timeout_ms": 0},
        "invalid_agent_timeout",
        TIMEOUT_MSG,
    ),
    (
        {"name": "ok", "kind": "claude", "pane_id": "w1:p1", "timeout_ms": 300001},
        "invalid_agent_timeout",
        TIMEOUT_MSG,
    ),
    (
        {"name": "ok", "kind": "claude", "pane_id": "w1:p1", "timeout_ms": 2**64 - 1},
        "invalid_agent_timeout",
        TIMEOUT_MSG,
    ),
]


@pytest.mark.parametrize("params,code,message", CASES)
def test_first_broken_rule_wins(ws, params, code, message):
    err = ws.err("agent.start", **params)
    assert err["code"] == code
    if message is not None:
        assert err["message"] == message
    # nothing was typed, nothing registered
    assert ws.ok("agent.list")["agents"] == []
    assert ws.ok("pane.read", pane_id="w1:p1", source="visible")["read"]["text"].strip() == "$"


@pytest.mark.parametrize("timeout", [3001, 300000, None])
def test_timeout_bounds_accepted(ws, timeout):
    params = {"name": "ok", "kind": "claude", "pane_id": "w1:p1"}
    if timeout is not None:
        params["timeout_ms"] = timeout
    r = ws.ok("agent.start", **params)
    assert r["type"] == "agent_started" and r["argv"] == ["claude"]


def test_name_taken_counts_a_pending_start_before_the_pane(ws):
    ws.ok("pane.split", direction="right")
    ws.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    a = ws.ok("agent.get", target="rev")["agent"]
    err = ws.err("agent.start", name="rev", kind="pi", pane_id="w9:p9")
    assert err["code"] == "agent_name_taken"
    assert err["message"] == (
        f"agent name rev is already used; candidates: terminal_id={a['terminal_id']} "
        f"pane_id=w1:p1 workspace_id=w1 tab_id=w1:t1 cwd={a['cwd']} status=Unknown"
    )


def test_busy_pane_agent_terminal_or_shell_not_at_prompt(ws):
    ws.ok("pane.split", direction="right")
    ws.ok("agent.start", name="one", kind="claude", pane_id="w1:p1")
    busy = {
        "code": "agent_pane_busy",
        "message": "agent target pane w1:p1 is not an available shell",
    }
    assert ws.err("agent.start", name="two", kind="pi", pane_id="w1:p1") == busy
    # a half-typed command line: the shell is not at an empty prompt
    ws.ok("pane.send_text", pane_id="w1:p2", text="make bui")
    assert (
        ws.err("agent.start", name="two", kind="pi", pane_id="w1:p2")["code"] == "agent_pane_busy"
    )
    ws.ok("pane.send_keys", pane_id="w1:p2", keys=["ctrl+c"])
    ws.ok("agent.start", name="two", kind="pi", pane_id="w1:p2")


def test_busy_beats_bad_timeout(ws):
    ws.ok("agent.start", name="one", kind="claude", pane_id="w1:p1")
    assert (
        ws.err("agent.start", name="two", kind="pi", pane_id="w1:p1", timeout_ms=1)["code"]
        == "agent_pane_busy"
    )


def test_start_types_the_quoted_command_and_replies_at_once(ws):
    r = ws.ok(
        "agent.start",
        name="rev",
        kind="claude-code",
        pane_id="w1:p1",
        args=["--model", "it's", "a b", ""],
    )
    assert r["argv"] == ["claude", "--model", "it's", "a b", ""]
    agent = r["agent"]
    assert agent["name"] == "rev" and agent["launch_pending"] is True
    assert (
        agent["agent_status"] == "unknown"
        and "agent" not in agent
        and "interactive_ready" not in agent
    )
    assert agent["state_change_seq"] == 0
    text = ws.ok("pane.read", pane_id="w1:p1", source="visible")["read"]["text"]
    assert "$ claude --model 'it'\\''s' 'a b' ''" in text
    # agent.start itself emits no event
    from tests.agents.conftest import events

    assert [k for k, _ in events(ws)][-3:] == ["workspace_focused", "tab_focused", "pane_focused"]


@pytest.fixture
def fast_server(version, config):
    with ThreadServer(version, config=config, clock=ScaledClock(200)) as srv:
        ref.bind_socket(srv.path, version)
        yield srv


@pytest.mark.parametrize("params,code,message", CASES)
def test_first_broken_rule_wins_over_the_socket(fast_server, params, code, message):
    path = fast_server.path
    request(path, "workspace.create", {"cwd": fast_server.sim.config.server_cwd})
    reply = request(path, "agent.start", params, rid="s1")
    assert reply["id"] == "s1" and reply["error"]["code"] == code
    if message is not None:
        assert reply["error"]["message"] == message


def test_socket_start_accepts_bounds_and_becomes_ready(fast_server):
    path = fast_server.path
    request(path, "workspace.create", {"cwd": fast_server.sim.config.server_cwd})
    request(path, "pane.split", {"direction": "right"})
    assert (
        request(
            path, "agent.start", {"name": "a", "kind": "pi", "pane_id": "w1:p1", "timeout_ms": 3001}
        )["result"]["type"]
        == "agent_started"
    )
    assert (
        request(
            path,
            "agent.start",
            {"name": "b", "kind": "pi", "pane_id": "w1:p2", "timeout_ms": 300000},
        )["result"]["type"]
        == "agent_started"
    )
    # 200x: the 3 s settle is 15 ms of wall time; agent.wait is event-driven on the socket too
    reply = request(path, "agent.wait", {"target": "b", "until": ["idle"], "timeout_ms": 20000})
    assert reply["result"]["agent"]["agent_status"] == "idle"
    import time

    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        agent = request(path, "agent.get", {"target": "b"})["result"]["agent"]
        if agent.get("interactive_ready"):
            break
        time.sleep(0.01)
    assert agent.get("interactive_ready") is True and "launch_pending" not in agent
