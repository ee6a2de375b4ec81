"""The herdr runner (CLIENTS.md §3.6): one ``herdr`` child per call, never a shell.

- async and non-blocking (``await runner(args)``): the caller's event loop keeps serving while
  ``agent start`` runs; :meth:`HerdrRunner.run_sync` gives the same call to threaded code (one
  private event loop per call, so it is safe from any thread that is not running a loop);
- the binary is spawned by argv (``create_subprocess_exec``) with an **explicit** environment;
- a kill bound per verb: ``agent start`` 300000 ms, every other verb 30000 ms;
- stdout + stderr together are capped at 8 MiB; going over kills the child;
- it settles exactly once, always as ``RunResult(status, stdout, stderr)``:

  ==========================  ======  ==========================  =====================================
  what happened               status  stdout                      stderr
  ==========================  ======  ==========================  =====================================
  the child exited            its     what it printed             what it printed
  kill bound reached          1       what it printed so far (*)  ``herdr <args…>: no exit status (timeout <ms>ms or signal null)``
  killed by a signal          1       what it printed so far (*)  ``herdr <args…>: no exit status (timeout <ms>ms or signal <SIG>)``
  output over the cap         1       ``""``                      ``herdr <args…>: output exceeded <N> bytes``
  spawn failed                1       ``""``                      ``herdr <args…>: spawn <bin> <ERRNO>`` (*)
  ==========================  ======  ==========================  =====================================

  (*) CHOICES (see client/__init__.py): CLIENTS.md fixes the overflow and timeout texts and that
  overflow empties stdout; it is silent on stdout after a timeout (kept) and gives the spawn
  error as "<spawn error>" (Node's wording ``spawn <file> <code>`` is used).

CHOICES: the child runs in its own session (``start_new_session``) so the kill reaches every
process it started (SIGKILL to the group); stdin is ``/dev/null``; output is decoded as UTF-8
with replacement characters.
"""

from __future__ import annotations

import asyncio
import errno as _errno
import os
import signal as _signal
from collections.abc import Mapping, Sequence
from typing import NamedTuple

HERDR_START_TIMEOUT_MS = 300_000  # kill bound for `agent start`
HERDR_CLI_TIMEOUT_MS = 30_000  # kill bound for every other verb
HERDR_MAX_OUTPUT_BYTES = 8 * 1024 * 1024  # stdout + stderr combined; overflow kills

_CHUNK = 65536


class RunResult(NamedTuple):
    status: int
    stdout: str
    stderr: str


def _label(args: Sequence[str]) -> str:
    return " ".join(["herdr", *args])


def _verb(args: Sequence[str]) -> tuple[str, ...]:
    return tuple(args[:2])


def _signal_name(returncode: int | None) -> str:
    if returncode is None or returncode >= 0:
        return "null"
    try:
        return _signal.Signals(-returncode).name
    except ValueError:
        return str(-returncode)


def _spawn_error_text(bin_path: str, exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno is not None:
        return "spawn %s %s" % (bin_path, _errno.errorcode.get(exc.errno, str(exc.errno)))
    return "spawn %s %s" % (bin_path, exc)


def _decode(chunks: list[bytes]) -> str:
    return b"".join(chunks).decode("utf-8", errors="replace")


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is not None:
        return
    try:
        os.killpg(proc.pid, _signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass


class HerdrRunner:
    """``await HerdrRunner(bin_path, env)(["pane", "get", "w1:p1"]) -> RunResult``.

    ``bin_path``: the ``herdr`` binary (default ``"herdr"``, found on the PATH of ``env``).
    ``env``: the child's whole environment (default: a copy of ``os.environ`` taken now); it is
    always passed explicitly, never inherited implicitly.
    ``verb_timeouts``: kill bounds for specific verbs, e.g. ``{("tab", "create"): 50}`` (tests).
    """

    def __init__(
        self,
        bin_path: str = "herdr",
        env: Mapping[str, str] | None = None,
        *,
        start_timeout_ms: int = HERDR_START_TIMEOUT_MS,
        cli_timeout_ms: int = HERDR_CLI_TIMEOUT_MS,
        max_output_bytes: int = HERDR_MAX_OUTPUT_BYTES,
        verb_timeouts: Mapping[tuple[str, str], int] | None = None,
        cwd: str | None = None,
    ):
        self.bin_path = bin_path
        self.env = dict(os.environ if env is None else env)
        self.start_timeout_ms = start_timeout_ms
        self.cli_timeout_ms = cli_timeout_ms
        self.max_output_bytes = max_output_bytes
        self.verb_timeouts = dict(verb_timeouts or {})
        self.cwd = cwd

    def kill_bound_ms(self, args: Sequence[str]) -> int:
        verb = _verb(args)
        if verb in self.verb_timeouts:
            return self.verb_timeouts[verb]
        return self.start_timeout_ms if verb == ("agent", "start") else self.cli_timeout_ms

    async def __call__(self, args: Sequence[str]) -> RunResult:
        return await run_herdr(
            self.bin_path,
            list(args),
            env=self.env,
            timeout_ms=self.kill_bound_ms(args),
            max_output_bytes=self.max_output_bytes,
            cwd=self.cwd,
        )

    def run_sync(self, args: Sequence[str]) -> RunResult:
        """The same call for threaded code (its own event loop; not from inside a running loop)."""
        return asyncio.run(self(args))


async def run_herdr(
    bin_path: str,
    args: Sequence[str],
    *,
    env: Mapping[str, str],
    timeout_ms: int,
    max_output_bytes: int = HERDR_MAX_OUTPUT_BYTES,
    cwd: str | None = None,
) -> RunResult:
    """Run ``bin_path *args`` once and settle exactly once (see the module table)."""
    return await run_process(
        bin_path,
        args,
        label=_label([str(a) for a in args]),
        env=env,
        timeout_ms=timeout_ms,
        max_output_bytes=max_output_bytes,
        cwd=cwd,
    )


async def run_process(
    bin_path: str,
    args: Sequence[str],
    *,
    label: str,
    env: Mapping[str, str],
    timeout_ms: int,
    max_output_bytes: int = HERDR_MAX_OUTPUT_BYTES,
    cwd: str | None = None,
) -> RunResult:
    """The runner for any fixed argv (git too); ``label`` starts the failure texts."""
    args = [str(a) for a in args]
    try:
        proc = await asyncio.create_subprocess_exec(
            bin_path,
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
        )
    except (OSError, ValueError) as exc:  # ValueError: NUL or unencodable text in argv/env
        return RunResult(1, "", "%s: %s" % (label, _spawn_error_text(bin_path, exc)))

    out: list[bytes] = []
    err: list[bytes] = []
    state = {"total": 0, "overflow": False}

    async def pump(stream: asyncio.StreamReader, sink: list[bytes]) -> None:
        while True:
            chunk = await stream.read(_CHUNK)
            if not chunk:
                return
            if state["overflow"]:
                # read to the end and dropped: a pipe not read to its EOF never closes, and
                # proc.wait() waits for the pipes too; a stream whose buffer was full (asyncio
                # pauses its reading over 2 x its limit) read nothing more, and the over-the-cap
                # call settled only at its kill bound (a loop that ran behind the child)
                continue
            state["total"] += len(chunk)
            if state["total"] > max_output_bytes:
                state["overflow"] = True
                _kill_group(proc)
                continue
            sink.append(chunk)

    assert proc.stdout is not None and proc.stderr is not None  # both are pipes
    pumps = [
        asyncio.ensure_future(pump(proc.stdout, out)),
        asyncio.ensure_future(pump(proc.stderr, err)),
    ]
    timed_out = False
    try:
        try:
            await asyncio.wait_for(asyncio.gather(proc.wait(), *pumps), timeout_ms / 1000)
        except TimeoutError:
            timed_out = True
            _kill_group(proc)
            await proc.wait()
    finally:
        # Cancellation of the caller, or any other exit: the child never outlives the call.
        _kill_group(proc)
        for task in pumps:
            task.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)
        if proc.returncode is None:
            await proc.wait()

    if state["overflow"]:
        return RunResult(1, "", "%s: output exceeded %d bytes" % (label, max_output_bytes))
    if timed_out or proc.returncode is None or proc.returncode < 0:
        # The seed's text is fixed when its timer fires, before the child's close: our own
        # kill says "signal null" (CLIENTS.md §3.6); only someone else's signal is named.
        signal_name = "null" if timed_out else _signal_name(proc.returncode)
        return RunResult(
            1,
            _decode(out),
            "%s: no exit status (timeout %dms or signal %s)" % (label, timeout_ms, signal_name),
        )
    return RunResult(proc.returncode, _decode(out), _decode(err))
