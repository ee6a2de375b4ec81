"""The recording proxy: relay every connection to a herdr socket byte for byte, and write down
what passed.

``RecordingProxy`` listens on a socket of its own and, for each client connection, opens one to
the upstream (a real herdr or a simherdr) and pumps bytes both ways unchanged. Beside the
relay it splits each direction into lines and appends one event a line to a *journal*
(``<out>/<name>.jsonl``, flushed per event, wall-clock times), so a recording stays readable
when the proxy, the client or the upstream dies mid-way. :func:`journal_to_cassette` turns a
journal (plus the CLI recorder's journal, :mod:`simherdr.stub.record`) into a normalized
cassette (:mod:`.normalize`, :mod:`.cassette`).

A server the client launches itself (``herdr --session NAME server``) runs on a private socket;
the recording ``herdr`` asks the proxy (its ``ops`` socket) to relay the socket the client
expects to it while it serves: a ``launch`` event in the journal (a boundary of the cassette: a
fresh server) and the connections through it, each with the client's pid (so a CLI run's own
connections are told from the client's).

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

from ..standin import hold_name
from ..terminalplane.listener import client_socket_path
from ..unixsocket import (
    Listening,
    SocketBusy,
    listen_unix,
    relay_both_ways,
    socket_answers,
    take_path,
)
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


def _ask(path: str, line: bytes, timeout: float = 5.0) -> dict:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        s.sendall(line)
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    reply = json.loads(data)
    return reply if isinstance(reply, dict) else {}


def upstream_state(path: str, timeout: float = 5.0) -> int | None:
    """How many workspaces the upstream has before the recording starts (``workspace.list``,
    not part of the recording); None when it does not say."""
    try:
        reply = _ask(path, b'{"id":"simherdr-record","method":"workspace.list","params":{}}\n')
    except (OSError, ValueError):
        return None
    found = (reply.get("result") or {}).get("workspaces")
    return len(found) if isinstance(found, list) else None


def upstream_snapshot(path: str, timeout: float = 10.0) -> dict:
    """``session.snapshot`` of the upstream (``record --snapshot-first``): the starting state."""
    reply = _ask(
        path, b'{"id":"simherdr-record","method":"session.snapshot","params":{}}\n', timeout
    )
    result = reply.get("result")
    if not isinstance(result, dict):
        raise ValueError(f"upstream session.snapshot did not answer a snapshot: {reply}")
    return result


def control_info(path: str, timeout: float = 5.0) -> dict:
    """A simherdr upstream's ``server.info`` on its control socket: version and time scale."""
    reply = _ask(path, b'{"op":"server.info","args":{}}\n', timeout)
    if not reply.get("ok") or not isinstance(reply.get("result"), dict):
        raise ValueError(f"control socket {path} did not answer server.info: {reply}")
    return reply["result"]


def _peer_pid(w: asyncio.StreamWriter) -> int | None:
    """The connecting process's pid (SO_PEERCRED, Linux); None where it cannot be read."""
    import struct

    sock = w.get_extra_info("socket")
    if sock is None or not hasattr(socket, "SO_PEERCRED"):
        return None
    try:
        pid, _, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    except OSError:
        return None
    return pid or None


def _text(b: bytes) -> str:
    return b.decode("utf-8", errors="surrogateescape")


class RecordingProxy:
    """Listen on ``listen`` (and ``cli_listen``, for the connections of the recorded herdr
    binary), relay to ``upstream``, journal every line."""

    def __init__(
        self,
        upstream: str,
        listen: str,
        journal: Journal,
        cli_listen: str | None = None,
        control: tuple[str, str] | None = None,
        ops_listen: str | None = None,
        protocol: int | None = None,
        client_plane: bool = True,
    ):
        """``control``: (upstream control socket, the one to listen on): its ops are relayed
        and journaled (a ``server.reset`` becomes a boundary of the cassette). ``ops_listen``:
        the recording ``herdr``'s requests to relay a server the client launched.
        ``client_plane``: relay the client socket beside each listening socket too (to the
        upstream's), journaling its messages decoded with ``protocol`` (:mod:`.termrecord`)."""
        from .termrecord import wire_of

        self.upstream = upstream
        self.wire = wire_of(protocol)
        self.client_plane = client_plane
        self._client_paths: list[str] = []
        self.listen = listen
        self.cli_listen = cli_listen
        self.control = control
        self.ops_listen = ops_listen
        self._launched: dict[str, Listening] = {}
        self._launched_clients: dict[str, Listening] = {}  # their client sockets' relays
        self.warnings: list[str] = []  # what the recording should say (a client socket not relayed)
        self.journal = journal
        self._ids = itertools.count(1)
        self._servers: list[asyncio.Server] = []
        self._held: list[socket.socket] = []  # the stand-in names of the proxy's own sockets
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
            listening = await listen_unix(path, handler, limit=LIMIT, busy_message=busy)
            self._servers.append(listening)
            # its connections carry no pid (a launched server's relay, below, reads them): the
            # stand-in's calls here may come from a shared fork server's child (standin.py)
            held = hold_name(listening.identity)
            if held is not None:
                self._held.append(held)
            if self.client_plane:
                await self._listen_client_beside(path, via)
        if self.control is not None:
            up, path = self.control

            async def control_handler(r, w, up=up):
                task = asyncio.current_task()
                if task is not None:
                    self._tasks.add(task)
                try:
                    await self._relay_control(r, w, up)
                except (asyncio.CancelledError, ConnectionError, OSError):
                    pass
                finally:
                    if task is not None:
                        self._tasks.discard(task)

            busy = f"{path}: something already answers there"
            self._servers.append(
                await listen_unix(path, control_handler, limit=LIMIT, busy_message=busy)
            )
        if self.ops_listen is not None:
            busy = f"{self.ops_listen}: something already answers there"
            self._servers.append(
                await listen_unix(self.ops_listen, self._ops, limit=LIMIT, busy_message=busy)
            )

    async def _listen_client_beside(self, path: str, via: str | None) -> None:
        """The client socket beside the proxy's ``path``, unless it is the upstream's own (a
        proxy named like the upstream in its directory: ``h.sock`` and ``h.proxy`` share
        ``h-client.sock``) or taken: then the recording goes on without it, and says so."""
        mine, theirs = client_socket_path(path), client_socket_path(self.upstream)
        why = "it is the upstream's own" if mine == theirs else ""
        if not why:
            try:
                self._servers.append(await self._listen_client(path, via, self.upstream))
                self._client_paths.append(mine)
                return
            except (SocketBusy, OSError) as e:
                why = str(e)
        self.warnings.append(
            f"the client socket beside {path} ({mine}) is not recorded: {why} (give the proxy's "
            "socket a name whose stem differs from the upstream's)"
        )

    async def _listen_client(
        self, api_path: str, via: str | None, upstream_api: str, launched: bool = False
    ) -> Listening:
        """The client socket a client finds beside ``api_path``, relayed to the one beside
        ``upstream_api``; ``launched``: a server the client launched (each connection carries
        the client's pid, as the API socket's do)."""
        from .termrecord import relay_client

        path, upstream = client_socket_path(api_path), client_socket_path(upstream_api)

        async def handler(r, w, via=via):
            task = asyncio.current_task()
            if task is not None:
                self._tasks.add(task)
            try:
                await relay_client(
                    r, w, cid=next(self._ids), via=via, upstream=upstream,
                    journal=self.journal, wire=self.wire,
                    pid=_peer_pid(w) if launched else None,
                )  # fmt: skip
            except asyncio.CancelledError:
                pass
            finally:
                if task is not None:
                    self._tasks.discard(task)

        busy = f"{path}: something already answers there"
        return await listen_unix(path, handler, limit=LIMIT, busy_message=busy)

    async def _ops(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        """One op line from the recording ``herdr``: ``relay`` (listen on the socket a launched
        server's client expects, relay it to the server's private one) or ``unrelay``."""
        try:
            op = json.loads(await r.readline() or b"{}")
            reply: dict = {"ok": True}
            if op.get("op") == "relay":
                reply = await self._relay_launch(op)
            elif op.get("op") == "unrelay":
                server = self._launched.pop(op.get("listen"), None)
                client = self._launched_clients.pop(op.get("listen"), None)
                if client is not None:
                    client.close()
                if server is not None:
                    server.close()  # removes the socket file it bound
                    self.journal.event(launch_end=op["listen"])
            else:
                reply = {"ok": False, "error": f"unknown op {op.get('op')!r}"}
        except (ValueError, AttributeError) as e:
            reply = {"ok": False, "error": str(e)}
        w.write(json.dumps(reply).encode() + b"\n")
        with contextlib.suppress(ConnectionError, OSError):
            await w.drain()
        w.close()

    async def _relay_launch(self, op: dict) -> dict:
        listen, upstream = op.get("listen"), op.get("upstream")
        if not isinstance(listen, str) or not isinstance(upstream, str):
            return {"ok": False, "error": "relay needs listen and upstream"}

        async def handler(r, w, upstream=upstream):
            task = asyncio.current_task()
            if task is not None:
                self._tasks.add(task)
            try:
                await self._relay(r, w, None, upstream=upstream, relay=listen)
            except asyncio.CancelledError:
                pass
            finally:
                if task is not None:
                    self._tasks.discard(task)

        try:
            server = await listen_unix(
                listen, handler, limit=LIMIT, busy_message=f"{listen}: something answers there"
            )
        except (OSError, RuntimeError) as e:
            return {"ok": False, "error": str(e)}
        self._launched[listen] = server
        if self.client_plane:
            try:
                self._launched_clients[listen] = await self._listen_client(
                    listen, None, upstream, launched=True
                )
            except (OSError, RuntimeError):
                pass  # the launched server's client socket is not relayed (the API socket is)
        self.journal.event(launch={"socket": listen, "argv": op.get("argv"), "pid": op.get("pid")})
        return {"ok": True}

    async def _relay_control(self, cr, cw, upstream: str) -> None:
        """The control plane's conversation: any number of op lines, one reply line each."""
        ur, uw = await asyncio.open_unix_connection(upstream, limit=LIMIT)
        try:
            while True:
                line = await cr.readline()
                if not line:
                    break
                uw.write(line)
                await uw.drain()
                reply = await ur.readline()
                cw.write(reply)
                await cw.drain()
                try:
                    op: object = json.loads(line)
                    answer: object = json.loads(reply) if reply else None
                except ValueError:
                    op, answer = {"raw": _text(line.rstrip(b"\n"))}, None
                self.journal.event(control=op, reply=answer)
                if not reply:
                    break
        finally:
            uw.close()
            cw.close()

    async def close(self) -> None:
        for server in [*self._launched.values(), *self._launched_clients.values()]:
            server.close()
        self._launched.clear()
        self._launched_clients.clear()
        for s in self._servers:
            s.close()
        for held in self._held:
            held.close()
        self._held.clear()
        for t in list(self._tasks):
            t.cancel()
        for s in self._servers:
            with contextlib.suppress(Exception):
                await s.wait_closed()
        for path in (
            self.listen,
            self.cli_listen,
            self.control and self.control[1],
            self.ops_listen,
            *self._client_paths,
        ):
            if path:
                with contextlib.suppress(OSError):
                    os.unlink(path)

    async def _relay(
        self,
        cr: asyncio.StreamReader,
        cw: asyncio.StreamWriter,
        via,
        upstream: str | None = None,
        relay: str | None = None,
    ) -> None:
        """``upstream``: a launched server's socket (its connections carry the client's pid
        and ``relay``, the socket the client reached: its end is the ``launch_end``)."""
        cid = next(self._ids)
        j = self.journal
        target = upstream or self.upstream
        opened: dict = {"open": via or "socket"}
        if upstream is not None:
            opened["pid"] = _peer_pid(cw)
            if relay is not None:
                opened["relay"] = relay
        try:
            ur, uw = await asyncio.open_unix_connection(target, limit=LIMIT)
        except OSError as e:
            j.event(conn=cid, **opened, unreachable=f"{type(e).__name__}: {e}")
            cw.close()
            return
        j.event(conn=cid, **opened)
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
                if (lines_seen[0] == 1 and not streamed[0]) or socket_answers(target, 0.5):
                    j.event(conn=cid, close="upstream")
                else:
                    j.event(conn=cid, close="upstream", upstream_down=True)

        # the upstream's side decides when a conversation is over
        await relay_both_ways(pump, (cr, cw), (ur, uw))


def prepare_socket(path: str) -> None:
    take_path(path, f"{path}: something already answers there")


class RecordingError(ValueError):
    """A recording that cannot start (one line: what, and what to do); a ValueError, so a
    caller that catches (OSError, ValueError) prints it as one line."""


class ThreadRecorder:
    """The recorder's one API (``simherdr record``, ``contract selftest``, ``simherdr run
    --record``, tests): the proxy on its own loop in a daemon thread, recording into
    ``<out>/<name>.jsonl``; :meth:`env` is the environment for the recorded command,
    :meth:`stop` writes and returns the cassette.

    - ``herdr_bin``: also record CLI runs: :attr:`bindir` holds a recording ``herdr`` that runs
      this binary (put first on the command's PATH; :meth:`env` does);
    - ``time_scale``: the upstream's (a ``simherdr serve --time-scale``); None: read from the
      upstream's control socket (``control_upstream``, op ``server.info``), else 1 (a real herdr);
    - ``control_upstream`` / ``control_listen``: relay a simherdr control socket too; a
      ``server.reset`` through it is a boundary of the cassette (one recording per suite);
    - ``snapshot_first``: capture ``session.snapshot`` before the first request (a simherdr
      target is seeded from it);
    - ``cwd``: the recorded command's working directory (normalized as ``<cwd>``); ``home``:
      the upstream's HOME (``<home>``; default: this process's, as when both run in one shell).

    :attr:`warnings`: what the recording should say at once (a non-empty upstream).
    """

    def __init__(
        self,
        upstream: str,
        listen: str,
        out: str | Path,
        name: str,
        cli_listen: str | None = None,
        cli_journal: str | None = None,
        time_scale: float | None = None,
        *,
        herdr_bin: str | None = None,
        control_upstream: str | None = None,
        control_listen: str | None = None,
        snapshot_first: bool = False,
        cwd: str | None = None,
        home: str | None = None,
    ):
        import tempfile
        import threading

        from . import normalize
        from .journal import NON_EMPTY, start_meta

        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.path = self.out / f"{name}.jsonl"
        self.listen = listen
        self.control_listen = control_listen if control_upstream else None
        self.warnings: list[str] = []
        if time_scale is not None and not time_scale > 0:
            raise RecordingError(f"--time-scale must be > 0, not {time_scale:g}")
        try:
            info = upstream_version(upstream)
        except (OSError, ValueError) as e:
            raise RecordingError(f"upstream {upstream} does not answer ping: {e}") from None
        scale_from = "--time-scale"
        if control_upstream:
            try:
                sinfo = control_info(control_upstream)
                if time_scale is None:
                    time_scale = float(sinfo["time_scale"])
                    scale_from = f"server.info on {control_upstream}"
                home = home or sinfo.get("home")
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise RecordingError(
                    f"control socket {control_upstream} does not answer server.info: {e} "
                    "(give --time-scale)"
                ) from None
        if time_scale is None:
            time_scale, scale_from = 1.0, "default (a real herdr runs at 1)"
        if not time_scale > 0:
            raise RecordingError(f"--time-scale must be > 0, not {time_scale}")
        self.bindir: str | None = None
        ops_listen: str | None = None
        if herdr_bin:
            from ..stub.record import write_recording_stub

            self.bindir = tempfile.mkdtemp(prefix="simherdr-record-bin-")
            cli_listen = cli_listen or listen + ".cli"
            cli_journal = cli_journal or str(self.out / f".{name}.cli.jsonl")
            ops_listen = listen + ".ops"
            write_recording_stub(self.bindir, herdr_bin, cli_journal, cli_listen, ops_listen)
        self.cli_journal = cli_journal
        meta = start_meta(upstream, name, info, cli_journal, time_scale)
        meta["time_scale_from"] = scale_from
        meta["context"] = normalize.recording_context(
            cwd=cwd, recorder=self.bindir, proxy=listen, home=home
        )
        count = upstream_state(upstream)
        if count:
            why = f"{NON_EMPTY} ({count} workspaces when recording began)"
            meta["non_empty_start"] = why
            hint = "" if snapshot_first else " (--snapshot-first captures it)"
            self.warnings.append(why + hint)
        self.journal_meta = meta
        self.journal = Journal(self.path, meta)
        if snapshot_first:
            try:
                self.journal.event(seed=upstream_snapshot(upstream))
            except (OSError, ValueError) as e:
                raise RecordingError(f"--snapshot-first: {e}") from None
        control = (
            (control_upstream, control_listen) if control_upstream and control_listen else None
        )
        self.proxy = RecordingProxy(
            upstream,
            listen,
            self.journal,
            cli_listen,
            control,
            ops_listen=ops_listen,
            protocol=info.get("protocol"),
        )
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
            self.journal.close()
            self.path.unlink(missing_ok=True)
            raise RecordingError(str(errors[0])) from None
        self.warnings.extend(self.proxy.warnings)

    def env(self, base: dict | None = None) -> dict[str, str]:
        """The recorded command's environment: ``HERDR_SOCKET_PATH`` the proxy, the recording
        ``herdr`` first on ``PATH``, ``SIMHERDR_CONTROL`` the relayed control socket."""
        env = dict(os.environ if base is None else base)
        env["HERDR_SOCKET_PATH"] = self.listen
        if self.bindir:
            env["PATH"] = self.bindir + os.pathsep + env.get("PATH", "")
        if self.control_listen:
            env["SIMHERDR_CONTROL"] = self.control_listen
        return env

    def stop(self, write: bool = True):
        import shutil

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
            cassette.file = f"{self.name}.json"
            self.path.unlink()
            if self.cli_journal and os.path.exists(self.cli_journal):
                os.unlink(self.cli_journal)
        if self.bindir:
            shutil.rmtree(self.bindir, ignore_errors=True)
        return cassette


def record_command(rec: ThreadRecorder, command: list[str], cwd: str | None = None) -> int:
    """Run ``command`` under ``rec`` (its :meth:`~ThreadRecorder.env`) and return its exit
    status; SIGINT/SIGTERM stop the command, and the recording ends with it."""
    import signal
    import subprocess

    try:
        proc = subprocess.Popen(command, env=rec.env(), cwd=cwd)
    except OSError as e:
        raise RecordingError(f"cannot run {command[0]}: {e}") from None
    old = {}

    def stop(signum, frame):
        proc.terminate()

    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            old[sig] = signal.signal(sig, stop)
        except ValueError:  # not the main thread
            pass
    try:
        return proc.wait()
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


def summary(path, cassette) -> str:
    """The one line a recording ends with: what it holds, and a non-empty start."""
    conns = len({s["conn"] for s in cassette.steps if "conn" in s})
    clients = len({s["client_conn"] for s in cassette.steps if "client_conn" in s})
    runs = sum(1 for s in cassette.steps if "cli_run" in s)
    bounds = sum(1 for s in cassette.steps if "boundary" in s)
    line = f"simherdr record: {path}: {conns} connections, "
    if clients:
        line += f"{clients} client-socket connections, "
    line += f"{runs} CLI runs, {len(cassette.normalization.get('refs', {}))} references"
    if bounds:
        line += f", {bounds} resets"
    if cassette.provenance.get("non_empty_start"):
        line += f"; {cassette.provenance['non_empty_start']}"
    return line
