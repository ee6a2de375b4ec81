"""Test harnesses for projects that test against simherdr (and for simherdr's own suite).

- :class:`Harness`: an in-process simulator on a virtual clock, driven synchronously
  (``h.call("pane.get", pane_id="w1:p1")``, ``h.advance(3.5)``); a four-hour wait takes no
  wall time.
- :class:`ThreadServer`: the real socket transport in a background thread, for clients that
  speak the socket or run the stand-in binary. Always stopped and its socket removed.
- :func:`spawn_server`: ``simherdr serve`` as a subprocess on a private socket.
- :class:`SocketClient`: a plain herdr socket client (one request per connection, as herdr's
  own clients do), for tests and benchmarks that talk to any of the above over the socket.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator

from .clock import Clock, RealClock, SkipsTime, VirtualClock
from .facts.versions import HerdrVersion
from .simulator import Config, Simulator

Validator = Callable[[dict], None]


class StillWaiting(RuntimeError):
    """A request on a virtual clock cannot finish without time moving."""


_unclosed_warned = False


def _shutdown(loop: asyncio.AbstractEventLoop, sim: Simulator, unclosed: bool) -> None:
    """A Harness's teardown: the simulator closed, every task cancelled and awaited, the loop
    closed. ``unclosed``: reached by the finalizer (never closed by its user): warn once."""
    global _unclosed_warned
    if loop.is_closed() or loop.is_running():
        return
    if unclosed and not _unclosed_warned:
        _unclosed_warned = True
        import warnings

        warnings.warn(
            "a simherdr Harness was never closed; it is closed now. Call h.close() or use "
            "`with Harness(...) as h:` (the pytest fixtures do it for you)",
            ResourceWarning,
            stacklevel=2,
        )
    if unclosed and asyncio._get_running_loop() is not None:
        # collected while another loop runs in this thread: ours cannot be driven now; its
        # tasks are only dropped (the one case a "Task was destroyed" line may still show)
        for t in asyncio.all_tasks(loop):
            t.cancel()
        loop.close()
        return
    try:
        loop.run_until_complete(sim.close())
    finally:
        tasks = asyncio.all_tasks(loop)
        for t in tasks:
            t.cancel()
        if tasks:
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


class Harness:
    """An in-process simulator on a virtual clock (time moves only when the test moves it).

    ``call(method, **params)`` -> the whole reply (``{"id", "result"}`` or ``{"id", "error"}``);
    ``ok(...)`` -> the reply's ``result`` (herdr's ``type``-tagged payload), failing with the
    whole reply on an error; ``err(...)`` -> the ``error`` object (``{"code", "message"}``);
    ``spawn`` + ``advance(seconds)`` for waits; ``sim`` for scenarios and faults; ``trace()``.
    """

    def __init__(
        self,
        version: HerdrVersion | str | None = None,
        clock: Clock | None = None,
        config: Config | None = None,
        validator: Validator | None = None,
        auto_advance: bool = False,
    ):
        """``auto_advance``: on a virtual clock, a request that is still waiting once nothing else
        can run moves time to the next timer (and again) until it answers — a wait with a
        timeout then finishes at once. Without it such a request raises :class:`StillWaiting`
        (use :meth:`spawn` and :meth:`advance` to control time yourself)."""
        self.loop = asyncio.new_event_loop()
        self.clock = clock if clock is not None else VirtualClock()
        self.sim = Simulator(version, self.clock, config)
        self.validator = validator
        self.auto_advance = auto_advance
        self._ids = itertools.count(1)
        self.loop.run_until_complete(self.sim.start())
        # Not closed by its user: closed when collected or at interpreter exit, with one
        # ResourceWarning (issue 25: the loop used to die with "Task was destroyed but it is
        # pending" and "Event loop is closed").
        self._finalizer = weakref.finalize(self, _shutdown, self.loop, self.sim, True)

    # --- requests ----------------------------------------------------------------------------

    def request(self, obj) -> dict | None:
        if not isinstance(self.clock, VirtualClock):
            reply = self.loop.run_until_complete(self.sim.request(obj))
        else:
            task = self.loop.create_task(self.sim.request(obj))
            self.settle()
            while not task.done():
                if self.sim.offloop_pending:  # git in a thread: real progress, keep running
                    self.loop.run_until_complete(asyncio.wait({task}, timeout=0.005))
                    self.settle()  # let what the finished thread woke up run to quiet
                    continue
                nxt = self.clock.next_wakeup() if self.auto_advance else None
                if nxt is None:
                    task.cancel()
                    self.settle()
                    method = obj.get("method") if isinstance(obj, dict) else None
                    raise StillWaiting(
                        f"{method} is still waiting and virtual time does not move by itself: "
                        + (
                            "nothing is scheduled that could answer it"
                            if self.auto_advance
                            else "use h.spawn(...) then h.advance(seconds), or Harness(auto_advance=True)"
                        )
                    )
                self.loop.run_until_complete(self.clock.advance_to(nxt))
            reply = task.result()
        if reply is not None and self.validator:
            self.validator(reply)
        return reply

    def call(self, method: str, **params) -> dict:
        """Send one request; the whole reply (``result`` or ``error``)."""
        return self.request({"id": f"req-{next(self._ids)}", "method": method, "params": params})

    def ok(self, method: str, **params) -> dict:
        """The reply's ``result`` (e.g. ``{"type": "workspace_created", "workspace": ...}``);
        an error reply fails (AssertionError with the whole reply)."""
        reply = self.call(method, **params)
        assert "result" in reply, f"{method} failed: {reply}"
        return reply["result"]

    def err(self, method: str, **params) -> dict:
        """The reply's ``error`` object (``{"code", "message"}``); a success fails."""
        reply = self.call(method, **params)
        assert "error" in reply, f"{method} unexpectedly succeeded: {reply}"
        return reply["error"]

    # --- waits: start now, advance time, then collect ---------------------------------------

    def spawn(self, method: str, conn=None, **params) -> asyncio.Task:
        obj = {"id": f"req-{next(self._ids)}", "method": method, "params": params}
        task = self.loop.create_task(self.sim.request(obj, conn))
        self.settle()
        return task

    def result(self, task: asyncio.Task) -> dict | None:
        assert task.done(), "the wait has not finished yet"
        reply = task.result()
        if reply is not None and self.validator:
            self.validator(reply)
        return reply

    def settle(self) -> None:
        from .clock import _settle

        self.loop.run_until_complete(_settle())

    def advance(self, seconds: float) -> None:
        if not isinstance(self.clock, VirtualClock):
            raise TypeError("advance() needs a VirtualClock")
        self.loop.run_until_complete(self.clock.advance(seconds))

    def trace(self, since: int = 0) -> list[dict]:
        """The simulator's trace so far (:mod:`simherdr.trace`): entries with ``seq > since``."""
        return self.sim.trace.entries(since)

    def load_scenario(self, scenario: str, seed: int | None = None):
        """Load a scenario (a shipped name or a TOML file, :mod:`simherdr.scenarios.data`)."""
        from .scenarios.data import load_scenario

        sc = load_scenario(scenario, seed=seed)
        sc.install(self.sim)
        self.settle()
        return sc

    def sync(self) -> None:
        """With ``VirtualClock(source=time.time)`` under freezegun: fire what is now due."""
        self.loop.run_until_complete(self.clock.sync())

    def close(self) -> None:
        """Close the simulator and the loop (idempotent; ``with Harness() as h:`` does it)."""
        if self._finalizer.detach() is not None:
            _shutdown(self.loop, self.sim, False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class ServerStopped(ConnectionError):
    """The :class:`ThreadServer` has stopped: nothing runs on its loop any more (a
    ConnectionError: to its callers the server is gone, as a refused connect says)."""


class ThreadServer:
    """The socket server in a daemon thread (its own event loop), on a private socket.

    - ``path``: the socket's path (``HERDR_SOCKET_PATH`` for your client);
    - ``sim``: the :class:`~simherdr.simulator.Simulator`; its state belongs to the server's
      thread: touch it only through ``run``;
    - ``run(fn)``: run ``fn(sim)`` (or a coroutine it returns) on the server's loop, return its
      result (``srv.run(lambda sim: busy_shell(sim, "w1:p1"))``);
    - ``trace(since=0)``: the trace so far (:mod:`simherdr.trace`);
    - ``load_scenario(name_or_file, seed=None)``: load a scenario (:mod:`simherdr.scenarios.data`);
    - ``stop()`` (or leaving the ``with`` block): stop, remove the socket and its directory.
    """

    def __init__(
        self,
        version: HerdrVersion | str | None = None,
        path: str | None = None,
        clock: Clock | None = None,
        config: Config | None = None,
    ):
        from .server import Server

        self._tmp = None
        if path is None:
            self._tmp = tempfile.mkdtemp(prefix="simherdr-")
            os.chmod(self._tmp, 0o700)
            path = os.path.join(self._tmp, "herdr.sock")
        self.path = path
        self.loop = asyncio.new_event_loop()
        self.sim = Simulator(version, clock or RealClock(), config)
        # its clock, when it can skip (the simulator's clock never changes): checked once, as
        # a runtime Protocol check costs ~15 us and a replay asks at every step (hold, seconds)
        self._skips: SkipsTime | None = (
            self.sim.clock if isinstance(self.sim.clock, SkipsTime) else None
        )
        ready = threading.Event()
        self._error: BaseException | None = None

        def run():
            asyncio.set_event_loop(self.loop)
            self.server = Server(self.sim, self.path)
            try:
                self.loop.run_until_complete(self.server.start())
            except BaseException as e:  # surfaced to the caller
                self._error = e
                ready.set()
                return
            ready.set()
            self.loop.run_until_complete(self.server.serve_forever())
            # a close asked for as the server stopped itself finishes before the loop closes
            pending = asyncio.all_tasks(self.loop)
            if pending:
                self.loop.run_until_complete(asyncio.wait(pending, timeout=5))

        self._thread = threading.Thread(target=run, name="simherdr-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if self._error:
            raise self._error

    @property
    def time_scale(self) -> float:
        """How many times faster than wall time the server's clock runs (1.0: real time)."""
        return 1.0 / self.sim.clock.wall_seconds(1.0)

    def run(self, fn):
        """Run ``fn(sim)`` on the server's loop (state is owned by that thread); raises
        :class:`ServerStopped` when the server has stopped (a client's server.stop)."""
        import concurrent.futures

        stopped = ServerStopped(f"the simherdr server at {self.path} has stopped")
        # (closing: a client's server.stop removed the socket and the close is under way)
        if self.server.closing or not self._thread.is_alive():
            raise stopped
        coro = _call(fn, self.sim)
        try:
            fut = asyncio.run_coroutine_threadsafe(coro, self.loop)
        except RuntimeError:  # its loop is closed
            coro.close()
            raise stopped from None
        deadline = time.monotonic() + 10
        while True:  # the loop may leave while this waits: then nothing runs fn
            try:
                return fut.result(0.05)
            except concurrent.futures.TimeoutError:
                if not self._thread.is_alive():
                    raise stopped from None
                if time.monotonic() > deadline:
                    raise

    def skips_time(self) -> bool:
        """Whether :meth:`skip` can let time pass at once (a scaled clock; the wall clock
        cannot)."""
        return self._skips is not None

    def skip(self, wall: float) -> None:
        """Let ``wall`` seconds pass on the server's clock at once, and return when what fell
        due in them has run (:class:`simherdr.clock.SkipsTime`)."""
        clock = self._skips
        if clock is None:
            raise TypeError(f"{type(self.sim.clock).__name__} cannot skip time")

        async def go(_sim) -> None:
            await clock.caught_up(clock.skip(wall))

        try:
            self.run(go)
        except ServerStopped:
            pass  # a stopped server has no time to keep (a client's server.stop)

    def hold(self, ahead: float = 0.0) -> None:
        """The server's clock runs ``ahead`` more wall seconds at most, then stands still
        until the next hold or :meth:`release` (:meth:`skip` still moves it): the caller's own
        work takes none of the server's time (:class:`simherdr.clock.SkipsTime`; from the
        caller's thread, as the clock allows)."""
        if self._skips is not None:
            self._skips.hold(ahead)

    def release(self) -> None:
        if self._skips is not None:
            self._skips.release()

    def seconds(self) -> float:
        """Wall seconds on the server clock's own timeline (what ran, was skipped, stood)."""
        if self._skips is None:
            raise TypeError(f"{type(self.sim.clock).__name__} keeps no timeline of its own")
        return self._skips.seconds()

    def trace(self, since: int = 0) -> list[dict]:
        return self.run(lambda sim: sim.trace.entries(since))

    def load_scenario(self, scenario: str, seed: int | None = None):
        from .scenarios.data import load_scenario

        sc = load_scenario(scenario, seed=seed)
        self.run(sc.install)
        return sc

    def stop(self) -> None:
        if self._thread.is_alive():
            # The server may be stopping itself (a client's server.stop): its loop can have
            # left run_until_complete while this thread is still alive, and a coroutine sent
            # to it then never runs (the 10 s hang CI hit). So ask for the close with a plain
            # callback and wait for the thread, which ends whichever close stopped it.
            closing: list[asyncio.Task] = []
            try:
                self.loop.call_soon_threadsafe(
                    lambda: closing.append(self.loop.create_task(self.server.close()))
                )
            except RuntimeError:
                pass  # the loop is already closed: the server has stopped
            self._thread.join(10)
            if self._thread.is_alive():
                raise TimeoutError(f"the simherdr server at {self.path} did not stop within 10 s")
            if closing and closing[0].done() and not closing[0].cancelled():
                if (err := closing[0].exception()) is not None:
                    raise err
        if not self._thread.is_alive() and not self.loop.is_closed():
            self.loop.close()  # its selector and self-pipe fds go now, not at garbage collection
        if self._tmp:
            import shutil

            shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


async def _call(fn, sim):
    r = fn(sim)
    if asyncio.iscoroutine(r):
        r = await r
    return r


def spawn_server(
    path: str,
    version: HerdrVersion | str | None = None,
    time_scale: float = 1.0,
    extra: list[str] | None = None,
    timeout: float = 10.0,
) -> subprocess.Popen:
    """Start ``python -m simherdr serve`` and wait until its socket answers."""
    from .server import socket_answers

    cmd = [
        sys.executable,
        "-m",
        "simherdr",
        "serve",
        "--socket",
        path,
        "--time-scale",
        str(time_scale),
    ]
    if version:
        cmd += ["--herdr-version", str(version)]
    proc = subprocess.Popen(cmd + (extra or []), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_serving(proc, path, socket_answers, timeout)
    return proc


def wait_serving(proc, path: str, answers: Callable[[str], bool], timeout: float) -> None:
    """Until the server ``proc`` started at ``path`` answers (``answers(path)``); its stderr
    in the error when it exits first, killed when ``timeout`` passes first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path) and answers(path):
            return
        if proc.poll() is not None:
            err = proc.stderr.read()
            raise RuntimeError(
                f"simherdr serve exited: {err.decode() if isinstance(err, bytes) else err}"
            )
        time.sleep(0.01)
    proc.kill()
    raise RuntimeError("simherdr serve did not start in time")


class SocketClient:
    """A herdr socket client: connect to ``path``, send one request line, read the reply lines
    until the server closes (SOCKET.md §1: one request per connection). Every parsed reply
    goes through ``validator`` when one is given (simherdr's suite checks herdr's schema).

    ``exchange`` is the raw form (any bytes in, every byte out, for hostile input);
    ``request`` sends a request object and returns its one reply; ``stream`` keeps the
    connection open and yields each line (``events.subscribe``, waits).
    """

    def __init__(self, path: str, timeout: float = 10.0, validator: Validator | None = None):
        self.path = path
        self.timeout = timeout
        self.validator = validator

    def connect(self, timeout: float | None = None) -> socket.socket:
        """A connected socket. A full listen backlog means wait, not fail: a socket with a
        timeout is non-blocking underneath, and AF_UNIX answers EAGAIN then."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(timeout)
            try:
                s.connect(self.path)
                return s
            except BlockingIOError:
                s.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.005)
            except BaseException:
                s.close()
                raise

    def exchange(
        self, data: bytes, half_close: bool = False, timeout: float | None = None
    ) -> bytes:
        """Send ``data``, read to EOF. ``half_close`` shuts the write side after sending,
        which cancels a wait or a subscription (SOCKET.md §1.2). A server that drops the
        connection (an oversized request) ends the read like EOF."""
        s = self.connect(timeout)
        try:
            try:
                s.sendall(data)
                if half_close:
                    s.shutdown(socket.SHUT_WR)
            except (BrokenPipeError, ConnectionResetError):
                pass
            chunks = []
            while True:
                try:
                    b = s.recv(1 << 20)
                except ConnectionResetError:
                    break
                if not b:
                    break
                chunks.append(b)
            return b"".join(chunks)
        finally:
            s.close()

    @staticmethod
    def encode(method: str, params: dict | None = None, rid: str = "simherdr") -> bytes:
        req = {"id": rid, "method": method, "params": params if params is not None else {}}
        return json.dumps(req).encode() + b"\n"

    def replies(self, data: bytes, half_close: bool = False) -> list[dict]:
        """Every reply line to raw ``data``, parsed (and validated)."""
        out = self.exchange(data, half_close)
        if out and not out.endswith(b"\n"):
            raise ValueError(f"unterminated reply: {out[-200:]!r}")
        objs = [json.loads(line) for line in out.splitlines()]
        if self.validator is not None:
            for obj in objs:
                self.validator(obj)
        return objs

    def request(
        self,
        method: str,
        params: dict | None = None,
        rid: str = "simherdr",
        timeout: float | None = None,
    ) -> dict:
        """One request, its one reply (an error envelope is a reply too)."""
        out = self.exchange(self.encode(method, params, rid), timeout=timeout)
        lines = out.splitlines()
        if len(lines) != 1:
            raise ValueError(f"{method}: expected exactly one reply line, got {out[-500:]!r}")
        reply = json.loads(lines[0])
        if self.validator is not None:
            self.validator(reply)
        return reply

    def ok(self, method: str, params: dict | None = None) -> dict:
        """The result of a request that must succeed."""
        reply = self.request(method, params)
        if "result" not in reply:
            raise RuntimeError(f"{method} failed: {reply}")
        return reply["result"]

    def stream(
        self, method: str, params: dict | None = None, rid: str = "simherdr"
    ) -> SocketStream:
        """Send one request and keep reading: iterate the returned stream for each line."""
        s = self.connect()
        try:
            s.sendall(self.encode(method, params, rid))
        except BaseException:
            s.close()
            raise
        return SocketStream(s, self.validator)


class SocketStream:
    """The reply lines of one open connection (an iterator; close it, or use ``with``)."""

    def __init__(self, sock: socket.socket, validator: Validator | None = None):
        self.sock = sock
        self.validator = validator
        self.file = sock.makefile("rb")

    def __iter__(self) -> Iterator[dict]:
        return self

    def __next__(self) -> dict:
        line = self.file.readline()
        if not line:
            raise StopIteration
        obj = json.loads(line)
        if self.validator is not None:
            self.validator(obj)
        return obj

    def close(self) -> None:
        self.file.close()
        self.sock.close()

    def __enter__(self) -> SocketStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
