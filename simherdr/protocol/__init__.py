"""herdr's client socket (``<stem>-client.sock``) on the wire, per protocol: framing, the bincode
codec, each protocol's message table, the Hello version check (mirrors herdr's src/protocol/).

Stdlib-only (the stand-in imports it); imports nothing of simherdr but ``facts``.

    wire = wire_for(20)
    payload = wire.encode_client({"Hello": {"version": 20, ...}})
    frame = encode_frame(payload)
    for payload in FrameDecoder().feed(data):
        message = wire.decode_server(payload)        # {"Welcome": {...}}

Values are serde's externally tagged data model (:mod:`.bincode`); :meth:`Wire.to_json` /
:meth:`Wire.from_json` give the cassette's JSON form (``Vec<u8>`` as base64).
"""

from __future__ import annotations

from .bincode import BincodeError, Codec, EncodeError
from .framing import (
    MAX_CLIPBOARD_IMAGE_PAYLOAD,
    MAX_FRAME,
    MAX_GRAPHICS_FRAME,
    FrameDecoder,
    FramingError,
    encode_frame,
)
from .jsonform import JsonFormError, from_json, to_json
from .schema import PROTOCOLS, Table, table

TYPE_CHECKING = False  # (not typing's: importing typing costs a stand-in call ~7 ms)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "MAX_CLIPBOARD_IMAGE_PAYLOAD",
    "MAX_FRAME",
    "MAX_GRAPHICS_FRAME",
    "PROTOCOLS",
    "BincodeError",
    "DecodeError",
    "EncodeError",
    "FrameDecoder",
    "FramingError",
    "JsonFormError",
    "UnknownProtocol",
    "Wire",
    "check_client_version",
    "encode_frame",
    "wire_for",
]

CLIENT = "ClientMessage"
SERVER = "ServerMessage"


class UnknownProtocol(ValueError):
    """A protocol number no herdr release this simulator knows speaks."""


class DecodeError(FramingError):
    """A payload herdr's ``read_message`` refuses: ``FramingError::Bincode``; ``str()`` is
    herdr's text (``bincode error: ...``), ``detail`` the part after the prefix."""

    def __init__(self, detail: str) -> None:
        super().__init__("bincode", f"bincode error: {detail}")
        self.detail = detail


class Wire:
    """One protocol's codec: both message enums, their JSON form."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.protocol = table.protocol
        self._codec = Codec(table)

    def __repr__(self) -> str:
        return f"Wire(protocol={self.protocol})"

    def encode_client(self, value: Any) -> bytes:
        return self._codec.encode(CLIENT, value)

    def encode_server(self, value: Any) -> bytes:
        return self._codec.encode(SERVER, value)

    def decode_client(self, payload: bytes) -> Any:
        return self._decode(CLIENT, payload)

    def decode_server(self, payload: bytes) -> Any:
        return self._decode(SERVER, payload)

    def encode(self, type_name: str, value: Any) -> bytes:
        """Any type of the table (a part of a message, for tests and tools)."""
        return self._codec.encode(type_name, value)

    def decode(self, type_name: str, payload: bytes) -> Any:
        return self._decode(type_name, payload)

    def _decode(self, type_name: str, payload: bytes) -> Any:
        # herdr read_message (src/protocol/wire.rs:934 in 0.8.2): decode_from_slice, then the
        # whole payload must have been consumed
        try:
            value, consumed = self._codec.decode(type_name, payload)
        except BincodeError as e:
            raise DecodeError(str(e)) from None
        if consumed != len(payload):
            raise DecodeError(
                f"decoded {consumed} bytes but payload length was {len(payload)}; "
                "trailing bytes are not allowed"
            )
        return value

    def to_json(self, type_name: str, value: Any) -> Any:
        return to_json(self.table, type_name, value)

    def from_json(self, type_name: str, obj: Any) -> Any:
        return from_json(self.table, type_name, obj)

    def client_to_json(self, value: Any) -> Any:
        return to_json(self.table, CLIENT, value)

    def client_from_json(self, obj: Any) -> Any:
        return from_json(self.table, CLIENT, obj)

    def server_to_json(self, value: Any) -> Any:
        return to_json(self.table, SERVER, value)

    def server_from_json(self, obj: Any) -> Any:
        return from_json(self.table, SERVER, obj)


_WIRES: dict[int, Wire] = {}


def wire_for(protocol: int) -> Wire:
    """The codec of ``protocol`` (19 = herdr 0.8.0, 20 = 0.8.1/0.8.2, 22 = 0.9.x)."""
    w = _WIRES.get(protocol)
    if w is None:
        if protocol not in PROTOCOLS:
            known = ", ".join(str(p) for p in PROTOCOLS)
            raise UnknownProtocol(
                f"no client-socket table for protocol {protocol} (known: {known})"
            )
        w = _WIRES[protocol] = Wire(table(protocol))
    return w


def check_client_version(server_protocol: int, client_version: int) -> str | None:
    """herdr's ``check_client_version`` (src/protocol/wire.rs:1003 in 0.8.2; the same texts in
    0.8.0 and, named herdr again, 0.9.3): ``None`` when accepted, else the Welcome's error."""
    if client_version == 0:
        return "pre-persistence client (version 0) is not supported"
    if client_version == server_protocol:
        return None
    if client_version < server_protocol:
        return (
            f"client version {client_version} is older than server version {server_protocol}; "
            "please upgrade your herdr client"
        )
    return (
        f"client version {client_version} is newer than server version {server_protocol}; "
        "please upgrade the herdr server"
    )
