"""``simherdr run [OPTIONS] -- COMMAND...``: a client's suite against a private simulator, in one
command.

What a user would otherwise write by hand around every suite:

1. a private root (``mkdtemp``: ``0700``) with herdr's config and state dirs in it;
2. ``simherdr serve`` on herdr's default socket *inside* that root (``<root>/config/herdr/
   herdr.sock``), with a control socket and a trace file, and its readiness wait;
3. the stand-in ``herdr`` written at the server's version (``<root>/bin/herdr``);
4. COMMAND run with the environment a herdr client expects (:data:`ENV_NAMES`), in a process
   group of its own; SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to that group;
5. on every exit path (COMMAND done, crashed, a signal to ``simherdr run``, a failure of the
   server): COMMAND's leftover processes, any ``herdr server`` COMMAND started inside the root,
   the server, the recorder, the worktrees the server checked out (under its private HOME) for
   repositories outside the root (:func:`release_worktrees`) and the root are all gone;
6. the exit status is COMMAND's (128+N when a signal N ended it); when it is not 0, a summary of
   the trace (the last requests, the error replies, the faults) and the paths of the trace and
   its HTML timeline go to stderr.

``--in-pane`` creates a workspace for COMMAND and gives it herdr's pane environment
(:func:`in_pane_env`). ``--record DIR`` puts the recording proxy (:mod:`simherdr.contract.recorder`) between COMMAND
and the server: the cassette ``DIR/<name>.json`` is written when COMMAND ends.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from .facts.record import field, record  # not dataclasses (inspect, ast): start-up time
from .runserver import ForkedServer, fork_server, forking, mode_error

#: The environment variables ``simherdr run`` gives COMMAND besides herdr's own.
ENV_CONTROL = "SIMHERDR_CONTROL_SOCKET"  # the control socket (docs/CONTROL.md): per-test reset
ENV_TRACE = "SIMHERDR_TRACE"  # the JSON-lines trace file, written as it happens
ENV_ROOT = "SIMHERDR_RUN_ROOT"  # the private root (removed when the run ends)
ENV_NAMES = (
    "HERDR_SOCKET_PATH",
    "HERDR_BIN",
    "HERDR_BIN_PATH",
    "PATH",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "SIMHERDR_TIME_SCALE",
    "SIMHERDR_SERVE_PANE_MODE",
    "SIMHERDR_SERVE_RENDER_INTERVAL",
    ENV_CONTROL,
    ENV_TRACE,
    ENV_ROOT,
)
# Linux: sun_path is 108 bytes including the terminating NUL.
MAX_SOCKET_PATH = 107
#: Seconds COMMAND's leftover processes and the server get after SIGTERM before SIGKILL.
GRACE = 3.0
#: How long ``simherdr serve`` may take to answer its first connection.
READY_TIMEOUT = 20.0
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
SUMMARY_REQUESTS = 12
SUMMARY_ERRORS = 10


class BadUsage(Exception):
    """Bad input: one line on stderr, exit status 2 (``simherdr.cli`` prints it)."""


class RunFailed(Exception):
    """The simulator could not be started: one line on stderr, exit status 1."""


# --- the command line ------------------------------------------------------------------------


def add_parser(sub, time_scale: Callable[[str], float], versions: tuple[str, ...]) -> None:
    r = sub.add_parser(
        "run",
        help="run COMMAND (a client's test suite) against a private simulator and stand-in",
        description="Start a private simherdr server and the stand-in `herdr` at its version, "
        "run COMMAND with HERDR_SOCKET_PATH, PATH (stand-in first), HERDR_BIN, HERDR_BIN_PATH, "
        "XDG_CONFIG_HOME/XDG_STATE_HOME (under a private 0700 root), SIMHERDR_TIME_SCALE, "
        f"{ENV_CONTROL} and {ENV_TRACE} set; stop everything when it ends and exit with its "
        "status. On failure: a summary of the trace and the paths of the trace and timeline. "
        "The server's HOME is private (herdr's worktrees and workspaces without --cwd land in "
        "the root); worktrees it made for your repositories are removed from them at the end.",
    )
    r.add_argument("--herdr-version", default=None, choices=versions)
    r.add_argument(
        "--time-scale",
        type=time_scale,
        default=1.0,
        help="simulated seconds per wall second (default 1: real time, as the suite expects "
        "of herdr; 100: herdr's 3 s agent settle takes 30 ms)",
    )
    r.add_argument("--scenario", metavar="FILE|NAME", help="load a scenario into the server")
    r.add_argument("--seed", type=int, help="the scenario's seed")
    r.add_argument(
        "--pane-mode",
        choices=("simulated", "pty", "mixed"),
        default="simulated",
        help="pty: every pane a real shell (needs simherdr[pty])",
    )
    r.add_argument(
        "--render-interval",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="the terminal plane's render cadence, also for a `herdr server` COMMAND starts "
        "(0: the next loop turn; herdr's: 0.016)",
    )
    r.add_argument(
        "--record",
        metavar="DIR",
        help="record COMMAND's conversations through the recording proxy into DIR "
        "(a cassette, `simherdr contract verify DIR`)",
    )
    r.add_argument(
        "--record-name", metavar="NAME", help="the cassette's name (default: run-<time>)"
    )
    r.add_argument(
        "--trace",
        metavar="FILE",
        help="keep the trace here (JSON lines); default: a temporary file kept only on failure",
    )
    r.add_argument(
        "--real-dirs",
        action="store_true",
        help="leave XDG_CONFIG_HOME / XDG_STATE_HOME as they are (herdr's real config and "
        "session dirs); default: under the private root",
    )
    r.add_argument(
        "--in-pane",
        action="store_true",
        help="run COMMAND as if inside a herdr pane: a workspace is created for it (in the "
        "current directory) and COMMAND gets the environment herdr gives a pane's process "
        "(HERDR_ENV=1, HERDR_WORKSPACE_ID, HERDR_TAB_ID, HERDR_PANE_ID, TERM, ...)",
    )
    r.add_argument(
        "--quiet", action="store_true", help="no summary on failure (the exit status only)"
    )
    r.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")


# --- the run ---------------------------------------------------------------------------------


@record
class Layout:
    """Where everything of one run lives."""

    root: str
    bin_dir: str
    config_home: str
    state_home: str
    socket: str  # the server's (herdr's default socket under the private config dir)
    control: str
    client_socket: str  # what COMMAND is given: the server's, or the recording proxy's
    keep_dir: str  # trace, timeline and the server's log: outlive the root
    trace: str
    server_log: str
    trace_given: bool = False
    extras: list[str] = field(default_factory=list)


def _short_tmp() -> str:
    """A temp dir whose socket paths fit the Unix limit ($TMPDIR when short, else /tmp)."""
    base = tempfile.gettempdir()
    if len(os.fsencode(base)) > 40:
        base = "/tmp"
    return base


def make_layout(trace: str | None, record: str | None) -> Layout:
    root = tempfile.mkdtemp(prefix="simherdr-run-", dir=_short_tmp())  # 0700
    config_home = os.path.join(root, "config")
    state_home = os.path.join(root, "state")
    herdr_dir = os.path.join(config_home, "herdr")
    for d in (herdr_dir, state_home, os.path.join(root, "bin"), os.path.join(root, "home")):
        os.makedirs(d, mode=0o700, exist_ok=True)
    socket_path = os.path.join(herdr_dir, "herdr.sock")
    if len(os.fsencode(socket_path)) > MAX_SOCKET_PATH:  # pragma: no cover - _short_tmp
        raise RunFailed(f"the private socket path {socket_path} is too long")
    if trace:
        trace_path = os.path.abspath(trace)
        keep = os.path.dirname(trace_path)
        if not os.path.isdir(keep):
            raise BadUsage(f"--trace {trace}: no directory {keep}")
    else:
        keep = tempfile.mkdtemp(prefix="simherdr-run-trace-")
        trace_path = os.path.join(keep, "trace.jsonl")
    return Layout(
        root=root,
        bin_dir=os.path.join(root, "bin"),
        config_home=config_home,
        state_home=state_home,
        socket=socket_path,
        control=os.path.join(root, "control.sock"),
        client_socket=os.path.join(root, "proxy.sock") if record else socket_path,
        keep_dir=keep,
        trace=trace_path,
        server_log=os.path.splitext(trace_path)[0] + ".server.log",
        trace_given=bool(trace),
    )


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when ``simherdr run`` dies (even by SIGKILL), so no
    server outlives it (Linux prctl PR_SET_PDEATHSIG; elsewhere nothing)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG = 1


def _answers(path: str, timeout: float = 0.5) -> bool:
    import socket

    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


def _herdr_request(
    path: str, method: str, timeout: float = 2.0, params: dict | None = None
) -> dict | None:
    import json
    import socket

    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        s.sendall(
            json.dumps({"id": "simherdr-run", "method": method, "params": params or {}}).encode()
            + b"\n"
        )
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        return json.loads(buf) if buf.strip() else None
    except (OSError, ValueError):
        return None
    finally:
        s.close()


def start_server(
    layout: Layout, args, env: dict[str, str], serve: Callable[[list[str]], int] | None = None
) -> subprocess.Popen | ForkedServer:
    """``simherdr serve`` on the private socket, waited for until it answers: ``serve(words)``
    (the CLI's main) in a forked child (:mod:`simherdr.runserver`, CHOICE ``run-server-fork``),
    else ``python -m simherdr serve`` spawned."""
    words = [
        "serve",
        "--socket",
        layout.socket,
        "--control",
        layout.control,
        "--trace",
        layout.trace,
        "--time-scale",
        repr(float(args.time_scale)),
        "--pane-mode",
        args.pane_mode,
        "--render-interval",
        repr(max(float(args.render_interval), 0.0)),
        "--cwd",
        os.getcwd(),
    ]
    if args.herdr_version:
        words += ["--herdr-version", args.herdr_version]
    if args.scenario:
        words += ["--scenario", args.scenario]
    if args.seed is not None:
        words += ["--seed", str(args.seed)]
    argv = [sys.executable, "-m", "simherdr", *words]
    server_env = dict(env, HOME=os.path.join(layout.root, "home"))  # integrations land inside
    proc: subprocess.Popen | ForkedServer
    if serve is not None and forking(server_env):
        proc = fork_server(words, server_env, layout.server_log, serve, argv, _die_with_parent)
    else:
        proc = _spawn_server(argv, server_env, layout.server_log)
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RunFailed(
                f"simherdr serve exited ({proc.returncode}): {_tail(layout.server_log)}"
            )
        if os.path.exists(layout.socket) and _answers(layout.socket):
            return proc
        time.sleep(0.01)
    stop_process(proc)
    raise RunFailed(f"simherdr serve did not answer within {READY_TIMEOUT:g} s")


def _spawn_server(argv: list[str], env: dict[str, str], log_path: str) -> subprocess.Popen:
    log = open(log_path, "wb")  # noqa: SIM115 - the child keeps it
    try:
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            env=env,
            start_new_session=True,  # a terminal's Ctrl-C reaches us, not the server
            preexec_fn=_die_with_parent,
        )
    finally:
        log.close()


def _tail(path: str, n: int = 5) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [line.strip() for line in f if line.strip()]
    except OSError:
        return "(no log)"
    return " | ".join(lines[-n:]) or "(no output)"


def stop_process(proc: subprocess.Popen | ForkedServer, group: bool = False) -> None:
    """SIGTERM (the whole group when ``group``), SIGKILL after :data:`GRACE` seconds."""

    def send(sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if group:
                os.killpg(proc.pid, sig)
            else:
                proc.send_signal(sig)

    if proc.poll() is None:
        send(signal.SIGTERM)
        try:
            proc.wait(GRACE)
        except subprocess.TimeoutExpired:
            send(signal.SIGKILL)
            proc.wait()
    if group:  # leftovers of a finished leader (a `herdr server &` it started)
        if _group_alive(proc.pid):
            send(signal.SIGTERM)
            deadline = time.monotonic() + GRACE
            while _group_alive(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.02)
            if _group_alive(proc.pid):
                send(signal.SIGKILL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return _live_member(pgid)


def _live_member(pgid: int) -> bool:
    """A member of group ``pgid`` that has not exited. ``killpg(pgid, 0)`` finds zombies too: a
    ``herdr server &`` whose shell is gone is reparented to init and stays a zombie until init
    reaps it (an init that reaps on a timer: ~1.5 s of waiting per run, spent after the server
    had exited). Without /proc the signal's answer stands."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return True
    want = str(pgid).encode()
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        fields = raw[raw.rfind(b")") + 2 :].split()  # state ppid pgrp ...; comm may hold ")"
        if len(fields) > 2 and fields[2] == want and fields[0] not in (b"Z", b"X"):
            return True
    return False


def stop_strays(layout: Layout) -> list[str]:
    """Servers COMMAND started itself (``herdr server``, ``herdr --session NAME server``) land
    in the private root; one that left COMMAND's process group is asked to stop."""
    stopped = []
    for folder, _dirs, files in os.walk(layout.root):
        for name in files + _dirs:
            path = os.path.join(folder, name)
            if not name.endswith(".sock") or path in (layout.socket, layout.control):
                continue
            if path == layout.client_socket or name.endswith("-client.sock"):
                continue
            if _answers(path) and _herdr_request(path, "server.stop") is not None:
                stopped.append(path)
    deadline = time.monotonic() + GRACE
    while any(os.path.exists(p) for p in stopped) and time.monotonic() < deadline:
        time.sleep(0.02)
    return stopped


def child_env(layout: Layout, args, version: str, stub: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("HERDR_SESSION", None)  # the run's own server, not a session of the host's
    env.pop("HERDR_ENV", None)  # COMMAND runs as a client outside herdr, whatever started us
    env.update(
        HERDR_SOCKET_PATH=layout.client_socket,
        HERDR_BIN=stub,
        HERDR_BIN_PATH=stub,
        PATH=layout.bin_dir + os.pathsep + env.get("PATH", ""),
        SIMHERDR_TIME_SCALE=repr(float(args.time_scale)),
        # a `herdr server` COMMAND starts itself gets the run's pane mode (stub/cli/launch.py)
        SIMHERDR_SERVE_PANE_MODE=args.pane_mode,
        SIMHERDR_SERVE_RENDER_INTERVAL=repr(max(float(args.render_interval), 0.0)),
        SIMHERDR_HERDR_VERSION=version,
        **{ENV_CONTROL: layout.control, ENV_TRACE: layout.trace, ENV_ROOT: layout.root},
    )
    if not args.real_dirs:
        # CHOICE: herdr's config/session dirs move (XDG_*: herdr reads them before HOME), HOME
        # stays: the suite's own toolchain (cargo, npm, go caches) lives under the real one.
        env.update(XDG_CONFIG_HOME=layout.config_home, XDG_STATE_HOME=layout.state_home)
    return env


def in_pane_env(env: dict[str, str], layout: Layout, version: str, stub: str) -> dict[str, str]:
    """``--in-pane``: a workspace in the current directory (through the socket COMMAND is
    given, so a recording holds it), and ``env`` as herdr gives its root pane's process
    (:func:`simherdr.panes.paneenv.pane_env`, per release)."""
    from .facts.versions import resolve
    from .panes.paneenv import pane_env

    reply = _herdr_request(
        layout.client_socket, "workspace.create", timeout=10.0, params={"cwd": os.getcwd()}
    )
    pane = ((reply or {}).get("result") or {}).get("root_pane")
    if not isinstance(pane, dict):
        error = ((reply or {}).get("error") or {}).get("message") or "no reply"
        raise RunFailed(f"--in-pane: the command's pane was not created: {error}")
    return pane_env(
        env,
        resolve(version),
        socket_path=layout.client_socket,
        herdr_bin_path=stub,
        workspace_id=pane["workspace_id"],
        tab_id=pane["tab_id"],
        pane_id=pane["pane_id"],
    )


def run(args, serve: Callable[[list[str]], int] | None = None) -> int:
    command = args.command[1:] if args.command[:1] == ["--"] else list(args.command)
    if not command:
        raise BadUsage("give the command to run after --, e.g. simherdr run -- pytest -q")
    if args.seed is not None and not args.scenario:
        raise BadUsage("--seed needs --scenario")
    if args.record_name and not args.record:
        raise BadUsage("--record-name needs --record DIR")
    if (problem := mode_error(dict(os.environ))) is not None:
        raise BadUsage(problem)  # before anything is made: a typo is not taken for fork
    if args.scenario:
        from .scenarios.data import ScenarioError, find_scenario

        try:
            find_scenario(args.scenario)
        except ScenarioError as e:
            raise BadUsage(f"--scenario: {e}") from None
    if args.pane_mode != "simulated":
        try:
            import pyte  # noqa: F401 - the pty extra
        except ImportError:
            raise BadUsage(
                f"--pane-mode {args.pane_mode} needs the pty extra (missing module pyte): "
                "pip install 'simherdr[pty]'"
            ) from None
    layout = make_layout(args.trace, args.record)
    runner = Runner(layout, args, command, serve)
    status = 1
    try:
        status = runner.run()
    finally:
        runner.cleanup()
        finish(layout, status, args.quiet)
    return status


class Runner:
    def __init__(
        self,
        layout: Layout,
        args,
        command: list[str],
        serve: Callable[[list[str]], int] | None = None,
    ):
        self.serve = serve  # the CLI's main: the server forked (simherdr.runserver)
        self.layout = layout
        self.args = args
        self.command = command
        self.server: subprocess.Popen | ForkedServer | None = None
        self.child: subprocess.Popen | None = None
        self.recorder = None
        self.signalled: int | None = None
        self._old: dict[int, object] = {}
        self.started = time.time()

    def _on_signal(self, signum: int, _frame) -> None:
        self.signalled = self.signalled or signum
        if self.child is not None and self.child.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.child.pid, signum)
        elif self.child is None:
            raise KeyboardInterrupt  # before COMMAND started: stop setting up

    def run(self) -> int:
        for sig in FORWARDED:
            self._old[sig] = signal.signal(sig, self._on_signal)
        layout, args = self.layout, self.args
        env = dict(os.environ)
        if not args.real_dirs:
            env.update(XDG_CONFIG_HOME=layout.config_home, XDG_STATE_HOME=layout.state_home)
        try:
            self.server = start_server(layout, args, env, self.serve)
        except KeyboardInterrupt:
            return 128 + (self.signalled or signal.SIGINT)
        pong = _herdr_request(layout.socket, "ping") or {}
        version = (pong.get("result") or {}).get("version") or args.herdr_version
        from .stub.install import write_stub

        stub = write_stub(layout.bin_dir, herdr_version=version)
        if args.record:
            from .contract.recorder import ThreadRecorder

            name = args.record_name or time.strftime("run-%Y%m%dT%H%M%S", time.gmtime())
            try:
                self.recorder = ThreadRecorder(
                    layout.socket, layout.client_socket, args.record, name,
                    time_scale=args.time_scale,
                )  # fmt: skip
            except (OSError, ValueError) as e:
                raise RunFailed(
                    f"--record {args.record}: {getattr(e, 'strerror', None) or e}"
                ) from None
        env = child_env(layout, args, version, stub)
        if getattr(args, "in_pane", False):
            env = in_pane_env(env, layout, version, stub)
        try:
            self.child = subprocess.Popen(self.command, env=env, process_group=0)
        except OSError as e:
            print(f"simherdr run: cannot run {self.command[0]}: {e.strerror or e}", file=sys.stderr)
            return 127
        code = self.child.wait()
        status = code if code >= 0 else 128 - code
        if self.signalled and code == 0:
            status = 128 + self.signalled
        return status

    def cleanup(self) -> None:
        """Every exit path ends here: COMMAND's group, strays, the recorder, the server, the
        root. Signals stay forwarded (to nothing) until the end, so a second Ctrl-C cannot
        leave a server behind."""
        layout = self.layout
        if self.child is not None:
            stop_process(self.child, group=True)
        with contextlib.suppress(OSError):
            stop_strays(layout)
        if self.recorder is not None:
            try:
                cassette = self.recorder.stop()
                path = os.path.join(self.args.record, f"{self.recorder.name}.json")
                print(
                    f"simherdr run: recorded {len(cassette.steps)} steps to {path}", file=sys.stderr
                )
            except Exception as e:  # the run's status matters more than the cassette
                print(f"simherdr run: --record: the cassette was not written: {e}", file=sys.stderr)
        if self.server is not None:
            stop_process(self.server)
        release_worktrees(layout.root, self.started)
        import shutil

        shutil.rmtree(layout.root, ignore_errors=True)
        for sig, old in self._old.items():
            signal.signal(sig, old)  # type: ignore[arg-type]


def release_worktrees(root: str, since: float) -> None:
    """Worktrees the server checked out under the private home (herdr's ``~/.herdr/worktrees``)
    for repositories outside the root: removed from those repositories, with the branches the
    run made for them (:mod:`simherdr.git.leftovers`), so nothing of the user's points into
    the removed root."""
    try:
        from .git.leftovers import release_worktrees as release

        notes = release(root, since)
    except Exception as e:  # the run's status matters more
        notes = [f"worktrees under {root} not checked: {e}"]
    for note in notes:
        print(f"simherdr run: {note}", file=sys.stderr)


def finish(layout: Layout, status: int, quiet: bool) -> None:
    """After the run: the summary on failure; the default trace kept only then."""
    if status == 0:
        if not layout.trace_given:
            import shutil

            shutil.rmtree(layout.keep_dir, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(layout.server_log)
        return
    if quiet:
        return
    print(summary(layout, status), file=sys.stderr)


def summary(layout: Layout, status: int) -> str:
    from . import trace as T

    try:
        entries = T.load(layout.trace)
    except (OSError, ValueError) as e:
        return f"simherdr run: exit status {status}; no trace ({e})"
    html = os.path.splitext(layout.trace)[0] + ".html"
    try:
        from .traceview import render_html

        with open(html, "w", encoding="utf-8") as f:
            f.write(render_html(entries, title="simherdr run"))
    except Exception as e:  # the summary must not fail the report
        html = f"(timeline not drawn: {e})"
    requests = [e for e in entries if e.get("kind") == "request" and e.get("method") != "ping"]
    errors = [e for e in entries if e.get("kind") == "reply" and not e.get("ok")]
    faults = [e for e in entries if e.get("kind") == "fault"]
    lines = [
        f"simherdr run: the command failed (exit status {status}); "
        f"{len(requests)} requests, {len(errors)} error replies, {len(faults)} faults",
        f"-- last {min(len(requests), SUMMARY_REQUESTS)} requests:",
        *(T.format_entry(e) for e in requests[-SUMMARY_REQUESTS:]),
    ]
    if errors:
        lines += [f"-- error replies (last {min(len(errors), SUMMARY_ERRORS)}):"]
        lines += [T.format_entry(e) for e in errors[-SUMMARY_ERRORS:]]
    if faults:
        lines += ["-- faults:", *(T.format_entry(e) for e in faults[-SUMMARY_ERRORS:])]
    lines += [f"trace: {layout.trace}", f"timeline: {html}", f"server log: {layout.server_log}"]
    return "\n".join(lines)


def main(args, serve: Callable[[list[str]], int] | None = None) -> int:
    """``simherdr run``: :class:`BadUsage` -> exit 2 (``simherdr.cli`` prints it),
    :class:`RunFailed` -> exit 1, else COMMAND's status. ``serve``: the CLI's main, run in the
    forked server (None: the server is spawned)."""
    try:
        return run(args, serve)
    except RunFailed as e:
        print(f"simherdr run: {e}", file=sys.stderr)
        return 1
