"""The two process-starting words of src/main.rs:575-588: `herdr server` and `herdr client`.

`herdr server` (no verb) runs herdr's headless server in the foreground; the stand-in replaces
itself (exec) with ``simherdr serve`` on the socket herdr would bind, so a lab script's
``herdr --session lab server &`` and a later ``herdr session stop lab`` work unchanged.
`herdr client` first applies herdr's nested guard (src/main.rs:477-503); the TUI client itself
is out of the stand-in's reach.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

from . import base

TYPE_CHECKING = False  # (not typing's: importing typing costs the stand-in ~8 ms a call)
if TYPE_CHECKING:
    from typing import TextIO

#: CHOICE: how the stand-in finds the simulator. ``SIMHERDR_EXECUTABLE`` names a `simherdr`
#: command (e.g. an installed console script); otherwise the stand-in's own interpreter (the one
#: write_stub recorded in the launcher's shebang, i.e. ``sys.executable``) runs simherdr's CLI
#: from the project root the launcher put on ``sys.path``, with ``-E``: herdr's server is not a
#: Python program, so the user's PYTHON* variables (a garbage PYTHONIOENCODING or
#: PYTHONHASHSEED kills an interpreter at start) must not reach the interpreter, while the
#: server's environment, which its panes inherit, keeps them as they were.
EXECUTABLE_ENV = "SIMHERDR_EXECUTABLE"
TIME_SCALE_ENV = "SIMHERDR_TIME_SCALE"
#: CHOICE: the pane mode of a server the stand-in's ``herdr server`` starts (herdr's panes are
#: always real programs; the simulator's default is simulated). ``simherdr run --pane-mode`` sets
#: it for COMMAND, so a suite that launches servers of its own (two daemons, a named session)
#: gets the run's real shells in them too. Unset or not a mode: ``simherdr serve``'s default.
PANE_MODE_ENV = "SIMHERDR_SERVE_PANE_MODE"
PANE_MODES = ("simulated", "pty", "mixed")
#: The same for the terminal plane's render cadence (``simherdr run --render-interval``).
RENDER_INTERVAL_ENV = "SIMHERDR_SERVE_RENDER_INTERVAL"
HERDR_ENV = "HERDR_ENV"  # src/main.rs:11-12: set to "1" inside herdr panes
UNSUPPORTED = "simherdr: '{command}' is not supported by this stand-in"  # the stand-in's word
UNSUPPORTED_EXIT = 2

NESTED_MESSAGES = (  # src/main.rs:13-20
    "inception detected. we need to go deeper... said no one ever.",
    "recursion is a pathway to many abilities some consider to be... unnatural.",
    "you were so preoccupied with whether you could, you didn't stop to think if you should."
    " — dr. malcolm",
    "recursive herdring is disabled. somewhere, a call stack breathes a sigh of relief.",
    "recursive descent denied. there is, in fact, such a thing as too much herdr.",
    "recursion detected. base case not found. aborting.",
)


def _project_root() -> str:
    # .../<root>/simherdr/stub/cli/launch.py -> <root>
    here = os.path.abspath(__file__)
    for _ in range(4):
        here = os.path.dirname(here)
    return here


def serve_argv(env: Mapping[str, str], version: str, socket_path: str) -> list[str]:
    """The command line of the simulated headless server."""
    custom = base.var(env, EXECUTABLE_ENV)
    head = [custom] if custom else [sys.executable, "-E", "-c", _BOOT % _project_root()]
    argv = head + ["serve", "--quiet", "--socket", socket_path, "--herdr-version", version]
    # herdr's server saves and restores its session by default (src/app/session.rs
    # schedule_session_save, src/persist/restore.rs; only --no-session runs without), in the
    # active session's data dir (src/session.rs data_dir_for).
    argv.append("--persist")
    name = base.active_name(env)
    if name is not None:
        argv += ["--herdr-session", name]
    scale = env.get(TIME_SCALE_ENV)
    if scale:
        try:
            value = float(scale)
        except ValueError:
            value = 0.0
        if value > 0 and value != float("inf"):
            argv += ["--time-scale", scale]
    mode = env.get(PANE_MODE_ENV)
    if mode in PANE_MODES and mode != "simulated":
        argv += ["--pane-mode", mode]
    interval = env.get(RENDER_INTERVAL_ENV)
    if interval:
        try:
            seconds = float(interval)
        except ValueError:
            seconds = 0.0
        if 0 < seconds < float("inf"):
            argv += ["--render-interval", interval]
    return argv


# `python -E -c` with the project root first on sys.path: `-m simherdr` without PYTHONPATH
_BOOT = "import sys; sys.path.insert(0, %r); from simherdr.cli import main; sys.exit(main())"


#: The variable ``simherdr serve`` takes its process title from (simherdr/proctitle.py).
TITLE_ENV = "SIMHERDR_PROCESS_TITLE"


def serve_env(env: Mapping[str, str], title: Sequence[str] | None = None) -> dict[str, str]:
    """The server's environment: the caller's, unchanged (its panes inherit it), plus the
    command line the server shows (``title``), which the server takes out of it at start."""
    child = dict(env)
    if title:
        from .wire import dumps_sorted  # (JSON without the json module: its re, enum)

        child[TITLE_ENV] = dumps_sorted(list(title))
    return child


def server_title(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """The command line herdr's server process shows: herdr runs its server in the process
    ``herdr [--session S] server`` started (src/main.rs:579-581), so it is the stand-in's own
    argv. CHOICE: the kernel hands a script its path, not the word typed: the first word is
    the base name when that name on PATH is this launcher (``herdr``, as typed), else the path.
    ``argv`` without a ``server`` word (the launch module called in-process) gives
    ``herdr server``."""
    words = list(argv[1:])
    if "server" not in words:
        return ["herdr", "server"]
    first = argv[0] if argv else "herdr"
    name = os.path.basename(first)
    if os.sep in first:
        import shutil

        found = shutil.which(name, path=env.get("PATH"))
        try:
            if found is not None and os.path.samefile(found, first):
                first = name
        except OSError:
            pass
    return [first] + words


def run_server(env: Mapping[str, str], version: str, err: TextIO) -> int:
    """`herdr server`: exec ``simherdr serve`` on the active API socket (src/session.rs:173)."""
    from . import wire as _wire

    socket_path = base.active_api_socket_path(env)
    if _wire.is_reachable(socket_path):
        # src/server/headless.rs:5079-5083 (AddrInUse).
        err.write("error: herdr server is already running\napi socket: %s\n" % socket_path)
        return 1
    argv = serve_argv(env, version, socket_path)
    err.flush()
    try:
        os.execve(argv[0], argv, serve_env(env, server_title(sys.argv, env)))
    except OSError as exc:
        err.write("simherdr: cannot start %s: %s\n" % (argv[0], base.os_error_text(exc)))
        return 1
    return 1  # pragma: no cover - execve does not return


def allow_nested(env: Mapping[str, str], version: str) -> bool:
    """``config.experimental.allow_nested`` as Config::load reads it (defaults on any error)."""
    import tomllib

    from simherdr.hostcore.config_keys import diagnose

    from .config_check import read_config

    text, error = read_config(base.config_path(env))
    if text is None or error is not None:
        return False
    if any(d.endswith("; using defaults") for d in diagnose(version, text)):
        return False
    value = tomllib.loads(text).get("experimental", {}).get("allow_nested", False)
    return value is True


def nested_message(pid: int, nanos: int) -> str:
    """random_nested_message (src/main.rs:485-494)."""
    return NESTED_MESSAGES[(nanos ^ pid) % len(NESTED_MESSAGES)]


def run_client(env: Mapping[str, str], version: str, err: TextIO) -> int:
    if env.get(HERDR_ENV) == "1" and not allow_nested(env, version):
        import time

        message = nested_message(os.getpid(), time.time_ns() % 1_000_000_000)
        err.write(
            "\x1b[1merror:\x1b[0m nested herdr is disabled by default.\n"
            "see configuration if you want to enable it.\n\n"
            '\x1b[2m"%s"\x1b[0m\n' % message
        )
        return 1
    # CHOICE: the attached TUI client (src/client) is not simulated.
    err.write(UNSUPPORTED.format(command="herdr client") + "\n")
    return UNSUPPORTED_EXIT


def run(
    verb: str, args: list[str], env: Mapping[str, str], version: str, out: TextIO, err: TextIO
) -> int:
    """``verb`` is "server" (args: the words after it, empty for the launch) or "client"."""
    if verb == "client":
        return run_client(env, version, err)
    if args:
        # `herdr server --handoff-import SOCKET TOKEN`: the receiving side of a live handoff.
        err.write(UNSUPPORTED.format(command="herdr server " + args[0]) + "\n")
        return UNSUPPORTED_EXIT
    return run_server(env, version, err)
