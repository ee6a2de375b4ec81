"""Protocol 22 (herdr 0.9.3): herdr's own wire tests transcribed black-box
([H093] remziduzagac/herdsman@feeb0f97 src/protocol/wire.rs, herdsman renamed back to herdr).
herdr freezes generation-1 payloads by their SHA-256 ("a mismatch requires a new named codec");
the same digests must come out of this codec."""

from __future__ import annotations

import hashlib

import pytest

from simherdr.protocol import wire_for

W = wire_for(22)
C, S = "ClientMessage", "ServerMessage"

# ratatui Color packed by color_to_u32; Modifier bits
RED, BLACK, GREEN, RESET, CYAN, BLUE, YELLOW, MAGENTA = 2, 1, 3, 0, 7, 5, 4, 6
BOLD, ITALIC, UNDERLINED, REVERSED = 1, 4, 8, 64


def cell(symbol, fg, bg, modifier, skip=False, hyperlink=None):
    return {
        "symbol": symbol,
        "fg": fg,
        "bg": bg,
        "modifier": modifier,
        "skip": skip,
        "hyperlink": hyperlink,
    }


def empty_frame():
    return {
        "cells": [],
        "width": 0,
        "height": 0,
        "cursor": None,
        "hyperlinks": [],
        "graphics": b"",
    }


EMPTY_SCENE = {"assets": [], "placements": [], "retained_assets": []}
KEY = {
    "source": {"Terminal": {"target": {"Pane": {"pane_id": "w1:p1"}}, "image_id": 7}},
    "image_width": 2,
    "image_height": 1,
    "format": "Rgba",
    "data_len": 8,
    "data_fingerprint": 42,
}

DIGESTS = [
    (
        "client_shell_resize_roundtrip",
        C,
        {
            "ClientShellResize": {
                "cell_width_px": 8,
                "cell_height_px": 16,
                "surface_size": {"cols": 74, "rows": 29},
                "pixel_mouse": True,
            }
        },
        "676d6376202750e72c45ff511e256b6154d3d20c0ee088d3792fa3a69d9704b9",
    ),
    (
        "client_shell_pane_input_roundtrips_semantic_and_windows_keys",
        C,
        {
            "ClientShellPaneInput": {
                "pane_id": "w1:p2",
                "events": [
                    {
                        "Key": {
                            "code": {"Char": "l"},
                            "modifiers": 1,  # SHIFT
                            "kind": "Release",
                            "repeat_count": 1,
                            "shifted_codepoint": ord("L"),
                            "generated_text": None,
                            "tracks_release": True,
                            "physical_key_id": None,
                            "windows_record": None,
                        }
                    },
                    {
                        "Key": {
                            "code": {"Char": "7"},
                            "modifiers": 2,  # CONTROL
                            "kind": "Press",
                            "repeat_count": 1,
                            "shifted_codepoint": None,
                            "generated_text": None,
                            "tracks_release": True,
                            "physical_key_id": 0x08,
                            "windows_record": {
                                "key_down": True,
                                "repeat_count": 1,
                                "virtual_key_code": 0x37,
                                "virtual_scan_code": 0x08,
                                "unicode": 0,
                                "control_key_state": 0x0008,
                            },
                        }
                    },
                ],
            }
        },
        "f558384bb53dfd2baf1fa72e1709d88be6891da79e51f88513905afc085065e6",
    ),
    (
        "client_shell_endpoint_messages_roundtrip (request)",
        C,
        {
            "ClientShellEndpointRequest": {
                "boot_id": "boot-a",
                "request": '{"id":"request-a","method":"session.snapshot","params":{}}',
            }
        },
        "de5693585a01f6b0d5ee07c51b6ddf79ee9f67dbf183255822d31f35210f5ffb",
    ),
    (
        "client_shell_endpoint_messages_roundtrip (response)",
        S,
        {
            "ClientShellEndpointResponseChunk": {
                "boot_id": "boot-a",
                "request_id": "request-a",
                "final_chunk": True,
                "data": b'{"id":"request-a","result":{"type":"ok"}}',
            }
        },
        "bc14dbb5263d3097fe6d3e70a4b6d71aa9c2fa4ae3206d692a7182512bffdd1d",
    ),
    (
        "client_clipboard_image_roundtrip",
        C,
        {
            "ClipboardImage": {
                "target": {"Pane": "w1:p1"},
                "extension": "png",
                "data": b"\x89PNG",
            }
        },
        "1c02110be0671faf318b3f4d8f507748d5a0a98cd474832669c5290d97ef19ab",
    ),
    (
        "server_frame_roundtrip_nontrivial",
        S,
        {
            "PaneSurface": {
                "boot_id": "boot-1",
                "projection_revision": 1,
                "surface_revision": 1,
                "frame": {
                    "cells": [
                        cell("H", RED, BLACK, BOLD),
                        cell("i", GREEN, RESET, ITALIC),
                        cell("!", 0x02FF8000, 0x010000DC, BOLD | UNDERLINED, hyperlink=0),
                        cell(" ", RESET, RESET, 0, skip=True),
                        cell("→", CYAN, BLUE, REVERSED),
                        cell("🦀", YELLOW, MAGENTA, 0),
                    ],
                    "width": 3,
                    "height": 2,
                    "cursor": {"x": 0, "y": 0, "visible": True, "shape": 6},
                    "hyperlinks": ["https://example.com"],
                    "graphics": b"",
                },
                "panes": [],
                "splits": [],
                "popup": None,
                "graphics": EMPTY_SCENE,
            }
        },
        "7c016f7b21ddb5ac79212cf65a968b93eb292b5305b941263e89ffaa40158ee3",
    ),
    (
        "pane_surface_patch_roundtrip",
        S,
        {
            "PaneSurfacePatch": {
                "boot_id": "boot-1",
                "projection_revision": 3,
                "base_surface_revision": 7,
                "surface_revision": 8,
                "rows": [{"x": 2, "y": 4, "cells": [cell("x", 1, 2, 3)]}],
                "panes": [],
                "cursor": {"x": 2, "y": 4, "visible": True, "shape": 2},
            }
        },
        "0814b99a1dc6eaf7918424aa416c066509cbfb73b72344a809c27cde78cb6dbd",
    ),
    (
        "client_shell_graphics_payload_codec_is_frozen",
        S,
        {
            "PaneSurface": {
                "boot_id": "boot-1",
                "projection_revision": 2,
                "surface_revision": 3,
                "frame": empty_frame(),
                "panes": [],
                "splits": [],
                "popup": None,
                "graphics": {
                    "assets": [{"key": KEY, "data": bytes([255, 0, 0, 255, 0, 255, 0, 255])}],
                    "placements": [
                        {
                            "asset": KEY,
                            "logical_placement_id": 9,
                            "x": 1,
                            "y": 2,
                            "cols": 2,
                            "rows": 1,
                            "source_x": 0,
                            "source_y": 0,
                            "source_width": 2,
                            "source_height": 1,
                            "x_offset": 0,
                            "y_offset": 0,
                            "z": -1,
                            "scrollback_offset": 0,
                        }
                    ],
                    "retained_assets": [],
                },
            }
        },
        "49c4efec0f1456c8ca4112ddf6ead1ab75d0224007576c2ccc18c3fca55a69f0",
    ),
    (
        "server_graphics_roundtrip",
        S,
        {"Graphics": {"bytes": b"\x1b_Ga=d,d=A,q=2;\x1b\\"}},
        "28a420f92e0e05e6760a8c140baf307c360c6d1b1aa68027481b324f87e22c44",
    ),
]


@pytest.mark.parametrize(("test", "root", "value", "digest"), DIGESTS, ids=[d[0] for d in DIGESTS])
def test_herdrs_frozen_generation_1_digests(test, root, value, digest):
    payload = W.encode(root, value)
    assert hashlib.sha256(payload).hexdigest() == digest
    assert W.decode(root, payload) == value


def test_client_message_wire_tags_reflect_current_order():
    names = [v.name for v in W.table.enum(C).variants]
    assert names == [
        "TerminalHello",
        "Input",
        "ClipboardImage",
        "Resize",
        "Detach",
        "AttachTerminal",
        "AttachScroll",
        "ObserveTerminal",
        "ControlTerminal",
        "GraphicsTransmissionResult",
        "GraphicsTransmissionStarted",
        "ClientShellHello",
        "ClientShellResize",
        "ClientShellPaneInput",
        "ClientShellPopupInput",
        "ClientShellEndpointRequest",
        "AttachMouse",
        "ClientShellHostTheme",
        "ClientShellFocus",
        "ClientShellMouseCapture",
        "EndpointControl",
    ]
    hello = {
        "TerminalHello": {
            "version": 22,
            "cols": 80,
            "rows": 24,
            "cell_width_px": 8,
            "cell_height_px": 16,
            "pixel_mouse": False,
        }
    }
    assert W.encode_client(hello) == bytes([0, 22, 80, 24, 8, 16, 0])
    assert W.encode_client({"ObserveTerminal": {"target": "w1:p1"}})[0] == 7
    assert W.encode_client({"ControlTerminal": {"target": "w1:p1", "takeover": False}})[0] == 8
    shell_hello = {
        "ClientShellHello": {
            "version": 22,
            "cell_width_px": 8,
            "cell_height_px": 16,
            "surface_size": {"cols": 80, "rows": 29},
            "pixel_mouse": False,
            "direct_graphics": False,
            "endpoint_keybindings": False,
            "mouse_capture": False,
        }
    }
    assert W.encode_client(shell_hello)[0] == 11
    mouse = {
        "AttachMouse": {
            "kind": {"Down": "Left"},
            "position": {"Cell": {"column": 10, "row": 5}},
            "geometry": None,
            "modifiers": 0,
            "lines": 1,
        }
    }
    assert W.encode_client(mouse) == bytes([16, 0, 0, 0, 10, 5, 0, 0, 1])
    theme = {"ClientShellHostTheme": {"update": {"Appearance": "Dark"}}}
    assert W.encode_client(theme) == bytes([17, 2, 0])


def test_endpoint_control_tags_are_frozen():
    # endpoint_control_roundtrip / server_endpoint_control_tag_is_frozen: [20, 0, 0] both ways
    empty = {"EndpointControl": {"kind": "", "data": ""}}
    assert W.encode_client(empty) == bytes([20, 0, 0])
    assert W.encode_server(empty) == bytes([20, 0, 0])


def test_client_shell_server_message_tags_are_frozen():
    tags = {v.name: v.index for v in W.table.enum(S).variants}
    assert tags["PaneSurface"] == 13
    assert tags["ClientShellError"] == 15
    assert tags["ClientShellKeyboardReportAll"] == 17
    assert tags["ClientShellEndpointResponseChunk"] == 18
    assert tags["PaneSurfacePatch"] == 19
    assert tags["EndpointControl"] == 20
    # the terminal-attach plane's messages a 0.9.3 client reads
    assert W.encode_server(
        {"Welcome": {"version": 22, "encoding": "TerminalAnsi", "error": None}}
    ) == bytes([0, 22, 1, 0])
    terminal = {"Terminal": {"seq": 1, "width": 80, "height": 24, "full": True, "bytes": b"x"}}
    assert W.encode_server(terminal) == bytes([1, 1, 80, 24, 1, 1, 120])
    assert W.encode_server({"ServerShutdown": {"reason": None}}) == bytes([3, 0])


def test_an_unknown_command_action_decodes_as_unknown():
    # ClientShellCommandAction's #[serde(other)] Unknown: a future action index still decodes
    command = {
        "command_id": "c",
        "binding_label": "",
        "binding_labels": [],
        "action": "Shell",
        "description": None,
    }
    payload = bytearray(W.encode("ClientShellCommand", command))
    payload[4] = 9  # the action's index (c, "", [] come first: 1+1, 1, 1 bytes)
    assert W.decode("ClientShellCommand", bytes(payload))["action"] == "Unknown"


def test_a_protocol_20_hello_is_refused_by_a_22_server_as_trailing_bytes():
    """A 0.8.2 client's Hello parses as a 0.9.3 TerminalHello up to pixel_mouse (its
    requested_encoding byte) and leaves keybindings and launch_mode over: herdr's read_message
    refuses the payload before any version check."""
    from simherdr.protocol import DecodeError

    payload = wire_for(20).encode_client(
        {
            "Hello": {
                "version": 20,
                "cols": 80,
                "rows": 24,
                "cell_width_px": 8,
                "cell_height_px": 16,
                "requested_encoding": "TerminalAnsi",
                "keybindings": "Server",
                "launch_mode": "TerminalAttach",
            }
        }
    )
    with pytest.raises(DecodeError) as e:
        W.decode_client(payload)
    assert str(e.value) == (
        "bincode error: decoded 7 bytes but payload length was 9; trailing bytes are not allowed"
    )
