"""A reply the stand-in cannot read ends the call with herdr's error, never a traceback.

herdr 0.8.2 ``src/api/client.rs:169-173``: one ``read_line`` then ``serde_json::from_str``; a
syntax error surfaces as ``ApiClientError::Json`` wrapped in ``io::Error::other`` and ``main``
prints ``Error: Custom { kind: Other, error: Json(Error("<serde message>", line: L, column:
C)) }`` with exit 1.  The messages and positions are serde_json's (``serde_json::de``).
"""

from __future__ import annotations

import pytest
from stub_fake import Raw, ThenShutdown, ok

TRUNCATED = [
    # (reply bytes, serde_json message, line, column)
    (b'{"id":"x","result":{"type":"po', "EOF while parsing a string", 1, 30),
    (
        b'{"id":"x","result":{"type":"po\n',
        "control character (\\\\u0000-\\\\u001F) found while parsing a string",
        2,
        0,
    ),
    (b'{"id":"x","result":{"type":"pong"', "EOF while parsing an object", 1, 33),
    (b'{"id":"x","result":[1,', "EOF while parsing a value", 1, 22),
    (b'{"id":"x","result":[1 2]}', "expected `,` or `]`", 1, 23),
    (b'{"id":"x","result":tru', "EOF while parsing a value", 1, 22),
    (b'{"id":"x",}', "trailing comma", 1, 11),
    (b'{"id":"x",3:1}', "key must be a string", 1, 11),
    (b'{"id":"x"} x', "trailing characters", 1, 12),
]


def _expected(message: str, line: int, column: int) -> str:
    return 'Error: Custom { kind: Other, error: Json(Error("%s", line: %d, column: %d)) }\n' % (
        message,
        line,
        column,
    )


@pytest.mark.parametrize("reply,message,line,column", TRUNCATED, ids=[t[1] for t in TRUNCATED])
def test_truncated_request_reply(herdr, fake, reply, message, line, column):
    fake.on("pane.get", Raw(reply))
    res = herdr("pane", "get", "w1:p1")
    assert (res.rc, res.out) == (1, b"")
    assert res.stderr == _expected(message, line, column)


def test_truncated_ping_reply(herdr, fake):
    fake.ping_reply = Raw(b'{"id":"api-client:status","result":{"type":"po')
    res = herdr("workspace", "list")
    assert (res.rc, res.out) == (1, b"")
    assert res.stderr == _expected("EOF while parsing a string", 1, 46)


@pytest.mark.parametrize("scale", ["1e-300", "5e-324", "1e300", "1e-7"])
def test_out_of_range_time_scale_means_real_time(herdr, fake, scale):
    """``server stop`` passes its deadline through ``settimeout``: an absurd scale used to
    overflow it (OverflowError traceback); out-of-range scales now mean 1.0."""
    fake.on("server.stop", ThenShutdown(ok()))
    res = herdr("server", "stop", env={"SIMHERDR_TIME_SCALE": scale}, timeout=30)
    assert (res.rc, res.out, res.err) == (0, b"", b"")


def test_time_scale_bounds():
    from simherdr.stub.cli import base

    assert base.read_time_scale({base.TIME_SCALE_ENV: "1e-300"}) == 1.0
    assert base.read_time_scale({base.TIME_SCALE_ENV: "1e300"}) == 1.0
    assert base.read_time_scale({base.TIME_SCALE_ENV: "1e-6"}) == 1e-6
    assert base.read_time_scale({base.TIME_SCALE_ENV: "1e6"}) == 1e6
