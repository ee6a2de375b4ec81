"""Sessions over herdr's layout against real `simherdr serve --session` processes, and
`herdr server` launching the simulator (simherdr.stub.cli.sessions / .launch)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from simherdr.stub.cli import launch, sessions
from tests import forkserve
from tests.releases import BASE, DEFAULT_VERSION, VERSIONS, rows


@pytest.fixture
def xdg():
    # Short: AF_UNIX paths are limited to 107 bytes.
    path = tempfile.mkdtemp(prefix="shx", dir="/tmp")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def env(xdg):
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": xdg,
        "XDG_CONFIG_HOME": xdg,
        "LANG": "C.UTF-8",
    }


def wait_for(predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


@pytest.fixture
def serve(env):
    """``simherdr serve --herdr-version V EXTRA`` with ``env``: forked (tests/forkserve.py: the
    CLI's main in a process of its own, no Python start); ``real=True``: the spawned
    ``python -m simherdr serve`` (test_stop_the_default_session keeps one)."""
    procs: list = []

    def start(*extra, version=DEFAULT_VERSION, real=False):
        argv = ["serve", "--herdr-version", version, *extra]
        if real:
            proc = subprocess.Popen(
                [sys.executable, "-m", "simherdr", *argv], env=env, stderr=subprocess.DEVNULL
            )
        else:
            proc = forkserve.start(argv, env)
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def call(env, verb, *args, version=DEFAULT_VERSION):
    out, err = io.StringIO(), io.StringIO()
    code = sessions.run(verb, list(args), env, version, out, err)
    return code, out.getvalue(), err.getvalue()


def socket_of(env, name):
    return os.path.join(env["XDG_CONFIG_HOME"], "herdr", "sessions", name, "herdr.sock")


def test_list_with_no_sessions_has_the_default_one(env):
    code, out, err = call(env, "list", "--json")
    config = os.path.join(env["XDG_CONFIG_HOME"], "herdr")
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "sessions": [
            {
                "default": True,
                "name": "default",
                "running": False,
                "session_dir": config,
                "socket_path": config + "/herdr.sock",
            }
        ]
    }
    # herdr's serde_json::to_string of a json! value: compact, keys sorted.
    assert out.startswith('{"sessions":[{"default":true,"name":"default","running":false,')


@pytest.mark.parametrize("version", VERSIONS)
def test_list_stop_delete_against_running_and_stopped_servers(env, serve, version):
    a, b = serve("--session", "beta", version=version), serve("--session", "alpha", version=version)
    assert wait_for(lambda: sessions.is_running_at(socket_of(env, "beta")))
    assert wait_for(lambda: sessions.is_running_at(socket_of(env, "alpha")))
    # A session directory that is not a valid name, and a plain file, are not sessions.
    os.makedirs(os.path.join(env["XDG_CONFIG_HOME"], "herdr", "sessions", "bad name"))
    code, out, _ = call(env, "list", "--json", version=version)
    listed = json.loads(out)["sessions"]
    assert code == 0
    assert [(s["name"], s["default"], s["running"]) for s in listed] == [
        ("default", True, False),
        ("alpha", False, True),
        ("beta", False, True),
    ]
    assert listed[1]["socket_path"] == socket_of(env, "alpha")

    code, out, err = call(env, "list", version=version)
    rows = out.splitlines()
    assert rows[0] == "%-20s %-8s %-48s socket" % ("name", "status", "directory")
    assert rows[2].split()[:2] == ["alpha", "running"] and rows[1].split()[1] == "stopped"

    # delete refuses a running session and the default one.
    code, out, err = call(env, "delete", "alpha", version=version)
    assert (code, out) == (1, "")
    assert json.loads(err) == {
        "error": {
            "code": "session_delete_failed",
            "message": "session alpha is running; stop it before deleting",
        }
    }
    assert call(env, "delete", "default")[2] == (
        '{"error":{"code":"session_delete_failed",'
        '"message":"deleting the default session is not supported"}}\n'
    )

    code, out, err = call(env, "stop", "alpha", version=version)
    assert (code, out, err) == (0, "stopped session alpha\n", "")
    assert b.wait(timeout=10) == 0
    assert not os.path.exists(socket_of(env, "alpha"))

    code, out, err = call(env, "stop", "beta", "--json", version=version)
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "stopped": True,
        "session": {
            "default": False,
            "name": "beta",
            "running": False,
            "session_dir": os.path.dirname(socket_of(env, "beta")),
            "socket_path": socket_of(env, "beta"),
        },
    }
    assert a.wait(timeout=10) == 0

    # Stopped: listed as stopped, stop fails, delete removes the directory.
    listed = json.loads(call(env, "list", "--json")[1])["sessions"]
    assert [(s["name"], s["running"]) for s in listed] == [
        ("default", False),
        ("alpha", False),
        ("beta", False),
    ]
    code, out, err = call(env, "stop", "alpha")
    assert code == 1
    assert json.loads(err)["error"] == {
        "code": "session_stop_failed",
        "message": "session alpha is not running or cannot be reached at %s: "
        "No such file or directory (os error 2)" % socket_of(env, "alpha"),
    }
    code, out, err = call(env, "delete", "alpha", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["deleted"] is True and json.loads(out)["session"]["name"] == "alpha"
    assert not os.path.exists(os.path.dirname(socket_of(env, "alpha")))
    assert [s["name"] for s in json.loads(call(env, "list", "--json")[1])["sessions"]] == [
        "default",
        "beta",
    ]


def test_stop_the_default_session(env, serve):
    proc = serve("--session", "default", real=True)
    default_sock = os.path.join(env["XDG_CONFIG_HOME"], "herdr", "herdr.sock")
    assert wait_for(lambda: sessions.is_running_at(default_sock))
    assert json.loads(call(env, "list", "--json")[1])["sessions"][0]["running"] is True
    assert call(env, "stop", "default") == (0, "stopped session default\n", "")
    assert proc.wait(timeout=10) == 0


@pytest.mark.parametrize(
    ("args", "code", "err"),
    [
        (("stop",), 2, "usage: herdr session stop <name> [--json]\n"),
        (("stop", "a", "b"), 2, "usage: herdr session stop <name> [--json]\n"),
        (("delete",), 2, "usage: herdr session delete <name> [--json]\n"),
        (("list", "x"), 2, "usage: herdr session list [--json]\n"),
        (
            ("attach",),
            2,
            "error: usage: herdr session attach <name>\nrun 'herdr --help' for usage\n",
        ),
        (("attach", "help"), 0, "usage: herdr session attach <name>\n"),
        (
            ("attach", "a/b"),
            2,
            "error: session name may only contain ASCII letters, numbers, "
            "'.', '_' and '-'\nrun 'herdr --help' for usage\n",
        ),
        (
            ("stop", "a/b"),
            1,
            '{"error":{"code":"invalid_session_name","message":"session name may only contain '
            "ASCII letters, numbers, '.', '_' and '-'\"}}\n",
        ),
        (
            ("delete", ".."),
            1,
            '{"error":{"code":"session_delete_failed","message":"session name cannot be . or .."}}\n',
        ),
        (("nope",), 2, sessions.HELP),
        (("help",), 0, sessions.HELP),
    ],
)
def test_usage_and_errors(env, args, code, err):
    assert call(env, *args) == (code, "", err)


@pytest.mark.parametrize("version", VERSIONS)
def test_dash_dash_ends_the_options_from_0_9(env, version):
    """[H093] src/cli.rs parse_session_name_and_json: 0.9 takes the first `--` as the end of the
    options (`-- --json` names a session `--json`); 0.8.2 takes `--` for the name."""
    code, out, err = call(env, "delete", "--", "--json", version=version)
    assert (code, err) == (0, "")
    if rows(version).cli_session_dash_dash:
        assert out == "deleted session --json\n"
    else:
        assert json.loads(out)["deleted"] is True
        assert json.loads(out)["session"]["name"] == "--"
    # Only the first `--` is special: a second one is a second name.
    code, _, err = call(env, "delete", "--", "a", "--", version=version)
    assert (code, err) == (2, "usage: herdr session delete <name> [--json]\n")


@pytest.mark.parametrize("version", VERSIONS)
def test_unreachable_socket_is_unavailable_from_0_9(xdg, version):
    """[H093] src/session.rs session_info / src/cli.rs print_session_table: a probe failing for
    another reason than "nothing listening" is `connection_error` (JSON) and `unavailable` with
    the error under the row (table); 0.8.2 just says not running."""
    config = os.path.join(xdg, "c" * 100)  # the socket path outgrows sockaddr_un
    env = {"PATH": os.environ.get("PATH", ""), "HOME": xdg, "XDG_CONFIG_HOME": config}
    probes = rows(version).cli_session_probe_errors
    code, out, err = call(env, "list", "--json", version=version)
    assert (code, err) == (0, "")
    (default,) = json.loads(out)["sessions"]
    assert default["running"] is False
    if not probes:
        assert "connection_error" not in default
    else:
        assert default["connection_error"] == "path must be shorter than SUN_LEN"
        assert '"connection_error":"path must be shorter than SUN_LEN","default":true' in out
    code, out, err = call(env, "list", version=version)
    lines = out.splitlines()
    assert lines[1].split()[:2] == ["default", "unavailable" if probes else "stopped"]
    if not probes:
        assert len(lines) == 2
    else:
        assert lines[2:] == ["  path must be shorter than SUN_LEN"]


def test_delete_needs_the_exact_spelling_from_0_9(env, monkeypatch):
    """[H093] src/session.rs exact_session_dir_for_delete: on a case-insensitive filesystem a
    differently spelled directory is refused, never probed or deleted (simulated: the listing
    shows `Alpha` while `alpha` resolves)."""
    folder = os.path.join(env["XDG_CONFIG_HOME"], "herdr", "sessions")
    os.makedirs(os.path.join(folder, "alpha"))
    real_scandir = os.scandir

    class Entry:
        name = "Alpha"

    def scandir(path):
        if os.path.samefile(path, folder):
            return iter([Entry()])
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, out, err = call(env, "delete", "alpha", version="0.9.3")
    assert (code, out) == (1, "")
    assert json.loads(err) == {
        "error": {
            "code": "session_delete_failed",
            "message": "session alpha does not match an exact session name; use the spelling "
            "shown by `herdr session list`",
        }
    }
    assert os.path.isdir(os.path.join(folder, "alpha"))
    # 0.8.2 deletes by path.
    assert call(env, "delete", "alpha", version="0.8.2")[0] == 0
    assert not os.path.exists(os.path.join(folder, "alpha"))


# --- herdr server -----------------------------------------------------------------------------


def run_launcher(env, *args, version=DEFAULT_VERSION):
    """`herdr [--session X] server` through the launch module in its own process, which then
    serves (forked: tests/forkserve.py; its exec of `simherdr serve` runs serve's main in that
    process; a real exec, the stand-in binary's own `herdr server`: the hostile-variables test
    below, tests/stub/test_cli_local_e2e.py, tests/stub/test_server_process_title.py)."""
    assert not args  # `herdr server` with words after it: tests/stub/test_cli_local_e2e.py
    return forkserve.launch_server(env, version)


def test_herdr_server_is_not_killed_by_the_users_python_variables(env, tmp_path):
    """herdr's server is a Rust binary: a PYTHONIOENCODING or PYTHONHASHSEED that no Python
    can start with (issue 25, noticed under the hostile-env fuzz) must not stop `herdr server`
    from serving; its panes still see the variables as the user set them."""
    from simherdr.stub.install import write_stub

    herdr = write_stub(str(tmp_path / "bin"), DEFAULT_VERSION)
    hostile = dict(env, HERDR_SESSION="lab", PYTHONIOENCODING="no-such-codec", PYTHONHASHSEED="x")
    proc = subprocess.Popen([herdr, "server"], env=hostile, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: sessions.is_running_at(socket_of(env, "lab"))), proc.stderr
        from simherdr.stub.cli import wire as _wire

        pong = _wire.exchange(socket_of(env, "lab"), b'{"id":"p","method":"ping","params":{}}\n')
        assert pong.value["result"]["type"] == "pong"
        assert call(env, "stop", "lab") == (0, "stopped session lab\n", "")
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


@pytest.mark.parametrize("version", VERSIONS)
def test_herdr_server_with_a_session_starts_and_stops(env, version):
    proc = run_launcher(dict(env, HERDR_SESSION="lab"), version=version)
    try:
        assert wait_for(lambda: sessions.is_running_at(socket_of(env, "lab")))
        from simherdr.stub.cli import wire as _wire

        pong = _wire.exchange(socket_of(env, "lab"), b'{"id":"p","method":"ping","params":{}}\n')
        assert pong.value["result"]["version"] == version
        # A second server on the same session: herdr's AddrInUse answer.
        second = run_launcher(dict(env, HERDR_SESSION="lab"), version=version)
        assert second.wait(timeout=20) == 1
        assert second.stderr.read() == (
            "error: herdr server is already running\napi socket: %s\n" % socket_of(env, "lab")
        )
        second.stderr.close()
        assert call(env, "stop", "lab") == (0, "stopped session lab\n", "")
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def _request(sock: str, method: str, **params) -> dict:
    from simherdr.stub.cli import wire as _wire

    line = json.dumps({"id": "t", "method": method, "params": params}).encode() + b"\n"
    return _wire.exchange(sock, line).value


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("session", ["lab", None])
def test_herdr_server_saves_and_restores_its_session_as_herdr(env, xdg, version, session):
    """Issue 25 item 4: the server a client starts with `herdr [--session lab] server` is
    herdr's: its session is saved in the session's data dir (src/session.rs data_dir_for:
    <config>/herdr[/sessions/lab]/session.json), `session stop` saves it at once, the next
    start restores it, and (a named one) `session delete` removes it."""
    extra = {"HERDR_SESSION": session} if session else {}
    sock = socket_of(env, session) if session else os.path.join(xdg, "herdr", "herdr.sock")
    data = os.path.join(xdg, "herdr", *(("sessions", session) if session else ()))

    def start():
        proc = run_launcher(dict(env, **extra), version=version)
        assert wait_for(lambda: sessions.is_running_at(sock)), "no server"
        return proc

    def stop(proc):
        assert call(env, "stop", session or "default")[0] == 0
        assert proc.wait(timeout=15) == 0
        proc.stderr.close()

    proc = start()
    try:
        made = _request(sock, "workspace.create", cwd=xdg, label="kept")
        assert made["result"]["workspace"]["label"] == "kept"
        stop(proc)
        saved = json.loads(open(os.path.join(data, "session.json")).read())
        assert [w.get("custom_name") for w in saved["workspaces"]] == ["kept"]
        proc = start()
        listed = _request(sock, "workspace.list")["result"]["workspaces"]
        assert [w["label"] for w in listed] == ["kept"]
        stop(proc)
        if session:
            assert call(env, "delete", session)[0] == 0
            assert not os.path.exists(os.path.join(data, "session.json"))
            proc = start()
            assert _request(sock, "workspace.list")["result"]["workspaces"] == []
            stop(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_herdr_server_follows_the_socket_override(env, xdg):
    sock = os.path.join(xdg, "custom.sock")
    proc = run_launcher(dict(env, HERDR_SOCKET_PATH=sock, HERDR_SESSION="ignored"))
    try:
        assert wait_for(lambda: sessions.is_running_at(sock))
        assert not os.path.exists(socket_of(env, "ignored"))
        sessions.stop_socket(sock, [sock], "server")
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def test_serve_argv_and_env(env):
    argv = launch.serve_argv(dict(env, SIMHERDR_TIME_SCALE="50"), "0.8.2", "/tmp/s.sock")
    assert argv[:3] == [sys.executable, "-E", "-c"]  # the user's PYTHON* vars are not herdr's
    assert argv[4:] == [
        "serve",
        "--quiet",
        "--socket",
        "/tmp/s.sock",
        "--herdr-version",
        "0.8.2",
        "--persist",  # herdr's server saves its session by default
        "--time-scale",
        "50",
    ]
    named = launch.serve_argv(dict(env, HERDR_SESSION="lab"), "0.9.3", "/s")
    assert named[named.index("--persist") :] == ["--persist", "--herdr-session", "lab"]
    # `simherdr run --pane-mode pty`: a server the suite starts itself gets real shells too.
    pty = launch.serve_argv(dict(env, SIMHERDR_SERVE_PANE_MODE="pty"), "0.8.2", "/s")
    assert pty[-2:] == ["--pane-mode", "pty"]
    cadence = launch.serve_argv(dict(env, SIMHERDR_SERVE_RENDER_INTERVAL="0.016"), "0.8.2", "/s")
    assert cadence[-2:] == ["--render-interval", "0.016"]
    for bad in ("0.0", "-1", "x", "inf"):  # none, or not a cadence: serve's default
        plain = launch.serve_argv(dict(env, SIMHERDR_SERVE_RENDER_INTERVAL=bad), "0.8.2", "/s")
        assert "--render-interval" not in plain
    for mode in ("simulated", "", "bogus"):  # the default, or not a mode: serve's own default
        plain = launch.serve_argv(dict(env, SIMHERDR_SERVE_PANE_MODE=mode), "0.8.2", "/s")
        assert "--pane-mode" not in plain
    custom = launch.serve_argv(dict(env, SIMHERDR_EXECUTABLE="/opt/simherdr"), "0.9.3", "/s")
    assert custom[:2] == ["/opt/simherdr", "serve"]
    child = launch.serve_env({"PYTHONPATH": "/x", "PYTHONIOENCODING": "garbage"})
    assert child == {"PYTHONPATH": "/x", "PYTHONIOENCODING": "garbage"}  # panes inherit it


def test_serve_rejects_a_bad_session_name(env):
    done = subprocess.run(
        [sys.executable, "-m", "simherdr", "serve", "--session", "a/b"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "simherdr serve: --session: session name may only contain ASCII letters, numbers, "
        "'.', '_' and '-'\n"
    )


# --- the nested client guard -------------------------------------------------------------------


def test_nested_client_is_refused(env):
    err = io.StringIO()
    assert launch.run("client", [], dict(env, HERDR_ENV="1"), "0.9.3", io.StringIO(), err) == 1
    lines = err.getvalue().split("\n")
    assert lines[:3] == [
        "\x1b[1merror:\x1b[0m nested herdr is disabled by default.",
        "see configuration if you want to enable it.",
        "",
    ]
    assert lines[3].startswith('\x1b[2m"') and lines[3].endswith('"\x1b[0m')
    assert lines[3][5:-5] in launch.NESTED_MESSAGES


def test_nested_client_allowed_by_config(env):
    config = os.path.join(env["XDG_CONFIG_HOME"], "herdr")
    os.makedirs(config)
    with open(os.path.join(config, "config.toml"), "w") as handle:
        handle.write("[experimental]\nallow_nested = true\n")
    err = io.StringIO()
    code = launch.run("client", [], dict(env, HERDR_ENV="1"), "0.9.3", io.StringIO(), err)
    assert (code, err.getvalue()) == (
        2,
        "simherdr: 'herdr client' is not supported by this stand-in\n",
    )


def test_nested_message_pick():
    assert launch.nested_message(0, 5) == launch.NESTED_MESSAGES[5]
    assert launch.nested_message(3, 5) == launch.NESTED_MESSAGES[6 % 6]


def test_serve_session_persist_uses_the_sessions_data_dir(env, xdg, serve):
    """`simherdr serve --session lab --persist`: herdr's data_dir_for(lab) holds the file."""
    proc = serve("--session", "lab", "--persist")
    sock = socket_of(env, "lab")
    assert wait_for(lambda: sessions.is_running_at(sock))
    _request(sock, "workspace.create", cwd=xdg, label="lab-only")
    assert call(env, "stop", "lab")[0] == 0
    assert proc.wait(timeout=15) == 0
    saved = json.loads(open(os.path.join(os.path.dirname(sock), "session.json")).read())
    assert [w.get("custom_name") for w in saved["workspaces"]] == ["lab-only"]
    assert not os.path.exists(os.path.join(xdg, "herdr", "session.json"))


# The session rows as read in herdr's trees (the tests above follow the row; this pins it):
# 1c76079f (the base, 0.8.2) and [H093] (0.9.3) src/session.rs, src/cli.rs.
READ_IN_TREES = {
    "cli_session_probe_errors": (False, True),
    "cli_session_delete_exact_name": (False, True),
    "cli_session_dash_dash": (False, True),
}


@pytest.mark.parametrize("row", READ_IN_TREES)
def test_the_session_rows_are_herdrs(row):
    base, fork = rows(BASE), rows("0.9.3")
    assert (getattr(base, row), getattr(fork, row)) == READ_IN_TREES[row]


def test_a_launchers_session_verb_reads_its_rows_from_the_release_it_was_handed(monkeypatch):
    """The launcher hands the call its release in compact form (install-stub's): a session
    verb, given that release's name, reads its rows there, loading no simherdr.facts (~25M
    instructions of its Python start); another name still resolves through the facts."""
    from simherdr.stub.cli import base

    compact = base.release_of(DEFAULT_VERSION).compact()
    monkeypatch.setattr(base, "_HANDED", {})  # (this process's earlier in-process calls')
    handed = base.release_of(compact)
    monkeypatch.setitem(sys.modules, "simherdr.facts.versions", None)  # an import of it fails
    assert sessions._rows(DEFAULT_VERSION) is handed.rows
    other = next(v for v in VERSIONS if v != DEFAULT_VERSION)
    with pytest.raises(ImportError):
        sessions._rows(other)
