"""Hostile bytes: every refusal is herdr's FramingError text (src/protocol/wire.rs Display) with
bincode 2's DecodeError inside (Display = Debug, bincode src/error.rs), never a traceback and
never an allocation sized by a claimed length."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simherdr.protocol import (
    MAX_FRAME,
    MAX_GRAPHICS_FRAME,
    PROTOCOLS,
    DecodeError,
    FrameDecoder,
    FramingError,
    encode_frame,
    wire_for,
)
from tests.budget import examples

W = wire_for(20)


def test_limits_are_herdrs():
    # wire.rs:20 MAX_FRAME_SIZE = 2 * 1024 * 1024, :25 MAX_GRAPHICS_FRAME_SIZE = 32 * 1024 * 1024
    assert MAX_FRAME == 2097152
    assert MAX_GRAPHICS_FRAME == 33554432


def test_framing_oversized_rejected_without_panic():
    # wire.rs framing_oversized_rejected_without_panic: a u32::MAX claim, Oversized{claimed, max}
    decoder = FrameDecoder()
    with pytest.raises(FramingError, match=r"^frame size 4294967295 exceeds maximum 2097152$") as e:
        decoder.feed(b"\xff\xff\xff\xff\xde\xad\xbe\xef")
    assert e.value.kind == "oversized"
    # the decoder stays failed, the way herdr drops the connection
    with pytest.raises(FramingError, match="exceeds maximum"):
        decoder.feed(encode_frame(b"\x04"))


def test_oversized_input_rejected_custom_max():
    # wire.rs oversized_input_rejected_custom_max: a 1000-byte Input with max_frame_size 64
    frame = encode_frame(W.encode_client({"Input": {"data": b"A" * 1000}}))
    with pytest.raises(FramingError, match=r"^frame size 1004 exceeds maximum 64$"):
        FrameDecoder(64).feed(frame[:4])  # refused from the length alone


def test_a_frame_at_the_limit_passes_and_one_byte_over_does_not():
    assert FrameDecoder(8).feed(encode_frame(b"x" * 8)) == [b"x" * 8]
    with pytest.raises(FramingError, match="frame size 9 exceeds maximum 8"):
        FrameDecoder(8).feed(encode_frame(b"x" * 9))


def test_framing_truncated_stream_returns_unexpected_eof():
    # wire.rs framing_truncated_stream_returns_unexpected_eof: 100 claimed, 4 sent, then EOF
    decoder = FrameDecoder()
    assert decoder.feed(b"\x64\x00\x00\x00\xaa\xbb\xcc\xdd") == []
    assert decoder.buffered == 8
    with pytest.raises(FramingError, match=r"^unexpected end of stream$") as e:
        decoder.close()
    assert e.value.kind == "eof"


def test_close_at_a_frame_boundary_is_quiet_and_split_prefixes_reassemble():
    decoder = FrameDecoder()
    frames = encode_frame(b"ab") + encode_frame(b"") + encode_frame(b"c")
    assert decoder.feed(frames[:3]) == []
    assert decoder.feed(frames[3:]) == [b"ab", b"", b"c"]
    decoder.close()


def test_read_message_rejects_trailing_bytes():
    # wire.rs read_message_rejects_trailing_bytes: Detach + 0xDE
    with pytest.raises(DecodeError) as e:
        W.decode_client(bytes([4, 0xDE]))
    assert str(e.value) == (
        "bincode error: decoded 1 bytes but payload length was 2; trailing bytes are not allowed"
    )
    assert e.value.kind == "bincode"


@pytest.mark.parametrize(
    ("payload", "detail"),
    [
        # framing_malformed_payload_rejected_without_panic: 0xDE is no ClientMessage variant
        (
            bytes([0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x02]),
            'OtherString("invalid value: integer `222`, expected variant index 0 <= i < 13")',
        ),
        (b"", "UnexpectedEnd { additional: 1 }"),
        # a varint index: 251 + u16 LE
        (
            bytes([251, 0x00, 0x01]),
            'OtherString("invalid value: integer `256`, expected variant index 0 <= i < 13")',
        ),
        # a u32 field (the index) announced as u64 / reserved
        (bytes([253]), "InvalidIntegerType { expected: U32, found: U64 }"),
        (bytes([255]), "InvalidIntegerType { expected: U32, found: Reserved }"),
        (bytes([252, 1]), "UnexpectedEnd { additional: 3 }"),
        # AttachTerminal { takeover: 2 }
        (bytes([5, 1, 116, 2]), "InvalidBooleanValue(2)"),
        # AttachScroll column Option tag 2
        (
            bytes([6, 0, 0, 1, 2]),
            'UnexpectedVariant { type_name: "Option<T>", allowed: Range { min: 0, max: 1 }, found: 2 }',
        ),
        # ObserveTerminal { target: invalid UTF-8 }, and truncated UTF-8
        (
            bytes([8, 2, 0xFF, 0x41]),
            "Utf8 { inner: Utf8Error { valid_up_to: 0, error_len: Some(1) } }",
        ),
        (
            bytes([8, 3, 0x41, 0xE4, 0xBD]),
            "Utf8 { inner: Utf8Error { valid_up_to: 1, error_len: None } }",
        ),
        # a string claiming 2^63 bytes: refused from what is there, nothing allocated
        (
            bytes([8, 253]) + (1 << 63).to_bytes(8, "little"),
            f"UnexpectedEnd {{ additional: {1 << 63} }}",
        ),
        # Input { data } (serde's sequence of u8) claiming 4 GiB: runs out one byte at a time
        (bytes([1, 252, 0, 0, 0, 1, 7]), "UnexpectedEnd { additional: 1 }"),
        # InputEvents claiming 2^60 events
        (bytes([7, 253]) + (1 << 60).to_bytes(8, "little"), "UnexpectedEnd { additional: 1 }"),
        # a char that no UTF-8 starts with (Key { code: Char(0xFF) })
        (bytes([7, 1, 0, 15, 0xFF]), "InvalidCharEncoding([255, 0, 0, 0])"),
        (bytes([7, 1, 0, 15, 0xE4, 0x41, 0x41]), "InvalidCharEncoding([228, 65, 65, 0])"),
        # a u16 (Resize cols) announced as u32
        (bytes([3, 252, 0, 0, 1, 0]), "InvalidIntegerType { expected: U16, found: U32 }"),
        # an unknown nested variant (ClientKeyCode 18)
        (
            bytes([7, 1, 0, 18]),
            'OtherString("invalid value: integer `18`, expected variant index 0 <= i < 18")',
        ),
    ],
)
def test_bad_payloads_get_bincodes_error(payload, detail):
    with pytest.raises(DecodeError) as e:
        W.decode_client(payload)
    assert e.value.detail == detail
    assert str(e.value) == f"bincode error: {detail}"


def test_malformed_frame_does_not_panic():
    # wire.rs malformed_frame_does_not_panic: (i ^ 0xAA) for i in 0..200 after a valid length
    garbage = bytes((i ^ 0xAA) & 0xFF for i in range(200))
    (payload,) = FrameDecoder().feed(encode_frame(garbage))
    with pytest.raises(DecodeError, match="expected variant index"):
        W.decode_client(payload)


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=64), st.sampled_from(PROTOCOLS), st.booleans())
def test_any_bytes_decode_or_refuse_cleanly(data, protocol, server):
    wire = wire_for(protocol)
    try:
        value = wire.decode_server(data) if server else wire.decode_client(data)
    except DecodeError as e:
        assert str(e).startswith("bincode error: ")
        return
    # what decodes re-encodes to the same bytes (bincode has one encoding per value, except
    # an integer written wider than needed, which herdr accepts too)
    again = wire.encode_server(value) if server else wire.encode_client(value)
    assert (wire.decode_server(again) if server else wire.decode_client(again)) == value


def test_encode_refuses_values_its_type_cannot_hold():
    from simherdr.protocol import EncodeError

    for bad in [
        {"Hello": {"version": 20}},  # missing fields
        {"Input": {"data": "text"}},  # not bytes
        {"Resize": {"cols": 70000, "rows": 1, "cell_width_px": 0, "cell_height_px": 0}},
        {"AttachTerminal": {"terminal_id": "t", "takeover": 1}},  # not a bool
        "Nope",
        {"Detach": None},  # a unit variant has no body
    ]:
        with pytest.raises(EncodeError):
            W.encode_client(bad)


def test_an_unknown_protocol_is_one_clear_error():
    from simherdr.protocol import UnknownProtocol

    with pytest.raises(
        UnknownProtocol, match=r"^no client-socket table for protocol 21 \(known: 19, 20, 22\)$"
    ):
        wire_for(21)


def test_the_json_form_refuses_what_does_not_fit():
    from simherdr.protocol import JsonFormError

    for bad in [
        {"Input": {"data": "not base64!"}},
        {"Input": {"data": 3}},
        {"Input": {}},  # missing field
        {"Nope": {}},
        {"Input": {"data": ""}, "Detach": None},
    ]:
        with pytest.raises(JsonFormError):
            W.client_from_json(bad)
    assert W.client_from_json({"Input": {"data": "G1tB"}}) == {"Input": {"data": b"\x1b[A"}}
    assert W.client_to_json({"Input": {"data": b"\x1b[A"}}) == {"Input": {"data": "G1tB"}}
