"""The control's stdin commands, in-process: each line's client message or herdr's error text
(herdr 0.8.2 src/client/mod.rs:1075-1205 TerminalControlCommand through serde_json::from_str;
0.9.3 src/client/terminal_sessions.rs adds terminal.mouse). The texts are serde_json's and
serde's (internally tagged enum: tag errors positioned, field errors not), base64 0.22's."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from simherdr.stub.cli.base import release_of
from simherdr.stub.cli.termcontrol import CommandError, message_of
from tests.releases import BASE

VARIANTS_082 = "`terminal.input`, `terminal.resize`, `terminal.scroll`, `terminal.release`"
VARIANTS_093 = (
    "`terminal.input`, `terminal.resize`, `terminal.scroll`, `terminal.mouse`, `terminal.release`"
)


def _ctx(version):
    release = release_of(version)
    return SimpleNamespace(rows=release.rows, protocol=release.protocol)


def _error(line, version=BASE):
    with pytest.raises(CommandError) as caught:
        message_of(line, _ctx(version))
    return str(caught.value)


@pytest.mark.parametrize(
    "line,message",
    [
        ('{"type":"terminal.input","text":"ls\\n"}', {"Input": {"data": b"ls\n"}}),
        ('{"type":"terminal.input","bytes":"G1tB"}', {"Input": {"data": b"\x1b[A"}}),
        ('{"type":"terminal.input"}', {"Input": {"data": b""}}),
        ('{"type":"terminal.input","text":null,"extra":[1,{"a":2}]}', {"Input": {"data": b""}}),
        ('{"text":"é","type":"terminal.input"}', {"Input": {"data": "é".encode()}}),
        (
            '{"type":"terminal.resize","cols":80,"rows":24,"cell_width_px":9}',
            {"Resize": {"cols": 80, "rows": 24, "cell_width_px": 9, "cell_height_px": 0}},
        ),
        (
            '{"type":"terminal.scroll","direction":"down","lines":3,"column":4,"row":2,"modifiers":1}',
            {
                "AttachScroll": {
                    "source": "Wheel",
                    "direction": "Down",
                    "lines": 3,
                    "column": 4,
                    "row": 2,
                    "modifiers": 1,
                }
            },
        ),
        ('{"type":"terminal.release"}', "Detach"),
        (
            '{"type":"terminal.scroll","direction":{"up":null},"lines":2}',
            {
                "AttachScroll": {
                    "source": "Wheel",
                    "direction": "Up",
                    "lines": 2,
                    "column": None,
                    "row": None,
                    "modifiers": 0,
                }
            },
        ),
        ('{"type":"terminal.release","anything":true}', "Detach"),
        ('  {"type" : "terminal.release"}  ', "Detach"),
        # serde's internally tagged enums also take a sequence: the tag, then fields in order
        ('["terminal.release"]', "Detach"),
        (
            '["terminal.resize", 100, 30]',
            {"Resize": {"cols": 100, "rows": 30, "cell_width_px": 0, "cell_height_px": 0}},
        ),
    ],
)
def test_commands(line, message):
    assert message_of(line, _ctx(BASE)) == message


@pytest.mark.parametrize(
    "line,text",
    [
        ("not json", "invalid json command: expected ident at line 1 column 2"),
        ("{", "invalid json command: EOF while parsing an object at line 1 column 1"),
        ("{}", "invalid json command: missing field `type` at line 1 column 2"),
        ("[]", "invalid json command: missing field `type` at line 1 column 2"),
        ('{"text":"x"}', "invalid json command: missing field `type` at line 1 column 12"),
        (
            '{"type":"terminal.bogus"}',
            "invalid json command: unknown variant `terminal.bogus`, expected one of "
            + VARIANTS_082
            + " at line 1 column 24",
        ),
        (
            '{"type":5}',
            "invalid json command: invalid type: integer `5`, expected variant identifier "
            "at line 1 column 9",
        ),
        (
            '{"type":"terminal.release","type":"terminal.release"}',
            "invalid json command: duplicate field `type` at line 1 column 33",
        ),
        (
            "42",
            "invalid json command: invalid type: integer `42`, expected internally tagged enum "
            "TerminalControlCommand at line 1 column 2",
        ),
        (
            '"terminal.release"',
            'invalid json command: invalid type: string "terminal.release", expected internally '
            "tagged enum TerminalControlCommand at line 1 column 18",
        ),
        (
            '{"type":"terminal.release"} x',
            "invalid json command: trailing characters at line 1 column 29",
        ),
        ('{"type":"terminal.resize","cols":80}', "invalid json command: missing field `rows`"),
        (
            '{"type":"terminal.resize","cols":"80","rows":1}',
            'invalid json command: invalid type: string "80", expected u16',
        ),
        (
            '{"type":"terminal.resize","cols":-1,"rows":1}',
            "invalid json command: invalid value: integer `-1`, expected u16",
        ),
        (
            '{"type":"terminal.resize","cols":70000,"rows":1}',
            "invalid json command: invalid value: integer `70000`, expected u16",
        ),
        (
            '{"type":"terminal.resize","cols":1.5,"rows":1}',
            "invalid json command: invalid type: floating point `1.5`, expected u16",
        ),
        (
            '{"type":"terminal.resize","cols":1,"cols":2,"rows":1}',
            "invalid json command: duplicate field `cols`",
        ),
        (
            '{"type":"terminal.input","text":5}',
            "invalid json command: invalid type: integer `5`, expected a string",
        ),
        (
            '{"type":"terminal.scroll","direction":"left","lines":1}',
            "invalid json command: unknown variant `left`, expected `up` or `down`",
        ),
        (
            '{"type":"terminal.scroll","direction":1,"lines":1}',
            "invalid json command: invalid type: integer `1`, expected string or map",
        ),
        (
            '{"type":"terminal.scroll","direction":"up","lines":1,"modifiers":300}',
            "invalid json command: invalid value: integer `300`, expected u8",
        ),
        (
            '{"type":"terminal.scroll","direction":{"up":5},"lines":1}',
            "invalid json command: invalid type: integer `5`, expected unit",
        ),
        (
            '{"type":"terminal.scroll","direction":{},"lines":1}',
            "invalid json command: invalid value: map, expected map with a single key",
        ),
        (
            '["terminal.resize", 100]',
            "invalid json command: invalid length 1, expected struct variant "
            "TerminalControlCommand::Resize with 4 elements",
        ),
        (
            '{"type":"terminal.input","text":"a","bytes":"YQ=="}',
            "terminal.input accepts text or bytes, not both",
        ),
        (
            '{"type":"terminal.input","bytes":"YW*="}',
            "invalid terminal.input bytes: Invalid symbol 42, offset 2.",
        ),
        (
            '{"type":"terminal.resize","cols":0,"rows":24}',
            "terminal.resize cols and rows must be greater than 0",
        ),
        (
            '{"type":"terminal.scroll","direction":"up","lines":0}',
            "terminal.scroll lines must be greater than 0",
        ),
        (
            '{"type":"terminal.mouse","action":"down","column":1,"row":1}',
            "invalid json command: unknown variant `terminal.mouse`, expected one of "
            + VARIANTS_082
            + " at line 1 column 24",
        ),
    ],
)
def test_bad_lines(line, text):
    assert _error(line) == text


def test_093_knows_terminal_mouse_and_resize_pixel_mouse():
    ctx = _ctx("0.9.3")
    assert message_of('{"type":"terminal.mouse","action":"down","column":3,"row":4}', ctx) == {
        "AttachMouse": {
            "kind": {"Down": "Left"},
            "position": {"Cell": {"column": 3, "row": 4}},
            "geometry": None,
            "modifiers": 0,
            "lines": 1,
        }
    }
    assert message_of('{"type":"terminal.mouse","action":"move","column":0,"row":0}', ctx)[
        "AttachMouse"
    ]["kind"] == ("Moved")
    assert message_of('{"type":"terminal.resize","cols":2,"rows":3}', ctx) == {
        "Resize": {
            "cols": 2,
            "rows": 3,
            "cell_width_px": 0,
            "cell_height_px": 0,
            "pixel_mouse": False,
        }
    }
    assert _error('{"type":"nope"}', "0.9.3") == (
        "invalid json command: unknown variant `nope`, expected one of "
        + VARIANTS_093
        + " at line 1 column 14"
    )
