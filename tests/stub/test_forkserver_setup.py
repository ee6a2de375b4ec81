"""The fork server's set-up of a call, piece by piece (simherdr/stub/forkserver.py): the
caller's environment replaces the fork server's in every place a call reads it; the fork
server's own environment binds every symbol at its start (simherdr/standin.py)."""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
import sys

import pytest

import simherdr

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(simherdr.__file__)))

_PROBE = """
import json, os, posix, subprocess, sys
sys.path.insert(0, %r)
from simherdr.stub.forkserver import _set_environ
_set_environ([b"KEEP=same", b"CHANGE=new", b"NEW=x=y", b"DUP=1", b"DUP=2", b"bare", b"=v"])
c = subprocess.run([%r, "-0"], capture_output=True, check=True).stdout  # (env=None: C environ)
decode = lambda b: b.decode()
print(json.dumps({
    "c": dict(e.decode().split("=", 1) for e in c.split(b"\\0") if e),
    "os.environ": dict(os.environ),
    "os.environb": {decode(k): decode(v) for k, v in os.environb.items()},
    "posix.environ": {decode(k): decode(v) for k, v in posix.environ.items()},
}))
"""


def test_a_call_reads_exactly_its_callers_environment_everywhere():
    env_binary = shutil.which("env")
    if env_binary is None:
        pytest.skip("no env(1) on this machine")
    fork_servers = {"KEEP": "same", "CHANGE": "old", "GONE": "1", "LD_BIND_NOW": "1"}
    probe = subprocess.run(
        [sys.executable, "-I", "-S", "-c", _PROBE % (ROOT, env_binary)],
        env=fork_servers,
        capture_output=True,
        check=True,
    )
    seen = json.loads(probe.stdout)
    callers = {"KEEP": "same", "CHANGE": "new", "NEW": "x=y", "DUP": "1"}
    assert seen == dict.fromkeys(seen, callers)


def test_the_fork_server_binds_its_symbols_at_start(monkeypatch):
    # (its own environment only: a call runs with its caller's, the test above)
    from simherdr import standin

    started: list[dict] = []

    def popen(argv, **kwargs):
        started.append(kwargs["env"])
        raise OSError("not started here")

    monkeypatch.setattr(standin.subprocess, "Popen", popen)
    server = {"LANG": "C.UTF-8", "LC_ALL": "C", "LD_LIBRARY_PATH": "/lib/x", "TZ": "UTC"}
    server.update({"HOME": "/h", "PATH": "/bin", "SIMHERDR_STANDIN_WARM_UP": "0", "X": "1"})
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock, pytest.raises(OSError):
        standin._spawn(sock, env=server)
    # CHOICE(standin-env): only what its own start reads (the locale, the loader's, the C
    # library's, its own settings); a call sets its caller's whole environment
    kept = {k: v for k, v in server.items() if k not in ("HOME", "PATH", "X")}
    assert started == [dict(kept, LD_BIND_NOW="1")]


_STDIO_REPORT = """
import json, os, sys
REPORT, IN, OUT = (int(a) for a in sys.argv[1:4])
def report():
    seen = {}
    for name in ("stdin", "stdout", "stderr"):
        s = getattr(sys, name)
        b = s.buffer
        seen[name] = [
            type(s).__name__, type(b).__name__, s.encoding, s.errors, s.line_buffering,
            s.write_through, s.seekable(), b.raw.name, b.raw.mode, b.raw.closefd,
            b.__sizeof__(), getattr(sys, "__%s__" % name) is s,
        ]
    os.write(REPORT, json.dumps(seen).encode())
"""
_STDIO_FORK_SERVER = (
    _STDIO_REPORT
    + """
sys.path.insert(0, @ROOT@)
from simherdr.stub import forkserver
forkserver._spare_stdio()
os.dup2(IN, 0); os.dup2(OUT, 1); os.dup2(OUT, 2)
bits = 0
for fd in (0, 1, 2):  # (as launcher.c writes its stdio field)
    try:
        os.lseek(fd, 0, os.SEEK_CUR)
        bits |= 1 << fd
    except OSError:
        pass
    bits |= os.isatty(fd) << (3 + fd)
forkserver._fresh_stdio(bits)
report()
"""
)


@pytest.mark.parametrize("kind", ["pipe", "file", "terminal"])
def test_a_calls_standard_streams_are_a_python_starts(kind, tmp_path):
    """A call's sys.stdin/stdout/stderr on the caller's descriptors are what a Python start
    makes on them (the Python stand-in's): encoding, errors, buffering (a terminal's line
    buffering, the buffer's size), seekability (a stream made on a pipe must not tell()), the
    raw streams' names; the fork server made them beforehand, on /dev/null and on a pipe."""
    if kind == "pipe":
        ends = os.pipe()
    elif kind == "file":
        (tmp_path / "in").write_bytes(b"x")
        ends = (
            os.open(tmp_path / "in", os.O_RDONLY),
            os.open(tmp_path / "out", os.O_CREAT | os.O_WRONLY),
        )
    else:
        primary, secondary = os.openpty()
        ends = (secondary, os.dup(secondary))
    seen = []
    try:
        for code, std in (
            (_STDIO_FORK_SERVER.replace("@ROOT@", repr(ROOT)), None),
            (_STDIO_REPORT + "report()", ends),
        ):
            report_r, report_w = os.pipe()
            subprocess.run(
                [sys.executable, "-I", "-S", "-c", code, str(report_w), *map(str, ends)],
                env={"LANG": "C.UTF-8"},
                check=True,
                pass_fds=(report_w, *ends),
                # the fork server's own are /dev/null (simherdr.standin); a Python start's the
                # caller's
                stdin=std[0] if std else subprocess.DEVNULL,
                stdout=std[1] if std else subprocess.DEVNULL,
                stderr=std[1] if std else subprocess.DEVNULL,
            )
            os.close(report_w)
            seen.append(json.loads(os.read(report_r, 65536)))
            os.close(report_r)
    finally:
        for fd in ends:
            os.close(fd)
        if kind == "terminal":
            os.close(primary)
    assert seen[0] == seen[1], json.dumps(seen)
    assert seen[0]["stdout"][4:7] == [kind == "terminal", False, kind == "file"]


def test_a_held_name_is_the_socket_files_stand_in_name_and_held_once(tmp_path):
    """standin.hold_name: what the record proxy holds for its own sockets (their connections
    carry no pid): the name a launcher derives from the socket file, bound, not listened on."""
    if not sys.platform.startswith("linux"):
        pytest.skip("abstract socket names are Linux's")
    from simherdr.standin import abstract_name, hold_name

    path = str(tmp_path / "proxy.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(path)
        st = os.stat(path)
        identity = (st.st_dev, st.st_ino, st.st_mtime_ns)
        held = hold_name(identity)
        assert held is not None
        try:
            assert held.getsockname() == abstract_name(identity)
            assert hold_name(identity) is None  # (taken: a launcher's bind probe sees it so)
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            with probe, pytest.raises(ConnectionRefusedError):  # a per-server launcher: Python
                probe.connect(abstract_name(identity))
        finally:
            held.close()
    assert hold_name(None) is None


def test_a_call_that_ends_between_the_notes_read_and_the_wait_gets_its_status(monkeypatch):
    """A child's note (its launcher's connection) is sent before its call runs; a call that
    ends at once (a reader gone: SIGPIPE) can be reaped after reap's read of the notes and
    before its note was read: its launcher still gets the death by signal, not an EOF."""
    import select
    import signal
    import struct

    from simherdr.stub import forkserver

    server = object.__new__(forkserver.ForkServer)
    server.notes, child_notes = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.notes.setblocking(False)
    server.idle, server.busy, server.watched = {4242}, {}, {}
    server.poll = select.poll()
    server.quick_deaths = 0
    server.stopping = 0.0  # (no idle child forked here)
    launcher, conn = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    waits = iter([(4242, int(signal.SIGPIPE))])

    def waitpid(pid, options):
        try:
            reaped = next(waits)
        except StopIteration:
            raise ChildProcessError from None
        # the child's note lands only now: after reap's first read, before this wait returns
        child_notes.sendmsg(
            [struct.pack("<I", 4242)],
            [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", conn.fileno()))],
        )
        return reaped

    monkeypatch.setattr(forkserver.os, "waitpid", waitpid)
    try:
        server.reap()
        conn.close()
        launcher.settimeout(5)
        assert launcher.recv(16) == b"S" + struct.pack("<I", int(signal.SIGPIPE))
        assert not server.idle and not server.busy
    finally:
        for s in (launcher, server.notes, child_notes):
            s.close()


def test_a_stale_event_of_a_reused_descriptor_kills_no_call(monkeypatch):
    """A call's end and the next call's note can come in one poll: the ended connection is
    closed and the new call's takes its descriptor number; the ended one's event must not end
    the new call (it was killed: SIGKILL instead of its status). A launcher that went away
    still ends its call."""
    import select

    from simherdr.stub import forkserver

    killed = []
    monkeypatch.setattr(forkserver.os, "kill", lambda pid, sig: killed.append((pid, sig)))
    server = object.__new__(forkserver.ForkServer)
    server.poll = select.poll()
    launcher, conn = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.busy, server.watched = {77: conn}, {conn.fileno(): 77}
        server.poll.register(conn.fileno(), select.POLLIN)
        server.launcher_event(conn.fileno())  # the stale event: nothing to read
        assert killed == [] and server.watched == {conn.fileno(): 77}
        launcher.close()  # the launcher goes
        server.launcher_event(conn.fileno())
        assert [pid for pid, _ in killed] == [77] and server.watched == {}
    finally:
        launcher.close()
        conn.close()


_CODECS_PROBE = """
import sys
sys.path.insert(0, %r)
from simherdr.stub import forkserver
releases = forkserver.preload()
print(" ".join(m for m in ("typing", "dataclasses") if m in sys.modules) or "-")
import simherdr.protocol as protocol

def no_table(number):
    raise AssertionError("a call read protocol %%d's table" %% number)

protocol.table = no_table  # (wire_for's; what a forked child runs next)
from simherdr.stub.cli.termclient import codec_for
print(sorted({codec_for(r.protocol).protocol for r in releases.values()}))
"""


@functools.cache
def _preload_probe() -> list[str]:
    """What a fork server's preload (in a fresh ``python -I -S``) imported, then the protocols
    whose codecs it built (one process for the two tests below)."""
    probe = subprocess.run(
        [sys.executable, "-I", "-S", "-c", _CODECS_PROBE % ROOT], capture_output=True, text=True
    )
    assert probe.returncode == 0, probe.stderr
    return probe.stdout.splitlines()


def test_every_releases_client_socket_codec_is_built_before_the_children_fork():
    """A terminal verb's codec (its protocol's table, read from JSON and built once per
    process) is the fork server's, made at its start: each forked call made its own."""
    from simherdr.facts.versions import RELEASES, resolve

    assert json.loads(_preload_probe()[1]) == sorted({resolve(r).protocol for r in RELEASES})


def test_the_preload_imports_neither_typing_nor_dataclasses():
    """The stand-in's modules (all of them, as the fork server preloads them) read their
    annotations' names from typing only under TYPE_CHECKING and make their records with
    facts/record.py: a fork server's start, and a Python stand-in call, import neither typing
    (~7 ms) nor dataclasses (with inspect, ast, dis: ~12 ms) nor compile a class's code."""
    assert _preload_probe()[0] == "-"


def test_a_child_runs_no_collection_from_its_start(monkeypatch):
    # a collection in a forked child writes the header of every object it visits: each a page
    # copied from the fork server; the Python launcher disables it at its start (boot.start)
    import gc
    import signal

    from simherdr.stub import forkserver

    class Server:  # (what Idle reads of its fork server)
        listener = lifeline = child_notes = releases = libc = None
        pid = os.getppid()
        warm = False

    class Waited(Exception):
        pass

    seen: list[bool] = []

    def wait(self):
        seen.append(gc.isenabled())
        raise Waited

    monkeypatch.setattr(forkserver.Idle, "wait", wait)
    monkeypatch.setattr(forkserver, "_exit", lambda code: None)
    handlers = {sig: signal.getsignal(sig) for sig in forkserver._HANDLED}
    wakeup = signal.set_wakeup_fd(-1)
    enabled = gc.isenabled()
    gc.enable()
    try:
        with pytest.raises(Waited):
            forkserver.Idle(Server()).run()  # type: ignore[arg-type]
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        signal.set_wakeup_fd(wakeup)
        (gc.enable if enabled else gc.disable)()
    assert seen == [False]
