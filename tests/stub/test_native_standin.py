"""The native stand-in (issue 34): the launcher (``simherdr/stub/data/launcher.c``) and the
fork server (``simherdr/stub/forkserver.py``) behave as the Python stand-in, the reference.

- every verb of the command table, on every release, through the fork server and through the
  Python stand-in's code in-process, on twin servers fed the same calls: the same stdout,
  stderr and exit status (``native_client`` speaks the launcher's wire, so the equivalence runs
  without an exec per call);
- the compiled launcher itself: streams, exit codes, a death by signal, stdin, TTY, cwd and
  environment, the fallback to the Python stand-in on a socket that is not a simherdr's;
- parallel callers; a killed launcher leaves no process; the server's end leaves none.

Skipped without a C compiler (the Python stand-in is what such a machine installs).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from io import BytesIO

import native_client
import pytest

from simherdr.stub.cli.base import release_of
from simherdr.stub.cli.commands import GROUPS
from simherdr.stub.cli.core import run
from simherdr.stub.forkserver import needs_python
from simherdr.stub.install import is_native, write_stub
from simherdr.testing import ThreadServer
from tests.core.socketclient import request
from tests.releases import RELEASES, VERSIONS

pytestmark = native_client.NEEDS_NATIVE


@pytest.fixture(scope="module")
def host():
    """A server whose fork server serves every test of this module (it runs any release)."""
    with ThreadServer("0.9.3") as server:
        yield server


@pytest.fixture(scope="module")
def cold_standin():
    """The name of a fork server whose children do not warm up (forkserver.WARM_UP_ENV): the
    equivalence's hundreds of calls pay for themselves only (the warm-up is a speed matter,
    its results are the same; the other tests run warm children). The suite's shared one
    (tests/standin_shared.py: cold, one for the whole run) where there is one: a module-scoped
    fork server of its own was started, preloaded and ended by every worker that ran one of
    the releases (up to four a run); else this module's own."""
    from simherdr.stub.forkserver import WARM_UP_ENV
    from simherdr.stub.native import SHARED_ENV, shared_name

    shared = shared_name(os.environ.get(SHARED_ENV, ""))
    if shared:
        yield b"\0" + shared.encode()
        return
    with ThreadServer("0.9.3") as server:
        os.environ[WARM_UP_ENV] = "0"  # read once, by the fork server this call starts
        try:
            native_client.call(native_client.name_of(server.path), ["--version"], {}, "0.9.3")
        finally:
            del os.environ[WARM_UP_ENV]
        yield native_client.name_of(server.path)


# -- the equivalence: every verb, every release -------------------------------------------------

_VALUES = {
    "pane_id": "w1:p1",
    "workspace_id": "w1",
    "tab_id": "w1:t1",
    "target": "w1:p1",
    "terminal_id": "term_0",
    "key": "enter",
    "plugin_id": "demo",
}
#: the verbs whose argument forms would block or leave the server (the bare and help forms run)
_NO_ARGS_FORM = {
    ("pane", "wait-output"),
    ("agent", "wait"),
    ("agent", "attach"),
    ("terminal", "attach"),
    ("session", "attach"),
    ("server", "live-handoff"),
    ("plugin", "logs"),
    ("plugin", "log"),
}
#: never run: they stop the server, or exec `simherdr serve` (the launcher execs: see below)
_NEVER = {("server", ""), ("server", "stop"), ("session", "stop"), ("session", "delete")}


def _synthesized(usage: str) -> list[str]:
    """Arguments from a usage line: each required ``<name>`` and required option, filled."""
    words = usage.split()[4:] if usage.startswith("usage: herdr") else []
    out: list[str] = []
    depth = 0
    pending_option = None
    for word in words:
        opened = word.count("[") + word.count("(")
        if depth == 0 and not word.startswith(("[", "(")):
            if pending_option is not None:
                out += [pending_option, word.split("|")[0].strip("<>") or "x"]
                pending_option = None
            elif word.startswith("--"):
                pending_option = word
            elif word.startswith("<"):
                name = word.strip("<>.").split(">")[0]
                out.append(_VALUES.get(name, "x"))
        depth += opened - word.count("]") - word.count(")")
        depth = max(depth, 0)
    if pending_option is not None:
        out.append(pending_option)
    return out


def _forms(release: str, full: bool = True) -> list[list[str]]:
    """Each verb's forms: bare, and with its arguments filled (``full``: both; else one, the
    filled form where the verb has one)."""
    forms = []
    rel = release_of(release)
    for group, rows in GROUPS.items():
        _header, verbs, _trailer = rows(rel)
        for verb in verbs:
            if (group, verb.name) in _NEVER:
                continue
            usage = (verb.usage or "").split("\n")[0]
            args = _synthesized(usage) if (group, verb.name) not in _NO_ARGS_FORM else []
            if full or not args:
                forms.append([group, verb.name])
            if args:
                forms.append([group, verb.name, *args])
    forms += [["--version"], ["status"], ["bogus"], ["pane"], ["pane", "get", "--help"]]
    return forms


def _normalize(data: bytes, replace: dict[str, str]) -> bytes:
    for old, new in replace.items():
        data = data.replace(old.encode(), new.encode())
    return re.sub(rb"term_[0-9a-f]+", b"term_N", data)


@pytest.mark.parametrize("release", RELEASES)
def test_every_verb_answers_the_same_through_the_fork_server(release, cold_standin, tmp_path):
    """Every verb on every release (both forms on the two ends of every row, VERSIONS)."""
    name = cold_standin
    homes = {}
    for side in ("py", "native"):
        homes[side] = tmp_path / side
        homes[side].mkdir()
    cwd = str(tmp_path)
    mismatches = []
    with ThreadServer(release) as reference, ThreadServer(release) as served:
        envs = {
            side: {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "HOME": str(homes[side]),
                "HERDR_SOCKET_PATH": srv.path,
                "LANG": "C.UTF-8",
            }
            for side, srv in (("py", reference), ("native", served))
        }
        replace = {
            "py": {reference.path: "<SOCKET>", str(homes["py"]): "<HOME>"},
            "native": {served.path: "<SOCKET>", str(homes["native"]): "<HOME>"},
        }
        here = os.getcwd()
        os.chdir(cwd)  # the in-process stand-in's working directory is the test process's
        try:
            for argv in _forms(release, full=release in VERSIONS):
                out, err = BytesIO(), BytesIO()
                code = run(
                    argv,
                    version=release,
                    env=envs["py"],
                    stdout=out,
                    stderr=err,
                    argv0="/bin/herdr",
                )
                got = native_client.call(name, argv, envs["native"], release, cwd=cwd)
                if needs_python(argv):  # the launcher runs the Python stand-in itself
                    assert got.kind == "F", argv
                    continue
                want = ("E", code, out.getvalue(), err.getvalue())
                have = (got.kind, got.value, got.stdout, got.stderr)
                want = want[:2] + tuple(_normalize(d, replace["py"]) for d in want[2:])
                have = have[:2] + tuple(_normalize(d, replace["native"]) for d in have[2:])
                if want != have:
                    mismatches.append((argv, want, have))
        finally:
            os.chdir(here)
    assert mismatches == []


def test_the_forms_cover_every_verb_and_fill_arguments():
    forms = _forms("0.9.3")
    assert ["pane", "get", "w1:p1"] in forms
    assert ["pane", "focus", "--direction", "left"] in forms
    assert ["workspace", "rename", "w1", "x"] in forms
    covered = {tuple(f[:2]) for f in forms}
    for group, rows in GROUPS.items():
        for verb in rows(release_of("0.9.3"))[1]:
            assert (group, verb.name) in covered or (group, verb.name) in _NEVER


# -- the compiled launcher ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stand_ins(tmp_path_factory):
    base = tmp_path_factory.mktemp("native")
    # (each server's own fork server: not the suite's shared one, tests/standin_shared.py)
    fast = write_stub(str(base / "native"), "0.9.3", native=True, shared="")
    slow = write_stub(str(base / "python"), "0.9.3", native=False)
    assert is_native(fast) and not is_native(slow)
    return fast, slow


def _env(server, **extra):
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": tempfile.gettempdir(),
        "HERDR_SOCKET_PATH": server.path,
        "LANG": "C.UTF-8",
    }
    env.update(extra)
    return env


def _both(stand_ins, argv, env, **kw):
    return [subprocess.run([b, *argv], env=env, capture_output=True, **kw) for b in stand_ins]


def test_the_launcher_answers_as_the_python_stand_in(stand_ins, host):
    env = _env(host)
    ws = _both(stand_ins, ["workspace", "create", "--cwd", "/", "--no-focus"], env)
    assert [p.returncode for p in ws] == [0, 0]
    for argv in (["pane", "get", "w1:p1"], ["pane", "get", "nope"], ["pane"], ["--version"]):
        fast, slow = _both(stand_ins, argv, env)
        assert (fast.returncode, fast.stdout, fast.stderr) == (
            slow.returncode,
            slow.stdout,
            slow.stderr,
        ), argv
    fast, slow = _both(stand_ins, ["pane", "send-text", "w1:p1", "hi"], env, input=b"")
    assert fast.returncode == slow.returncode == 0


def test_the_callers_cwd_and_environment_reach_the_call(stand_ins, host, tmp_path):
    fast, _slow = stand_ins
    (tmp_path / "home").mkdir()
    env = _env(host, HOME=str(tmp_path / "home"))
    # `api schema --output FILE` writes FILE against the caller's directory (and every call
    # finds its server by the caller's HERDR_SOCKET_PATH)
    for arg, want in (("here.json", tmp_path / "here.json"),):
        made = subprocess.run(
            [fast, "api", "schema", "--output", arg], env=env, cwd=tmp_path, capture_output=True
        )
        assert made.returncode == 0, made.stderr
        assert want.exists(), (arg, made.stdout, made.stderr)


def test_exit_by_signal_and_a_closed_pipe_stay_quiet(stand_ins, host):
    fast, slow = stand_ins
    env = _env(host)
    results = []
    for binary in (fast, slow):
        reader = subprocess.Popen(["head", "-c1"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        proc = subprocess.run(
            [binary, "api", "schema", "--json"],
            env=env,
            stdout=reader.stdin,
            stderr=subprocess.PIPE,
        )
        reader.stdin.close()
        reader.wait()
        results.append((proc.returncode, proc.stderr))
    assert results[0] == results[1] == (-signal.SIGPIPE, b"")


def test_a_socket_that_is_not_a_simherdr_takes_the_python_path(stand_ins, tmp_path):
    fast, slow = stand_ins
    env = {"PATH": "/usr/bin:/bin", "HERDR_SOCKET_PATH": str(tmp_path / "none.sock")}
    a, b = _both(stand_ins, ["pane", "get", "w1:p1"], env)
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)
    assert a.returncode == 1 and a.stderr


def test_a_herdr_look_alike_gets_the_python_stand_ins_traffic(stand_ins, make_fake):
    """A socket that is not a simherdr's (here the suite's recording fake herdr): no fork
    server answers for it, the launcher runs the Python stand-in, the socket sees the same
    requests from both."""
    from stub_fake import error

    fake = make_fake(version="0.9.3")
    fake.on("pane.get", error("pane_not_found", "pane w9:p9 not found"))
    env = {"PATH": "/usr/bin:/bin", "HERDR_SOCKET_PATH": fake.path, "HOME": "/nonexistent"}
    outcomes = []
    for binary in stand_ins:
        start = len(fake.requests)
        p = subprocess.run([binary, "pane", "get", "w9:p9"], env=env, capture_output=True)
        outcomes.append((p.returncode, p.stdout, p.stderr, fake.requests[start:]))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == 1 and [r["method"] for r in outcomes[0][3]] == ["ping", "pane.get"]


def test_a_terminal_is_the_callers(stand_ins, host):
    """isatty on the caller's own terminal: the descriptors are passed, not piped."""
    import pty

    fast, _ = stand_ins
    env = _env(host)
    code = (
        "import os,subprocess,sys;"
        "p=subprocess.run([sys.argv[1],'completion','bash'],env=dict(os.environ));"
        "sys.exit(p.returncode)"
    )
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.environ.clear()
        os.environ.update(env)
        os.execv(sys.executable, [sys.executable, "-c", code, fast])
    output = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0
    assert b"complete" in output  # through the terminal, not a pipe of ours


# -- many callers, a killed launcher, the server's end ---------------------------------------------


def _fork_server_pids(host) -> list[int]:
    process = host.server.standin.process if host.server.standin else None
    return [process.pid] if process else []


def _children_of(pid: int) -> set[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return {int(p) for p in handle.read().split()}
    except OSError:
        return set()


def test_parallel_callers_each_get_their_own_answer(stand_ins, host):
    fast, _ = stand_ins
    env = _env(host)
    subprocess.run([fast, "workspace", "create", "--no-focus"], env=env, check=True)
    results: dict[int, subprocess.CompletedProcess] = {}

    def caller(i: int) -> None:
        results[i] = subprocess.run(
            [fast, "pane", "get", "w1:p1" if i % 2 else "nope-%d" % i],
            env=env,
            capture_output=True,
        )

    threads = [threading.Thread(target=caller, args=(i,)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 24
    for i, p in results.items():
        if i % 2:
            assert p.returncode == 0 and b'"pane_id":"w1:p1"' in p.stdout, p.stderr
        else:
            assert p.returncode == 1 and b"nope-%d" % i in p.stderr, p.stderr


def _call_of(parent: int, pipe_inode: int) -> int | None:
    """The fork server's child whose stdout is the pipe ``pipe_inode`` (a call's descriptors
    are its caller's)."""
    for pid in _children_of(parent):
        try:
            if os.readlink(f"/proc/{pid}/fd/1") == "pipe:[%d]" % pipe_inode:
                return pid
        except OSError:
            continue
    return None


def test_a_killed_launcher_leaves_nothing(stand_ins, host):
    fast, _ = stand_ins
    env = _env(host)
    subprocess.run([fast, "workspace", "create", "--no-focus"], env=env, check=True)
    (parent,) = _fork_server_pids(host)
    # a call that blocks until told: wait for output that never comes
    launcher = subprocess.Popen(
        [fast, "pane", "wait-output", "w1:p1", "--match", "never-printed"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    inode = os.fstat(launcher.stdout.fileno()).st_ino
    deadline = time.monotonic() + 10
    call = None
    while time.monotonic() < deadline and call is None:
        call = _call_of(parent, inode)
        time.sleep(0.005)
    assert call is not None, "the call never reached the fork server"
    launcher.kill()
    launcher.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not _zombie_or_gone(call):
        time.sleep(0.005)
    assert launcher.returncode == -signal.SIGKILL
    assert _zombie_or_gone(call)
    launcher.stdout.close()
    launcher.stderr.close()


def test_the_servers_end_leaves_no_process(stand_ins, tmp_path):
    fast, _ = stand_ins
    server = ThreadServer("0.9.3")
    try:
        env = _env(server)
        assert subprocess.run([fast, "--version"], env=env, capture_output=True).returncode == 0
        # read on the server's loop, after the callback that started the fork server
        # (StandinHost._first) has returned: the call can be answered by the fork server
        # before that thread, still in _first, has stored the process it started
        process = server.run(lambda _sim: server.server.standin.process)
        assert process is not None
        pids = {process.pid} | _children_of(process.pid)
        assert len(pids) >= 2
    finally:
        server.stop()
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}") or _zombie_or_gone(pid), pid


def _zombie_or_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ")[1][0] in "ZX"
    except OSError:
        return True


def test_install_stub_says_which_launcher_it_wrote(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "simherdr", "install-stub", str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "SIMHERDR_NATIVE_STUB": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == str(tmp_path / "herdr") + "\n"
    assert "native launcher" in done.stderr
    shutil.rmtree(tmp_path)


def _last_seq(server) -> int:
    entries = server.trace()
    return entries[-1]["seq"] if entries else 0


def _requested(server, since: int, method: str) -> bool:
    """Whether the server has read a ``method`` request since trace entry ``since``: a precise
    event (the count of open connections was not: the previous call's connection, closing
    late on a loaded machine, hid the new one's and the wait ran out its 10 s)."""
    return any(e["kind"] == "request" and e.get("method") == method for e in server.trace(since))


def _signal_state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/status") as handle:
            fields = dict(line.split(":\t", 1) for line in handle.read().splitlines())
        with open(f"/proc/{pid}/wchan") as handle:
            wchan = handle.read()
    except (OSError, ValueError):
        return f"{pid} gone"
    keys = ("State", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
    return f"{pid} wchan={wchan} " + " ".join(f"{k}={fields.get(k, '?').strip()}" for k in keys)


def _where_it_hung(proc, host, since: int) -> str:
    """What a Ctrl-C that did not end its call left behind (the flake seen in loaded full runs,
    not reproduced in ~1,000 loaded calls: notes31/flakes.md): whether the server read the
    request, whether this server holds its stand-in name (a socket inode reused while an older
    holder of the same name lives sends the launcher there), the launcher's and the call's
    signal state (a pending SIGINT in the launcher: no 'P' came; in the call: blocked or
    handled but not acted on)."""
    lines = [
        f"request read: {_requested(host, since, 'pane.wait_for_output')}",
        f"server's fork server: {host.server.standin is not None}",
        "launcher " + _signal_state(proc.pid),
    ]
    pipe = os.fstat(proc.stderr.fileno()).st_ino
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            if pid != proc.pid and os.readlink(f"/proc/{pid}/fd/2") == f"pipe:[{pipe}]":
                lines.append("call " + _signal_state(pid))
        except OSError:
            continue
    return "; ".join(lines)


DEFAULT_SIGNALS = ["env", "--default-signal=INT,QUIT"]  # coreutils env: defaults, then exec


def test_ctrl_c_reaches_the_call_and_its_death_by_signal_shows(stand_ins, host):
    """SIGINT to the launcher reaches the stand-in in the fork server's child, which dies of
    it as the Python stand-in does (its KeyboardInterrupt traceback, then SIGINT)."""
    env = _env(host)
    subprocess.run([stand_ins[0], "workspace", "create", "--no-focus"], env=env, check=True)
    seen = []
    for binary in stand_ins:
        since = _last_seq(host)
        proc = subprocess.Popen(
            # as from a terminal: SIGINT and SIGQUIT at their defaults. A full run's worker had
            # them ignored now and then when it started the call (both at once: C system()'s
            # way; the launcher and the call keep what was ignored on entry, as any program
            # does, and the signal was lost: _where_it_hung's SigIgn showed it)
            [*DEFAULT_SIGNALS, binary, "pane", "wait-output", "w1:p1", "--match", "never-printed"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not _requested(host, since, "pane.wait_for_output"):
            time.sleep(0.005)  # (the call's wait is open on the server)
        proc.send_signal(signal.SIGINT)
        try:
            _out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            where = _where_it_hung(proc, host, since)  # (not reproduced: see _where_it_hung)
            proc.kill()
            proc.communicate()
            pytest.fail(f"{binary}: the call did not die of SIGINT within 20 s: {where}")
        text = err.decode()
        # (where the wait was when the signal came is timing's: the last frames may differ)
        seen.append(
            (proc.returncode, "stub/cli/core.py" in text, text.endswith("\nKeyboardInterrupt\n"))
        )
    assert seen == [(-signal.SIGINT, True, True)] * 2


def test_herdr_server_becomes_simherdr_serve_in_the_callers_own_process(stand_ins, host):
    """CHOICE(standin-exec): `herdr --session lab server` (no server there) execs `simherdr
    serve` as the Python stand-in does, in the launcher's own process (same pid), not in the
    fork server's child; `server stop` ends it with status 0."""
    fast, _ = stand_ins
    base = tempfile.mkdtemp(prefix="shn", dir="/tmp")  # (a short path: AF_UNIX's limit)
    proc = None
    try:
        env = _env(host, XDG_CONFIG_HOME=base, HOME=base)
        proc = subprocess.Popen(
            [fast, "--session", "lab", "server"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        sock = os.path.join(base, "herdr", "sessions", "lab", "herdr.sock")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not os.path.exists(sock):
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.01)
        # this very process serves (its command line is herdr's again: issue 33's title)
        assert os.path.realpath(f"/proc/{proc.pid}/exe") == os.path.realpath(sys.executable)
        stop = subprocess.run(
            [fast, "--session", "lab", "server", "stop"], env=env, capture_output=True
        )
        assert stop.returncode == 0, stop.stderr
        assert proc.wait(30) == 0
        proc.stderr.close()
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(base, ignore_errors=True)


def test_an_attach_runs_in_the_callers_process():
    """CHOICE(standin-ctty): a direct attach may open /dev/tty (the caller's controlling
    terminal, which a forked child has not): the fork server answers 'F' and the launcher
    runs the Python stand-in; other verbs are served."""
    assert needs_python(["terminal", "attach", "t1"])
    assert needs_python(["--session", "lab", "agent", "attach", "a1", "--takeover"])
    assert not needs_python(["terminal", "session", "control", "t1"])
    assert not needs_python(["pane", "get", "w1:p1"])


def test_a_call_that_reaches_other_sockets_runs_in_the_callers_process(host):
    """CHOICE(standin-session): a verb of the session group, or an explicit global --session
    (anywhere before a literal --) whose socket is not a simherdr's, reaches sockets the
    launcher did not check (another may read its peer's pid: a recorder's relay of a launched
    server): 'F', the Python stand-in runs. A --session that is a simherdr's is served."""
    name = native_client.name_of(host.path)
    home = tempfile.mkdtemp(prefix="shs", dir="/tmp")  # (a short socket path)
    env = _env(host, HOME=home)
    lab = os.path.join(home, ".config", "herdr", "sessions", "lab")
    os.makedirs(lab)
    try:
        for argv in (["session", "list"], ["--remote", "r", "session", "stop", "lab"]):
            assert needs_python(argv), argv
            assert native_client.call(name, argv, env, "0.9.3").kind == "F", argv
        asked = (["--session", "lab", "pane", "get", "w1:p1"], ["pane", "list", "--session=lab"])
        for argv in asked:  # no socket there, then one that is not a simherdr's
            assert needs_python(argv), argv  # (no environment known: not served)
            assert native_client.call(name, argv, env, "0.9.3").kind == "F", argv
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as other:
            other.bind(os.path.join(lab, "herdr.sock"))
            for argv in asked:
                assert native_client.call(name, argv, env, "0.9.3").kind == "F", argv
            os.unlink(os.path.join(lab, "herdr.sock"))
        with ThreadServer("0.9.3", path=os.path.join(lab, "herdr.sock")) as session:
            request(session.path, "workspace.create", {"cwd": "/"})
            for argv in asked:
                got = native_client.call(name, argv, env, "0.9.3")
                out, err = BytesIO(), BytesIO()
                code = run(
                    argv, version="0.9.3", env=env, stdout=out, stderr=err, argv0="/bin/herdr"
                )
                assert (got.kind, got.value, got.stdout, got.stderr) == (
                    "E",
                    code,
                    out.getvalue(),
                    err.getvalue(),
                ), argv
    finally:
        shutil.rmtree(home, ignore_errors=True)
    for argv in (["pane", "get", "w1:p1"], ["pane", "run", "w1:p1", "--", "--session"]):
        assert not needs_python(argv), argv


def test_the_fork_server_refuses_what_it_cannot_run_faithfully(host):
    """'F' (run the Python stand-in) for an attach, another tree, another interpreter, an
    unknown release: nothing of the call runs in the fork server."""
    name = native_client.name_of(host.path)
    env = _env(host)
    cases = [
        (["terminal", "attach", "t1"], {}),
        (["pane", "get", "w1:p1"], {"root": "/elsewhere"}),
        (["pane", "get", "w1:p1"], {"python": "/usr/bin/python3-other"}),
    ]
    for argv, kw in cases:
        assert native_client.call(name, argv, env, "0.9.3", **kw).kind == "F", (argv, kw)
    assert native_client.call(name, ["pane", "get", "w1:p1"], env, "9.9.9").kind == "F"
    # a working directory that is not one (fchdir fails): nothing ran, the Python way runs it
    not_a_directory = os.memfd_create("not-a-directory")
    try:
        got = native_client.call(name, ["--version"], env, "0.9.3", cwd=not_a_directory)
    finally:
        os.close(not_a_directory)
    assert got.kind == "F"
    assert native_client.call(name, ["--version"], env, "0.9.3").stdout == b"herdr 0.9.3\n"


def test_another_path_to_the_same_interpreter_is_served(host, tmp_path):
    """An install's interpreter by another path to the same file (a venv's ``python3`` where
    the fork server started as ``python``: the ``simherdr`` console script's shebang) is this
    interpreter: served, not sent to the Python stand-in."""
    link = tmp_path / "python-by-another-name"
    link.symlink_to(os.path.abspath(sys.executable))
    got = native_client.call(
        native_client.name_of(host.path), ["--version"], _env(host), "0.9.3", python=str(link)
    )
    assert (got.kind, got.stdout) == ("E", b"herdr 0.9.3\n")


def test_launchers_that_leave_before_their_request_do_not_wear_the_pool_out(host):
    """A connection closed before (or in the middle of) its request ends the child that took
    it; the pool forks another, however many come (hostile: more than the pool's guard
    against children that fail as they start)."""
    import socket

    name = native_client.name_of(host.path)
    for i in range(30):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(name)
        if i % 2:
            sock.sendall(native_client.request(["pane", "get"], {}, "0.9.3")[:20])
        sock.close()
    got = native_client.call(name, ["--version"], {}, "0.9.3")
    assert (got.kind, got.value, got.stdout) == ("E", 0, b"herdr 0.9.3\n")


def test_the_server_sees_the_same_requests_from_the_same_command(stand_ins, host):
    """The server's trace names each request's peer by its command line: a call through the
    fork server shows its caller's argv (`herdr pane get w1:p1`), as the Python stand-in's
    process does, and sends the same requests."""
    env = _env(host)
    subprocess.run([stand_ins[0], "workspace", "create", "--no-focus"], env=env, check=True)
    seen = []
    for binary in stand_ins:
        since = host.trace()[-1]["seq"]
        subprocess.run([binary, "pane", "get", "w1:p1"], env=env, check=True, capture_output=True)
        requests = [e for e in host.trace(since) if e.get("kind") == "request"]
        seen.append(
            [(e.get("method"), e.get("id"), e.get("params"), e.get("cmd")) for e in requests]
        )
    assert seen[0] == seen[1]
    assert [s[0] for s in seen[0]] == ["ping", "pane.get"]
    assert {s[3] for s in seen[0]} == {"herdr pane get w1:p1"}


def test_ctrl_c_reaches_a_call_of_a_fork_server_started_with_sigint_ignored(stand_ins):
    """A server started where SIGINT and SIGQUIT are ignored (the background of a script) starts
    its fork server so: a caller that ignores neither still gets its call ended by Ctrl-C (the
    child sets what the fork server ignores, and the caller does not, back to a Python start's)."""
    fast, _ = stand_ins
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGQUIT)}
    try:
        with ThreadServer("0.9.3") as server:
            env = _env(server)
            # the first call starts the fork server, while this process ignores both
            subprocess.run([fast, "workspace", "create", "--no-focus"], env=env, check=True)
            for s, handler in previous.items():
                signal.signal(s, handler)
            since = _last_seq(server)
            proc = subprocess.Popen(
                [*DEFAULT_SIGNALS, fast, "pane", "wait-output", "w1:p1", "--match", "never"],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not _requested(
                server, since, "pane.wait_for_output"
            ):
                time.sleep(0.005)
            proc.send_signal(signal.SIGINT)
            try:
                _out, err = proc.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                where = _where_it_hung(proc, server, since)
                proc.kill()
                proc.communicate()
                pytest.fail(f"the call did not die of SIGINT within 20 s: {where}")
            assert proc.returncode == -signal.SIGINT
            assert err.decode().endswith("\nKeyboardInterrupt\n")
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
