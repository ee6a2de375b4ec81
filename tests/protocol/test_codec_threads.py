"""A codec is shared (``wire_for``): a verify's targets replay side by side in threads and
decode the same client-socket messages. A type's encoder or decoder being built in one thread
must not be seen half-built by another (it was a placeholder that called itself: a
RecursionError, or a decode failure read as the connection's end, under load)."""

from __future__ import annotations

import threading

from simherdr.protocol.bincode import Codec
from simherdr.protocol.schema import table


class _Paused(Codec):
    """Builds pause until told, once the other thread can ask for the same type."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.building = threading.Event()
        self.go_on = threading.Event()

    def _build_encoder(self, name):
        self.building.set()
        assert self.go_on.wait(30)
        return super()._build_encoder(name)

    def _build_decoder(self, name):
        self.building.set()
        assert self.go_on.wait(30)
        return super()._build_decoder(name)


def _race(first, second):
    """``first`` in a thread, paused mid-build; ``second`` here meanwhile: its result."""
    got: dict = {}
    thread = threading.Thread(target=lambda: got.setdefault("first", first()))
    thread.start()
    assert codec.building.wait(30)
    other = threading.Thread(target=lambda: got.setdefault("second", _catch(second)))
    other.start()
    other.join(0.05)  # (it must wait for the build: it cannot finish while the build pauses)
    codec.go_on.set()
    thread.join(30)
    other.join(30)
    return got


def _catch(fn):
    try:
        return fn()
    except Exception as exc:  # (RecursionError; decode turns it into a BincodeError)
        return exc


codec: _Paused


def test_a_type_built_in_one_thread_is_whole_in_another():
    global codec
    codec = _Paused(table(20))
    value = {"Input": {"data": b"echo hi\n"}}
    got = _race(
        lambda: codec.encode("ClientMessage", value), lambda: codec.encode("ClientMessage", value)
    )
    assert got["first"] == got["second"] and isinstance(got["second"], bytes)
    payload = got["first"]
    codec = _Paused(table(20))
    got = _race(
        lambda: codec.decode("ClientMessage", payload),
        lambda: codec.decode("ClientMessage", payload),
    )
    assert got["first"] == got["second"] == (value, len(payload))
