"""The recorder's side of herdr's client socket (``<stem>-client.sock``, the terminal plane).

The recording proxy listens beside its API socket on the client socket a client derives from
it (:func:`simherdr.terminalplane.client_socket_path`) and relays each connection to the
upstream's client socket byte for byte. Beside the relay it reassembles each direction's
frames (:class:`simherdr.protocol.FrameDecoder`) and journals every message decoded with the
release's protocol, in its JSON form (``Vec<u8>`` as base64, :mod:`simherdr.protocol.jsonform`):
``{"conn": n, "plane": "client", "client_send": {"Hello": {...}}}`` /
``"client_recv": {"Terminal": {...}}``, in one journal with the JSON plane's traffic, so the
cassette keeps both planes in the order they happened.

A payload the table cannot decode (another protocol, a hostile client) is journaled as
``{"undecoded": <base64>, "error": <herdr's text>}``; a framing error (an oversized length)
stops the decoding of that direction (the bytes are still relayed, as a proxy must) and is
journaled once.

:func:`cassette_message` turns a journaled message into the cassette's form: its strings
normalized by reference (a pane target ``w1:p1`` is ``<pane:1>``, shared with the JSON
plane), its bytes left exactly as recorded.
"""

from __future__ import annotations

import base64
import contextlib
from typing import TYPE_CHECKING, Any

from ..protocol import (
    MAX_GRAPHICS_FRAME,
    FrameDecoder,
    FramingError,
    JsonFormError,
    UnknownProtocol,
    Wire,
    wire_for,
)

if TYPE_CHECKING:
    import asyncio

    from .journal import Journal
    from .normalize import Normalizer

LIMIT = 1 << 20
PLANE = "client"  # the journal's and the cassette's name for this plane


def wire_of(protocol: Any) -> Wire | None:
    """The codec of the upstream's protocol (its ping's ``protocol``); None when simherdr has
    no table for it (then every payload is journaled undecoded)."""
    if not isinstance(protocol, int) or isinstance(protocol, bool):
        return None
    try:
        return wire_for(protocol)
    except UnknownProtocol:
        return None


def message_json(wire: Wire | None, direction: str, payload: bytes) -> Any:
    """One payload as the journal holds it: the decoded message's JSON form, or undecoded."""
    raw = {"undecoded": base64.b64encode(payload).decode("ascii")}
    if wire is None:
        return raw
    try:
        if direction == "send":
            return wire.client_to_json(wire.decode_client(payload))
        return wire.server_to_json(wire.decode_server(payload))
    except (FramingError, JsonFormError) as e:
        return {**raw, "error": str(e)}


def message_payload(wire: Wire, direction: str, obj: Any) -> bytes:
    """The inverse of :func:`message_json` (an undecoded payload is sent as recorded)."""
    if isinstance(obj, dict) and "undecoded" in obj:
        return base64.b64decode(str(obj["undecoded"]))
    if direction == "send":
        return wire.encode_client(wire.client_from_json(obj))
    return wire.encode_server(wire.server_from_json(obj))


def _normalized(norm: Normalizer, v: Any) -> Any:
    """Strings normalized, bytes as they are, field and variant names kept."""
    if isinstance(v, str):
        return norm.text(v)
    if isinstance(v, dict):
        return {k: _normalized(norm, x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_normalized(norm, x) for x in v]
    return v


def cassette_message(norm: Normalizer, wire: Wire | None, direction: str, obj: Any) -> Any:
    """A journaled message in the cassette: its text normalized by reference, its bytes (base64
    in the JSON form, which normalization must not touch) exact."""
    if wire is None or (isinstance(obj, dict) and "undecoded" in obj):
        return obj
    kind = "ClientMessage" if direction == "send" else "ServerMessage"
    try:
        value = wire.from_json(kind, obj)
        return wire.to_json(kind, _normalized(norm, value))
    except (JsonFormError, KeyError, TypeError, ValueError):
        return obj


class ScreenView:
    """A client's terminal: frames fed into a screen of the project's engine."""

    def __init__(self) -> None:
        self.screen: Any = None

    def feed(self, frame: dict) -> None:
        from ..panes.screens import new_screen

        cols, rows = int(frame["width"]), int(frame["height"])
        data = frame["bytes"]
        data = base64.b64decode(data) if isinstance(data, str) else bytes(data)
        if self.screen is None:
            self.screen = new_screen(cols, rows)
        elif (self.screen.cols, self.screen.rows) != (cols, rows):
            self.screen.resize(cols, rows)
        self.screen.feed(data)

    def state(self) -> dict:
        """What a reader of the client's terminal sees: size, visible lines, cursor."""
        if self.screen is None:
            return {"screen": None}
        text, _ = self.screen.read("visible")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        frame = self.screen.frame()
        return {
            "width": self.screen.cols,
            "height": self.screen.rows,
            "lines": lines,
            "cursor": list(frame.cursor),
        }


def draw(views: dict, cid: Any, frame: dict) -> dict:
    """``frame`` drawn on connection ``cid``'s view (made on its first frame); its state, or
    why it cannot be drawn (a hand-edited frame: not base64, no size)."""
    import binascii

    view = views.setdefault(cid, ScreenView())
    try:
        view.feed(frame)
    except (ValueError, TypeError, KeyError, binascii.Error) as e:
        return {"undrawable": f"{type(e).__name__}: {e}"}
    return view.state()


def frame_of(message: Any) -> dict | None:
    if isinstance(message, dict) and isinstance(message.get("Terminal"), dict):
        return message["Terminal"]
    return None


async def relay_client(
    cr: asyncio.StreamReader,
    cw: asyncio.StreamWriter,
    *,
    cid: int,
    via: str | None,
    upstream: str,
    journal: Journal,
    wire: Wire | None,
    pid: int | None = None,
) -> None:
    """One client-socket connection, relayed to ``upstream`` and journaled message by message;
    ``pid``: the client's (a launched server's connections: which CLI run made it)."""
    import asyncio  # here: `contract diff` reads frames (frame_of) and relays nothing

    from ..unixsocket import relay_both_ways

    j = journal
    opened: dict[str, Any] = {"open": via or "socket"}
    if pid is not None:
        opened["pid"] = pid
    try:
        ur, uw = await asyncio.open_unix_connection(upstream, limit=LIMIT)
    except OSError as e:
        j.event(conn=cid, plane=PLANE, **opened, unreachable=f"{type(e).__name__}: {e}")
        cw.close()
        return
    j.event(conn=cid, plane=PLANE, **opened)

    async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, d: str) -> None:
        src_side, dst_side = ("client", "upstream") if d == "send" else ("upstream", "client")
        decoder: FrameDecoder | None = FrameDecoder(MAX_GRAPHICS_FRAME)
        while True:
            try:
                chunk = await src.read(LIMIT)
            except (ConnectionError, OSError):
                chunk = b""
            if not chunk:
                break
            if decoder is not None:
                try:
                    payloads = decoder.feed(chunk)
                except FramingError as e:
                    j.event(conn=cid, plane=PLANE, framing=str(e), during=d)
                    decoder, payloads = None, []
                for payload in payloads:
                    j.event(
                        conn=cid, plane=PLANE, **{f"client_{d}": message_json(wire, d, payload)}
                    )
            try:
                dst.write(chunk)
                await dst.drain()
            except (ConnectionError, OSError):
                j.event(conn=cid, plane=PLANE, close=dst_side, during=d)
                return
        j.event(conn=cid, plane=PLANE, close=src_side)
        if d == "send":
            with contextlib.suppress(OSError, RuntimeError):
                dst.write_eof()

    # the upstream's side decides when a connection is over
    await relay_both_ways(pump, (cr, cw), (ur, uw))
