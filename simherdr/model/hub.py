"""The event hub: a ring of the last 512 events of all kinds (src/api/event_hub.rs:13-26).

Pure data: a sequence number per event, cursors read from it, older events are lost silently
when a cursor lags more than the ring holds.
"""

from __future__ import annotations

from collections import deque

RING_SIZE = 512


class EventHub:
    def __init__(self, size: int = RING_SIZE):
        self.seq = 0  # sequence of the newest event; the first event is 1
        self._ring: deque = deque(maxlen=size)
        self._evicted: dict[str, int] = {}  # kind -> seq of its newest event pushed out

    def publish(self, kind: str, data: dict) -> int:
        if len(self._ring) == self._ring.maxlen:
            old_seq, old_kind, _ = self._ring[0]
            self._evicted[old_kind] = old_seq
        self.seq += 1
        self._ring.append((self.seq, kind, data))
        return self.seq

    def lost_after(self, cursor: int, kind: str) -> bool:
        """Whether an event of ``kind`` newer than ``cursor`` has left the ring unread: the
        gap test is per kind, so unrelated kinds pushed out do not count (upstream #4178)."""
        return self._evicted.get(kind, 0) > cursor

    def after(self, cursor: int, kinds=None):
        """Events with seq > cursor still in the ring, oldest first."""
        if cursor >= self.seq:
            return
        oldest = self.seq - len(self._ring) + 1
        start = max(cursor + 1, oldest) - oldest
        for i in range(start, len(self._ring)):
            ev = self._ring[i]
            if kinds is None or ev[1] in kinds:
                yield ev
