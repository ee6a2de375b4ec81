"""Helpers for the thin-client tests (no fixtures here; see conftest.py)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

from simherdr_client.runner import HerdrRunner, RunResult

from simherdr.testing import ThreadServer
from tests.standin_inproc import herdr_inproc

#: Simulated time runs this much faster than wall time (server clock and the stub's own waits).
SCALE = 100
#: The release of the simulator and of its stand-in (conftest.py's ``stub_path``, ``herdr_sim``).
VERSION = "0.9.3"


class InprocRunner:
    """A runner (``await runner(args) -> RunResult``) whose ``herdr`` is the stand-in ``stub``
    run in this process (tests/standin_inproc.py), in a thread of the loop's executor so the
    loop keeps serving as it does around a child: the stand-in's exit status and output as
    :class:`HerdrRunner` settles them for a child that exited (UTF-8 with replacement).

    For the flows' tests, whose subject is what the client does with herdr's answers, not the
    spawn (~4 ms of CPU a call through the launcher and the shared fork server). No kill bound
    (a runner with one is a :class:`HerdrRunner`: ``SimHerdr.recorder``); the spawn, the kill
    and the output cap are tests/client/test_runner.py's, and each flow keeps cases through
    the binary (``SimHerdr.recorder(process=True)``, ``herdr_bin=``)."""

    def __init__(self, stub: str, env, version: str = VERSION):
        self.stub, self.env, self.version = stub, dict(env), version

    async def __call__(self, args) -> RunResult:
        argv = [str(a) for a in args]
        p = await asyncio.to_thread(herdr_inproc, self.stub, self.version, argv, self.env)
        return RunResult(
            p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        )


class Recorder:
    """A runner wrapper: records every argv and runs test hooks on the simulator's thread
    before the n-th call of a verb (``before(("pane", "close"), fn)``; ``fn(sim)``)."""

    def __init__(self, inner, srv=None):
        self.inner, self.srv = inner, srv
        self.calls: list[list[str]] = []
        self.results: list[RunResult] = []
        self._hooks: list[tuple[tuple, int, object]] = []
        self._counts: dict[tuple, int] = {}

    def before(self, verb: tuple, fn, nth: int = 1) -> Recorder:
        self._hooks.append((verb, nth, fn))
        return self

    async def __call__(self, args):
        args = list(args)
        self.calls.append(args)
        verb = tuple(args[:2])
        self._counts[verb] = self._counts.get(verb, 0) + 1
        for v, nth, fn in self._hooks:
            if v == verb and nth == self._counts[verb]:
                self.srv.run(fn)
        r = await self.inner(args)
        self.results.append(r)
        return r

    def verbs(self) -> list[str]:
        return [" ".join(c[:2]) for c in self.calls]


class SimHerdr:
    """A simulator plus the env a client passes to the stand-in binary."""

    def __init__(self, srv: ThreadServer, stub: str, home: str):
        self.srv, self.stub, self.home = srv, stub, home
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": home,
            "LANG": "C.UTF-8",
            "HERDR_SOCKET_PATH": srv.path,
            "SIMHERDR_TIME_SCALE": str(SCALE),
        }
        if os.environ.get("TMPDIR"):  # the OS temp dir a client reads (`make test`: tmpfs)
            self.env["TMPDIR"] = os.environ["TMPDIR"]

    def run(self, fn):
        return self.srv.run(fn)

    def invoke(self, method: str, **params) -> dict:
        return self.srv.run(lambda sim: sim.invoke(method, params))

    def ok(self, method: str, **params) -> dict:
        reply = self.invoke(method, **params)
        assert "result" in reply, reply
        return reply["result"]

    def cli(self, *argv) -> subprocess.CompletedProcess:
        return subprocess.run(
            [self.stub, *argv], env=self.env, capture_output=True, text=True, timeout=20
        )

    def runner(self, env=None, *, process: bool = False, **runner_kw):
        """The stand-in as the client's runner: in this process (:class:`InprocRunner`),
        through the binary (a :class:`HerdrRunner`) with ``process`` or a kill bound."""
        if process or runner_kw:
            return HerdrRunner(self.stub, env or self.env, **runner_kw)
        return InprocRunner(self.stub, env or self.env)

    def recorder(self, env=None, *, process: bool = False, **runner_kw) -> Recorder:
        return Recorder(self.runner(env, process=process, **runner_kw), self.srv)


class FakeTime:
    """Injected time for the flows: ``sleep(ms)`` advances the clock by ``ms * stretch`` at once
    (no wall time), ``clock()`` reads it in milliseconds."""

    def __init__(self, stretch: float = 1.0):
        self.now = 0.0
        self.stretch = stretch
        self.sleeps: list[float] = []

    async def sleep(self, ms: float) -> None:
        self.sleeps.append(ms)
        self.now += ms * self.stretch
        await asyncio.sleep(0)

    def clock(self) -> float:
        return self.now


def run(coro):
    return asyncio.run(coro)


def write_exe(path, body: str) -> str:
    """A tiny executable Python script (a stand-in child for the runner tests): isolated and
    without the site module (``-IS``: stdlib only; ~6 ms of CPU a start less than the venv's
    site and its .pth files)."""
    path = str(path)
    with open(path, "w") as fh:
        fh.write("#!%s -IS\n%s" % (sys.executable, body))
    os.chmod(path, 0o755)
    return path
