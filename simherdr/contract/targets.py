"""Where a corpus is replayed: ``inprocess`` | ``socket`` | ``stub`` | ``real``.

- ``inprocess``: a :class:`simherdr.testing.Harness` on a virtual clock (no socket; a stream
  such as ``events.subscribe`` needs a socket target);
- ``socket``: a simherdr socket server in a thread, or any herdr-compatible socket given;
- ``stub``: the same server, with the CLI steps run through the stand-in ``herdr`` binary
  (:mod:`simherdr.stub`);
- ``real``: a running herdr (its socket, and its binary for CLI steps when given).

Each target opens :class:`Conn` objects that speak lines; herdr answers one request per
connection and then closes (or streams).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..facts.versions import HerdrVersion

TARGETS = ("inprocess", "socket", "stub", "real")


# CHOICE (issue 26): a simherdr socket or stub target lets a recorded gap pass on its server's
# clock at once (simherdr.clock.SkipsTime) instead of sleeping through it: what fell due in
# the gap (timers, agents starting, a wait's timeout) is served in order before the next
# request is sent, as if the server had been stalled, and the transport and the stand-in are
# exercised exactly as before; a CLI run and a request in flight still take their own wall
# time. ``skip_gaps=False`` (``simherdr contract verify --real-time``) sleeps as a real herdr
# target must.
SKIP_GAPS = True

# CHOICE: a replayed read whose reply differs from the recording's is asked again (verify:
# READ_WORDS) for the recorded gap to the next step, at least WAIT_FLOOR wall seconds (a
# loaded machine answers later than the recording's) and at most the reply timeout; each wait
# that was needed is reported. `contract verify --read-wait` sets the floor: shorter where
# reads are expected to differ (a corpus checked against another release), longer for a slow
# target.
WAIT_FLOOR = 1.0


@runtime_checkable
class TimeSkipper(Protocol):
    """A server whose clock the replayer may move at once (a :class:`ThreadServer`)."""

    def skips_time(self) -> bool: ...
    def skip(self, wall: float) -> None: ...
    def hold(self, ahead: float = 0.0) -> None: ...
    def release(self) -> None: ...
    def seconds(self) -> float: ...


class Unsupported(RuntimeError):
    """This target cannot replay this step (the reason is shown as a skip)."""


class Conn(Protocol):
    def send(self, line: bytes) -> None: ...
    def recv_line(self, timeout: float) -> bytes | None: ...  # None: closed
    def shutdown_write(self) -> None: ...
    def close(self) -> None: ...


class UnixConn:
    """A blocking connection to a Unix socket (the JSON plane's and the client socket's)."""

    def __init__(self, path: str, timeout: float) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.eof = False

    def shutdown_write(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self) -> None:
        self.sock.close()


class SocketConn(UnixConn):
    def __init__(self, path: str, timeout: float = 10.0):
        super().__init__(path, timeout)
        self.buf = b""

    def send(self, line: bytes) -> None:
        self.sock.sendall(line)

    def recv_line(self, timeout: float) -> bytes | None:
        self.sock.settimeout(timeout)
        while b"\n" not in self.buf and not self.eof:
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                raise TimeoutError(f"no reply line within {timeout:g}s") from None
            except OSError:
                chunk = b""
            if not chunk:
                self.eof = True
            self.buf += chunk
        if b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            return line
        if self.buf:
            line, self.buf = self.buf, b""
            return line
        return None


class HarnessConn:
    """One in-process "connection": the request's reply, then the end of the connection."""

    def __init__(self, harness, scale: float = 1.0):
        self.h = harness
        self.scale = scale
        self.out: deque[bytes] = deque()
        self.sent = False
        self.task = None
        self.closed = None

    def send(self, line: bytes) -> None:
        from ..wire import decode_request

        if self.sent:
            return  # herdr reads one request per connection
        self.sent = True
        text = line.decode("utf-8", errors="replace").strip()
        try:
            obj = decode_request(text)
        except (ValueError, RecursionError) as e:
            reply = {
                "id": "",
                "error": {"code": "invalid_request", "message": f"invalid request: {e}"},
            }
        else:
            method = obj.get("method") if isinstance(obj, dict) else None
            mdef = self.h.sim.methods.get(method) if isinstance(method, str) else None
            if mdef is not None and mdef.kind == "stream" and not self.h.sim.stopping:
                self._stream(obj)
                return
            reply = self.h.request(obj)
        if reply is not None:
            self.out.append(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode())

    def _stream(self, obj: dict) -> None:
        """A stream in process: the handler pushes its lines here, as the server's would."""
        from ..facts import errors as E

        h = self.h
        self.closed = h.loop.create_future()
        client = _StreamClient(self)

        async def run() -> None:
            try:
                rid, mdef, p = h.sim.parse(obj)
            except E.HerdrError as e:
                await client.send({"id": e.reply_id or "", "error": e.body()})
                return
            try:
                await mdef.fn(h.sim, p, rid, client)
            except E.HerdrError as e:
                await client.send(
                    {"id": e.reply_id if e.reply_id is not None else rid, "error": e.body()}
                )

        self.task = h.loop.create_task(run())
        h.settle()

    def cancelled(self) -> bool:
        return self.closed is not None and self.closed.done()

    def recv_line(self, timeout: float) -> bytes | None:
        if self.task is None:
            return self.out.popleft() if self.out else None
        h = self.h
        h.settle()
        # nothing pending: simulated time moves to the next timer (a wait's deadline, an agent's
        # step), at most ``timeout`` recorded seconds
        budget = h.clock.now() + timeout * self.scale
        while not self.out and not self.task.done():
            nxt = h.clock.next_wakeup()
            if nxt is None or nxt > budget:
                raise TimeoutError(f"no stream line within {timeout:g}s (in process)")
            h.loop.run_until_complete(h.clock.advance_to(nxt))
            h.settle()
        return self.out.popleft() if self.out else None

    def shutdown_write(self) -> None:
        self.close()

    def close(self) -> None:
        if self.closed is not None and not self.closed.done():
            self.closed.set_result(None)
            self.h.settle()


class _StreamClient:
    """The ClientConnection (handlers/context.py) a stream's handler pushes to, in process."""

    def __init__(self, conn: HarnessConn):
        self.conn = conn
        self.closed = conn.closed

    def cancelled(self) -> bool:
        return self.conn.cancelled()

    async def send(self, obj: dict) -> None:
        if not self.cancelled():
            line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
            self.conn.out.append(line)


@dataclass
class Target:
    """One replay target for one cassette run (fresh state: a cassette starts from scratch)."""

    kind: str
    version: str
    socket_path: str | None = None
    herdr_bin: str | None = None
    harness: object | None = None
    time_scale: float = 1.0  # simulated seconds per wall second (a simherdr serve --time-scale)
    workdir: str = field(default_factory=lambda: tempfile.mkdtemp(prefix="simherdr-verify-"))
    home: str | None = None  # the target's HOME (what ``<home>`` is bound to)
    cwd: str | None = None  # where CLI runs run (``<cwd>``: the server's cwd on simherdr)
    server: object | None = None  # a ThreadServer (control ops run on its loop)
    config: object | None = None  # a fresh simherdr's Config (its server_cwd follows ``cwd``)
    control_path: str | None = None  # an external simherdr's control socket
    skip_gaps: bool = SKIP_GAPS  # a server that skips time skips recorded gaps (SKIP_GAPS)
    _stop: list = field(default_factory=list)
    _start: float | None = None
    _skipped: float = 0.0  # wall seconds let pass on the server's clock without waiting
    # the server _skipper last looked at, and it if it skips: looked at once per server (a
    # runtime Protocol check costs ~30 us, and a replay asks at every step)
    _checked: object | None = None
    _skips: TimeSkipper | None = None

    def context(self) -> dict[str, str]:
        """The target's own values of the recording's named references (normalize.NAMES)."""
        import getpass
        import socket as _socket

        ctx = {
            "home": self.home or os.path.expanduser("~"),
            "cwd": self.cwd or os.getcwd(),
            "recorder": os.path.dirname(self.herdr_bin)
            if self.herdr_bin
            else self.fresh_dir("bin"),
            "proxy": self.socket_path or os.path.join(self.workdir, "proxy.sock"),
            "host": _socket.gethostname(),
        }
        try:
            ctx["user"] = getpass.getuser()
        except (KeyError, OSError):
            pass
        return ctx

    def take_cwd(self, recorded: str) -> str:
        """The replay's ``<cwd>``: a fresh directory named like the recorded command's working
        directory (herdr labels a workspace after its cwd's basename, so the name is part of
        the conversation); CLI runs run in it. CHOICE (issue 33): a fresh simherdr serves from
        it too (a recorder started in a directory stands for ``cd repo && simherdr serve``);
        a recorded cwd that was the HOME is ``<home>`` (normalize.recording_context)."""
        d = self.fresh_dir(recorded)
        self.cwd = d
        if self.config is not None:
            self.config.server_cwd = d  # type: ignore[attr-defined]
        return d

    def can_skip(self) -> bool:
        """Recorded seconds pass at once on this target (in process, or a skipping server):
        waiting longer than the recording did costs nothing."""
        return self.harness is not None or self._skipper() is not None

    def _skipper(self) -> TimeSkipper | None:
        srv = self.server
        if srv is not self._checked:
            self._checked = srv
            self._skips = srv if isinstance(srv, TimeSkipper) and srv.skips_time() else None
        return self._skips if self.skip_gaps else None

    @property
    def skipped(self) -> float:
        """Wall seconds let pass at once on the server's clock (SKIP_GAPS) so far."""
        return self._skipped

    def elapsed(self) -> float:
        """Recorded (wall) seconds on the target's clock: a skipping server's own timeline
        (what ran, what was skipped, less what stood still: :meth:`hold`), else the wall
        clock's."""
        import time

        skipper = self._skipper()
        if skipper is not None:
            return skipper.seconds()
        return time.monotonic() + self._skipped

    def hold(self, ahead: float = 0.0) -> float | None:
        """A skipping server's clock runs ``ahead`` more recorded (wall) seconds at most, then
        stands still until the next hold or :meth:`release`; recorded gaps still pass
        (:meth:`pace_to`). CHOICE (issue 34's flakes): a replayed server's time is the
        cassette's timeline plus what answering took, never the replayer's own wall time x
        the time scale: at 50x, 20 ms of a loaded replayer was a simulated second, and herdr's
        one-second recheck of a self-reported agent's shell (0.9.2+) cleared an agent a
        recorded read 0.2 s later still saw. Returns ``ahead`` (None: this target's clock
        cannot stand still)."""
        skipper = self._skipper()
        if skipper is None:
            return None
        ahead = max(ahead, 0.0)
        skipper.hold(ahead)
        return ahead

    def until(self, offset: float) -> float:
        """Recorded seconds from now to the recorded ``offset`` on the target's timeline
        (:meth:`pace_to`'s; 0 when it has passed or the timeline has not started)."""
        if self._start is None:
            return 0.0
        return max(self._start + offset - self.elapsed(), 0.0)

    def release(self) -> None:
        """The server's clock runs freely again (a CLI run, a step that waits on it)."""
        skipper = self._skipper()
        if skipper is not None:
            skipper.release()

    def _let_pass(self, seconds: float) -> None:
        import time

        skipper = self._skipper()
        if skipper is None:
            time.sleep(seconds)
            return
        skipper.skip(seconds)
        self._skipped += seconds

    def wait(self, seconds: float) -> None:
        """Let ``seconds`` recorded (wall) seconds pass on the target's clock."""
        if self.harness is not None:
            self.harness.advance(seconds * self.time_scale)  # type: ignore[attr-defined]
        else:
            self._let_pass(seconds)

    def control(self, op: dict) -> dict:
        """One control-plane op (simherdr's own; ``scenarios.control``) on this target."""
        from ..ctl import request as control_request
        from ..scenarios.control import handle

        if self.harness is not None:
            reply = handle(self.harness.sim, op)  # type: ignore[attr-defined]
            self.harness.settle()  # type: ignore[attr-defined]
            return reply
        if self.server is not None:
            return self.server.run(lambda sim: handle(sim, op))  # type: ignore[attr-defined]
        if self.control_path:
            return control_request(self.control_path, op.get("op", ""), op.get("args") or {})
        raise Unsupported(
            f"control op {op.get('op')}: this target has no control socket (--control PATH)"
        )

    def reset(self) -> None:
        """A newly started server's state (a recorded ``server.reset`` boundary)."""
        reply = self.control({"op": "server.reset", "args": {}})
        if not reply.get("ok"):
            raise Unsupported(f"server.reset refused: {reply.get('error')}")

    def seed(self, snapshot: dict) -> dict:
        """Give a fresh simherdr the recording's starting state; returns the target's
        ``session.snapshot`` after seeding (the replay binds the snapshot's references)."""
        from .seed import seed_target

        return seed_target(self, snapshot)

    def pace_to(self, offset: float) -> None:
        """Let ``offset`` recorded (wall) seconds pass since the first call: simulated time
        (scaled) in process, skipped on a simherdr server's clock (SKIP_GAPS), a real sleep
        on any other socket."""
        if self.harness is not None:
            clock = self.harness.clock  # type: ignore[attr-defined]
            # the in-process clock moves only here: a recorded gap is wall time of an upstream
            # running time_scale times faster
            if self._start is None:
                self._start = clock.now()
            due = self._start + offset * self.time_scale
            if clock.now() < due:
                self.harness.advance(due - clock.now())  # type: ignore[attr-defined]
            return
        if self._start is None:
            self._start = self.elapsed() - offset
        wait = self._start + offset - self.elapsed()
        if wait > 0:
            self._let_pass(wait)

    def connect(self, timeout: float = 10.0) -> Conn:
        if self.harness is not None:
            return HarnessConn(self.harness, self.time_scale)
        assert self.socket_path
        return SocketConn(self.socket_path, timeout)

    @property
    def runs_cli(self) -> bool:
        return self.herdr_bin is not None

    def fresh_dir(self, like: str | None = None) -> str:
        """A new directory; named like the recorded one (herdr labels a workspace after its
        cwd's basename, so the basename is part of the conversation)."""
        d = tempfile.mkdtemp(prefix="t", dir=self.workdir)
        if like:
            d = os.path.join(d, os.path.basename(like.rstrip("/")) or "d")
            os.makedirs(d, exist_ok=True)
        return d

    def close(self) -> None:
        for fn in reversed(self._stop):
            fn()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Target:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()  # its server stopped, its workdir (and the server's socket dir) removed


def _config(workdir: str):
    """A fresh server's home, which is also its cwd until a replay binds a recorded ``<cwd>``
    (:meth:`Target.take_cwd`: then both the CLI runs and the server's cwd are a directory
    named like the recorded one)."""
    from ..simulator import Config

    home = os.path.join(workdir, "home")
    os.makedirs(home)
    return Config(home=home, server_cwd=home)


def simherdr_target(
    kind: str,
    version: str | HerdrVersion,
    config=None,
    time_scale: float = 1.0,
    skip_gaps: bool = SKIP_GAPS,
) -> Target:
    """A fresh simherdr answering as ``version`` (a release name or its version object,
    resolved through facts/versions.py: every release simherdr has), inprocess, socket or stub;
    ``time_scale``: the recording upstream's, so paced replay matches it; ``skip_gaps``: a
    socket or stub target's recorded gaps pass at once on its clock (SKIP_GAPS)."""
    from ..facts.versions import resolve

    release = resolve(version)
    version = release.name
    t = Target(kind, version, time_scale=time_scale, skip_gaps=skip_gaps)
    cfg = config if config is not None else _config(t.workdir)
    t.home, t.cwd, t.config = cfg.home, cfg.server_cwd, cfg
    if kind == "inprocess":
        from ..testing import Harness

        h = Harness(release, config=cfg, auto_advance=True)
        t.harness = h
        t._stop.append(h.close)
        return t
    from ..clock import ScaledClock
    from ..testing import ThreadServer

    # a skipping target's clock is a scaled one at any scale (the wall clock cannot skip)
    scaled = skip_gaps or time_scale != 1
    srv = ThreadServer(release, config=cfg, clock=ScaledClock(time_scale) if scaled else None)
    t.socket_path = srv.path
    t.server = srv
    t._stop.append(srv.stop)
    if kind == "stub":
        from ..stub.install import write_stub

        t.herdr_bin = write_stub(os.path.join(t.workdir, "bin"), herdr_version=version)
    return t


def ping_version(path: str, timeout: float = 5.0) -> str:
    from .recorder import upstream_version

    return str(upstream_version(path, timeout)["version"])


def external_target(
    kind: str, socket_path: str, herdr_bin: str | None = None, control: str | None = None
) -> Target:
    """A running herdr (or simherdr) at ``socket_path``; it keeps its state between cassettes.
    ``control``: a simherdr's control socket (recorded resets and control ops replay there)."""
    return Target(
        kind,
        ping_version(socket_path),
        socket_path=socket_path,
        herdr_bin=herdr_bin,
        control_path=control,
    )
