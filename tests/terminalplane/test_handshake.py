"""The handshake on each protocol: herdr 0.8.0 (19), 0.8.2 (20), 0.9.3 (22). A client written
from wire.rs alone handshakes, attaches, types and reads frames; a client one protocol off gets
herdr's exact refusal (check_client_version, in a Welcome); every other refusal is herdr's."""

from __future__ import annotations

import socket

import pytest

from simherdr.protocol import PROTOCOLS, encode_frame
from simherdr.terminalplane.plane import APP_CLIENT_REASON
from tests.releases import resolve

from .conftest import make_plane
from .wireclient import TermView, hello

RELEASES = [v for v in ("0.8.0", "0.8.2", "0.9.3") if resolve(v).protocol in PROTOCOLS]


@pytest.fixture(params=RELEASES)
def any_plane(request, config, tmp_path):
    srv, p = make_plane(request.param, config, tmp_path)
    with srv:
        yield p
        p.close()


def test_a_client_from_wire_rs_handshakes_attaches_types_and_reads_frames(any_plane):
    p = any_plane
    c = p.client()
    welcome = c.handshake(90, 20)
    assert welcome == {"version": p.protocol, "encoding": "TerminalAnsi", "error": None}
    c.send({"AttachTerminal": {"terminal_id": p.terminal_id(), "takeover": False}})
    view = TermView(90, 20)
    first = view.follow(c, "$")
    assert (first["seq"], first["width"], first["height"], first["full"]) == (1, 90, 20, True)
    c.type("typed over attach")
    last = view.follow(c, "typed over attach")
    assert last["full"] is False and last["seq"] == len(view.frames)
    # what was typed is what pane.read reads
    read = p.api("pane.read", pane_id="w1:p1", source="visible")["read"]["text"]
    assert "typed over attach" in read
    # and what the JSON API types shows in the frames
    p.api("pane.send_input", pane_id="w1:p1", text=" and over the API")
    view.follow(c, "typed over attach and over the API")


@pytest.mark.parametrize("delta", [-1, 1])
def test_a_client_one_protocol_off_gets_herdrs_refusal(any_plane, delta):
    p = any_plane
    server = p.protocol
    client = server + delta
    c = p.client()
    c.send(hello(server, version=client))
    older = (
        f"client version {client} is older than server version {server}; "
        "please upgrade your herdr client"
    )
    newer = (
        f"client version {client} is newer than server version {server}; "
        "please upgrade the herdr server"
    )
    encoding = p.srv.sim.version.rows.terminal_refusal_encoding
    assert c.rest() == [
        {
            "Welcome": {
                "version": server,
                "encoding": encoding,
                "error": older if delta < 0 else newer,
            }
        }
    ]


def test_version_zero_is_a_pre_persistence_client(any_plane):
    c = any_plane.client()
    c.send(hello(any_plane.protocol, version=0))
    (welcome,) = c.rest()
    assert welcome["Welcome"]["error"] == "pre-persistence client (version 0) is not supported"


def test_the_first_message_must_be_the_handshake(any_plane):
    c = any_plane.client()
    c.send("Detach")
    rows = any_plane.srv.sim.version.rows
    assert c.rest() == [
        {
            "Welcome": {
                "version": any_plane.protocol,
                "encoding": "SemanticFrame",
                "error": rows.terminal_first_message_error,
            }
        }
    ]


def test_an_undecodable_or_oversized_hello_closes_without_a_word(plane):
    c = plane.client()
    c.send_raw(encode_frame(b"\xff\xff\xff"))
    assert c.rest() == []
    c = plane.client()
    c.send_raw((3 * 1024 * 1024).to_bytes(4, "little"))  # over MAX_FRAME_SIZE (2 MiB)
    assert c.rest() == []


def test_a_hello_with_trailing_bytes_is_refused(plane):
    c = plane.client()
    payload = c.wire.encode_client(hello(plane.protocol)) + b"\0"
    c.send_raw(encode_frame(payload))
    assert c.rest() == []  # read_message: trailing bytes are a bincode error


def test_herdrs_full_client_is_welcomed_then_told_it_is_not_served(plane):
    """CHOICE(app-client) in simherdr/terminalplane/plane.py."""
    c = plane.client()
    c.send(hello(plane.protocol, launch_mode="App", requested_encoding="SemanticFrame"))
    assert c.rest() == [
        {"Welcome": {"version": plane.protocol, "encoding": "SemanticFrame", "error": None}},
        {"ServerShutdown": {"reason": APP_CLIENT_REASON}},
    ]


def test_invalid_local_keybindings_are_refused_in_the_welcome(plane):
    c = plane.client()
    c.send(hello(plane.protocol, keybindings={"Local": {"keys_toml": "prefix = ["}}))
    (welcome,) = c.rest()
    assert welcome["Welcome"]["error"].startswith("invalid client keybindings: ")


def test_a_silent_client_is_dropped_and_others_still_served(plane):
    """One client holding its connection open without a Hello blocks nobody."""
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect(plane.client_path)
    try:
        c = plane.client()
        assert c.handshake()["error"] is None
    finally:
        silent.close()


def test_the_server_stopping_tells_every_client(config, tmp_path):
    srv, p = make_plane("0.8.2", config, tmp_path)
    with srv:
        c = p.client()
        c.attach(p.terminal_id())
        pending = p.client()
        pending.handshake()
        srv.stop()
        assert c.rest()[-1] == {"ServerShutdown": {"reason": "server is shutting down"}}
        assert pending.rest() == [{"ServerShutdown": {"reason": "server is shutting down"}}]


@pytest.mark.parametrize("kind", ["endpoint.hello.v1", "something.else"])
def test_0_9_endpoint_hello_is_herdrs_full_client_other_controls_are_no_handshake(
    config, tmp_path, kind
):
    """[H093] client_transport.rs handle_client_handshake: EndpointControl opens a client shell
    only with ENDPOINT_HELLO_KIND (then CHOICE app-client); any other first message is refused."""
    srv, p = make_plane("0.9.3", config, tmp_path)
    with srv:
        c = p.client()
        c.send({"EndpointControl": {"kind": kind, "data": "{}"}})
        got = c.rest()
        if kind == "endpoint.hello.v1":
            assert got[-1] == {"ServerShutdown": {"reason": APP_CLIENT_REASON}}
        else:
            error = srv.sim.version.rows.terminal_first_message_error
            assert got == [
                {"Welcome": {"version": 22, "encoding": "SemanticFrame", "error": error}}
            ]
        p.close()


def test_0_9_a_client_shell_hello_gets_herdrs_upgrade_refusal(config, tmp_path):
    srv, p = make_plane("0.9.3", config, tmp_path)
    with srv:
        c = p.client()
        body = {
            "version": 22,
            "cell_width_px": 0,
            "cell_height_px": 0,
            "surface_size": {"cols": 80, "rows": 24},
            "pixel_mouse": False,
            "direct_graphics": False,
            "endpoint_keybindings": False,
            "mouse_capture": False,
        }
        c.send({"ClientShellHello": body})
        error = "this client predates the stable endpoint protocol; upgrade the Herdr client"
        assert c.rest() == [
            {"Welcome": {"version": 22, "encoding": "SemanticFrame", "error": error}}
        ]
        p.close()
