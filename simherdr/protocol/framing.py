"""herdr's client-socket framing: a u32 little-endian payload length, then the bincode payload
(src/protocol/wire.rs ``write_message`` / ``read_message``, the same in 0.8.0, 0.8.2 and 0.9.3).

:class:`FrameDecoder` is ``read_message``'s framing half for a non-blocking reader: feed it
whatever arrived, take the complete payloads. A length over the limit is refused as soon as
its four bytes are in, before any payload is buffered (herdr: ``Oversized`` before
``vec![0u8; claimed_len]``). Errors carry herdr's ``FramingError`` Display texts (wire.rs
``impl Display for FramingError``).
"""

from __future__ import annotations

__all__ = [
    "LENGTH_PREFIX_BYTES",
    "MAX_CLIPBOARD_IMAGE_PAYLOAD",
    "MAX_FRAME",
    "MAX_GRAPHICS_FRAME",
    "FrameDecoder",
    "FramingError",
    "encode_frame",
]

# herdr src/protocol/wire.rs:20-31 (0.8.0 and 0.8.2 alike; 0.9.3 the same values)
#: MAX_FRAME_SIZE: the largest payload either side accepts (2 MiB).
MAX_FRAME = 2 * 1024 * 1024
#: MAX_GRAPHICS_FRAME_SIZE: a server-to-client payload when Kitty graphics are on (32 MiB).
MAX_GRAPHICS_FRAME = 32 * 1024 * 1024
#: MAX_CLIPBOARD_IMAGE_PAYLOAD (16 MiB).
MAX_CLIPBOARD_IMAGE_PAYLOAD = 16 * 1024 * 1024
#: LENGTH_PREFIX_BYTES.
LENGTH_PREFIX_BYTES = 4

_U32_MAX = 0xFFFF_FFFF


class FramingError(ValueError):
    """herdr's ``FramingError``: ``kind`` is "oversized", "bincode", "eof" or "io"; ``str()`` is
    its Display text (wire.rs ``impl Display for FramingError``)."""

    def __init__(self, kind: str, text: str) -> None:
        super().__init__(text)
        self.kind = kind

    @classmethod
    def oversized(cls, claimed: int, max_frame: int) -> FramingError:
        return cls("oversized", f"frame size {claimed} exceeds maximum {max_frame}")

    @classmethod
    def bincode(cls, detail: str) -> FramingError:
        err = cls("bincode", f"bincode error: {detail}")
        err.detail = detail
        return err

    @classmethod
    def unexpected_eof(cls) -> FramingError:
        return cls("eof", "unexpected end of stream")

    detail: str = ""


def encode_frame(payload: bytes) -> bytes:
    """``[u32 LE length][payload]``; herdr refuses only a payload over ``u32::MAX`` on write."""
    n = len(payload)
    if n > _U32_MAX:
        raise FramingError.bincode(
            f"payload length {n} exceeds u32::MAX ({_U32_MAX}), would be truncated by length prefix"
        )
    return n.to_bytes(4, "little") + payload


class FrameDecoder:
    """Reassembles frames from a byte stream: ``feed(data)`` returns the payloads completed.

    After an error the decoder stays failed (herdr drops the connection): every later ``feed``
    raises the same error."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._buf = bytearray()
        self._error: FramingError | None = None

    @property
    def buffered(self) -> int:
        """Bytes of an incomplete frame held (0 at a frame boundary)."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[bytes]:
        if self._error is not None:
            raise self._error
        buf = self._buf
        buf += data
        out: list[bytes] = []
        pos = 0
        while len(buf) - pos >= LENGTH_PREFIX_BYTES:
            claimed = int.from_bytes(buf[pos : pos + LENGTH_PREFIX_BYTES], "little")
            if claimed > self.max_frame:
                del buf[:]
                self._error = FramingError.oversized(claimed, self.max_frame)
                raise self._error
            end = pos + LENGTH_PREFIX_BYTES + claimed
            if end > len(buf):
                break
            out.append(bytes(buf[pos + LENGTH_PREFIX_BYTES : end]))
            pos = end
        if pos:
            del buf[:pos]
        return out

    def close(self) -> None:
        """The stream ended: raises herdr's ``UnexpectedEof`` when part of a frame is held.

        herdr's ``read_message`` reports ``UnexpectedEof`` at a frame boundary too (its
        ``read_exact`` of the length prefix); the server takes that as "client disconnected"
        (src/server/client_transport.rs). Callers that need that distinction read
        :attr:`buffered`."""
        if self._error is not None:
            raise self._error
        if self._buf:
            self._error = FramingError.unexpected_eof()
            raise self._error
