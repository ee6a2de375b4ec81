"""The 0.9.x methods over the socket, each reply schema-checked (tests/core/socketclient.py),
and the same names refused by 0.8.2 as unknown variants."""

from __future__ import annotations

import json
import os
import socket
import time

import pytest

from simherdr.facts.methods import NEW_0_9
from simherdr.handlers.ssh_agent import INVALID
from tests.core.socketclient import Subscription, request
from tests.releases import lone_pane_size, resolve


@pytest.fixture
def pane(server, tmp_path):
    request(server.path, "workspace.create", {"cwd": str(tmp_path)})
    request(
        server.path,
        "pane.send_input",
        {"pane_id": "w1:p1", "text": "see https://example.com/a now", "keys": ["Enter"]},
    )
    return "w1:p1"


def call(server, method, **params):
    return request(server.path, method, params, rid="n")


def ok(server, method, **params):
    reply = call(server, method, **params)
    assert "result" in reply, reply
    return reply["result"]


def err(server, method, **params):
    reply = call(server, method, **params)
    assert "error" in reply, reply
    assert reply["id"] == "n"
    return reply["error"]


@pytest.mark.parametrize("method", sorted(NEW_0_9))
def test_082_does_not_know_the_new_names(server, version, method):
    if method in resolve(version).methods:
        pytest.skip("a release that knows the method")
    reply = call(server, method)
    assert reply["id"] == ""
    assert reply["error"]["code"] == "invalid_request"
    assert f"unknown variant `{method}`" in reply["error"]["message"]


@pytest.fixture
def v9(version):
    if not resolve(version).methods >= NEW_0_9:
        pytest.skip("0.9.x method")


def test_pane_scroll_reports_and_clamps(server, v9, pane, version):
    assert "scroll" not in ok(server, "pane.get", pane_id=pane)["pane"]  # CHOICE: not yet
    # past the viewport: 0.9.3's lone pane shows 39 rows (the headless 120x40 less the chrome)
    for i in range(60):
        call(server, "pane.send_input", pane_id=pane, text=f"l{i}", keys=["Enter"])
    info = ok(server, "pane.scroll", pane_id=pane, offset_from_bottom=5)
    assert info["type"] == "pane_info"
    top = info["pane"]["scroll"]["max_offset_from_bottom"]
    assert top > 5
    assert info["pane"]["scroll"] == {
        "offset_from_bottom": 5,
        "max_offset_from_bottom": top,
        "viewport_rows": lone_pane_size(version)[1],
    }
    assert ok(server, "pane.get", pane_id=pane)["pane"]["scroll"]["offset_from_bottom"] == 5
    huge = ok(server, "pane.scroll", pane_id=pane, offset_from_bottom=10**9)
    assert huge["pane"]["scroll"]["offset_from_bottom"] == top
    assert err(server, "pane.scroll", pane_id="w9:p1", offset_from_bottom=0) == {
        "code": "pane_not_found",
        "message": "pane w9:p1 not found",
    }


def test_scroll_changed_subscription_sees_pane_scroll(server, v9, pane):
    sub = Subscription(server.path, [{"type": "pane.scroll_changed", "pane_id": pane}])
    try:
        assert sub.next()["result"]["type"] == "subscription_started"
        ok(server, "pane.scroll", pane_id=pane, offset_from_bottom=0)
        ev = sub.next()
        assert ev["event"] == "pane.scroll_changed"
        assert ev["data"]["pane_id"] == pane and ev["data"]["scroll"]["offset_from_bottom"] == 0
    finally:
        sub.close()


def test_pane_clear_wipes_the_screen(server, v9, pane):
    assert "example.com" in ok(server, "pane.read", pane_id=pane, source="visible")["read"]["text"]
    assert ok(server, "pane.clear", pane_id=pane) == {"type": "ok"}
    assert ok(server, "pane.read", pane_id=pane, source="recent")["read"]["text"] == ""
    assert err(server, "pane.clear", pane_id="w9:p1")["code"] == "pane_not_found"


def test_edit_scrollback_refusals(server, v9, pane):
    assert err(server, "pane.edit_scrollback", pane_id=pane)["code"] == "scrollback_editor_failed"
    ok(server, "pane.split", target_pane_id=pane, direction="right", focus=True)
    assert err(server, "pane.edit_scrollback", pane_id=pane) == {
        "code": "stale_pane_target",
        "message": "pane is no longer focused",
    }


def test_selection_read(server, v9, pane):
    sel = ok(
        server,
        "pane.selection.read",
        pane_id=pane,
        anchor={"row": 0, "col": 26},
        cursor={"row": 0, "col": 6},
    )
    assert sel == {"type": "pane_selection", "pane_id": pane, "text": "https://example.com/a"}
    two_rows = ok(
        server,
        "pane.selection.read",
        pane_id=pane,
        anchor={"row": 0, "col": 28},
        cursor={"row": 1, "col": 0},
    )["text"]
    assert two_rows == "now\n$"
    for bad, code in (
        (
            {"anchor": {"row": 0, "col": 0}, "cursor": {"row": 99, "col": 0}},
            "selection_unavailable",
        ),
        (
            {"anchor": {"row": 0, "col": 0}, "cursor": {"row": 0, "col": 1}, "content_revision": 1},
            "stale_content",
        ),
    ):
        assert err(server, "pane.selection.read", pane_id=pane, **bad)["code"] == code
    missing = err(
        server,
        "pane.selection.read",
        pane_id="w9:p1",
        anchor={"row": 0, "col": 0},
        cursor={"row": 0, "col": 0},
    )
    assert missing == {"code": "pane_not_found", "message": "pane not found: w9:p1"}


def test_copy_motion_and_search(server, v9, pane):
    end = ok(
        server, "pane.copy_motion", pane_id=pane, cursor={"row": 0, "col": 0}, motion="line_end"
    )
    assert end["cursor"] == {"row": 0, "col": 30}
    rev = end["content_revision"]
    assert rev % 2 == 0
    word = ok(
        server,
        "pane.copy_motion",
        pane_id=pane,
        cursor={"row": 0, "col": 2},
        motion="next_word_start",
        content_revision=rev,
    )
    assert word["cursor"] == {"row": 0, "col": 6}
    found = ok(
        server,
        "pane.copy_search",
        pane_id=pane,
        query="NOW",
        direction="forward",
        cursor={"row": 0, "col": 0},
        content_revision=rev,
    )
    assert found["total"] == 0  # smart case: an upper-case query is case-sensitive
    found = ok(
        server,
        "pane.copy_search",
        pane_id=pane,
        query="now",
        direction="forward",
        cursor={"row": 0, "col": 0},
        content_revision=rev,
    )
    assert found["matches"] == [{"start": {"row": 0, "col": 28}, "end": {"row": 0, "col": 30}}]
    assert found["current"] == 0 and found["total"] == 1
    stale = err(
        server,
        "pane.copy_search",
        pane_id=pane,
        query="x",
        direction="backward",
        cursor={"row": 0, "col": 0},
        content_revision=rev + 2,
    )
    assert stale == {"code": "stale_content", "message": "pane content changed"}
    big = err(
        server,
        "pane.copy_search",
        pane_id=pane,
        query="x" * 4097,
        direction="forward",
        cursor={"row": 0, "col": 0},
        content_revision=rev,
    )
    assert big["code"] == "query_too_large"


def test_links(server, v9, pane):
    regions = ok(server, "pane.link.resolve", pane_id=pane, viewport_row=0, col=8)["regions"]
    assert regions == [{"row": 0, "start_col": 6, "end_col": 26}]
    assert ok(server, "pane.link.activate", pane_id=pane, viewport_row=0, col=8) == {
        "type": "pane_link_activated",
        "handled": False,
        "url": "https://example.com/a",
    }
    assert ok(server, "pane.link.resolve", pane_id=pane, viewport_row=0, col=1)["regions"] == []
    stale = err(
        server, "pane.link.resolve", pane_id=pane, viewport_row=0, col=8, offset_from_bottom=1
    )
    assert stale == {
        "code": "stale_content",
        "message": "pane viewport changed before link resolution",
    }
    ok(server, "tab.create", workspace_id="w1", focus=True)
    assert err(server, "pane.link.activate", pane_id=pane, viewport_row=0, col=8) == {
        "code": "stale_target",
        "message": "pane is no longer visible",
    }


def test_integration_list(server, v9, tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    agy = bindir / "agy"
    agy.write_text("#!/bin/sh\n")
    agy.chmod(0o755)
    monkeypatch.setenv("PATH", str(bindir))
    result = ok(server, "integration.list")
    rows = {r["target"]: r for r in result["integrations"]}
    assert len(result["integrations"]) == 17
    assert rows["antigravity_cli"] == {
        "target": "antigravity_cli",
        "label": "antigravity-cli",
        "command": "agy",
        "available": True,
        "state": "not_installed",
    }
    assert rows["pi"]["available"] is False


def test_headless_refusals(server, v9):
    assert err(server, "client_shell.surface.set", active=True) == {
        "code": "connection_local_only",
        "message": "client_shell.surface.set is only available through a client shell endpoint",
    }
    assert err(server, "release_notes.dismiss", version="0.9.3")["code"] == "stale_release_notes"
    assert err(server, "product_announcement.dismiss", version="0.9.3", id="x")["code"] == (
        "stale_announcement"
    )
    assert err(server, "command.invoke", command_id="c1") == {
        "code": "command_not_found",
        "message": "custom command manifest is stale; reload configuration",
    }


def test_ssh_agent_register_validates_and_holds_a_lease(server, v9, tmp_path):
    plain = tmp_path / "plain"
    plain.write_text("")
    for path in ("relative.sock", str(plain), str(tmp_path / "missing"), server.path + ".agent"):
        assert err(server, "server.ssh_agent.register", socket_path=path) == {
            "code": "invalid_ssh_agent",
            "message": INVALID,
        }
    agent_path = str(tmp_path / "agent.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(agent_path)
    listener.listen()
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        c.settimeout(5)
        c.connect(server.path)
        line = {
            "id": "lease",
            "method": "server.ssh_agent.register",
            "params": {"socket_path": agent_path},
        }
        c.sendall(json.dumps(line).encode() + b"\n")
        f = c.makefile("rb")
        assert json.loads(f.readline()) == {"id": "lease", "result": {"type": "ok"}}
        deadline = time.monotonic() + 5
        while server.run(lambda sim: _leases(sim)) != [agent_path]:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        stable = server.path + ".agent"  # published for new panes' SSH_AUTH_SOCK
        assert os.readlink(stable) == agent_path
        c.sendall(b"x")  # any byte ends the lease
        assert f.readline() == b""
        while server.run(lambda sim: _leases(sim)):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert os.readlink(stable) == server.path + ".unavailable"
    finally:
        c.close()
        listener.close()
        os.unlink(agent_path)


async def _leases(sim):
    return list(sim.ssh_agent_leases)


def test_surface_set_answers_while_stopping(h, version):
    """Answered on the connection before the shutdown check (src/api/server.rs handle_request)."""
    h.ok("server.stop")
    code = h.err("client_shell.surface.set", active=False)["code"]
    known = "client_shell.surface.set" in resolve(version).methods
    assert code == ("connection_local_only" if known else "invalid_request")
    assert h.err("workspace.list")["code"] == "server_unavailable"


def test_pane_clear_refuses_the_alternate_screen(h, version, tmp_path):
    if not resolve(version).methods >= NEW_0_9:
        pytest.skip("0.9.x method")
    h.ok("workspace.create", cwd=str(tmp_path))
    h.sim.session.panes["w1:p1"].screen.feed("\x1b[?1049hfull screen")
    assert h.err("pane.clear", pane_id="w1:p1")["code"] == "pane_clear_failed"
    h.sim.session.panes["w1:p1"].screen.feed("\x1b[?1049l")
    assert h.ok("pane.clear", pane_id="w1:p1") == {"type": "ok"}
