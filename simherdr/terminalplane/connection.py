"""One client-socket connection: herdr's framing, its handshake and its writer queue.

herdr gives each connection a handshake thread (src/server/client_transport.rs:511-651
handle_client_handshake), a read loop (713-981) and a writer thread fed by a queue that holds
reliable control messages in order and one droppable render slot (ClientWriterQueue, 180-301:
a render that finds the slot full is not queued; the server renders again once the writer
took the slot, ClientWriterDrained). Here that is one asyncio protocol on the server's loop:
the control queue and the render slot drain into the transport while it is not paused
(asyncio's write-buffer high-water mark stands for the blocking write herdr's writer thread
is in).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from typing import TYPE_CHECKING, Any

from ..facts import terminalplane as F
from ..protocol import MAX_FRAME, MAX_GRAPHICS_FRAME, FrameDecoder, FramingError, encode_frame
from .encoder import FrameEncoder

if TYPE_CHECKING:
    from ..protocol import Wire
    from .plane import TerminalPlane

log = logging.getLogger("simherdr.terminalplane")

# CHOICE(write-high-water): unsent bytes a connection may hold in the transport before its
# writer counts as busy (herdr's writer thread is then blocked in write(2) on one frame).
WRITE_HIGH_WATER = 256 * 1024

# The phases of a connection (herdr: ClientConnectionMode + pending_terminal_attach).
HANDSHAKE, PENDING, ATTACH, OBSERVE, CLOSING = (
    "handshake",
    "pending",
    "attach",
    "observe",
    "closing",
)


class TerminalClient(asyncio.Protocol):
    """A client of the terminal plane (herdr's ``ClientConnection`` and its transport)."""

    def __init__(self, plane: TerminalPlane, label: str) -> None:
        self.plane = plane
        self.label = label  # the trace's lane: t1, t2, ...
        self.wire: Wire = plane.wire
        self.phase = HANDSHAKE
        self.terminal_id: str | None = None
        self.cols = 0
        self.rows = 0
        # the render baseline (ClientRenderState::TerminalAnsi, render_stream.rs:17-21)
        self.encoder = FrameEncoder()
        self.seq = 0
        self.repaint_pending = False
        self.render_pending = False  # a render found the slot full (DeferredRender::Full)
        # 0.9: host modes last sent to an owner (client.host_mouse_capture_active, ...)
        self.pixel_mouse = False
        self.host_mouse: tuple[bool, bool] | None = None
        self.host_keyboard: tuple[int, int] | None = None
        self._control: collections.deque[bytes] = collections.deque()
        self._render: bytes | None = None
        self._paused = False
        self._decoder = FrameDecoder(
            MAX_FRAME
        )  # the Hello: MAX_FRAME_SIZE (client_transport.rs:533)
        self._timer: asyncio.TimerHandle | None = None
        self.transport: asyncio.Transport | None = None

    # --- asyncio ------------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.set_write_buffer_limits(high=WRITE_HIGH_WATER)
        self.plane.clients.add(self)
        self._timer = asyncio.get_running_loop().call_later(
            F.HANDSHAKE_TIMEOUT, self._handshake_timeout
        )

    def data_received(self, data: bytes) -> None:
        if self.phase == CLOSING:
            return
        try:
            payloads = self._decoder.feed(data)
        except (
            FramingError
        ):  # oversized: herdr closes without a word (client_transport.rs:540, 725)
            self._gone()
            return
        for payload in payloads:
            if self.phase == CLOSING:
                return
            try:
                message = self.wire.decode_client(payload)
            except FramingError:  # bincode error / trailing bytes: the connection ends (731)
                self._gone()
                return
            if self.phase == HANDSHAKE:
                self._decoder.max_frame = MAX_GRAPHICS_FRAME  # the read loop's limit (717)
                self.plane.hello(self, message)
            else:
                self.plane.message(self, message)

    def eof_received(self) -> bool | None:
        self._gone()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.plane.disconnected(self)

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._pump()

    # --- the writer queue ---------------------------------------------------------------------

    def handshaken(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def send(self, value: Any) -> bool:
        """A control message (reliable, in order: ``writer.control.send``)."""
        if self.transport is None or self.transport.is_closing():
            return False
        self._control.append(encode_frame(self.wire.encode_server(value)))
        self._pump()
        return True

    def try_send_render(self, payload: bytes) -> bool:
        """The render slot (``writer.render.try_send``): False when it is full."""
        if self._render is not None:
            return False
        self._render = encode_frame(payload)
        self._pump()
        return True

    def _pump(self) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        while not self._paused:
            if self._control:
                transport.write(self._control.popleft())
            elif self._render is not None:
                data, self._render = self._render, None
                transport.write(data)
                self.plane.writer_drained(self)  # ServerEvent::ClientWriterDrained
            else:
                break

    def shutdown(self, reason: str | None) -> None:
        """``ServerShutdown`` then the end of the connection once it is written.

        CHOICE(close-after-shutdown): herdr leaves the socket to the client after a
        ServerShutdown (its read thread holds it until the client hangs up); simherdr closes
        its side once the message is written, so no client waits on a dead session."""
        if self.phase == CLOSING:
            return
        self._render = None  # a shutdown discards a pending render (replace_with_cleanup)
        self.send({"ServerShutdown": {"reason": reason}})
        self.close()

    def close(self) -> None:
        """End the connection after what is queued (the render slot dropped)."""
        self.phase = CLOSING
        self._render = None
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        while self._control:
            transport.write(self._control.popleft())
        transport.close()  # flushes the buffer, then closes

    def _gone(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    def _handshake_timeout(self) -> None:
        """No Hello in time (client_transport.rs:34-38 HANDSHAKE_TIMEOUT): closed, no reply."""
        self._timer = None
        if self.phase == HANDSHAKE:
            self._gone()
