"""A tiny terminal-plane client written from herdr's src/protocol/wire.rs alone: a blocking
Unix socket, the u32 little-endian length framing, the codec of ``simherdr.protocol``. What a
web bridge or a relay does: handshake, attach, type, read frames, and draw them on a screen
(simherdr's own model screen stands in for the client's terminal)."""

from __future__ import annotations

import collections
import re
import socket
from typing import Any

from simherdr.model.screen import Screen
from simherdr.protocol import MAX_GRAPHICS_FRAME, FrameDecoder, encode_frame, wire_for


def hello(protocol: int, cols: int = 80, rows: int = 24, **over: Any) -> dict:
    """The release's terminal handshake (0.8.x Hello with TerminalAttach; 0.9 TerminalHello)."""
    if protocol >= 22:
        body = {
            "version": protocol,
            "cols": cols,
            "rows": rows,
            "cell_width_px": 0,
            "cell_height_px": 0,
            "pixel_mouse": False,
        }
        body.update(over)
        return {"TerminalHello": body}
    body = {
        "version": protocol,
        "cols": cols,
        "rows": rows,
        "cell_width_px": 0,
        "cell_height_px": 0,
        "requested_encoding": "TerminalAnsi",
        "keybindings": "Server",
        "launch_mode": "TerminalAttach",
    }
    body.update(over)
    return {"Hello": body}


class WireClient:
    def __init__(self, path: str, protocol: int, timeout: float = 5.0) -> None:
        self.protocol = protocol
        self.wire = wire_for(protocol)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self._decoder = FrameDecoder(MAX_GRAPHICS_FRAME)
        self._inbox: collections.deque[Any] = collections.deque()
        self.closed = False

    def __enter__(self) -> WireClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.sock.close()

    def send(self, value: Any) -> None:
        self.sock.sendall(encode_frame(self.wire.encode_client(value)))

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self) -> Any:
        """The next server message; None once the server closed the connection."""
        while not self._inbox:
            data = self.sock.recv(1 << 20)
            if not data:
                self.closed = True
                return None
            for payload in self._decoder.feed(data):
                self._inbox.append(self.wire.decode_server(payload))
        return self._inbox.popleft()

    def rest(self) -> list[Any]:
        """Every message until the server closes the connection."""
        out = []
        while (m := self.recv()) is not None:
            out.append(m)
        return out

    def handshake(self, cols: int = 80, rows: int = 24) -> dict:
        self.send(hello(self.protocol, cols, rows))
        welcome = self.recv()
        assert welcome is not None and "Welcome" in welcome, welcome
        return welcome["Welcome"]

    def attach(self, terminal_id: str, takeover: bool = False, cols: int = 80, rows: int = 24):
        assert self.handshake(cols, rows)["error"] is None
        self.send({"AttachTerminal": {"terminal_id": terminal_id, "takeover": takeover}})

    def type(self, text: str | bytes) -> None:
        data = text.encode() if isinstance(text, str) else text
        self.send({"Input": {"data": data}})


class TermView:
    """The client's terminal: frames are drawn on it as a terminal would."""

    def __init__(self, cols: int = 80, rows: int = 24) -> None:
        self.screen = Screen(cols=cols, rows=rows)
        self.frames: list[dict] = []

    def draw(self, message: Any) -> dict:
        frame = message["Terminal"]
        self.frames.append(frame)
        self.screen.feed(frame["bytes"])
        return frame

    def text(self) -> str:
        """The visible rows, trailing blanks cut."""
        lines = [_plain(line).rstrip() for line in self.screen.frame().lines]
        return "\n".join(lines).rstrip("\n")

    def follow(self, client: WireClient, until: str, limit: int = 200) -> dict:
        """Draw frames until ``until`` shows; the last frame drawn."""
        for _ in range(limit):
            m = client.recv()
            assert m is not None, f"closed before {until!r} showed:\n{self.text()}"
            if "Terminal" not in m:
                continue
            frame = self.draw(m)
            if until in self.text():
                return frame
        raise AssertionError(f"{until!r} never showed:\n{self.text()}")


_SGR = re.compile(r"\x1b\[[0-9;:]*m")


def _plain(line: str) -> str:
    return _SGR.sub("", line)
