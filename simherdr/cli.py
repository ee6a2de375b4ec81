"""The ``simherdr`` command: serve, ctl, install-stub, trace, scenario, demo, record, contract.

One section per subcommand: ``_add_<name>(sub)`` declares its arguments, ``_<name>(args)``
runs it. Each subcommand imports what it needs, so ``simherdr serve`` starts fast: a plain
``serve`` command line (:func:`_serve_args`) is read without argparse, from the same option
table argparse is given; anything else (help, an error, an abbreviation) goes to argparse. Every mistake a user can make is answered with one line on
stderr and exit status 2 (bad usage); no traceback reaches the user (``SIMHERDR_DEBUG=1``
shows one for an internal error).
"""

from __future__ import annotations

import gc
import math
import os
import sys

from . import __version__
from .facts.versions import DEFAULT_VERSION, RELEASES, resolve

TYPE_CHECKING = False  # (not typing's: `simherdr ctl` and `--version` import no typing, ~6 ms)
if TYPE_CHECKING:
    import argparse
    from typing import Any

VERSIONS = RELEASES  # every release simherdr simulates, oldest first (facts/releases/*.toml)
# Linux: sun_path is 108 bytes including the terminating NUL.
MAX_SOCKET_PATH = 107
USAGE = 2


class UsageError(Exception):
    """Bad input: the message is printed as one line and the exit status is 2."""


_PARSER_CLASS: Any = None


def _parser_class() -> type[argparse.ArgumentParser]:
    """simherdr's ArgumentParser (made on first use: argparse is not imported by a plain
    ``simherdr serve``)."""
    global _PARSER_CLASS
    if _PARSER_CLASS is None:
        import argparse

        class _Parser(argparse.ArgumentParser):
            def error(self, message: str):  # one line, not argparse's usage block
                self.exit(USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")

            def _get_formatter(self):
                # argparse makes a formatter for every add_argument and asks shutil for the
                # width, importing shutil (and its compression modules) at start: the same
                # width without it.
                return self.formatter_class(prog=self.prog, width=_help_width())

        _PARSER_CLASS = _Parser
    return _PARSER_CLASS


def _help_width() -> int:
    """What argparse's HelpFormatter uses: shutil.get_terminal_size().columns - 2 ($COLUMNS,
    else the terminal on stdout, else 80)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns - 2


# simherdr.clock.PACINGS, default first (not imported: it loads asyncio; a test ties the two)
TIME_PACINGS = ("paced", "wall")


def _type_error(message: str) -> Exception:
    import argparse

    return argparse.ArgumentTypeError(message)


def _time_scale(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _type_error(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise _type_error(
            f"must be a finite number > 0 (1: real time, 100: 100x faster), not {text!r}"
        )
    return value


def _seconds(text: str) -> float:
    from .ctl import parse_seconds  # stdlib only

    try:
        return parse_seconds(text)
    except ValueError as e:
        raise _type_error(str(e)) from None


def _check_socket_path(flag: str, path: str) -> str:
    full = os.path.abspath(path)
    n = len(os.fsencode(full))
    if n > MAX_SOCKET_PATH:
        raise UsageError(
            f"{flag} {full} is {n} bytes long; a Unix socket path may have at most "
            f"{MAX_SOCKET_PATH}: use a shorter path (e.g. under /tmp)"
        )
    return full


# --- serve ----------------------------------------------------------------------------------------


#: ``simherdr serve``'s options: (flag, add_argument keywords). ``in_group``: the required
#: either-or of --socket and --session. Both argparse (:func:`_add_serve`) and the plain
#: reader (:func:`_serve_args`) are made from this table.
_SERVE_WHERE = (
    ("--socket", {"help": "Unix socket path to listen on"}),
    (
        "--session",
        {
            "metavar": "NAME",
            "help": "listen on the socket of herdr session NAME (<config>/sessions/NAME/"
            "herdr.sock; 'default': <config>/herdr.sock), as `herdr --session NAME server` does",
        },
    ),
)
_SERVE_OPTIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "--quiet",
        {
            "action": "store_true",
            "help": "no start-up or shutdown lines on stderr (herdr's headless server prints "
            "none; `herdr server` passes this)",
        },
    ),
    ("--herdr-version", {"default": DEFAULT_VERSION, "choices": VERSIONS}),
    (
        "--time-scale",
        {
            "type": _time_scale,
            "default": 1.0,
            "help": "simulated seconds per wall second (100: herdr's 3 s settle takes 30 ms)",
        },
    ),
    (
        "--time-pacing",
        {
            "choices": TIME_PACINGS,
            "default": TIME_PACINGS[0],
            "help": "with --time-scale: paced (default) holds simulated time while the server "
            "is starved or stalled, so herdr's short timeouts do not fire before it catches up; "
            "wall: simulated time is exactly the scale x wall time (simherdr.clock)",
        },
    ),
    ("--cwd", {"help": "the server's own cwd (fallback for panes)"}),
    (
        "--pane-mode",
        {
            "choices": ("simulated", "pty", "mixed"),
            "default": "simulated",
            "help": "pty: every pane is a real shell in a PTY (needs simherdr[pty]); mixed: "
            "only panes created with env SIMHERDR_PANE_MODE=pty",
        },
    ),
    (
        "--render-interval",
        {
            "type": float,
            "default": 0.0,
            "metavar": "SECONDS",
            "help": "the terminal plane's render cadence (0: the next loop turn, the default; "
            "herdr's: 0.016)",
        },
    ),
    (
        "--persist",
        {
            "action": "store_true",
            "help": "save and restore herdr's session.json in herdr's data dir "
            "($XDG_CONFIG_HOME/herdr or ~/.config/herdr; a --session NAME's sessions/NAME); "
            "default: in memory only (the stand-in's `herdr server` passes it: herdr persists)",
        },
    ),
    (
        "--herdr-session",
        {
            "metavar": "NAME",
            "help": "with --socket: the herdr session whose data dir --persist uses (default: "
            "the default session; --session NAME sets it)",
        },
    ),
    (
        "--pane-history",
        {
            "action": "store_true",
            "help": "with --persist, also session-history.json (herdr's "
            "[experimental].pane_history)",
        },
    ),
    (
        "--control",
        {
            "metavar": "PATH",
            "help": "also open a control socket (scenarios and faults, `simherdr ctl`)",
        },
    ),
    (
        "--trace",
        {
            "metavar": "FILE",
            "help": "write the trace (every request, reply, event, fault and step) to FILE as "
            "JSON lines, as it happens",
        },
    ),
    (
        "--scenario",
        {
            "metavar": "FILE|NAME",
            "help": "load a scenario: a TOML file or a shipped name (`simherdr scenario list`)",
        },
    ),
    ("--seed", {"type": int, "help": "the scenario's seed (default: the file's)"}),
    (
        "--herdr-config-dir",
        {
            "metavar": "DIR",
            "help": "herdr's config dir (config.toml, agent-detection/); default as herdr: "
            "$XDG_CONFIG_HOME/herdr or ~/.config/herdr, config.toml from $HERDR_CONFIG_PATH "
            "if set",
        },
    ),
    (
        "--no-herdr-config",
        {"action": "store_true", "help": "read no herdr config (herdr's defaults)"},
    ),
)


def _add_serve(sub) -> None:
    s = sub.add_parser("serve", help="run a simulated herdr server in the foreground")
    # CHOICE: one of the two is required: a simulator never takes herdr's default socket
    # (<config>/herdr.sock) unless asked for it by name (--session default).
    where = s.add_mutually_exclusive_group(required=True)
    for flag, kw in _SERVE_WHERE:
        where.add_argument(flag, **kw)
    for flag, kw in _SERVE_OPTIONS:
        s.add_argument(flag, **kw)
    s.set_defaults(fn=_serve)


class _Args:
    """The parsed command line (what argparse's Namespace gives: attributes, ``vars()``)."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)


def _serve_args(words: list[str]) -> _Args | None:
    """``simherdr serve WORDS`` read as argparse reads it, for a command line argparse takes
    without a question: each option once, spelled out in full (``--opt VALUE`` or
    ``--opt=VALUE``, no value starting with ``-``), every value valid, exactly one of --socket
    and --session. None for anything else (help, a mistake, an abbreviation, ``--``): argparse
    then reads it, with its own answer. tests/core/test_cli_serve_args.py compares the two."""
    table = {flag: kw for flag, kw in _SERVE_WHERE + _SERVE_OPTIONS}
    values: dict[str, Any] = {}
    i = 0
    while i < len(words):
        word = words[i]
        flag, eq, text = word.partition("=")
        kw = table.get(flag)
        if kw is None or flag in values:
            return None
        if kw.get("action") == "store_true":
            if eq:
                return None
            values[flag] = True
            i += 1
            continue
        if not eq:
            i += 1
            if i == len(words):
                return None
            text = words[i]
        if text.startswith("-"):
            return None
        convert = kw.get("type")
        if convert is not None:
            try:
                value = convert(text)
            except Exception:  # argparse reports it (ArgumentTypeError, ValueError) or raises
                return None
        else:
            value = text
        if "choices" in kw and value not in kw["choices"]:
            return None
        values[flag] = value
        i += 1
    if ("--socket" in values) == ("--session" in values):
        return None
    args = {"cmd": "serve"}
    for flag, kw in _SERVE_WHERE + _SERVE_OPTIONS:
        dest = flag[2:].replace("-", "_")
        if flag in values:
            args[dest] = values[flag]
        else:
            args[dest] = kw.get("default", False if kw.get("action") == "store_true" else None)
    return _Args(**args, fn=_serve)


def _serve(args) -> int:
    if "SIMHERDR_PROCESS_TITLE" in os.environ:  # proctitle.TITLE_ENV: the stand-in's server
        from .proctitle import set_title, take_title

        title = take_title(os.environ)
        if title:
            set_title(title)  # herdr's command line (issue 33), before any thread starts
    try:
        socket_path = _check_socket_path("--socket", _serve_socket(args))
    except ValueError as e:
        raise UsageError(str(e)) from None
    control_path = _check_socket_path("--control", args.control) if args.control else None
    if control_path == socket_path:
        raise UsageError("--control must differ from --socket")
    if args.pane_mode != "simulated":
        try:
            import pyte  # noqa: F401 - the pty extra (simherdr.panes.pty reads screens with it)
        except ImportError:
            raise UsageError(
                f"--pane-mode {args.pane_mode} needs the pty extra (missing module pyte): "
                "pip install 'simherdr[pty]' (or pip install pyte)"
            ) from None
    scenario = None
    if args.scenario:
        from .scenarios.data import ScenarioError, load_scenario

        try:
            scenario = load_scenario(args.scenario, seed=args.seed)
        except ScenarioError as e:
            raise UsageError(f"--scenario: {e}") from None
        elsewhere = scenario.elsewhere(args.herdr_version)  # a field scenario's releases
        if elsewhere and not args.quiet:
            print(f"simherdr serve: note: {elsewhere}", file=sys.stderr)
    elif args.seed is not None:
        raise UsageError("--seed needs --scenario")
    trace_file = None
    if args.trace:
        try:
            trace_file = open(args.trace, "w", encoding="utf-8")  # noqa: SIM115 - served forever
        except OSError as e:
            raise UsageError(f"--trace {args.trace}: {e.strerror}") from None
    # CHOICE: the serve process never needs TLS; asyncio imports ssl only if it is there, and
    # that import is a fifth of the start-up time (`simherdr serve` to its first pong).
    sys.modules.setdefault("ssl", None)  # type: ignore[arg-type]
    # No collection passes while the server's code loads (a tenth of its start-up work);
    # once it listens, what was loaded is frozen out of every later pass (gc.freeze).
    gc.disable()
    import asyncio

    from .serving import run_server

    try:
        return asyncio.run(
            run_server(
                socket_path=socket_path,
                control_path=control_path,
                version=resolve(args.herdr_version),  # resolved once, passed down
                time_scale=args.time_scale,
                time_pacing=args.time_pacing,
                cwd=args.cwd,
                pane_mode=args.pane_mode,
                render_interval=max(args.render_interval, 0.0),
                trace_file=trace_file,
                scenario=scenario,
                persist=args.persist,
                pane_history=args.pane_history,
                herdr_config_dir=args.herdr_config_dir,
                herdr_session=_serve_data_session(args),
                read_herdr_config=not args.no_herdr_config,
                quiet=args.quiet,
                listening=_collect_again,
            )
        )
    finally:
        gc.enable()  # whatever happened (a refusal before it listened)


def _end_process(status: int) -> None:
    """CHOICE: a ``simherdr serve`` process that has stopped ends without the interpreter's
    teardown (module by module deallocation and its collections: ~30M instructions, ~9 ms of
    CPU of every stop, a sixth of a start). What that teardown does for a process is done
    first: the exit hooks (``atexit``: the PTY panes' shells, ``weakref.finalize``), stdout and
    stderr flushed. Not when another thread still runs (a normal exit joins it), nor when
    ``main`` was given its argv (a caller's process, tests/inproc.py)."""
    import threading

    if threading.active_count() > 1:
        return
    import atexit

    from .runserver import flush_std_streams

    atexit._run_exitfuncs()
    flush_std_streams()
    os._exit(status)


def _collect_again() -> None:
    gc.freeze()
    gc.enable()


def _serve_data_session(args) -> str | None:
    """The named herdr session whose data dir holds the session file (None: the default)."""
    name = args.herdr_session if args.socket else args.session
    if name is None:
        return None
    from .stub.cli import base  # not on the plain `serve --socket` path: the stand-in's CLI core

    if name == base.DEFAULT_SESSION_NAME:
        return None
    problem = base.validate_session_name(name)
    if problem:
        raise UsageError(f"--herdr-session: {problem}")
    return name


def _serve_socket(args) -> str:
    """The socket `simherdr serve` listens on: --socket, else herdr's session rules
    (src/session.rs:173-181) applied to --session NAME."""
    if args.socket:
        return args.socket
    from .stub.cli import base

    problem = base.validate_session_name(args.session)
    if args.session != base.DEFAULT_SESSION_NAME and problem:
        raise ValueError(f"--session: {problem}")
    name = None if args.session == base.DEFAULT_SESSION_NAME else args.session
    return base.api_socket_path_for(dict(os.environ), name)


# --- ctl ------------------------------------------------------------------------------------------

#: ``simherdr ctl`` exit statuses (README "The control plane").
CTL_OK, CTL_REFUSED, CTL_USAGE, CTL_UNREACHABLE = 0, 1, 2, 3


def _add_ctl(sub) -> None:
    c = sub.add_parser(
        "ctl",
        help="send one op to a running simulator's control socket",
        description="Exit status: 0 done, 1 the op refused (its message on stderr), 2 bad "
        "usage, 3 the control socket could not be reached or did not answer.",
    )
    c.add_argument(
        "--control", metavar="PATH", help="the control socket ($SIMHERDR_CONTROL_SOCKET)"
    )
    c.add_argument("--timeout", type=_seconds, default=10.0, help="seconds to wait for the reply")
    c.add_argument(
        "op",
        help="fault.add, fault.remove, fault.list, fault.clear, agent.exit, agent.block, "
        "agent.state, session.report, pane.reuse, agent.vanish, detection.misread, agent.suspend, "
        "agent.fg, shell.busy, shell.idle, shell.cd, foreground.cwd, "
        "behaviour.set, server.restart, server.reset, server.info, trace.get, trace.clear, "
        "scenario.load, ops",
    )
    c.add_argument(
        "args",
        nargs="?",
        help='the op\'s arguments as a JSON object, e.g. \'{"pane_id": "w1:p1"}\'',
    )
    c.set_defaults(fn=_ctl)


def _ctl(args) -> int:  # `simherdr ctl` is dispatched to simherdr.ctl by main() (fast path)
    from . import ctl

    control = ["--control", args.control] if args.control else []
    return ctl.main(
        [*control, "--timeout", repr(args.timeout), args.op, *filter(None, [args.args])]
    )


# --- install-stub ---------------------------------------------------------------------------------

STUB_MARK = b"simherdr stand-in for the herdr"  # the launcher's first comment line


def _add_install_stub(sub) -> None:
    i = sub.add_parser(
        "install-stub",
        help="write a stand-in `herdr` binary into DIR",
        description="The stand-in speaks the herdr version it is written for; it must match "
        "the server's (`serve --herdr-version`), else every call fails with "
        "protocol_mismatch. --herdr-version auto (the default with --socket) asks the "
        "running server.",
    )
    i.add_argument("dir")
    i.add_argument(
        "--herdr-version",
        default=None,
        choices=(*VERSIONS, "auto"),
        help=f"default: auto with --socket, else {DEFAULT_VERSION}",
    )
    i.add_argument("--socket", metavar="PATH", help="a running server: its version is used")
    i.add_argument(
        "--force", action="store_true", help="replace a `herdr` in DIR that simherdr did not write"
    )
    i.set_defaults(fn=_install_stub)


def _server_version(path: str) -> str:
    import json
    import socket

    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect(path)
        s.sendall(b'{"id":"install-stub","method":"ping","params":{}}\n')
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        version = json.loads(buf)["result"]["version"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        why = getattr(e, "strerror", None) or "no pong"
        raise UsageError(
            f"--socket {path}: cannot ask the server for its version ({why}); start "
            f"`simherdr serve --socket {path}` first or give --herdr-version"
        ) from None
    finally:
        s.close()
    if version not in VERSIONS:
        raise UsageError(f"--socket {path}: the server speaks herdr {version}, unknown to simherdr")
    return version


def _install_stub(args) -> int:
    version = args.herdr_version or ("auto" if args.socket else DEFAULT_VERSION)
    if version == "auto":
        if not args.socket:
            raise UsageError("--herdr-version auto needs --socket PATH (a running server)")
        version = _server_version(args.socket)
    elif args.socket:
        running = _server_version(args.socket)
        if running != version:
            raise UsageError(
                f"--herdr-version {version} does not match the server at {args.socket} "
                f"(herdr {running}): every call would fail with protocol_mismatch; use "
                f"--herdr-version {running} or auto"
            )
    directory = os.path.abspath(args.dir)
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise UsageError(f"{directory} is not a directory: give the directory to put herdr in")
    target = os.path.join(directory, "herdr")
    if os.path.lexists(target) and not args.force:
        try:
            with open(target, "rb") as f:
                head = f.read(1 << 20)  # (the native launcher's mark is in its data)
        except OSError:
            head = b""
        if STUB_MARK not in head:
            raise UsageError(
                f"{target} exists and was not written by simherdr: refusing to replace it "
                f"(use --force to replace it anyway, or another directory)"
            )
    from .stub.install import is_native, write_stub

    try:
        path = write_stub(directory, herdr_version=version)
    except OSError as e:
        raise UsageError(f"cannot write {target}: {e.strerror}") from None
    print(path)
    # one line on stderr (stdout is the path, for "$(simherdr install-stub DIR)")
    if is_native(path):
        print("installed the native launcher (C; the Python stand-in beside it)", file=sys.stderr)
    else:
        print(
            "installed the Python stand-in (no C compiler found, or SIMHERDR_NATIVE_STUB=0)",
            file=sys.stderr,
        )
    return 0


# --- trace ----------------------------------------------------------------------------------------


def _add_trace(sub) -> None:
    t = sub.add_parser("trace", help="look at a trace (`serve --trace FILE`, the pytest plugin)")
    tsub = t.add_subparsers(
        dest="trace_cmd", metavar="view|show|export", required=True, parser_class=_parser_class()
    )
    v = tsub.add_parser("view", help="draw a trace as a self-contained HTML timeline")
    v.add_argument("file", help="a JSON-lines trace")
    v.add_argument("-o", "--output", help="the HTML file (default: FILE with .html)")
    v.set_defaults(fn=_trace_view)
    s = tsub.add_parser("show", help="print a trace, one line per step")
    s.add_argument("file", help="a JSON-lines trace")
    s.add_argument("--limit", type=int, default=400, help="show the last N entries")
    s.set_defaults(fn=_trace_show)
    _add_trace_export(tsub)


def _add_trace_export(tsub) -> None:  # simherdr.traceexport: Trace Event Format (Perfetto)
    x = tsub.add_parser("export", help="write a trace for chrome://tracing / the Perfetto UI")
    x.add_argument("file", help="a JSON-lines trace")
    x.add_argument("--format", choices=("chrome", "perfetto", "jsonl"), default="chrome")
    x.add_argument(
        "-o", "--output", help="default: FILE with .trace.json (jsonl: stdout); -: stdout"
    )
    x.set_defaults(fn=_trace_export)


def _trace_export(args) -> int:
    from .traceexport import export

    text = export(_load_trace(args.file), args.format)
    out = args.output or (
        "-" if args.format == "jsonl" else os.path.splitext(args.file)[0] + ".trace.json"
    )
    if out == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror}") from None
    print(out)
    return 0


def _load_trace(path: str) -> list[dict]:
    from .trace import load

    try:
        return load(path)
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror}") from None
    except ValueError as e:
        raise UsageError(str(e)) from None


def _trace_view(args) -> int:
    from .traceview import render_html

    entries = _load_trace(args.file)
    out = args.output or (os.path.splitext(args.file)[0] + ".html")
    try:
        with open(out, "w", encoding="utf-8") as f:
            f.write(render_html(entries, title=os.path.basename(args.file)))
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror}") from None
    print(out)
    return 0


def _trace_show(args) -> int:
    from .trace import format_trace

    print(format_trace(_load_trace(args.file), limit=max(args.limit, 1)))
    return 0


# --- scenario -------------------------------------------------------------------------------------


def _add_scenario(sub) -> None:
    from .scenario_cli import add_parser  # list | show | run (simherdr/scenario_cli.py)

    add_parser(sub, _parser_class(), UsageError, VERSIONS, DEFAULT_VERSION)


# --- demo -----------------------------------------------------------------------------------------


def _add_demo(sub) -> None:
    d = sub.add_parser(
        "demo", help="start a simulator and drive a short session with the stand-in binary"
    )
    d.add_argument("--herdr-version", default=DEFAULT_VERSION, choices=VERSIONS)
    d.set_defaults(fn=_demo)


def _demo(args) -> int:
    from .demo import run_demo

    return run_demo(herdr_version=args.herdr_version)


# --- main -----------------------------------------------------------------------------------------


def _add_record(sub) -> None:
    from .contract.cli import add_record_parser  # simherdr.contract: record, verify, diff

    add_record_parser(sub)


def _add_contract(sub) -> None:
    from .contract.cli import add_contract_parser

    add_contract_parser(sub)


def _add_run(sub) -> None:  # simherdr.run: a client's suite against a private simulator
    from . import run

    run.add_parser(sub, _time_scale, VERSIONS)
    # its server is this CLI's `serve` in a forked child (simherdr.runserver, run-server-fork)
    sub.choices["run"].set_defaults(
        fn=lambda args: _usage_from(run.BadUsage, lambda a: run.main(a, serve=main), args)
    )


def _usage_from(error: type[Exception], fn, args) -> int:
    try:
        return fn(args)
    except error as e:
        raise UsageError(str(e)) from None


def _add_versions(sub) -> None:
    from .versions_cli import add_parser  # simherdr/versions_cli.py

    add_parser(sub)


#: Each subcommand's name and the function that declares it (``parser(only=NAME)`` builds one).
SUBCOMMANDS = {
    "serve": _add_serve,
    "ctl": _add_ctl,
    "install-stub": _add_install_stub,
    "trace": _add_trace,
    "scenario": _add_scenario,
    "demo": _add_demo,
    "record": _add_record,
    "contract": _add_contract,
    "run": _add_run,
    "versions": _add_versions,
}


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; ``only``: just that subcommand, what ``simherdr NAME ...``
    parses the same way without building (and importing) the others: a start of ``simherdr
    run`` no longer imports the contract, scenario and versions commands (start-up time)."""
    ap = _parser_class()(prog="simherdr", description="A faithful herdr simulator.")
    ap.add_argument("--version", action="version", version=f"simherdr {__version__}")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=_parser_class())
    for name, add in SUBCOMMANDS.items():
        if only is None or name == only:
            add(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["ctl"]:  # stdlib only, no parser built: a per-test reset costs milliseconds
        from .ctl import main as ctl_main

        return ctl_main(words[1:])
    if words == ["--version"]:  # what the whole parser's version action prints, without it
        print(f"simherdr {__version__}")  # (it imports every command's module: ~3x the start)
        return 0
    # a known subcommand first: only its parser (its own help and errors are the same); else
    # (no subcommand, --help, --version, a mistake) the whole command line answers
    only = words[0] if words[:1] and words[0] in SUBCOMMANDS else None
    args = (_serve_args(words[1:]) if only == "serve" else None) or parser(only).parse_args(words)
    prog = "simherdr " + args.cmd
    try:
        status = args.fn(args)
        if argv is None and args.cmd == "serve":  # this process's own command line
            _end_process(status)
        return status
    except UsageError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `simherdr scenario list | head`: the reader left, not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as e:  # never a traceback for a user; SIMHERDR_DEBUG=1 shows it
        if os.environ.get("SIMHERDR_DEBUG"):
            raise
        print(
            f"{prog}: internal error: {e} (run with SIMHERDR_DEBUG=1 for details)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
