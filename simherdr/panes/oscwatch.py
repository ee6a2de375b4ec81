"""The OSC values herdr's detection retains, read from a pane's raw output.

As herdr's AgentOscStateTracker does (``src/pane/osc.rs:446-543``): the latest OSC 0/2 payload
(control characters removed, at most 256 characters, an empty payload clears it) is the title;
the latest OSC 9 payload (the part after ``9;``) is the progress. Collected on raw bytes,
across feeds (a sequence split between two reads is completed by the next one).
"""

from __future__ import annotations

import re

__all__ = ["AGENT_OSC_MAX_CHARS", "OscWatch"]

AGENT_OSC_MAX_CHARS = 256  # src/pane/osc.rs:448

# An OSC body: ESC ] ... (BEL | ESC \).
_OSC = re.compile(rb"\x1b\]([^\x07\x1b]*)(?:\x07|\x1b\\)")
_OSC_OPEN = re.compile(rb"\x1b(?:\][^\x07\x1b]*)?\Z")
_MAX_OSC_CARRY = 4096


def _sanitize(payload: bytes) -> str:
    text = payload.decode("utf-8", "replace")
    return "".join(ch for ch in text if not (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F))[
        :AGENT_OSC_MAX_CHARS
    ]


class OscWatch:
    """Feed it raw output; ``observe`` answers the (title, progress) updates it saw."""

    __slots__ = ("_carry",)

    def __init__(self) -> None:
        self._carry = b""

    def observe(self, data: bytes) -> tuple[str | None, str | None]:
        """(the last OSC 0/2 title, the last OSC 9 payload) in ``data``; None where none."""
        buf = self._carry + data if self._carry else data
        if b"\x1b" not in buf:
            self._carry = b""
            return None, None
        title = progress = None
        end = 0
        for m in _OSC.finditer(buf):
            end = m.end()
            command, sep, payload = m.group(1).partition(b";")
            if not sep:
                continue
            if command in (b"0", b"2"):
                title = _sanitize(payload)
            elif command == b"9":
                progress = _sanitize(payload)
        tail = buf[end:]
        partial = _OSC_OPEN.search(tail)
        self._carry = partial.group()[-_MAX_OSC_CARRY:] if partial else b""
        return title, progress
