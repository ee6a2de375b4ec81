"""herdr's client writer queue (src/server/client_transport.rs:180-301), its own tests
transcribed (client_transport.rs test module): one droppable render slot, reliable control
messages written first, the drain reported so a deferred render runs."""

from __future__ import annotations

import asyncio

from simherdr.protocol import FrameDecoder, wire_for
from simherdr.terminalplane.connection import TerminalClient


class _Plane:
    def __init__(self) -> None:
        self.wire = wire_for(20)
        self.clients: set = set()
        self.drained: list[str] = []

    def writer_drained(self, c) -> None:
        self.drained.append(c.label)


class _Transport(asyncio.Transport):
    """A transport whose peer is not reading until ``take`` is called."""

    def __init__(self) -> None:
        super().__init__()
        self.data = bytearray()
        self.closing = False

    def write(self, data) -> None:
        self.data += data

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def set_write_buffer_limits(self, high=None, low=None) -> None:
        pass


def _client() -> tuple[TerminalClient, _Plane, _Transport]:
    plane = _Plane()
    c = TerminalClient(plane, "t9")  # type: ignore[arg-type]
    t = _Transport()
    c.transport = t  # connection_made without its handshake timer
    return c, plane, t


def _messages(wire, data: bytes) -> list:
    return [wire.decode_server(p) for p in FrameDecoder().feed(bytes(data))]


def _title(text: str) -> dict:
    return {"WindowTitle": {"title": text}}


def test_client_writer_queue_keeps_render_slot_bounded():
    c, plane, t = _client()
    c.pause_writing()  # the writer is busy with an earlier frame
    assert c.try_send_render(plane.wire.encode_server(_title("first")))
    assert not c.try_send_render(plane.wire.encode_server(_title("second")))  # Full
    c.resume_writing()
    assert _messages(plane.wire, t.data) == [_title("first")]


def test_client_writer_prioritizes_control_and_reports_render_drain():
    c, plane, t = _client()
    c.pause_writing()
    assert c.try_send_render(plane.wire.encode_server(_title("render")))
    c.send("ReloadSoundConfig")
    assert plane.drained == []
    c.resume_writing()
    assert _messages(plane.wire, t.data) == ["ReloadSoundConfig", _title("render")]
    assert plane.drained == ["t9"]  # ServerEvent::ClientWriterDrained


def test_control_messages_are_never_dropped_while_the_writer_is_busy():
    c, plane, t = _client()
    c.pause_writing()
    for n in range(50):
        c.send(_title(f"control {n}"))
    c.resume_writing()
    assert _messages(plane.wire, t.data) == [_title(f"control {n}") for n in range(50)]
