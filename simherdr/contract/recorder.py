"""The recording proxy: relay every connection to a herdr socket byte for byte, and write down
what passed.

``RecordingProxy`` listens on a socket of its own and, for each client connection, opens one to
the upstream (a real herdr or a simherdr) and pumps bytes both ways unchanged. Beside the
relay it splits each direction into lines and appends one event a line to a *journal*
(``<out>/<name>.jsonl``, flushed per event, wall-clock times), so a recording stays readable
when the proxy, the client or the upstream dies mid-way. :func:`journal_to_cassette` turns a
journal (plus the CLI recorder's journal, :mod:`simherdr.stub.record`) into a normalized
cassette (:mod:`.normalize`, :mod:`.cassette`).

Disconnects are relayed as they happen: a client's end of input is passed on as end of input
(half-close), an upstream close closes the client; a client that vanishes mid-stream ends the
upstream connection. Each is an event in the journal.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import socket
from pathlib import Path

from ..unixsocket import listen_unix, socket_answers, take_path
from .journal import Journal

LIMIT = 1 << 20  # read chunk ceiling; lines are split by the recorder, not the relay


def upstream_version(path: str, timeout: float = 5.0) -> dict:
    """``ping`` the upstream once (not part of the recording): its version and protocol."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        s.sendall(b'{"id":"simherdr-record","method":"ping","params":{}}\n')
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    reply = json.loads(data)
    result = reply.get("result") if isinstance(reply, dict) else None
    if not isinstance(result, dict) or "version" not in result:
        raise ValueError(f"upstream ping did not answer a version: {data[:200]!r}")
    return {"version": result["version"], "protocol": result.get("protocol")}


def _text(b: bytes) -> str:
    return b.decode("utf-8", errors="surrogateescape")


class RecordingProxy:
    """Listen on ``listen`` (and ``cli_listen``, for the connections of the recorded herdr
    binary), relay to ``upstream``, journal every line."""

    def __init__(self, upstream: str, listen: str, journal: Journal, cli_listen: str | None = None):
        self.upstream = upstream
        self.listen = listen
        self.cli_listen = cli_listen
        self.journal = journal
        self._ids = itertools.count(1)
        self._servers: list[asyncio.Server] = []
        self._tasks: set[asyncio.Task] = set()

    async def start(self) -> None:
        for path, via in ((self.listen, None), (self.cli_listen, "cli")):
            if path is None:
                continue

            async def handler(r, w, via=via):
                task = asyncio.current_task()
                if task is not None:
                    self._tasks.add(task)
                try:
                    await self._relay(r, w, via)
                except asyncio.CancelledError:
                    pass  # the proxy is closing: its connections end with it
                finally:
                    if task is not None:
                        self._tasks.discard(task)

            busy = f"{path}: something already answers there"
            self._servers.append(await listen_unix(path, handler, limit=LIMIT, busy_message=busy))

    async def close(self) -> None:
        for s in self._servers:
            s.close()
        for t in list(self._tasks):
            t.cancel()
        for s in self._servers:
            with contextlib.suppress(Exception):
                await s.wait_closed()
        for path in (self.listen, self.cli_listen):
            if path:
                with contextlib.suppress(OSError):
                    os.unlink(path)

    async def _relay(self, cr: asyncio.StreamReader, cw: asyncio.StreamWriter, via) -> None:
        cid = next(self._ids)
        j = self.journal
        try:
            ur, uw = await asyncio.open_unix_connection(self.upstream, limit=LIMIT)
        except OSError as e:
            j.event(conn=cid, open=via or "socket", unreachable=f"{type(e).__name__}: {e}")
            cw.close()
            return
        j.event(conn=cid, open=via or "socket")
        ended: list[str] = []
        lines_seen = [0]  # reply lines so far
        streamed = [False]  # the request asked for a stream

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, d: str) -> None:
            """``d``: "send" (client -> upstream) or "recv" (upstream -> client)."""
            src_side, dst_side = ("client", "upstream") if d == "send" else ("upstream", "client")
            buf = b""
            try:
                while True:
                    try:
                        chunk = await src.read(LIMIT)
                    except (ConnectionError, OSError):
                        chunk = b""  # reset by the reading side's peer: the same as its end
                    if not chunk:
                        break
                    buf += chunk
                    *lines, buf = buf.split(b"\n")
                    for line in lines:
                        j.event(conn=cid, **{d: _text(line)})
                        if d == "send" and b'"events.subscribe"' in line:
                            streamed[0] = True
                    if d == "recv":
                        lines_seen[0] += len(lines)
                    try:
                        dst.write(chunk)
                        await dst.drain()
                    except (ConnectionError, OSError):
                        # the far side went away mid-stream
                        ended.append(dst_side)
                        j.event(conn=cid, close=dst_side, during=d)
                        return
            finally:
                if buf:
                    j.event(conn=cid, partial=True, **{d: _text(buf)})
            ended.append(src_side)
            if d == "send":
                j.event(conn=cid, close="client")
                with contextlib.suppress(OSError, RuntimeError):
                    dst.write_eof()  # herdr sees the end of input as the client sent it
            else:
                # a herdr that closes a conversation still answers; a dead one does not
                # (replay cannot reproduce a death, so it skips such a close); checked only
                # for streams and unanswered requests: one reply then a close is herdr's
                # ordinary conversation
                if (lines_seen[0] == 1 and not streamed[0]) or socket_answers(self.upstream, 0.5):
                    j.event(conn=cid, close="upstream")
                else:
                    j.event(conn=cid, close="upstream", upstream_down=True)

        up = asyncio.ensure_future(pump(cr, uw, "send"))
        down = asyncio.ensure_future(pump(ur, cw, "recv"))
        try:
            await down  # the upstream's side decides when a conversation is over
            if not up.done():
                up.cancel()
        except asyncio.CancelledError:
            up.cancel()
            down.cancel()
            raise
        finally:
            for w in (cw, uw):
                w.close()
            with contextlib.suppress(BaseException):
                await up


def prepare_socket(path: str) -> None:
    take_path(path, f"{path}: something already answers there")


class ThreadRecorder:
    """The proxy on its own loop in a daemon thread (tests, corpus builders): records into
    ``<out>/<name>.jsonl``; :meth:`stop` writes and returns the cassette."""

    def __init__(
        self,
        upstream: str,
        listen: str,
        out: str | Path,
        name: str,
        cli_listen: str | None = None,
        cli_journal: str | None = None,
        time_scale: float = 1.0,
    ):
        import threading

        from .journal import start_meta

        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.path = self.out / f"{name}.jsonl"
        info = upstream_version(upstream)
        self.journal = Journal(self.path, start_meta(upstream, name, info, cli_journal, time_scale))
        self.proxy = RecordingProxy(upstream, listen, self.journal, cli_listen)
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            try:
                self.loop.run_until_complete(self.proxy.start())
            except BaseException as e:
                errors.append(e)
                ready.set()
                return
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, name="simherdr-record", daemon=True)
        self.thread.start()
        ready.wait(10)
        if errors:
            raise errors[0]

    def stop(self, write: bool = True):
        from .journal import journal_to_cassette

        if self.thread.is_alive():
            asyncio.run_coroutine_threadsafe(self.proxy.close(), self.loop).result(10)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()
        self.journal.close()
        cassette = journal_to_cassette(self.path, self.name)
        if write:
            cassette.dump(self.out / f"{self.name}.json")
            self.path.unlink()
        return cassette
