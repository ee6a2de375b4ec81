"""Golden bytes per protocol. herdr's own wire tests are transcribed black-box (each case names
its test in src/protocol/wire.rs of the release); the rest are worked out by hand from bincode
2's standard config (varint < 251 one byte, 251 + u16 LE; enum index first; Option 0/1;
length-prefixed strings and byte vectors)."""

from __future__ import annotations

import pytest

from simherdr.protocol import check_client_version, wire_for

HELLO_TAG_CASES = [
    # client_message_wire_tags_preserve_protocol_15_order (0.8.0 wire.rs:1022, 0.8.2 :1064):
    # the first byte of each client message is its variant's tag
    ({"Input": {"data": b""}}, 1),
    ({"ClipboardImage": {"extension": "png", "data": b""}}, 2),
    ({"Resize": {"cols": 80, "rows": 24, "cell_width_px": 8, "cell_height_px": 16}}, 3),
    ("Detach", 4),
    ({"AttachTerminal": {"terminal_id": "term", "takeover": False}}, 5),
    (
        {
            "AttachScroll": {
                "source": "Wheel",
                "direction": "Up",
                "lines": 1,
                "column": None,
                "row": None,
                "modifiers": 0,
            }
        },
        6,
    ),
    ({"InputEvents": {"events": []}}, 7),
    ({"ObserveTerminal": {"target": "w1:p1"}}, 8),
    ({"ControlTerminal": {"target": "w1:p1", "takeover": False}}, 9),
]


def hello(version: int, launch_mode: str = "App", encoding: str = "SemanticFrame") -> dict:
    return {
        "Hello": {
            "version": version,
            "cols": 80,
            "rows": 24,
            "cell_width_px": 8,
            "cell_height_px": 16,
            "requested_encoding": encoding,
            "keybindings": "Server",
            "launch_mode": launch_mode,
        }
    }


@pytest.mark.parametrize("protocol", [19, 20])
def test_client_message_wire_tags_preserve_protocol_15_order(protocol):
    wire = wire_for(protocol)
    assert wire.encode_client(hello(protocol))[0] == 0
    for message, tag in HELLO_TAG_CASES:
        assert wire.encode_client(message)[0] == tag, message


# client_input_events_roundtrip (0.8.0 wire.rs:1096 "protocol 19 input envelope", 0.8.2 :1138
# "protocol 20"): herdr freezes these bytes; the two releases pin the same ones.
INPUT_EVENTS = {
    "InputEvents": {
        "events": [
            {
                "Key": {
                    "code": {"Char": "N"},
                    "modifiers": 1,  # crossterm KeyModifiers::SHIFT
                    "kind": "Press",
                    "repeat_count": 1,
                    "generated_text": None,
                    "source": "Synthesized",
                }
            },
            {
                "Key": {
                    "code": "Backspace",
                    "modifiers": 0,
                    "kind": "Press",
                    "repeat_count": 3,
                    "generated_text": None,
                    "source": {"Vt": {"bytes": b"\x1b[127;1u"}},
                }
            },
            {
                "Key": {
                    "code": "Esc",
                    "modifiers": 0,
                    "kind": "Release",
                    "repeat_count": 1,
                    "generated_text": None,
                    "source": {
                        "WindowsConsole": {
                            "record": {
                                "key_down": False,
                                "repeat_count": 1,
                                "virtual_key_code": 27,
                                "virtual_scan_code": 1,
                                "unicode": 27,
                                "control_key_state": 0,
                            }
                        }
                    },
                }
            },
            {"TextCommit": "你🙂"},
            {"Mouse": {"kind": {"Down": "Left"}, "column": 3, "row": 4, "modifiers": 0}},
        ]
    }
}
INPUT_EVENTS_BYTES = bytes(
    [7, 5, 0, 15, 78, 1, 0, 1, 0, 0, 0, 0, 0, 0, 3, 0, 1, 8, 27, 91, 49, 50, 55, 59, 49]
    + [117, 0, 14, 0, 2, 1, 0, 2, 0, 1, 27, 1, 27, 0, 1, 7, 228, 189, 160, 240, 159, 153]
    + [130, 2, 0, 0, 3, 4, 0]
)


@pytest.mark.parametrize("protocol", [19, 20])
def test_client_input_events_roundtrip(protocol):
    wire = wire_for(protocol)
    assert wire.encode_client(INPUT_EVENTS) == INPUT_EVENTS_BYTES
    assert wire.decode_client(INPUT_EVENTS_BYTES) == INPUT_EVENTS


# (protocol, root, value, bytes): worked out by hand from the table and bincode's rules
GOLDEN = [
    # Hello: a web bridge's terminal attach; launch_mode's index moved when 0.8.2 added
    # ClientLaunchMode::AppDirectGraphics before TerminalAttach
    (19, "client", hello(19, "TerminalAttach", "TerminalAnsi"), [0, 19, 80, 24, 8, 16, 1, 0, 1]),
    (20, "client", hello(20, "TerminalAttach", "TerminalAnsi"), [0, 20, 80, 24, 8, 16, 1, 0, 2]),
    (20, "client", hello(20, "AppDirectGraphics"), [0, 20, 80, 24, 8, 16, 0, 0, 1]),
    (
        20,
        "client",
        {
            "Hello": {
                **hello(20)["Hello"],
                "cols": 300,
                "cell_width_px": 70000,
                "keybindings": {"Local": {"keys_toml": "a"}},
            }
        },
        [0, 20, 251, 0x2C, 0x01, 24, 252, 0x70, 0x11, 0x01, 0x00, 16, 0, 1, 1, 97, 0],
    ),
    (20, "client", {"Input": {"data": b"\x1b[A"}}, [1, 3, 0x1B, 0x5B, 0x41]),
    (20, "client", {"AttachTerminal": {"terminal_id": "t1", "takeover": True}}, [5, 2, 116, 49, 1]),
    (
        20,
        "client",
        {
            "AttachScroll": {
                "source": {"PageKey": {"input": b"\x1b[5~"}},
                "direction": "Down",
                "lines": 3,
                "column": 12,
                "row": None,
                "modifiers": 4,
            }
        },
        [6, 1, 4, 0x1B, 0x5B, 0x35, 0x7E, 1, 3, 1, 12, 0, 4],
    ),
    (20, "client", "Detach", [4]),
    # the varint boundary: 250 is one byte, 251 is 251 + u16 LE
    (20, "server", {"TerminalBell": {"count": 250}}, [12, 250]),
    (20, "server", {"TerminalBell": {"count": 251}}, [12, 251, 251, 0]),
    (20, "server", {"TerminalBell": {"count": 65535}}, [12, 251, 255, 255]),
    (
        20,
        "client",
        {"GraphicsTransmissionStarted": {"transfer_id": 7, "image_id": 42}},
        [12, 7, 42],
    ),
    (
        20,
        "server",
        {"Welcome": {"version": 20, "encoding": "TerminalAnsi", "error": None}},
        [0, 20, 1, 0],
    ),
    (
        20,
        "server",
        {"Welcome": {"version": 20, "encoding": "SemanticFrame", "error": "no"}},
        [0, 20, 0, 1, 2, 110, 111],
    ),
    (
        20,
        "server",
        {"Terminal": {"seq": 7, "width": 120, "height": 40, "full": False, "bytes": b"hi"}},
        [2, 7, 120, 40, 0, 2, 104, 105],
    ),
    (
        20,
        "server",
        {"Terminal": {"seq": 1 << 32, "width": 80, "height": 24, "full": True, "bytes": b""}},
        [2, 253, 0, 0, 0, 0, 1, 0, 0, 0, 80, 24, 1, 0],
    ),
    (20, "server", {"ServerShutdown": {"reason": None}}, [4, 0]),
    (20, "server", {"ServerShutdown": {"reason": "bye"}}, [4, 1, 3, 98, 121, 101]),
    (19, "server", {"MouseCapture": {"enabled": True}}, [9, 1]),
    (20, "server", {"MouseCapture": {"enabled": True, "sgr_pixels": False}}, [9, 1, 0]),
    (20, "server", {"TerminalBell": {"count": 3}}, [12, 3]),
    (20, "server", "ReloadSoundConfig", [8]),
]


@pytest.mark.parametrize(("protocol", "side", "value", "expected"), GOLDEN)
def test_golden_bytes(protocol, side, value, expected):
    wire = wire_for(protocol)
    encode = wire.encode_client if side == "client" else wire.encode_server
    decode = wire.decode_client if side == "client" else wire.decode_server
    assert encode(value) == bytes(expected)
    assert decode(bytes(expected)) == value


def test_a_protocol_19_hello_decodes_under_20_and_is_refused_by_version():
    """A 0.8.0 client's Hello still parses on a 0.8.2 server (Hello kept index 0 and its
    fields); what refuses it is the version check, answered in a Welcome."""
    payload = wire_for(19).encode_client(hello(19, "App"))
    message = wire_for(20).decode_client(payload)
    assert message["Hello"]["version"] == 19
    assert check_client_version(20, 19) == (
        "client version 19 is older than server version 20; please upgrade your herdr client"
    )


def test_a_table_is_read_without_the_json_module(monkeypatch):
    """A terminal verb's Python start reads its protocol's table with json's C scanner
    (facts/jsonscan.py), not the json module (its re and enum), nor base64 (the JSON form's,
    imported where bytes are converted): the same table."""
    import sys

    from simherdr.protocol import PROTOCOLS, schema

    monkeypatch.setitem(sys.modules, "json", None)  # an import of it fails
    monkeypatch.setitem(sys.modules, "base64", None)
    for protocol in PROTOCOLS:
        read = schema.table.__wrapped__(protocol)  # (uncached)
        assert read == schema.table(protocol) and read.types == schema.table(protocol).types
