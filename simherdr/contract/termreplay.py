"""Replaying a cassette's client-socket conversations (``client_conn`` steps, :mod:`.termrecord`).

Each recorded connection is opened again on the target's client socket (in process: a client
of a terminal plane on the harness's simulator, :class:`HarnessClientConn`) and its client
messages are sent as recorded (references restored, encoded with the cassette's protocol).
What the server sends back is compared:

* ``Terminal`` frames **by the screen they produce**, never by their bytes: the recorded
  frames and the replayed ones are each fed into a screen of the project's screen engine
  (:func:`simherdr.panes.screens.new_screen`: herdr's libghostty-vt where it loads, else the
  pure-Python screen) and the visible text, the cursor and the size are compared. A server
  is free to split or merge its diffs (herdr renders at most every 16 ms; simherdr may draw
  sooner or later): a recorded frame passes when the replayed
  screen shows it, or shows a later recorded frame of the same run of frames (the replay drew
  two recorded frames in one); a replayed screen that never shows it within the timeout is a
  miss whose expected and actual values are the two screens' lines, charged to the frame of
  that run the screen comes closest to (the frames before it count as shown).
* every other message (``Welcome``, ``ServerShutdown``, ``TerminalBell``, ``WindowTitle``,
  ``Notify`` ...) by value, in order, with the JSON plane's reference binding (a refusal text
  naming ``<pane:1>`` matches the target's pane id).

CHOICE (issue 31): the ``stub`` target replays a CLI run that spoke the client socket (``herdr
terminal session observe|control``, ``terminal attach``) at the socket level, as the socket
target does, instead of running the stand-in again: the recorder keeps no stdin (what control
typed is in the recorded ``Input`` messages, not in the run) and the run's stdout is frames
whose bytes legitimately differ (they are compared as screens here).
"""

from __future__ import annotations

import asyncio
import collections
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..protocol import MAX_GRAPHICS_FRAME, FrameDecoder, FramingError, encode_frame, wire_for
from .normalize import Normalizer
from .targets import UnixConn
from .termrecord import ScreenView, draw, frame_of, message_json, message_payload

if TYPE_CHECKING:
    from .cassette import Cassette
    from .verify import Replay

STEP = "client_conn"
# CHOICE: how many later recorded frames of one run a replayed screen may stand for (a replay
# that draws faster or slower than the recording merges or splits frames; beyond this many the
# recorded frame is a miss). Bounds the comparisons per replayed frame on long streams.
LOOKAHEAD = 256
# CHOICE: a frame recorded after the client's Detach was drawn before the server read it; a
# target that reads the Detach sooner answers ServerShutdown without it. Such a frame step is
# skipped (and said so) when the target's next other message or its close comes while its
# screen stands where the recording's stood before that frame (nothing drawn yet, or an
# earlier recorded frame); a screen the recording never showed is still a miss.
RACED_DETACH = "a frame recorded after the client's Detach: the target shut down before it"


class ClientConn(Protocol):
    def send(self, payload: bytes) -> None: ...
    def recv(self, timeout: float) -> bytes | None: ...  # one payload; None: closed
    def shutdown_write(self) -> None: ...
    def close(self) -> None: ...


class SocketClientConn(UnixConn):
    """A connection to a client socket: herdr's u32 length framing over a Unix socket."""

    def __init__(self, path: str, timeout: float) -> None:
        super().__init__(path, timeout)
        self.decoder = FrameDecoder(MAX_GRAPHICS_FRAME)
        self.inbox: collections.deque[bytes] = collections.deque()

    def send(self, payload: bytes) -> None:
        self.sock.sendall(encode_frame(payload))

    def recv(self, timeout: float) -> bytes | None:
        while not self.inbox and not self.eof:
            self.sock.settimeout(max(timeout, 0.001))
            try:
                chunk = self.sock.recv(1 << 20)
            except TimeoutError:
                raise TimeoutError(f"no message within {timeout:g}s") from None
            except OSError:
                chunk = b""
            if not chunk:
                self.eof = True
                break
            try:
                self.inbox.extend(self.decoder.feed(chunk))
            except FramingError:
                self.eof = True
        return self.inbox.popleft() if self.inbox else None


class _Transport(asyncio.Transport):
    """What the terminal plane's client writes to, in process: payloads into the conn's inbox."""

    def __init__(self, conn: HarnessClientConn) -> None:
        super().__init__()
        self.conn = conn
        self.closing = False

    def write(self, data: Any) -> None:
        if not self.closing:
            self.conn.inbox.extend(self.conn.decoder.feed(bytes(data)))

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        if not self.closing:
            self.closing = True
            asyncio.get_running_loop().call_soon(self.conn.lost)

    def abort(self) -> None:
        self.close()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0

    def can_write_eof(self) -> bool:
        return False


class HarnessClientConn:
    """One client of the terminal plane of an in-process harness (no socket): what the client
    sends is handed to the plane's protocol on the harness's loop; virtual time moves to the
    next timer while a message is awaited (at most ``timeout`` recorded seconds)."""

    def __init__(self, harness: Any, plane: Any, scale: float = 1.0) -> None:
        self.h = harness
        self.scale = scale
        self.decoder = FrameDecoder(MAX_GRAPHICS_FRAME)
        self.inbox: collections.deque[bytes] = collections.deque()
        self.closed = False
        self.transport = _Transport(self)
        self.client = plane.new_client()
        self._on_loop(lambda: self.client.connection_made(self.transport))

    def _on_loop(self, fn: Any) -> None:
        async def go() -> None:
            fn()

        self.h.loop.run_until_complete(go())
        self.h.settle()

    def lost(self) -> None:
        if not self.closed:
            self.closed = True
            self.client.connection_lost(None)

    def send(self, payload: bytes) -> None:
        if not self.closed:
            self._on_loop(lambda: self.client.data_received(encode_frame(payload)))

    def recv(self, timeout: float) -> bytes | None:
        h = self.h
        h.settle()
        budget = h.clock.now() + timeout * self.scale
        while not self.inbox and not self.closed:
            nxt = h.clock.next_wakeup()
            if nxt is None or nxt > budget:
                raise TimeoutError(f"no message within {timeout:g}s (in process)")
            h.loop.run_until_complete(h.clock.advance_to(nxt))
            h.settle()
        return self.inbox.popleft() if self.inbox else None

    def shutdown_write(self) -> None:
        if not self.closed:
            self._on_loop(self.client.eof_received)

    def close(self) -> None:
        if not self.closed:
            self._on_loop(self.transport.close)


def _could_match(expected: dict, actual: dict) -> bool:
    """The cheap part first: size, cursor and line count are never normalized."""
    return all(expected.get(k) == actual.get(k) for k in ("width", "height", "cursor")) and len(
        expected.get("lines") or ()
    ) == len(actual.get("lines") or ())


def normalizer_for(c: Cassette) -> Normalizer:
    """The recording's references, as a normalizer: a recorded screen's text in the terms the
    cassette's other steps use (``<home>``, ``<pane:1>`` ...)."""
    ctx = {k.strip("<>"): v for k, v in (c.normalization.get("context") or {}).items()}
    norm = Normalizer(context={k: v for k, v in ctx.items() if isinstance(v, str)})
    for ref, value in c.refs.items():
        try:
            norm.bind(ref, value)
        except ValueError:
            continue
    return norm


@dataclass
class _Conn:
    conn: ClientConn
    view: ScreenView = field(default_factory=ScreenView)
    pending: collections.deque = field(default_factory=collections.deque)  # non-frame messages
    covered: set[int] = field(default_factory=set)  # recorded frames a later screen matched
    client_closed: bool = False
    detached: bool = False  # the replay sent the recorded Detach
    stalled: bool = False


class ClientPlane:
    """One replay's client-socket connections (:class:`~.verify.Replay` hands it each step)."""

    def __init__(self, replay: Replay) -> None:
        self.r = replay
        c = replay.c
        protocol = c.provenance.get("protocol")
        if not isinstance(protocol, int):
            from ..facts.versions import resolve

            protocol = resolve(replay.t.version).protocol
        self.wire = wire_for(protocol)  # CHOICE: the recorded protocol, both ways
        self.conns: dict[Any, _Conn] = {}
        self.plane: Any = None  # in process: the harness's terminal plane
        self.expected = self._recorded_screens(c)

    @staticmethod
    def owned_runs(c: Cassette) -> set[str]:
        """The CLI runs (``cli:k``) that spoke the client socket (replayed at the socket level)."""
        return {
            s["via"]
            for s in c.steps
            if STEP in s and isinstance(s.get("via"), str) and s["via"].startswith("cli:")
        }

    def _recorded_screens(self, c: Cassette) -> dict[int, dict]:
        """Step index -> the recorded screen after that frame, normalized."""
        norm = normalizer_for(c)
        views: dict[Any, ScreenView] = {}
        out: dict[int, dict] = {}
        for i, s in enumerate(c.steps):
            frame = frame_of(s.get("recv")) if STEP in s else None
            if frame is not None:
                out[i] = norm.value(draw(views, s[STEP], frame))
        return out

    def close(self) -> None:
        for st in self.conns.values():
            st.conn.close()
        self.conns.clear()
        if self.plane is not None:
            self.plane.close_all()
            self.plane.detach_listener()
            self.r.t.harness.settle()  # type: ignore[attr-defined]
            self.plane = None

    def _connect(self) -> ClientConn:
        t = self.r.t
        if t.harness is not None:
            if self.plane is None:
                from ..terminalplane.plane import TerminalPlane

                self.plane = TerminalPlane(t.harness.sim)  # type: ignore[attr-defined]
            return HarnessClientConn(t.harness, self.plane, t.time_scale)
        from ..terminalplane import client_socket_path

        assert t.socket_path
        return SocketClientConn(client_socket_path(t.socket_path), self.r.timeout)

    # --- steps ------------------------------------------------------------------------------

    def step(self, i: int, step: dict) -> None:
        r = self.r
        if step.get("unreachable"):
            r.res.skipped_steps.append(f"step {i + 1}: the client socket was down when recorded")
            return
        if "framing" in step:
            r.res.skipped_steps.append(f"step {i + 1}: a framing error ({step['framing']})")
            return
        cid = step[STEP]
        r.res.steps_run += 1
        st = self.conns.get(cid)
        if "send" in step:
            if r.pace and r.times[i] is not None:
                r.t.pace_to(float(r.times[i]))
            if st is None:
                st = self.conns[cid] = _Conn(self._connect())
            try:
                payload = message_payload(self.wire, "send", r.bind.restore(step["send"]))
            except (ValueError, KeyError, TypeError) as e:
                r.miss(i, step, "$", step["send"], f"<cannot encode: {e}>")
                return
            st.conn.send(payload)
            st.detached = st.detached or step["send"] == "Detach"
            return
        if st is None:
            if "recv" in step:
                r.miss(i, step, "$", step["recv"], "<no connection: nothing was sent on it>")
            return
        if "recv" in step:
            if st.stalled:
                r.miss(i, step, "$", step["recv"], "<no message: the connection stalled earlier>")
            elif st.client_closed:
                pass  # raced the client's close: a target that notices it sooner never sends it
            elif frame_of(step["recv"]) is not None:
                self._frame(i, step, st)
            else:
                self._message(i, step, st)
        elif step.get("close") == "client":
            st.conn.shutdown_write()
            st.client_closed = True
        elif step.get("close") == "upstream" and not st.stalled:
            self._closed(i, step, st)

    def _read(self, st: _Conn, deadline: float) -> Any:
        """The next message (frames fed into the view on the way); None: closed."""
        payload = st.conn.recv(max(deadline - time.monotonic(), 0.0))
        if payload is None:
            return None
        message = message_json(self.wire, "recv", payload)
        frame = frame_of(message)
        if frame is not None:
            st.view.feed(frame)
        return message

    def _candidates(self, i: int, cid: Any) -> list[int]:
        """Recorded frames that may stand for step ``i``: it, and the later frames of its
        connection up to the next thing the replay sends or the connection's next other
        message (the replay cannot be ahead of what it has not sent)."""
        out = [i]
        for j in range(i + 1, len(self.r.c.steps)):
            s = self.r.c.steps[j]
            if len(out) > LOOKAHEAD:
                break
            if s.get(STEP) == cid and j in self.expected:
                out.append(j)
            elif "recv" in s and s.get(STEP) != cid:
                continue  # another connection's reply: read, not sent
            else:
                break
        return out

    def _frame(self, i: int, step: dict, st: _Conn) -> None:
        if i in st.covered:
            return  # a replayed screen already showed a later frame of this run
        r = self.r
        candidates = self._candidates(i, step[STEP])
        deadline = time.monotonic() + r.timeout
        while True:
            actual = st.view.state()
            for j in candidates:
                if not _could_match(self.expected[j], actual):
                    continue
                if not r.bind.unify(self.expected[j], actual, commit=False):
                    r.bind.unify(self.expected[j], actual)
                    st.covered.update(k for k in candidates if k <= j)
                    return
            try:
                message = self._read(st, deadline)
            except TimeoutError:
                break  # not stalled: what the replay sends next may still move it
            if message is not None and frame_of(message) is not None:
                continue
            if message is not None:
                st.pending.append(message)
            if st.detached and self._behind(i, step[STEP], actual):
                r.res.skipped_steps.append(f"step {i + 1}: {RACED_DETACH}")
                return
            if message is None:
                break
        # the miss is the recorded frame the replayed screen comes closest to (a screen past
        # frame i that merged it with a changed later frame of its run is that frame's miss,
        # not i's too: which frame a server merges depends on timing); earlier ones are passed
        j = min(candidates, key=lambda k: self._distance(self.expected[k], actual))
        st.covered.update(k for k in candidates if k <= j)
        for p in r.bind.unify(self.expected[j], actual, commit=False):
            r.miss(j, r.c.steps[j], "screen" + p.path[1:], p.expected, p.actual)

    def _behind(self, i: int, cid: Any, actual: dict) -> bool:
        """The replayed screen stands where the recording stood before frame ``i``: nothing
        drawn yet, or one of the connection's earlier recorded frames."""
        if actual.get("screen", True) is None:
            return True
        return any(
            j < i
            and self.r.c.steps[j].get(STEP) == cid
            and _could_match(screen, actual)
            and not self.r.bind.unify(screen, actual, commit=False)
            for j, screen in self.expected.items()
        )

    def _distance(self, expected: dict, actual: dict) -> tuple[bool, int]:
        """How far a replayed screen is from a recorded one: another size, cursor or line
        count first, then the number of differing paths."""
        problems = self.r.bind.unify(expected, actual, commit=False)
        return not _could_match(expected, actual), len(problems)

    def _message(self, i: int, step: dict, st: _Conn) -> None:
        r = self.r
        deadline = time.monotonic() + r.timeout
        message = st.pending.popleft() if st.pending else None
        try:
            while message is None or frame_of(message) is not None:
                message = self._read(st, deadline)
                if message is None:
                    r.miss(i, step, "$", step["recv"], "<connection closed>")
                    return
        except TimeoutError:
            st.stalled = True
            r.miss(i, step, "$", step["recv"], f"<no message within {r.timeout:g}s>")
            return
        problems = r.bind.unify(step["recv"], message)
        for p in problems:  # the first names the closest recorded message, as the JSON plane's
            shown = r.bind.display(message) if p is problems[0] else None
            r.miss(i, step, p.path, p.expected, p.actual, shown)

    def _closed(self, i: int, step: dict, st: _Conn) -> None:
        r = self.r
        deadline = time.monotonic() + r.timeout
        extra = list(st.pending)
        st.pending.clear()
        try:
            while (message := self._read(st, deadline)) is not None:
                if frame_of(message) is None:
                    extra.append(message)
        except TimeoutError:
            st.stalled = True
            r.miss(i, step, "$", "<connection closed>", f"<still open after {r.timeout:g}s>")
            return
        if not st.client_closed:
            for message in extra:
                shown = r.bind.display(message)
                r.miss(i, step, "$", "<connection closed>", shown)
