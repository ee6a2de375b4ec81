"""The terminal plane (herdr's client socket): two rows, next to the JSON socket's ping.

- attach round trip: a client attached to a pane types one byte (``Input``) and waits for the
  ``Terminal`` frame that shows it; the same server's ``ping`` round trip is measured
  interleaved, request by request, and the figure is the ratio of the medians (target <= 3x:
  a keystroke costs the pane's render, its cell diff and a frame the client decodes, about
  three API calls). Keystrokes are 17 ms apart: herdr renders at most once per 16 ms
  (MIN_RENDER_INTERVAL), so a faster typist waits for the cadence;
- frame throughput: a pane prints 10 MB (64 KiB reads fed to a simulated pane's screen on the
  server's loop, as a PTY's reads are: a real PTY pane's screen parses ~0.1 MB/s, which would
  measure the parser, not the plane); once with nobody watching and once with an observer
  streaming frames until its screen shows the end mark. The figure is the observed rate
  (target >= 20 MB/s; the unobserved time is beside it: frames are rendered at most every
  16 ms and a client that falls behind skips frames, so watching adds little).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import time

from .common import Result, call, exchange, fmt_time, median, python_module, stop, wait_for_socket

RTT_TARGET = 3.0
RENDER_INTERVAL = 0.017  # just over herdr's MIN_RENDER_INTERVAL (src/app/mod.rs:39)
THROUGHPUT_TARGET = 20.0  # MB/s observed (CHOICE: several times a fast build's output)
PRINT_BYTES = 10 * 1024 * 1024
PING = json.dumps({"id": "bench", "method": "ping", "params": {}}).encode() + b"\n"


class _Client:
    """A terminal-plane client from herdr's wire.rs (simherdr.protocol's codec)."""

    def __init__(self, path: str, protocol: int) -> None:
        from simherdr.protocol import MAX_GRAPHICS_FRAME, FrameDecoder, encode_frame, wire_for

        self._encode_frame = encode_frame
        self.wire = wire_for(protocol)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(120)
        self.sock.connect(path)
        self._decoder = FrameDecoder(MAX_GRAPHICS_FRAME)
        self._inbox: list = []
        self.frames = 0
        self.frame_bytes = 0
        hello = {
            "version": protocol,
            "cols": 120,
            "rows": 40,
            "cell_width_px": 0,
            "cell_height_px": 0,
        }
        if protocol >= 22:
            self.send({"TerminalHello": {**hello, "pixel_mouse": False}})
        else:
            hello.update(
                requested_encoding="TerminalAnsi",
                keybindings="Server",
                launch_mode="TerminalAttach",
            )
            self.send({"Hello": hello})
        welcome = self.recv()
        assert welcome["Welcome"]["error"] is None, welcome

    def send(self, value) -> None:
        self.sock.sendall(self._encode_frame(self.wire.encode_client(value)))

    def recv(self):
        while not self._inbox:
            data = self.sock.recv(1 << 20)
            if not data:
                raise ConnectionError("the server closed the connection")
            self._inbox.extend(self.wire.decode_server(p) for p in self._decoder.feed(data))
        return self._inbox.pop(0)

    def frame(self) -> bytes:
        """The next Terminal frame's bytes."""
        while True:
            m = self.recv()
            if isinstance(m, dict) and "Terminal" in m:
                self.frames += 1
                data = bytes(m["Terminal"]["bytes"])
                self.frame_bytes += len(data)
                return data

    def close(self) -> None:
        self.sock.close()


def _server(tmp: str, version: str, *extra: str):
    path = os.path.join(tmp, "herdr.sock")
    proc = python_module("simherdr", "serve", "--socket", path, "--herdr-version", version, *extra)
    wait_for_socket(path, proc)
    return path, proc


def _protocol(version: str) -> int:
    from simherdr.facts.versions import resolve

    return resolve(version).protocol


def round_trip(version: str = "0.9.3", rounds: int = 5, per_round: int = 300) -> Result:
    from simherdr.terminalplane import client_socket_path

    tmp = tempfile.mkdtemp(prefix="simherdr-bench-")
    os.chmod(tmp, 0o700)
    path, proc = _server(tmp, version)
    try:
        call(path, "workspace.create", {"cwd": tmp})
        tid = call(path, "pane.get", {"pane_id": "w1:p1"})["result"]["pane"]["terminal_id"]
        c = _Client(client_socket_path(path), _protocol(version))
        c.send({"AttachTerminal": {"terminal_id": tid, "takeover": False}})
        c.frame()  # the full redraw
        clock = time.perf_counter
        attach, ping = [], []
        for _ in range(rounds * per_round):
            t0 = clock()
            c.send({"Input": {"data": b"x"}})
            c.frame()  # nothing else changes the pane: the next frame is the echo
            t1 = clock()
            exchange(path, PING)
            t2 = clock()
            attach.append(t1 - t0)
            ping.append(t2 - t1)
            # a keystroke after herdr's render interval (16 ms) is rendered at once
            time.sleep(max(0.0, RENDER_INTERVAL - (clock() - t1)))
        c.close()
    finally:
        stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)
    ratio = median(attach) / median(ping)
    return Result(
        "attach round trip (input byte -> frame) / socket ping",
        round(ratio, 2),
        "x",
        f"<= {RTT_TARGET}",
        ratio <= RTT_TARGET,
        f"attach {fmt_time(median(attach))}, ping {fmt_time(median(ping))}: median of "
        f"{len(attach)} each, interleaved (herdr {version}, a simulated pane)",
        {"attach_s": median(attach), "ping_s": median(ping), "n": len(attach)},
    )


def _printing(srv, chunks: list[bytes]) -> float:
    """Feed the pane's screen chunk by chunk on the server's loop, as a PTY's reads arrive
    (each followed by the simulator's notification, then one loop turn); wall seconds."""
    import asyncio

    async def feed(sim) -> float:
        pane = sim.session.panes["w1:p1"]
        t0 = time.perf_counter()
        for chunk in chunks:
            pane.screen.feed(chunk)
            sim.commit()  # what a PTY read does (panes/pty.py drain)
            await asyncio.sleep(0)
        return time.perf_counter() - t0

    return srv.run(feed)


def _observed(srv, version: str, chunks: list[bytes], mark: bytes) -> tuple[float, int, int]:
    """Seconds until an observer's frame shows ``mark``; its frames and their bytes."""
    import threading

    from simherdr.terminalplane import client_socket_path

    c = _Client(client_socket_path(srv.path), _protocol(version))
    c.send({"ObserveTerminal": {"target": "w1:p1"}})
    first = c.frame()
    seen: list[float] = []

    def watch() -> None:
        # the client's terminal: a frame is a diff of cells, so the mark shows on the screen
        # the frames draw, not in one frame's bytes
        from simherdr.model.screen import Screen

        screen = Screen(cols=120, rows=40)
        screen.feed(first)
        text = mark.decode()
        while True:
            screen.feed(c.frame())
            if text in screen.read("visible")[0]:
                break
        seen.append(time.perf_counter())

    reader = threading.Thread(target=watch, daemon=True)
    reader.start()
    t0 = time.perf_counter()
    _printing(srv, [*chunks, mark + b"\r\n"])
    reader.join(120)
    c.close()
    return seen[0] - t0, c.frames - 1, c.frame_bytes


def throughput(version: str = "0.9.3", rounds: int = 3) -> Result:
    from simherdr.testing import ThreadServer

    line = "{:08d} compiling crate foo v1.2.3 (/work/src) ... \x1b[32mok\x1b[0m\r\n"
    n = PRINT_BYTES // len(line.format(0))
    body = "".join(line.format(i) for i in range(n)).encode()
    chunks = [body[i : i + 65536] for i in range(0, len(body), 65536)]
    bare, watched, frames, sent = [], [], 0, 0
    with ThreadServer(version) as srv:
        call(srv.path, "workspace.create", {"cwd": "/"})
        for r in range(rounds):  # alternating, so a load spike hits both alike
            bare.append(_printing(srv, [*chunks, f"BARE{r}\r\n".encode()]))
            seconds, frames, sent = _observed(srv, version, chunks, f"SEEN{r}".encode())
            watched.append(seconds)
    observed, unobserved = median(watched), median(bare)
    mb = len(body) / 1e6
    rate = mb / observed
    return Result(
        "frame throughput: 10 MB printed, observed",
        round(rate, 1),
        "MB/s",
        f">= {THROUGHPUT_TARGET:g}",
        rate >= THROUGHPUT_TARGET,
        f"observed {observed:.2f} s ({frames} frames, {sent / 1e6:.2f} MB of frames), "
        f"unobserved {unobserved:.2f} s ({mb / unobserved:.0f} MB/s): medians of {rounds} "
        f"(a simulated pane, 64 KiB reads, herdr {version})",
        {"observed_s": watched, "unobserved_s": bare, "frames": frames, "bytes": sent},
    )


def run(rounds: int = 5, per_round: int = 300, print_rounds: int = 3) -> list[Result]:
    return [
        round_trip(rounds=rounds, per_round=per_round),
        throughput(rounds=print_rounds),
    ]
