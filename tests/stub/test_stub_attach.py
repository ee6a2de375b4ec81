"""``herdr terminal attach`` / ``herdr agent attach`` under a PTY (pexpect), against a scripted
client socket: raw mode, frames on the caller's terminal, keys as Input, herdr's ctrl+b escape,
the exit messages and codes (herdr 0.8.2 src/client/mod.rs:105-236, :1207-1370)."""

from __future__ import annotations

import os

import pytest

pexpect = pytest.importorskip("pexpect")

from termfake import FakeTerminalServer  # noqa: E402

from simherdr.facts.versions import resolve  # noqa: E402
from simherdr.protocol import PROTOCOLS  # noqa: E402
from simherdr.stub.cli.attach import (  # noqa: E402
    EscapeFilter,
    scroll_action,
    terminal_modes,
)
from simherdr.stub.cli.base import release_of  # noqa: E402
from tests.releases import BASE, distinguishing  # noqa: E402


def modes(version=BASE):
    """The release's terminal set-up and restore bytes (row cli_attach_bracketed_paste)."""
    return terminal_modes(release_of(version).rows)


SETUP, RESTORE = modes()

RELEASES = [
    pytest.param(
        version,
        marks=pytest.mark.skipif(
            resolve(version).protocol not in PROTOCOLS,
            reason="simherdr.protocol has no table for this release's protocol yet",
        ),
    )
    for version in distinguishing("protocol", "cli_terminal_hello")
]


@pytest.fixture
def attach(stubs, sockdir, base_env):
    made = []

    def start(*argv, version=BASE, env=None, **server_kwargs):
        server = FakeTerminalServer(
            os.path.join(sockdir, "herdr-client.sock"), resolve(version).protocol, **server_kwargs
        )
        full_env = dict(base_env, HERDR_SOCKET_PATH=os.path.join(sockdir, "herdr.sock"))
        full_env.update(env or {})
        child = pexpect.spawn(
            stubs[version], list(argv), env=full_env, dimensions=(30, 100), timeout=30
        )
        made.append((server, child))
        return server, child

    yield start
    for server, child in made:
        if child.isalive():
            child.terminate(force=True)
        server.shutdown()


def _attached(server, version, terminal_id="t7", takeover=False):
    hello = server.next_message()
    ((name, body),) = hello.items()
    assert name == resolve(version).rows.cli_terminal_hello
    assert (body["cols"], body["rows"], body["version"]) == (100, 30, resolve(version).protocol)
    if name == "Hello":
        assert body["launch_mode"] == "TerminalAttach"
        assert body["requested_encoding"] == "TerminalAnsi"
    assert server.next_message() == {
        "AttachTerminal": {"terminal_id": terminal_id, "takeover": takeover}
    }


@pytest.mark.parametrize("version", RELEASES)
def test_attach_types_and_detaches_with_ctrl_b_q(attach, version):
    server, child = attach("terminal", "attach", "t7", version=version)
    _attached(server, version)
    setup, restore = modes(version)
    child.expect_exact(setup)  # alternate screen, mouse capture, (0.9: bracketed paste), no wrap
    server.frame(1, b"\x1b[Hpane says hi", full=True)
    child.expect_exact(b"pane says hi")
    child.send(b"ls\r")  # raw mode: the bytes as typed, no line discipline
    assert server.next_message() == {"Input": {"data": b"ls\r"}}
    child.send(b"\x02\x02")  # ctrl+b ctrl+b: one literal ctrl+b
    assert server.next_message() == {"Input": {"data": b"\x02"}}
    child.send(b"\x03")  # ctrl+c goes to the pane, it does not end the client
    assert server.next_message() == {"Input": {"data": b"\x03"}}
    child.send(b"\x02q")
    assert server.next_message() == "Detach"
    child.expect_exact(restore)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert b"herdr:" not in child.before


def test_attach_takeover_refused_and_server_shutdown_reason(attach):
    server, child = attach("terminal", "attach", "t7", "--takeover")
    _attached(server, BASE, takeover=True)
    child.expect_exact(SETUP)
    server.send({"ServerShutdown": {"reason": "terminal t7 already has an attach owner"}})
    child.expect_exact(RESTORE)
    child.expect_exact(b"herdr: server shut down: terminal t7 already has an attach owner")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1


def test_attach_detached_by_the_server_exits_zero(attach):
    server, child = attach("terminal", "attach", "t7")
    _attached(server, BASE)
    server.send({"ServerShutdown": {"reason": "detached"}})
    child.expect_exact(b"herdr: detached from server\r\nRun `herdr` to reattach")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_attach_connection_lost(attach):
    server, child = attach("terminal", "attach", "t7")
    _attached(server, BASE)
    server.close_client()
    child.expect_exact(b"herdr: lost connection to server: server closed connection")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1


def test_attach_resize_is_sent(attach):
    server, child = attach("terminal", "attach", "t7")
    _attached(server, BASE)
    child.expect_exact(SETUP)
    child.setwinsize(20, 90)
    assert server.next_message() == {
        "Resize": {"cols": 90, "rows": 20, "cell_width_px": 0, "cell_height_px": 0}
    }
    child.send(b"\x02q")


def test_attach_refused_handshake_leaves_the_terminal_alone(attach):
    server, child = attach(
        "terminal",
        "attach",
        "t7",
        refuse="client version 20 is newer than server version 19; please upgrade the herdr server",
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert SETUP not in child.before
    assert child.before.endswith(
        b"herdr: server rejected handshake (version 20): client version 20 is newer than server "
        b"version 19; please upgrade the herdr server\r\n"
    )


def test_escape_filter_units():
    f = EscapeFilter()
    assert f.feed(b"ab", 24) == ([{"Input": {"data": b"ab"}}], False)
    assert f.feed(b"\x02", 24) == ([], False)  # pending across reads
    assert f.feed(b"x", 24) == ([{"Input": {"data": b"\x02x"}}], False)
    assert f.feed(b"a\x02q", 24) == ([], True)  # what came before the escape is dropped
    wheel = scroll_action(b"\x1b[<64;10;5M", 24)
    assert (wheel["AttachScroll"]["column"], wheel["AttachScroll"]["row"]) == (9, 4)
    assert scroll_action(b"\x1b[<0;10;5M", 24) == "none"  # 0.8: a click is dropped
    page = scroll_action(b"\x1b[6~", 24)["AttachScroll"]
    assert (page["direction"], page["lines"], page["source"]) == (
        "Down",
        23,
        {"PageKey": {"input": b"\x1b[6~"}},
    )
    # 0.8: a paste is keys like any others; ctrl+b q inside it detaches
    assert EscapeFilter().feed(b"\x1b[200~a\x02qb\x1b[201~", 24) == ([], True)


def test_escape_filter_09_paste_and_mouse():
    """0.9's attach input (rows cli_attach_bracketed_paste, cli_attach_mouse_events)."""
    f = EscapeFilter(paste_opaque=True, mouse_events=True)
    paste = b"\x1b[200~one\x02q\ntwo\x1b[201~"
    assert f.feed(paste, 24) == ([{"Input": {"data": paste}}], False)
    assert f.feed(b"\x02", 24) == ([], False)
    assert f.feed(paste, 24) == ([{"Input": {"data": b"\x02"}}, {"Input": {"data": paste}}], False)
    click = f.feed(b"\x1b[<0;11;6M", 24)[0][0]["AttachMouse"]
    assert (click["kind"], click["position"], click["lines"]) == (
        {"Down": "Left"},
        {"Cell": {"column": 10, "row": 5}},
        1,
    )
    assert f.feed(b"\x1b[<2;1;1m", 24)[0][0]["AttachMouse"]["kind"] == {"Up": "Right"}
    assert f.feed(b"\x1b[<35;1;1M", 24)[0][0]["AttachMouse"]["kind"] == "Moved"


def test_agent_attach_resolves_the_agent_then_attaches(attach, fake):
    from stub_fake import result

    fake.on("agent.get", result("agent_info", agent={"name": "w", "terminal_id": "t9"}))
    server, child = attach("agent", "attach", "w")
    _attached(server, BASE, terminal_id="t9")
    child.send(b"\x02q")
    assert server.next_message() == "Detach"
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert fake.ops() == [
        {"id": "cli:agent:attach:resolve", "method": "agent.get", "params": {"target": "w"}}
    ]


@pytest.mark.parametrize(
    "reply,err",
    [
        (
            {"error": {"code": "agent_not_found", "message": "agent w not found"}},
            '{"error":{"code":"agent_not_found","message":"agent w not found"},'
            '"id":"cli:agent:attach:resolve"}\n',
        ),
        (
            {"result": {"type": "agent_info", "agent": {"name": "w"}}},
            "agent attach failed: response did not include terminal_id\n",
        ),
    ],
)
def test_agent_attach_failures(cli, fake, reply, err):
    fake.on("agent.get", reply)
    res = cli("agent", "attach", "w")
    assert (res.rc, res.stdout, res.stderr) == (1, "", err)


def test_agent_attach_from_an_older_client_is_refused_by_the_guard(cli, make_fake):
    """missuo/herdrm#22: a 0.8.0 `herdr agent attach` against a 0.8.2 server."""
    server = make_fake("old.sock", version="0.8.2")
    res = cli("agent", "attach", "w", version="0.8.0", socket=server.path)
    assert res.rc == 1
    assert res.stderr == (
        '{"id":"cli:agent:attach:resolve","error":{"code":"protocol_mismatch","message":'
        '"client protocol 19 is older than server protocol 20; upgrade the Herdr client before '
        'using this command"}}\n'
    )


@pytest.mark.parametrize("version", distinguishing("cli_attach_errors_to_main"))
def test_attach_refusal_and_missing_server_as_each_release_reports_them(
    attach, stubs, sockdir, base_env, version
):
    """0.8.x prints `herdr: <ClientError>`; 0.9.x returns it to main as io::Error::other."""
    from simherdr.stub.cli.base import release_of as _release

    refusal = "client version 1 is older than server version 2; please upgrade your herdr client"
    server, child = attach("terminal", "attach", "t7", version=version, refuse=refusal)
    child.expect(pexpect.EOF)
    child.close()
    protocol = resolve(version).protocol
    text = "server rejected handshake (version %d): %s" % (protocol, refusal)
    to_main = _release(version).rows["cli_attach_errors_to_main"]
    expected = 'Error: Custom { kind: Other, error: "%s" }' % text if to_main else "herdr: " + text
    assert child.exitstatus == 1
    assert child.before.endswith(expected.encode() + b"\r\n")
    server.shutdown()
    # no server at all: the connect failure (a newline inside the Debug string is `\n`)
    missing = os.path.join(sockdir, "herdr-client.sock")
    connect = (
        "failed to connect to server: No such file or directory (os error 2)\n"
        "Is herdr server running? Start it with `herdr server`.\nSocket path: " + missing
    )
    gone = pexpect.spawn(
        stubs[version],
        ["terminal", "attach", "t7"],
        env=dict(base_env, HERDR_SOCKET_PATH=os.path.join(sockdir, "herdr.sock")),
        timeout=30,
    )
    gone.expect(pexpect.EOF)
    gone.close()
    if to_main:
        expected = 'Error: Custom { kind: Other, error: "%s" }' % connect.replace("\n", "\\n")
    else:
        expected = "herdr: " + connect
    assert gone.exitstatus == 1
    assert gone.before.replace(b"\r\n", b"\n").endswith(expected.encode() + b"\n")
