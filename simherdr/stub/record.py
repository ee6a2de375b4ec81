"""The stand-in's recording mode: run a real ``herdr`` binary and write down each run.

:func:`write_recording_stub` puts a ``herdr`` launcher into a directory. A client that finds it
first on ``PATH`` runs the real binary through it, unchanged: same argv, same stdin, its stdout,
stderr and exit code passed back. Each run appends one line to a journal: argv, the ``HERDR_*``
environment (CHOICE: their values, minus the socket path the recorder sets; other variables by
name only, they are the client's business), stdout, stderr, exit code, start and end times.
``simherdr record --herdr-bin`` reads the journal into the session's cassette.

A run that launches a server of the client's own (``herdr --session NAME server``: herdr binds
that session's socket, and an explicit ``--session`` beats ``HERDR_SOCKET_PATH``,
src/session.rs:173-181) would bypass the recorder: the launch runs the real binary with its
config dir moved to a private directory (``XDG_CONFIG_HOME``, src/config/io.rs:30-35), and the
recorder (its ``ops`` socket) relays the socket the client expects to the launched server and
journals what passes, until the server exits. CHOICE: the launched server reads no config of
the user's (its config dir is the private one). Each run also journals the real binary's pid,
so the recorder tells the client's own connections to that socket from a CLI run's.

Stdlib only, like the rest of the stand-in.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # no stub; signal.py is it with enums
import os
import sys
import time

# A recorded run's start is this module's: one Python start per CLI call of the recorded
# client (~100 in the contract tests). Its common path imports no json, subprocess, threading
# or signal (with re and enum, ~17 ms of a ~27 ms start): it spawns with posix_spawn, tees
# with two _thread threads, writes the journal's line with _json's string encoder (json's own)
# and sets signals with _signal (the C modules those wrap, loaded at the interpreter's start).

_LAUNCHER = """\
# simherdr recording stand-in (written by simherdr.stub.record.write_recording_stub).
import sys
sys.path.insert(0, {root!r})
from simherdr.stub.record import main
sys.exit(main(sys.argv[1:], real={real!r}, journal={journal!r}, socket={socket!r},
              ops={ops!r}))
"""

SOCKET_ENV = "HERDR_SOCKET_PATH"


def launched_session(argv: list[str]) -> str | None:
    """The session a run launches a server for: ``herdr --session NAME server`` (the global
    ``--session`` anywhere before a literal ``--``, src/session.rs configure_from_args);
    None for any other run."""
    name, rest, i = None, [], 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest += argv[i:]
            break
        if arg == "--session" and i + 1 < len(argv):
            name, i = argv[i + 1], i + 2
            continue
        if arg.startswith("--session="):
            name, i = arg[len("--session=") :], i + 1
            continue
        rest.append(arg)
        i += 1
    return name if name is not None and rest == ["server"] else None


def _answers(path: str) -> bool:
    import socket as so

    s = so.socket(so.AF_UNIX, so.SOCK_STREAM)
    try:
        s.settimeout(1.0)
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


def _op(ops: str, op: dict) -> dict:
    import json
    import socket as so

    s = so.socket(so.AF_UNIX, so.SOCK_STREAM)
    try:
        s.settimeout(10.0)
        s.connect(ops)
        s.sendall(json.dumps(op).encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    reply = json.loads(data or b"{}")
    return reply if isinstance(reply, dict) else {}


def _launch(real: str, argv: list[str], name: str, ops: str) -> tuple:
    """Run the launch with a private config dir; relay the session's socket to it while it
    serves. Returns (code, stdout, stderr, pid, the socket the client expects)."""
    import shutil
    import subprocess
    import tempfile

    from .cli import base

    session = base.active_name({base.SESSION_ENV: name})
    expected = base.api_socket_path_for(os.environ, session)
    private = tempfile.mkdtemp(prefix="simherdr-launch-")
    env = {k: v for k, v in os.environ.items() if k != SOCKET_ENV}
    env["XDG_CONFIG_HOME"] = private
    served = base.api_socket_path_for(env, session)
    relayed = False
    try:
        p = subprocess.Popen([real, *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while p.poll() is None and time.monotonic() < deadline and not _answers(served):
            time.sleep(0.02)
        if p.poll() is None and _answers(served):
            reply = _op(
                ops,
                {"op": "relay", "listen": expected, "upstream": served, "argv": argv, "pid": p.pid},
            )
            relayed = bool(reply.get("ok"))
            if not relayed:
                sys.stderr.write(
                    "simherdr record: cannot relay %s: %s\n" % (expected, reply.get("error"))
                )
        out, err = p.communicate()
        return p.returncode, out, err, p.pid, expected
    finally:
        if relayed:
            try:
                _op(ops, {"op": "unrelay", "listen": expected})
            except (OSError, ValueError):
                pass
        shutil.rmtree(private, ignore_errors=True)


def interactive(argv: list[str]) -> bool:
    """``herdr terminal attach`` / ``herdr agent attach`` (after the global ``--session``):
    the verbs that take over the caller's terminal."""
    words: list[str] = []
    i = 0
    while i < len(argv) and len(words) < 2:
        if argv[i] == "--session":
            i += 2
            continue
        if not argv[i].startswith("--session="):
            words.append(argv[i])
        i += 1
    return words in (["terminal", "attach"], ["agent", "attach"])


#: the signals that end a run: passed on to it (_forward_signals)
_ENDING = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP)


def _forward_signals(pid: int, running: list[bool]) -> None:
    """The signals that end a run (TERM, INT, HUP) are passed on to it while it runs
    (``running[0]``): the recording still writes its line when the client stops the run."""

    def forward(signum: int, frame: object) -> None:
        if running[0]:
            os.kill(pid, signum)

    for sig in _ENDING:
        _signal.signal(sig, forward)


def _spawn(argv: list[str], env: dict[str, str], out: int, err: int) -> int:
    """Start ``argv`` with its stdout and stderr on ``out`` and ``err``, no other descriptor of
    ours and SIGPIPE/SIGXFSZ at their defaults (what ``subprocess.Popen`` with pipes does by
    default: close_fds, restore_signals) through the C library's ``posix_spawn``; its pid, or
    OSError when it cannot be run (the exec's own error)."""
    # the descriptors open now, as Popen finds them (/proc/self/fd); the pipes' ends are
    # close-on-exec already, an inherited descriptor of the caller's is not
    try:
        fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 256))
    close = [(os.POSIX_SPAWN_CLOSE, fd) for fd in fds if fd > 2 and fd not in (out, err)]
    sigdef = [getattr(_signal, n) for n in ("SIGPIPE", "SIGXFSZ") if hasattr(_signal, n)]
    return os.posix_spawn(
        argv[0],
        argv,
        env,
        file_actions=[(os.POSIX_SPAWN_DUP2, out, 1), (os.POSIX_SPAWN_DUP2, err, 2), *close],
        setsigdef=sigdef,
    )


def _tee(out: int, err: int) -> tuple[bytes, bytes]:
    """Pass the run's stdout and stderr (the read ends ``out``, ``err``) on as they come (a
    streaming verb, ``herdr terminal session observe``, is read line by line by its client) and
    keep them for the journal; each in a thread of its own (one blocked writer never stops the
    other stream)."""
    import _thread

    kept = {1: bytearray(), 2: bytearray()}
    done = []

    def pump(src: int, fd: int, lock) -> None:
        try:
            while True:
                chunk = os.read(src, 1 << 16)
                if not chunk:
                    return
                kept[fd] += chunk
                view = memoryview(chunk)
                try:
                    while view:
                        view = view[os.write(fd, view) :]
                except OSError:
                    pass  # the reader went away: keep recording what the run says
        finally:
            os.close(src)
            lock.release()

    sys.stdout.flush()
    # The pumps block the signals that end a run (they inherit the mask at their start): a
    # Python handler runs in the main thread only, and a signal the kernel gave a pump thread
    # (it does when the main thread does not want it at that moment, e.g. stopped by a tracer)
    # only set a flag that the main thread, asleep in lock.acquire, never saw: the run was
    # never told to end and the client waited for ever (make test under strace -f).
    unblocked = _signal.pthread_sigmask(_signal.SIG_BLOCK, _ENDING)
    try:
        for src, fd in ((out, 1), (err, 2)):
            lock = _thread.allocate_lock()
            lock.acquire()
            done.append(lock)
            _thread.start_new_thread(pump, (src, fd, lock))
    finally:
        _signal.pthread_sigmask(_signal.SIG_SETMASK, unblocked)
    for lock in done:
        lock.acquire()
    return bytes(kept[1]), bytes(kept[2])


def _run(real: str, argv: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes, int]:
    """The run with its output passed on and kept: (exit code, stdout, stderr, pid)."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        pid = _spawn([real, *argv], env, out_w, err_w)
    except OSError:
        for fd in (out_r, err_r):
            os.close(fd)
        raise
    finally:
        os.close(out_w)
        os.close(err_w)
    running = [True]
    _forward_signals(pid, running)
    out, err = _tee(out_r, err_r)
    _, status = os.waitpid(pid, 0)
    running[0] = False
    return os.waitstatus_to_exitcode(status), out, err, pid


def _json(v: object) -> str:
    """``json.dumps(v, ensure_ascii=False)`` for a journal line's values (str, int, float,
    bool, None, lists, dicts with str keys) without json's import: strings by json's own
    encoder (``_json.encode_basestring``), numbers by their repr as json writes them."""
    from _json import encode_basestring

    if isinstance(v, str):
        return encode_basestring(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{encode_basestring(k)}: {_json(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_json(x) for x in v) + "]"
    raise TypeError(f"not a journal value: {type(v).__name__}")


def main(
    argv: list[str], real: str, journal: str, socket: str | None, ops: str | None = None
) -> int:
    env = dict(os.environ)
    if socket:
        env[SOCKET_ENV] = socket  # the real binary talks to the recorder's CLI-side socket
    start = time.time()
    launch = launched_session(argv) if ops else None
    on_terminal = interactive(argv) and os.isatty(0) and os.isatty(1)
    launched: str | None = None
    pid = None
    try:
        if launch is not None and ops is not None:
            code, out, err, pid, launched = _launch(real, argv, launch, ops)
        elif on_terminal:
            # an interactive attach needs the caller's terminal (raw mode, its size): its
            # output is a screen, not recorded here (the recorder has its frames)
            import subprocess

            p = subprocess.Popen([real, *argv], env=env)
            pid = p.pid
            running = [True]
            _forward_signals(pid, running)
            code, out, err = p.wait(), b"", b""
            running[0] = False
        else:
            code, out, err, pid = _run(real, argv, env)
    except OSError as e:
        code, out, err = 127, b"", f"herdr: cannot run {real}: {e}\n".encode()
    if pid is None or launch is not None:  # a streamed run's output is already out
        sys.stdout.buffer.write(out)
        sys.stdout.buffer.flush()
        sys.stderr.buffer.write(err)
        sys.stderr.buffer.flush()
    herdr_env = {k: v for k, v in os.environ.items() if k.startswith("HERDR_") and k != SOCKET_ENV}
    line = {
        "t": round(start, 4),
        "t_end": round(time.time(), 4),
        "argv": argv,
        "env": herdr_env,
        "env_keys": sorted(os.environ),
        "exit": code,
        "stdout": out.decode("utf-8", errors="surrogateescape"),
        "stderr": err.decode("utf-8", errors="surrogateescape"),
        "pid": pid,
    }
    if launched is not None:
        line["launch"] = {"socket": launched, "session": launch}
    if on_terminal:
        line["terminal"] = True
    fd = os.open(journal, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, (_json(line) + "\n").encode("utf-8", "surrogateescape"))
    finally:
        os.close(fd)
    return code


def write_recording_stub(
    directory: str, real: str, journal: str, socket: str | None, ops: str | None = None
) -> str:
    """Write ``<directory>/herdr`` recording runs of ``real`` into ``journal``; return its path.
    ``ops``: the recorder's socket that relays a server the client launches itself."""
    from .install import _header, _project_root

    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "herdr")
    text = _header(os.path.abspath(sys.executable)) + _LAUNCHER.format(
        root=_project_root(),
        real=os.path.abspath(real),
        journal=os.path.abspath(journal),
        socket=socket and os.path.abspath(socket),
        ops=ops and os.path.abspath(ops),
    )
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path + ".tmp", 0o755)
    os.replace(path + ".tmp", path)
    return path
