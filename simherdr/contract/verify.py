"""Replay a corpus against a target and report every miss.

The report follows vcrpy's "cannot find a match" report: for each mismatch the step, the JSON
path, the expected and the actual value, and the recorded reply closest to what came back
(with how many differences it has), so a reader sees at once whether the target answered
*something else the cassette knows* or something new.

Version binding: a recorded cassette replays only against the herdr version that answered it
(``provenance.herdr_version``); an authored one against the versions in its ``profiles``.
``profile=`` (``--profile``) replays simherdr on a chosen profile instead; ``any_version``
(``--any-version``) replays on an external target whatever version it answers.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import normalize
from .cassette import Cassette, now
from .journal import cli_stream, parse_line
from .match import Mismatch, check_authored_cli, check_envelope, substitute
from .targets import WAIT_FLOOR, Target, Unsupported

Validator = Callable[[dict], None]
TargetFactory = Callable[[str], Target]  # version -> a fresh target


@dataclass
class Miss:
    step: int
    where: str
    path: str
    expected: Any
    actual: Any
    closest: tuple[int, int, Any] | None = None  # (step, differences, recorded reply)

    def lines(self) -> list[str]:
        out = [
            f"step {self.step} ({self.where}): {Mismatch(self.path, self.expected, self.actual)}"
        ]
        if self.closest is not None:
            s, n, rec = self.closest
            what = "identical" if n == 0 else f"{n} difference{'s' if n != 1 else ''}"
            out.append(f"    closest recorded reply: step {s} ({what}): {_short(rec)}")
        return out

    def to_json(self) -> dict:
        return {
            "step": self.step,
            "where": self.where,
            "path": self.path,
            "expected": self.expected,
            "actual": self.actual,
            "closest": None
            if self.closest is None
            else {
                "step": self.closest[0],
                "differences": self.closest[1],
                "reply": self.closest[2],
            },
        }


def leaves(v: Any, path: str = "$") -> set[tuple[str, str]]:
    """Every leaf as (path, JSON value): the closest reply is the one sharing the most."""
    if isinstance(v, dict):
        return (
            set().union(*(leaves(x, f"{path}.{k}") for k, x in v.items())) if v else {(path, "{}")}
        )
    if isinstance(v, list):
        return (
            set().union(*(leaves(x, f"{path}[{i}]") for i, x in enumerate(v)))
            if v
            else {(path, "[]")}
        )
    return {(path, json.dumps(v, sort_keys=True))}


def _short(v: Any, limit: int = 240) -> str:
    s = json.dumps(v, ensure_ascii=False, sort_keys=True)
    return s if len(s) <= limit else s[: limit - 1] + "…"


@dataclass
class Result:
    cassette: Cassette
    target: str
    version: str
    status: str = "pass"  # pass | fail | skip
    reason: str = ""
    misses: list[Miss] = field(default_factory=list)
    skipped_steps: list[str] = field(default_factory=list)
    steps_run: int = 0
    warnings: list[str] = field(default_factory=list)  # e.g. a non-empty start
    waits: list[str] = field(default_factory=list)  # replies that matched after a wait
    boundaries: int = 0  # resets replayed

    def report(self) -> str:
        head = f"{self.status.upper()} {self.cassette.file or self.cassette.name} [{self.version} on {self.target}]"
        if self.status == "skip":
            return f"{head}: {self.reason}"
        lines = [
            head
            + f" ({self.steps_run} steps"
            + (f", {self.boundaries} resets" if self.boundaries else "")
            + ")"
        ]
        lines += [f"  warning: {w}" for w in self.warnings]
        lines += [f"  waited: {w}" for w in self.waits]
        for m in self.misses:
            lines += ["  " + line for line in m.lines()]
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {
            "cassette": self.cassette.file or self.cassette.name,
            "target": self.target,
            "version": self.version,
            "status": self.status,
            "reason": self.reason,
            "steps_run": self.steps_run,
            "skipped_steps": self.skipped_steps,
            "misses": [m.to_json() for m in self.misses],
            "warnings": self.warnings,
            "waits": self.waits,
            "boundaries": self.boundaries,
        }


def _where(step: dict) -> str:
    if "cli_run" in step:
        return "herdr " + " ".join(map(str, step["cli_run"].get("argv", [])))
    if "conn" in step:
        return f"conn {step['conn']}"
    if "client_conn" in step:
        return f"client socket conn {step['client_conn']}"
    return str(step.get("method") or "herdr " + " ".join(step.get("cli", [])))


def versions_for(c: Cassette, known: set[str], profile: str | None) -> tuple[list[str], str]:
    """The simherdr profiles a cassette replays on, or [] and why not."""
    if profile is not None:
        return [profile], ""
    if c.recorded:
        v = c.version
        if v in known:
            return [v], ""
        return (
            [],
            f"recorded on herdr {v}; simherdr has no such profile (--profile to replay anyway)",
        )
    return [p for p in c.profiles if p in known], ""


def bound_to(c: Cassette, version: str) -> str:
    """Why an external target answering ``version`` does not replay ``c`` ('' if it does)."""
    wanted = [c.version] if c.recorded else c.profiles
    if wanted and version not in wanted:
        return f"recorded for herdr {', '.join(map(str, wanted))}; the target answers {version} (--any-version to replay anyway)"
    return ""


# Replies that may depend on elapsed time are re-asked while they differ (a read changes
# nothing): the method's last word, or the CLI verb behind it.
READ_WORDS = frozenset({"get", "list", "read", "snapshot", "process_info", "info", "status"})
READ_METHODS = frozenset({"ping"})
# The wait for such a reply: targets.WAIT_FLOOR.
# CHOICE (issue 33): a read still differing after that wait is asked again, where recorded
# seconds pass at once (in process, a skipping server), for up to SCALE_PROBE more recorded
# seconds: reaching the recorded reply then means the target needed far more time than the
# recording took, i.e. the cassette's time_scale is not its upstream's. The miss stays a miss;
# the report says why and how to record it (time_scale_hint).
SCALE_PROBE = 60.0


def is_read(method: str | None) -> bool:
    if not method:
        return False
    return method in READ_METHODS or method.rsplit(".", 1)[-1] in READ_WORDS


def is_read_cli(argv: list) -> bool:
    argv = [str(a) for a in argv]
    while argv[:1] == ["--session"] or (argv[:1] and argv[0].startswith("--session=")):
        argv = argv[2:] if argv[0] == "--session" else argv[1:]  # herdr's global option
    words = [a for a in argv[:2] if not a.startswith("-")]
    return bool(words) and (words[0] == "status" or (len(words) > 1 and words[1] in READ_WORDS))


CLI_TIMEOUT = 60  # seconds a replayed CLI run may take before it is a miss
# CHOICE (Target.hold): wall seconds a reply may take past its recorded time on a held clock
# (a loaded machine answers late) before the target's clock runs freely for it (a reply that
# needs more simulated time than the recording's upstream took).
REPLY_GRACE = 0.25
# A stand-in written moments ago can refuse to start with ETXTBSY while a child another
# thread forked meanwhile still holds the file open for writing (until that child execs: a
# few ms, more under load; seen in CI). Transient: tried again for up to this long.
TEXT_BUSY_RETRY = 2.0


def run_binary(argv: list, **kw) -> subprocess.CompletedProcess:
    """``subprocess.run(argv, **kw)``, tried again while the binary is "Text file busy"."""
    import errno
    import time

    deadline = time.monotonic() + TEXT_BUSY_RETRY
    while True:
        try:
            return subprocess.run(argv, **kw)
        except OSError as e:
            if e.errno != errno.ETXTBSY or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class Replay:
    """One cassette against one target."""

    def __init__(
        self,
        c: Cassette,
        target: Target,
        validator: Validator | None = None,
        timeout: float = 10.0,
        pace: bool = True,
        read_wait: float = WAIT_FLOOR,
    ):
        """``pace``: send each recorded request no earlier than its recorded time (what the
        upstream did in between, timers and agents starting, happens again), on the target's
        clock (CLI runs too); ``read_wait``: a read that differs is asked again for at least
        this long (WAIT_FLOOR)."""
        self.pace = pace
        self.read_wait = read_wait
        self.c = c
        self.t = target
        self.validator = validator
        self.timeout = timeout
        recorded_cwd = (c.normalization.get("context") or {}).get("<cwd>")
        if isinstance(recorded_cwd, str) and recorded_cwd:
            target.take_cwd(recorded_cwd)  # <cwd> is where the replayed workspace is created
        self.bind = normalize.Binder(c.refs, target.context(), self._fresh)
        self.conns: dict[Any, Any] = {}
        self.methods: dict[Any, str] = {}  # conn -> the method its request named
        self.lines: dict[Any, bytes] = {}  # conn -> its request line (to ask again)
        self.replies: dict[Any, int] = {}  # conn -> reply lines read so far
        self.client_closed: set[Any] = set()
        self.until: dict[Any, bytes] = {}  # conns that repeat until they match (CLI polls)
        self.stalled: set[Any] = set()  # conns that timed out: later lines are not awaited
        # conn -> (the target's elapsed() at its request, the request's recorded time)
        self.sent_at: dict[Any, tuple[float, float]] = {}
        self.recorded_replies = [(i, s["recv"]) for i, s in enumerate(c.steps) if "recv" in s]
        self.times = [s.get("t") if isinstance(s.get("t"), int | float) else None for s in c.steps]
        self.res = Result(c, target.kind, target.version)
        self.scale_hinted = False  # a replay says once that its time scale looks wrong
        from .termreplay import ClientPlane

        self.client: ClientPlane | None = None  # the client socket's connections (termreplay)
        self.client_runs = ClientPlane.owned_runs(c)  # CLI runs replayed at the socket level
        why = c.provenance.get("non_empty_start")
        if why and not any("seed" in s for s in c.steps):
            self.res.warnings.append(str(why))

    def miss(
        self, i: int, step: dict, path: str, expected: Any, actual: Any, reply: Any = None
    ) -> None:
        """``reply``: the whole (normalized) reply, when the closest recorded one is wanted."""
        near = self._closest(reply) if reply is not None else None
        self.res.misses.append(Miss(i + 1, self._where(step), path, expected, actual, near))

    def _where(self, step: dict) -> str:
        where = _where(step)
        method = self.methods.get(step.get("conn"))
        if "conn" in step and method:
            where += f", {method}"
        return where

    def _closest(self, actual: Any) -> tuple[int, int, Any] | None:
        best = None
        have = leaves(actual)
        for i, rec in self.recorded_replies:
            n = len({path for path, _ in have ^ leaves(rec)})
            if best is None or n < best[1]:
                best = (i + 1, n, rec)
        return best

    def _gap(self, i: int) -> float:
        """Recorded wall seconds from step ``i`` to the next timed step."""
        t = self.times[i]
        if t is None:
            return 0.0
        for later in self.times[i + 1 :]:
            if later is not None and later > t:
                return float(later - t)
        return 0.0

    def run(self) -> Result:
        try:
            for i, step in enumerate(self.c.steps):
                # a skipping target's clock stands still between steps and while a socket
                # step is matched (Target.hold): its time is the recording's, not the
                # replayer's; a CLI run, a control op, the client socket run it freely
                if "conn" not in step:
                    self.t.release()
                try:
                    if "cli_run" in step:
                        self._cli_run(i, step)
                    elif "client_conn" in step:
                        self._client(i, step)
                    elif "conn" in step:
                        self._wire(i, step)
                    elif "boundary" in step:
                        self._boundary(i, step)
                    elif "control" in step:
                        self._control(i, step)
                    elif "seed" in step:
                        self._seed(i, step)
                    elif "fixture" in step:
                        self._fixture(i, step)
                    else:
                        self._authored(i, step)
                except Unsupported as e:
                    self.res.status = "skip"
                    self.res.reason = str(e)
                    return self.res
                except (TimeoutError, OSError) as e:
                    self.miss(i, step, "$", "a reply", f"<{type(e).__name__}: {e}>")
                finally:
                    self.t.hold()
        finally:
            self.t.release()
            for conn in self.conns.values():
                conn.close()
            if self.client is not None:
                self.client.close()
        if self.res.misses:
            self.res.status = "fail"
        return self.res

    # --- boundaries, control ops, seeds ---------------------------------------------------

    def _boundary(self, i: int, step: dict) -> None:
        """A reset recorded on the control socket: the target starts a new server's state."""
        if self.pace and self.times[i] is not None:
            self.t.pace_to(float(self.times[i]))
        for conn in self.conns.values():
            conn.close()
        self.conns.clear()
        self.t.reset()
        self.bind.boundary()
        self.res.boundaries += 1
        if step["boundary"] == "launch" and self.t.runs_cli and isinstance(step.get("socket"), str):
            self._link_launched(str(self.bind.restore(step["socket"])))

    def _link_launched(self, path: str) -> None:
        """The client launched a server of its own (``herdr --session N server``) and talks to
        it at the session's socket: there the target answers (a link to its socket), so the
        CLI runs that name the session (``--session`` beats HERDR_SOCKET_PATH) reach it."""
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        os.symlink(str(self.t.socket_path), path)

    def _control(self, i: int, step: dict) -> None:
        if self.pace and self.times[i] is not None:
            self.t.pace_to(float(self.times[i]))
        op = self.bind.restore(step["control"])
        reply = self.t.control(op)
        if "reply" in step:
            for p in self.bind.unify(step["reply"], reply):
                self.miss(i, step, p.path, p.expected, p.actual)

    def _seed(self, i: int, step: dict) -> None:
        from .seed import shape

        # values (cwds, labels) restored by a throwaway binder: the ids are the target's own
        values = normalize.Binder(self.c.refs, self.t.context(), self._fresh).restore(step["seed"])
        got = self.t.seed(values)
        for p in self.bind.unify(shape(step["seed"]), got):
            self.miss(i, step, "seed" + p.path[1:], p.expected, p.actual)

    def _fixture(self, i: int, step: dict) -> None:
        """What the recorded client built outside herdr (clientsuite FIXTURES), built again at
        the path its reference binds to here."""
        from .fixtures import build_fixture

        path = self.bind.restore(step["path"])
        if not build_fixture(step["fixture"], str(path)):
            raise Unsupported(f"unknown fixture {step['fixture']!r}")

    # --- recorded socket traffic -----------------------------------------------------------

    def _client(self, i: int, step: dict) -> None:
        """A step of the client socket (the terminal plane): :mod:`.termreplay`."""
        if self.client is None:
            from .termreplay import ClientPlane

            self.client = ClientPlane(self)
        self.client.step(i, step)

    def _wire(self, i: int, step: dict) -> None:
        via = step.get("via")
        if via and self.t.runs_cli and via != "cli" and via not in self.client_runs:
            return  # the CLI step replays this connection itself
        if step.get("poll"):
            return  # a repeat of a CLI poll: the last one (``until``) stands for them all
        if step.get("unreachable") or step.get("upstream_down"):
            self.res.skipped_steps.append(f"step {i + 1}: the upstream was down when recorded")
            return
        cid = step["conn"]
        self.res.steps_run += 1
        if "send" in step:
            if self.pace and self.times[i] is not None:
                self.t.pace_to(float(self.times[i]))
            conn = self.conns.get(cid)
            if conn is None:
                conn = self.conns[cid] = self.t.connect(self.timeout)
            sent = step["send"]
            if isinstance(sent.get("method"), str):
                self.methods[cid] = sent["method"]
            if set(sent) == {"raw"}:
                line = str(self.bind.restore(sent["raw"])).encode("utf-8", "surrogateescape")
            else:
                obj = self.bind.restore(sent)
                line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
            if not step.get("partial"):
                line += b"\n"
            conn.send(line)
            self.lines[cid] = line
            if self.times[i] is not None:
                self.sent_at[cid] = (self.t.elapsed(), float(self.times[i]))
            if step.get("until"):
                self.until[cid] = line
            return
        conn = self.conns.get(cid)
        if "recv" in step and cid in self.client_closed:
            # the upstream's line raced the client's close: the client never read it, and a
            # target that notices the close sooner never sends it (CHOICE: not compared)
            return
        if "recv" in step:
            if cid in self.stalled:
                self.miss(i, step, "$", step["recv"], "<no line: the connection stalled earlier>")
                return
            try:
                got = self._recv(i, cid, conn) if conn is not None else None
            except TimeoutError:
                self.stalled.add(cid)
                raise
            if got is None:
                self.miss(i, step, "$", step["recv"], "<connection closed>")
                return
            first = self.replies.get(cid, 0) == 0
            self.replies[cid] = self.replies.get(cid, 0) + 1
            actual = parse_line(got.decode("utf-8", errors="surrogateescape"))
            if self.validator is not None and "raw" not in actual:
                self.validator(actual)
            problems = self.bind.unify(step["recv"], actual, commit=False)
            if problems and cid in self.until:
                problems, actual = self._repeat(cid, step["recv"])
            elif problems and first and is_read(self.methods.get(cid)):
                problems, actual = self._wait_socket(i, step, cid, actual)
            if problems:
                problems = self.bind.unify(step["recv"], actual)  # keep what did match
            else:
                self.bind.unify(step["recv"], actual)
            for p in problems:
                self.miss(
                    i,
                    step,
                    p.path,
                    p.expected,
                    p.actual,
                    self.bind.display(actual) if p is problems[0] else None,
                )
            return
        if step.get("close") == "client":
            if conn is None:
                conn = self.conns[cid] = self.t.connect(self.timeout)
            conn.shutdown_write()
            self.client_closed.add(cid)
        elif step.get("close") == "upstream" and conn is not None and cid not in self.stalled:
            extra = self._recv(i, cid, conn)
            while extra is not None and cid in self.client_closed:
                extra = self._recv(i, cid, conn)
            if extra is not None:
                actual = self.bind.display(
                    parse_line(extra.decode("utf-8", errors="surrogateescape"))
                )
                self.miss(i, step, "$", "<connection closed>", actual, actual)

    def _recv(self, i: int, cid: Any, conn: Any) -> bytes | None:
        """The next line of ``conn`` (None: closed). A skipping target's clock runs on to the
        step's recorded time (or as long after the request as the upstream took, when the
        request went late) and stands there; a reply that needs longer gets REPLY_GRACE wall
        seconds more, then the clock runs freely (as it did before holds)."""
        ahead, t = 0.0, self.times[i]
        if self.pace and t is not None:
            ahead = self.t.until(float(t))
            sent = self.sent_at.get(cid)
            if sent is not None:
                ahead = max(ahead, sent[0] + (float(t) - sent[1]) - self.t.elapsed())
        ahead = self.t.hold(ahead)
        if ahead is None:
            return conn.recv_line(self.timeout)
        try:
            return conn.recv_line(min(ahead + REPLY_GRACE, self.timeout))
        except TimeoutError:
            self.t.release()
            return conn.recv_line(self.timeout)
        finally:
            self.t.hold()

    def _ask_again(self, cid: Any) -> Any:
        self.conns[cid].close()
        conn = self.conns[cid] = self.t.connect(self.timeout)
        conn.send(self.lines[cid])
        got = conn.recv_line(self.timeout)
        return parse_line(got.decode("utf-8", "surrogateescape")) if got else None

    def _wait_socket(self, i: int, step: dict, cid: Any, actual: Any) -> tuple[list, Any]:
        """A read that differs: ask again while the target catches up, within the gap."""
        return self._wait(i, step, lambda: self._ask_again(cid), step["recv"], actual)

    def _wait(self, i: int, step: dict, again, expected: Any, actual: Any) -> tuple[list, Any]:
        budget = min(max(self._gap(i), self.read_wait), self.timeout)
        problems = self.bind.unify(expected, actual, commit=False)
        waited, tick = 0.0, budget / 20
        start = self.t.elapsed()
        while problems and waited < budget:
            self.t.wait(tick)
            waited = self.t.elapsed() - start if self.t.harness is None else waited + tick
            actual = again()
            problems = self.bind.unify(expected, actual, commit=False)
        if not problems:
            self.res.waits.append(
                f"step {i + 1} ({self._where(step)}): matched after {waited:.2f} s "
                f"(recorded gap {self._gap(i):.2f} s)"
            )
        elif self.t.can_skip() and not self.scale_hinted:
            late = self._probe(again, expected)
            if late is not None:
                self.scale_hinted = True
                self.res.warnings.append(
                    time_scale_hint(self.c, f"step {i + 1} ({self._where(step)})", waited + late)
                )
        return problems, actual

    def _probe(self, again, expected: Any) -> float | None:
        """Recorded seconds more until ``again()`` answers as recorded (None: not within
        SCALE_PROBE); the target's time moves on (what it reached stays reached)."""
        probed, tick = 0.0, 0.05
        while probed < SCALE_PROBE:
            self.t.wait(tick)
            probed += tick
            if not self.bind.unify(expected, again(), commit=False):
                return probed
            tick = min(tick * 2, SCALE_PROBE - probed)
        return None

    def _repeat(self, cid: Any, expected: Any) -> tuple[list, Any]:
        """Poll as the CLI did: the same request again, until it answers as recorded."""
        deadline = self.t.elapsed() + self.timeout
        while True:
            self.t.wait(0.1)
            actual = self._ask_again(cid)
            problems = self.bind.unify(expected, actual, commit=False)
            if not problems or self.t.elapsed() > deadline:
                return problems, actual

    def _fresh(self, like: str) -> str:
        return self.t.fresh_dir(like)

    # --- recorded CLI runs ---------------------------------------------------------------

    def _cli_run(self, i: int, step: dict) -> None:
        if step.get("launch"):
            # CHOICE: the client's own server launch is not run again: from its boundary on the
            # target stands in for that server (its output is the server's, not an answer)
            self.res.skipped_steps.append(
                f"step {i + 1}: the client's own server launch (the target stands in for it)"
            )
            return
        if not self.t.runs_cli or f"cli:{step.get('k')}" in self.client_runs:
            self.res.skipped_steps.append(
                f"step {i + 1}: a CLI run (its socket calls are replayed)"
            )
            return
        self.res.steps_run += 1
        run = step["cli_run"]
        if self.pace and self.times[i] is not None:
            self.t.pace_to(float(self.times[i]))
        argv = self.bind.restore(run.get("argv", []))
        env = {k: v for k, v in os.environ.items() if not k.startswith("HERDR_")}
        env.update({k: str(v) for k, v in self.bind.restore(run.get("env", {})).items()})
        env["HERDR_SOCKET_PATH"] = str(self.t.socket_path)
        # the recorded run's HOME was <home>: here the target's, and herdr's config dir follows
        # it (src/config/io.rs:30-35), so paths a run derives from HOME (a session's socket,
        # the config file) are the ones <home> binds to
        env["HOME"] = self.t.context()["home"]
        env.pop("XDG_CONFIG_HOME", None)
        assert self.t.herdr_bin
        herdr_bin = self.t.herdr_bin

        def once() -> Any:
            try:
                p = run_binary(
                    [herdr_bin, *argv],
                    env=env,
                    capture_output=True,
                    timeout=CLI_TIMEOUT,
                    cwd=self.t.cwd,
                )
            except subprocess.TimeoutExpired:
                return {"exit": f"<still running after {CLI_TIMEOUT} s: stopped>"}
            return {
                "exit": p.returncode,
                "stdout": cli_stream(p.stdout.decode("utf-8", "surrogateescape")),
                "stderr": cli_stream(p.stderr.decode("utf-8", "surrogateescape")),
            }

        actual = once()
        expected = {k: run.get(k) for k in ("exit", "stdout", "stderr")}
        problems = self.bind.unify(expected, actual, commit=False)
        if problems and is_read_cli(argv):
            problems, actual = self._wait(i, step, once, expected, actual)
        problems = self.bind.unify(expected, actual)
        for p_ in problems:
            self.miss(i, step, p_.path, p_.expected, p_.actual)

    # --- hand-written steps ----------------------------------------------------------------

    def _authored(self, i: int, step: dict) -> None:
        ctx = self._ctx()
        if self.t.runs_cli:
            if "cli" not in step:
                return
            self.res.steps_run += 1
            env = {k: v for k, v in os.environ.items() if k != "HERDR_SESSION"}
            env["HERDR_SOCKET_PATH"] = str(self.t.socket_path)
            assert self.t.herdr_bin
            argv = [self.t.herdr_bin, *substitute(step["cli"], ctx)]
            p = run_binary(argv, env=env, capture_output=True, text=True, timeout=60)
            for stream in (p.stdout, p.stderr):
                if stream.startswith("{") and self.validator is not None:
                    self.validator(json.loads(stream))
            for m in check_authored_cli(step, p.returncode, p.stdout, p.stderr, ctx):
                self.miss(i, step, m.path, m.expected, m.actual)
            return
        if "usage" in step["expect"]:
            return
        self.res.steps_run += 1
        obj = (
            substitute(step["request"], ctx)
            if "request" in step
            else {
                "id": "contract",
                "method": step["method"],
                "params": substitute(step["params"], ctx),
            }
        )
        conn = self.t.connect(self.timeout)
        try:
            conn.send(json.dumps(obj, ensure_ascii=False).encode() + b"\n")
            got = conn.recv_line(self.timeout)
        finally:
            conn.close()
        if got is None:
            self.miss(i, step, "$", step["expect"], "<connection closed>")
            return
        reply = json.loads(got)
        if self.validator is not None:
            self.validator(reply)
        for m in check_envelope(step["expect"], reply, ctx):
            self.miss(i, step, m.path, m.expected, m.actual)

    def _ctx(self) -> dict:
        if not hasattr(self, "_context"):
            self._context = {"tmp": self.t.fresh_dir("work"), "version": self.t.version}
        return self._context


def run_cassette(
    c: Cassette,
    target: Target,
    validator: Validator | None = None,
    timeout: float = 10.0,
    pace: bool = True,
    read_wait: float = WAIT_FLOOR,
) -> Result:
    return Replay(c, target, validator, timeout, pace, read_wait).run()


def time_scale(c: Cassette) -> float:
    """The recording upstream's time scale (provenance; 1 for a real herdr)."""
    v = c.provenance.get("time_scale")
    return float(v) if isinstance(v, int | float) and v > 0 else 1.0


def time_scale_hint(c: Cassette, where: str, took: float) -> str:
    """Why a replay reached a recorded state only long after the recording did, and the fix."""
    said = c.provenance.get("time_scale_from")
    return (
        f"the cassette's time scale looks wrong: {where} reached its recorded reply only after "
        f"{took:.2f} s of recorded time on the target, beyond the recorded gap; the upstream "
        f"ran faster than the cassette's time_scale {time_scale(c):g}"
        + (f" ({said})" if said else "")
        + " says. Record a `simherdr serve --time-scale S` upstream with `simherdr record "
        "--time-scale S` (or `--control-upstream` its control socket, which reads S); a real "
        "herdr runs at 1"
    )


def verify(
    corpus: list[Cassette],
    kind: str,
    *,
    profile: str | None = None,
    socket_path: str | None = None,
    herdr_bin: str | None = None,
    any_version: bool = False,
    validator: Validator | None = None,
    timeout: float = 10.0,
    pace: bool = True,
    control: str | None = None,
    skip_gaps: bool = True,
    read_wait: float = WAIT_FLOOR,
) -> list[Result]:
    """Replay every cassette; simherdr targets start fresh per cassette (progress on a
    terminal: :mod:`simherdr.progress`); ``skip_gaps``: their recorded gaps pass at once on
    the server's clock (targets.SKIP_GAPS), False sleeps through them; ``read_wait``: see
    WAIT_FLOOR."""
    from ..progress import Progress

    results: list[Result] = []
    bar = Progress(len(corpus), f"contract verify --target {kind}")  # on a terminal only
    try:
        _verify(corpus, kind, results, bar, profile, socket_path, herdr_bin, any_version,
                validator, (timeout, pace, read_wait), control, skip_gaps)  # fmt: skip
    finally:
        bar.close()
    return results


def _verify(corpus, kind, results, bar, profile, socket_path, herdr_bin, any_version,
            validator, replay, control, skip_gaps) -> None:  # fmt: skip
    """``replay``: run_cassette's (timeout, pace, read_wait)."""
    from ..facts.versions import RELEASES
    from .targets import external_target, simherdr_target

    if kind == "real" or socket_path is not None:
        if socket_path is None:
            raise ValueError("--target real needs --socket (the herdr socket to replay against)")
        # closed: its workdir (stand-in, fresh dirs) is removed, the server it names is not
        with external_target(kind, socket_path, herdr_bin, control) as target:
            for c in corpus:
                bar.step(c.name)
                why = "" if any_version else bound_to(c, target.version)
                if why:
                    results.append(Result(c, kind, target.version, "skip", why))
                    continue
                results.append(run_cassette(c, target, validator, *replay))
        return
    for c in corpus:
        bar.step(c.name)
        versions, why = versions_for(c, set(RELEASES), profile)
        if not versions:
            results.append(
                Result(c, kind, c.version or "?", "skip", why or "no profile to replay on")
            )
        for v in versions:
            t = simherdr_target(kind, v, time_scale=time_scale(c), skip_gaps=skip_gaps)
            try:
                results.append(run_cassette(c, t, validator, *replay))
            finally:
                t.close()


def stamp(results: list[Result], directory: str) -> int:
    """LocalStack-style provenance: record in each passing cassette file when it was last
    validated against a real herdr."""
    from .cassette import from_json

    n = 0
    for r in results:
        path = os.path.join(directory, r.cassette.file)
        if r.status != "pass" or r.target != "real" or not path.endswith(".json"):
            continue
        c = from_json(json.loads(Path(path).read_text(encoding="utf-8")), r.cassette.file)
        c.provenance["last_validated"] = {"herdr_version": r.version, "at": now(), "target": "real"}
        c.dump(path)
        n += 1
    return n
