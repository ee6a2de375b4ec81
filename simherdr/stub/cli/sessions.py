"""`herdr session list|attach|stop|delete [--json]` over herdr's session layout.

src/cli.rs:418-526 (argv, output) and src/session.rs (layout, probe, stop, delete): the default
session lives in ``<config>/herdr.sock``, a named one in ``<config>/sessions/<name>/herdr.sock``;
``running`` is a connect probe on the socket. Errors are JSON on stderr without an id, exit 1.

0.9.x deltas ([H093] src/session.rs, src/cli.rs): a probe that fails for another reason than
"nothing listening" is ``connection_error`` (the table says ``unavailable`` and prints the error
under the row); ``stop``/``delete`` accept ``--`` before the name; ``delete`` removes only an
exactly spelled session directory.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from . import base

TYPE_CHECKING = False  # (not typing's: importing typing costs the stand-in ~8 ms a call)
if TYPE_CHECKING:
    from typing import TextIO

STOP_WAIT_TIMEOUT = 15.0  # s, src/session.rs:14
STOP_WAIT_POLL = 0.025  # s, src/session.rs:15
STOP_REQUEST = b'{"id":"cli:session:stop","method":"server.stop","params":{}}\n'  # :267-271
_STOP_WAITS_ON = ("BrokenPipe", "ConnectionReset", "NotConnected", "TimedOut", "WouldBlock")

USAGE_LIST = "usage: herdr session list [--json]"
USAGE_ATTACH = "usage: herdr session attach <name>"
USAGE_STOP = "usage: herdr session stop <name> [--json]"
USAGE_DELETE = "usage: herdr session delete <name> [--json]"
HELP = (
    "herdr session commands:\n"
    "  herdr session list [--json]\n"
    "  herdr session attach <name>\n"
    "  herdr session stop <name> [--json]\n"
    "  herdr session delete <name> [--json]\n"
    "  use 'default' as <name> to target the default session for stop\n"
)  # src/cli.rs:1031-1038


class SessionError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def _wire():
    from . import wire

    return wire


def is_running_at(socket_path: str) -> bool:
    """src/session.rs:388-390."""
    return _wire().is_reachable(socket_path)


def _rows(version: str) -> Mapping[str, object]:
    """The release's stand-in rows (``cli_session_*``: session.rs's 0.9 probes and rules)."""
    from .base import release_of

    return release_of(version).rows


def _probe(socket_path: str) -> tuple[bool, str | None]:
    """0.9.x session_info's probe: (running, connection_error).  One connect; NotFound and
    ConnectionRefused mean "not running" (cli::server_not_running_error), any other failure
    is reported with its io::Error Display."""
    wire = _wire()
    try:
        sock = wire.connect(socket_path)
    except wire.ConnectFailed as failed:
        return False, None if failed.not_running else failed.error.display
    sock.close()
    return True, None


def session_info(env: Mapping[str, str], name: str | None, probes: bool = False) -> dict:
    """SessionInfo (src/session.rs:20-27,214-226), fields in herdr's declaration order; 0.9.x
    adds ``connection_error`` after ``running`` (skipped when None; row
    ``cli_session_probe_errors``)."""
    socket_path = base.api_socket_path_for(env, name)
    info = {"name": name or base.DEFAULT_SESSION_NAME, "default": name is None}
    if probes:
        info["running"], error = _probe(socket_path)
        if error is not None:
            info["connection_error"] = error
    else:
        info["running"] = is_running_at(socket_path)
    info["socket_path"] = socket_path
    info["session_dir"] = base.data_dir_for(env, name)
    return info


def list_sessions(env: Mapping[str, str], probes: bool = False) -> list[dict]:
    """src/session.rs:187-212: default first, then valid named directories sorted."""
    import os

    sessions = [session_info(env, None, probes)]
    folder = base.join(base.config_dir(env), "sessions")
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return sessions
    names = sorted(
        entry.name
        for entry in entries
        if entry.is_dir(follow_symlinks=False)
        and entry.name != base.DEFAULT_SESSION_NAME
        and base.validate_session_name(entry.name) is None
    )
    return sessions + [session_info(env, name, probes) for name in names]


def normalize_name(name: str) -> str | None:
    """src/session.rs:459-465: "default" -> None; invalid names raise."""
    if name == base.DEFAULT_SESSION_NAME:
        return None
    problem = base.validate_session_name(name)
    if problem:
        raise SessionError("invalid_session_name", problem)
    return name


def stop_socket(socket_path: str, wait_paths: list[str], label: str) -> None:
    """stop_socket_with_timeout (src/session.rs:260-297): raw server.stop, then wait until every
    path is unreachable. Raises SessionError("session_stop_failed", ...)."""
    wire = _wire()
    failed = "session_stop_failed"
    deadline = time.monotonic() + STOP_WAIT_TIMEOUT
    try:
        sock = wire.connect(socket_path)
    except wire.ConnectFailed as exc:
        raise SessionError(
            failed,
            "%s is not running or cannot be reached at %s: %s"
            % (label, socket_path, exc.error.display),
        ) from None
    reply = None
    try:
        sock.sendall(STOP_REQUEST)
        sock.settimeout(max(deadline - time.monotonic(), 0.001))
        reply = wire.read_line(sock) or None
    except OSError as exc:
        error = wire.os_error(exc)
        if not isinstance(exc, TimeoutError) and error.kind not in _STOP_WAITS_ON:
            raise SessionError(failed, error.display) from None
    finally:
        sock.close()
    if reply is not None:
        try:
            value = wire.loads(reply.decode("utf-8", "replace")).value
        except wire.JsonError as exc:
            raise SessionError(
                failed, "%s at line %d column %d" % (exc.message, exc.line, exc.column)
            ) from None
        if isinstance(value, dict) and "error" in value:
            raise SessionError(failed, wire.dumps_sorted(value["error"]))
    while time.monotonic() < deadline:
        if not any(wire.is_reachable(p) for p in wait_paths):
            return
        time.sleep(min(STOP_WAIT_POLL, max(0.0, deadline - time.monotonic())))
    reachable = [p for p in wait_paths if wire.is_reachable(p)]
    if reachable:
        raise SessionError(
            failed,
            "%s did not stop within %dms; sockets are still reachable at %s"
            % (label, int(STOP_WAIT_TIMEOUT * 1000), ", ".join(reachable)),
        )


def stop_session(env: Mapping[str, str], name: str | None, probes: bool = False) -> dict:
    """src/session.rs:247-258."""
    socket_path = base.api_socket_path_for(env, name)
    label = "session %s" % (name or base.DEFAULT_SESSION_NAME)
    stop_socket(socket_path, [socket_path, base.client_socket_path_for(env, name)], label)
    return session_info(env, name, probes)


def _exact_session_dir(env: Mapping[str, str], name: str) -> str | None:
    """0.9.x exact_session_dir_for_delete: the entry of ``<config>/sessions`` spelled exactly
    ``name``; a path that resolves under another spelling (case-insensitive filesystems) is
    refused rather than probed or deleted."""
    import os

    failed = "session_delete_failed"
    folder = base.join(base.config_dir(env), "sessions")
    try:
        entries = [entry.name for entry in os.scandir(folder)]
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SessionError(failed, base.os_error_text(exc)) from None
    if name in entries:
        return base.join(folder, name)
    try:
        os.lstat(base.join(folder, name))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SessionError(failed, base.os_error_text(exc)) from None
    raise SessionError(
        failed,
        "session %s does not match an exact session name; use the spelling shown by "
        "`herdr session list`" % name,
    )


def delete_session(
    env: Mapping[str, str], name: str, probes: bool = False, exact: bool = False
) -> dict:
    """src/session.rs:299-317: refuses `default` and a running session; ``exact`` (row
    ``cli_session_delete_exact_name``): only the directory spelled exactly."""
    import shutil

    failed = "session_delete_failed"
    if name == base.DEFAULT_SESSION_NAME:
        raise SessionError(failed, "deleting the default session is not supported")
    problem = base.validate_session_name(name)
    if problem:
        raise SessionError(failed, problem)
    if exact:
        folder = _exact_session_dir(env, name)
        if folder is None:
            return session_info(env, name, probes)  # nothing to delete
    else:
        folder = base.data_dir_for(env, name)
    if is_running_at(base.join(folder, "herdr.sock")):
        raise SessionError(failed, "session %s is running; stop it before deleting" % name)
    info = session_info(env, name, probes)
    try:
        shutil.rmtree(folder)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise SessionError(failed, base.os_error_text(exc)) from None
    return info


# --- output ----------------------------------------------------------------------------------


def _json(value) -> str:
    """serde_json::to_string of a json! value: object keys sorted (no preserve_order)."""
    return _wire().dumps_sorted(value)


def table(sessions: list[dict]) -> str:
    """print_session_table (src/cli.rs:985-999); 0.9.x: a session with ``connection_error``
    is ``unavailable`` and its error follows on an indented line."""
    lines = ["%-20s %-8s %-48s socket" % ("name", "status", "directory")]
    for s in sessions:
        error = s.get("connection_error")
        status = "unavailable" if error is not None else "running" if s["running"] else "stopped"
        lines.append(
            "%-20s %-8s %-48s %s" % (s["name"], status, s["session_dir"], s["socket_path"])
        )
        if error is not None:
            lines.append("  " + error)
    return "\n".join(lines) + "\n"


def _name_and_json(args: list[str], usage: str, dash_dash: bool = False) -> tuple[str, bool] | None:
    """parse_session_name_and_json (src/cli.rs:964-983); ``dash_dash`` (row
    ``cli_session_dash_dash``): the first ``--`` ends the options, so ``-- --json`` names a
    session ``--json``."""
    name, as_json = None, False
    ended = False
    for arg in args:
        if dash_dash and not ended and arg == "--":
            ended = True
        elif not ended and arg == "--json":
            as_json = True
        elif name is None:
            name = arg
        else:
            return None
    return None if name is None else (name, as_json)


def _attach(args: list[str], err: TextIO) -> int:
    """`session attach` (src/session.rs:35-52 and src/cli.rs:440-450): herdr settles it before
    any other parsing; a valid name launches the TUI attached to that session."""
    if args[:1] and args[0] in ("help", "--help", "-h"):
        err.write(USAGE_ATTACH + "\n")
        return 0
    footer = "run 'herdr --help' for usage"
    if len(args) != 1:
        err.write("error: %s\n%s\n" % (USAGE_ATTACH, footer))
        return 2
    problem = None if args[0] == base.DEFAULT_SESSION_NAME else base.validate_session_name(args[0])
    if problem:
        err.write("error: %s\n%s\n" % (problem, footer))
        return 2
    # CHOICE: the attached TUI is not simulated (the stand-in's unsupported answer).
    err.write("simherdr: 'herdr session attach' is not supported by this stand-in\n")
    return 2


def run(
    verb: str, args: list[str], env: Mapping[str, str], version: str, out: TextIO, err: TextIO
) -> int:
    """One `herdr session <verb>`; the group's own help/unknown-verb answers included."""
    rows = _rows(version)
    if verb in ("help", "--help", "-h"):
        err.write(HELP)
        return 0
    if verb == "attach":
        return _attach(args, err)
    try:
        return _run_verb(verb, args, env, rows, out, err)
    except OSError as exc:
        # The session commands return io::Result (src/cli.rs:418 run_session_command; 0.9.3
        # too): an I/O error met on the way (a sessions dir under a HOME that is a regular file,
        # an over-long XDG_CONFIG_HOME) goes up to main, which prints `Error: {e:?}`, exit 1.
        from .wire import os_error

        err.write("Error: %s\n" % os_error(exc).debug)
        return 1


def _run_verb(
    verb: str,
    args: list[str],
    env: Mapping[str, str],
    rows: Mapping[str, object],
    out: TextIO,
    err: TextIO,
) -> int:
    probes = bool(rows["cli_session_probe_errors"])
    if verb == "list":
        if args not in ([], ["--json"]):
            err.write(USAGE_LIST + "\n")
            return 2
        sessions = list_sessions(env, probes)
        out.write(_json({"sessions": sessions}) + "\n" if args else table(sessions))
        return 0
    if verb not in ("stop", "delete"):
        err.write(HELP)
        return 2
    usage = USAGE_STOP if verb == "stop" else USAGE_DELETE
    parsed = _name_and_json(args, usage, bool(rows["cli_session_dash_dash"]))
    if parsed is None:
        err.write(usage + "\n")
        return 2
    name, as_json = parsed
    try:
        if verb == "stop":
            info = stop_session(env, normalize_name(name), probes)
        else:
            info = delete_session(env, name, probes, bool(rows["cli_session_delete_exact_name"]))
    except SessionError as exc:
        err.write(_json({"error": {"code": exc.code, "message": exc.message}}) + "\n")
        return 1
    done = "stopped" if verb == "stop" else "deleted"
    if as_json:
        out.write(_json({done: True, "session": info}) + "\n")
    else:
        out.write("%s session %s\n" % (done, info["name"]))
    return 0
