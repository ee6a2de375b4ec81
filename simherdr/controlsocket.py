"""The control socket (``simherdr serve --control PATH``): its listener on the simulator's
loop, one JSON object per line (CONTROL.md; the ops: :mod:`simherdr.scenarios.control`).

The ops, and with them the scenario and fault layer, are imported at the socket's first
request, not at serve's start: most servers with a control socket (every ``simherdr run``'s)
never get one, and that import was ~20 ms of CPU of each such start.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from typing import Any

from .unixsocket import Listening, listen_unix
from .wire import decode_request

MAX_LINE = 1024 * 1024


def _ops() -> Callable[[Any, Any], dict]:
    from .scenarios.control import handle

    return handle


def _encode(obj) -> bytes:
    import json  # with the first request's ops (serve's start imports no json)

    # ASCII escapes: a reply that echoes a lone surrogate from a request still encodes
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


class ControlServer:
    """The control socket, on the simulator's loop."""

    def __init__(self, sim, path: str):
        self.sim = sim
        self.path = os.path.abspath(path)
        self._server: Listening | None = None
        self._conns: set[asyncio.Task] = set()
        self.fate = ""  # what close() did with the socket file (unixsocket.Listening.close)

    async def start(self) -> None:
        self._server = await listen_unix(
            self.path,
            self._handle,
            limit=MAX_LINE + 1,
            busy_message=f"control socket busy at {self.path}",
        )

    async def close(self) -> None:
        if self._server is not None:
            self.fate = self._server.close()  # removes the socket only if it is still ours
            self._server = None
        for t in list(self._conns):
            t.cancel()
        await asyncio.gather(*self._conns, return_exceptions=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None  # a connection handler runs as a task
        self._conns.add(task)
        try:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                text = line.decode("utf-8", "replace").strip()
                if not text:
                    continue
                try:
                    obj = decode_request(text)  # serde_json's rules, nesting limit included
                except ValueError as e:
                    reply = {"ok": False, "error": f"invalid JSON: {e}"}
                else:
                    if isinstance(obj, dict) and obj.get("op") not in ("trace.get", "ops"):
                        self.sim.trace.record(
                            "step", "control", name=obj.get("op"), args=obj.get("args")
                        )
                    reply = _ops()(self.sim, obj)
                writer.write(_encode(reply))
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self._conns.discard(task)
            with contextlib.suppress(Exception):
                writer.close()
