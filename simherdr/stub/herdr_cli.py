"""Stand-in for the ``herdr`` command-line binary (herdr 0.8.2, plus the 0.9.x deltas).

Same argv grammar, stdout/stderr bytes and exit codes as the real CLI, talking herdr's socket
protocol to any herdr-compatible Unix socket (simherdr's server or a real herdr).  Facts follow
``/work/shared/herdr/CLI.md`` and the herdr 0.8.2 source it cites (``src/cli/*.rs``,
``src/main.rs``, ``src/session.rs``); the 0.9.x deltas follow VERSIONS.md §1/§3.

Entry points: :func:`main` (what the launcher written by :mod:`simherdr.stub.install` calls)
and :func:`run` (the same with explicit environment and streams, for in-process tests).

Start-up cost matters (every agent harness call spawns this), so this module imports only
``os``, ``sys`` and ``time``; the socket/JSON layer lives in :mod:`._wire`, imported on first
use (``--version`` and usage errors never load it).

Choices that CLI.md does not settle are marked ``CHOICE:`` below.
"""

from __future__ import annotations

import os
import sys
import time

# ---------------------------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------------------------

#: What every command this stand-in does not implement prints (stderr, exit 2).
UNSUPPORTED_MESSAGE = "simherdr: '{command}' is not supported by this stand-in"
UNSUPPORTED_EXIT_CODE = 2

#: Client protocol per herdr version (VERSIONS.md §1.1).  Any other version is refused.
VERSION_PROTOCOLS = {"0.8.2": 20, "0.9.0": 22, "0.9.1": 22, "0.9.3": 22}
DEFAULT_VERSION = "0.9.3"

#: simherdr extension (not a herdr variable): the simulator may run on a scaled clock.  Every
#: wait the CLI itself performs (agent start's 100 ms poll, 2 s busy-shell window and start
#: deadline; server stop's 25 ms poll and 15 s limit) is divided by this factor.  Messages keep
#: herdr's nominal numbers.  Not-a-number, infinite or non-positive values mean 1.0.
TIME_SCALE_ENV = "SIMHERDR_TIME_SCALE"

AGENT_START_POLL_INTERVAL = 0.100  # s, src/cli/agent.rs:9
PANE_SHELL_READINESS_RETRY_TIMEOUT = 2.0  # s, src/cli/agent.rs:10
AGENT_START_DEFAULT_TIMEOUT_MS = 30_000  # src/cli/agent.rs:341
AGENT_START_SETTLE_DELAY_MS = 3_000  # src/app/agents.rs:10 (busy retry needs timeout > this)
MAX_AGENT_START_TIMEOUT_MS = 300_000  # src/app/agents.rs:9
STOP_WAIT_TIMEOUT = 15.0  # s, src/session.rs:14
STOP_WAIT_POLL = 0.025  # s, src/session.rs:15

SESSION_ENV = "HERDR_SESSION"
SOCKET_PATH_ENV = "HERDR_SOCKET_PATH"
CLIENT_SOCKET_PATH_ENV = "HERDR_CLIENT_SOCKET_PATH"
DEFAULT_SESSION_NAME = "default"
APP_DIR_NAME = "herdr"  # release builds; debug builds use herdr-dev (CLI.md §2.1)

USAGE_FOOTER = "run 'herdr --help' for usage"

# Kinds, aliases and shell names: the one table in simherdr.facts.kinds (import-light on
# purpose: no typing, no re, so the stand-in still starts fast).
from simherdr.facts.kinds import (
    KIND_NAMES as AGENT_KINDS,
    is_shell_name as _is_shell_name,
    parse_kind as parse_agent_kind,
)  # noqa: E402

_AGENT_STATUSES = ("idle", "working", "blocked", "done", "unknown")
_PANE_AGENT_STATES = ("idle", "working", "blocked", "unknown")

# ---------------------------------------------------------------------------------------------
# Clock hooks (tests replace these; SIMHERDR_TIME_SCALE feeds them)
# ---------------------------------------------------------------------------------------------

_TIME_SCALE = 1.0


def _monotonic() -> float:
    """Nominal seconds: the real monotonic clock multiplied by the time scale."""
    return time.monotonic() * _TIME_SCALE


def _sleep(seconds: float) -> None:
    """Sleep for ``seconds`` nominal seconds (real time divided by the time scale)."""
    if seconds > 0:
        time.sleep(seconds / _TIME_SCALE)


def _read_time_scale(env) -> float:
    raw = env.get(TIME_SCALE_ENV)
    if not raw:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        return 1.0
    if value != value or value in (float("inf"), float("-inf")) or value <= 0:
        return 1.0
    return value


# ---------------------------------------------------------------------------------------------
# Control flow
# ---------------------------------------------------------------------------------------------


class _Failure(Exception):
    """Base for everything that ends the process with its own report (see ._wire)."""

    def report(self, ctx) -> int:  # pragma: no cover - overridden
        return 1


class _Exit(Exception):
    """Print ``message`` (if any) to stderr and exit with ``code``."""

    def __init__(self, code: int, message: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message


def _usage(message: str, code: int = 2) -> _Exit:
    return _Exit(code, message)


def _wire():
    from . import _wire as wire

    return wire


class _Ctx:
    """Per-invocation state: environment (mutated like herdr mutates its own), streams, version."""

    def __init__(self, version: str, env: dict, stdout, stderr, argv0: str | None):
        self.version = version
        self.protocol = VERSION_PROTOCOLS[version]
        self.v09 = self.protocol >= 22
        self.env = env
        self.stdout = stdout
        self.stderr = stderr
        self.argv0 = argv0
        self.explicit_session = False

    # -- output -----------------------------------------------------------------------------
    @staticmethod
    def _bytes(text: str) -> bytes:
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            return text.encode(
                "utf-8", "surrogateescape" if _only_escapes(text) else "surrogatepass"
            )

    def write_out(self, text: str) -> None:
        self.stdout.write(self._bytes(text))

    def write_err(self, text: str) -> None:
        self.stderr.write(self._bytes(text))

    # -- environment ------------------------------------------------------------------------
    def var(self, name: str):
        """``std::env::var``: None when unset or not valid Unicode."""
        value = self.env.get(name)
        if value is None or _has_surrogates(value):
            return None
        return value

    def var_os_set(self, name: str) -> bool:
        return name in self.env

    # -- paths (src/config/io.rs, src/session.rs) --------------------------------------------
    def config_dir(self) -> str:
        xdg = self.var("XDG_CONFIG_HOME")
        if xdg is not None:
            return _join(xdg, APP_DIR_NAME)
        home = self.var("HOME")
        if home is not None:
            return _join(home, ".config/" + APP_DIR_NAME)
        tmp = self.env.get("TMPDIR") or "/tmp"
        return _join(tmp, APP_DIR_NAME)

    def active_name(self):
        name = self.var(SESSION_ENV)
        if name is None or name == DEFAULT_SESSION_NAME or _validate_session_name(name):
            return None
        return name

    def data_dir_for(self, name) -> str:
        base = self.config_dir()
        return _join(_join(base, "sessions"), name) if name else base

    def api_socket_path_for(self, name) -> str:
        return _join(self.data_dir_for(name), "herdr.sock")

    def socket_path(self) -> str:
        if self.explicit_session:
            return self.api_socket_path_for(self.active_name())
        override = self.var(SOCKET_PATH_ENV)
        if override is not None:
            return override
        return self.api_socket_path_for(self.active_name())

    def client_socket_path(self) -> str:
        """src/server/socket_paths.rs client_socket_path (server stop waits for it too)."""
        if self.explicit_session:
            return _join(self.data_dir_for(self.active_name()), "herdr-client.sock")
        override = self.var(SOCKET_PATH_ENV)
        if override is not None:
            parent, stem = _parent_and_stem(override)
            return _join(parent, (stem or "herdr") + "-client.sock")
        legacy = self.var(CLIENT_SOCKET_PATH_ENV)
        if legacy is not None:
            return legacy
        return _join(self.data_dir_for(self.active_name()), "herdr-client.sock")

    def local_attach_command(self) -> str:
        name = self.active_name()
        return "herdr session attach %s" % name if name else "herdr"

    def startup_command(self, socket_path: str) -> str:
        """src/cli/server_not_running.rs startup_command."""
        session_socket = self.api_socket_path_for(self.active_name())
        if _path_components(socket_path) == _path_components(session_socket):
            return self.local_attach_command()
        return "herdr"

    def restart_guidance(self) -> str:
        """src/session.rs active_restart_after_update_guidance."""
        head = "Stop the old server to use the new version.\nStopping exits pane processes.\n"
        if not self.explicit_session:
            override = self.var(SOCKET_PATH_ENV)
            if override is not None:
                return head + (
                    "Run `%s=%s herdr server stop`, then restart Herdr with the same socket override."
                    % (SOCKET_PATH_ENV, override)
                )
        name = self.active_name()
        stop = "herdr session stop %s" % name if name else "herdr server stop"
        return head + "Run `%s`, then run `%s` again." % (stop, self.local_attach_command())


def _has_surrogates(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def _only_escapes(text: str) -> bool:
    return all(not ("\ud800" <= ch <= "\udfff") or "\udc80" <= ch <= "\udcff" for ch in text)


def _join(base: str, rest: str) -> str:
    """``PathBuf::join`` (an absolute ``rest`` replaces ``base``)."""
    if rest.startswith("/") or not base:
        return rest
    return base + rest if base.endswith("/") else base + "/" + rest


def _parent_and_stem(path: str):
    """``(Path::parent, Path::file_stem)`` for a unix path string (None when absent)."""
    trimmed = path.rstrip("/")
    if not trimmed:
        return "", None
    if "/" in trimmed:
        parent, base = trimmed.rsplit("/", 1)
        parent = parent.rstrip("/") or "/"
    else:
        parent, base = "", trimmed
    if base in (".", ".."):
        return parent, None
    if "." not in base or (base.startswith(".") and base.count(".") == 1):
        return parent, base
    return parent, base.rsplit(".", 1)[0]


def _path_components(path: str):
    """``Path`` equality compares components (repeated and trailing '/', inner '.', ignored)."""
    parts = path.split("/")
    out = ["/"] if path.startswith("/") else []
    for index, part in enumerate(parts):
        if part == "" or (part == "." and index > 0):
            continue
        out.append(part)
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


def main(argv, version: str = DEFAULT_VERSION) -> int:
    """Run the stand-in with the process environment and standard streams."""
    out = getattr(sys.stdout, "buffer", sys.stdout)
    err = getattr(sys.stderr, "buffer", sys.stderr)
    try:
        return run(
            list(argv),
            version=version,
            env=dict(os.environ),
            stdout=out,
            stderr=err,
            argv0=sys.argv[0] if sys.argv else None,
        )
    finally:
        try:
            out.flush()
            err.flush()
        except (OSError, ValueError):  # pragma: no cover - closed pipes
            pass


def run(
    argv,
    *,
    version: str = DEFAULT_VERSION,
    env=None,
    stdout=None,
    stderr=None,
    argv0: str | None = None,
) -> int:
    """Run one CLI invocation; returns the exit code. ``env`` is copied, never mutated."""
    if version not in VERSION_PROTOCOLS:
        raise ValueError(
            "unsupported herdr version %r (known: %s)" % (version, ", ".join(VERSION_PROTOCOLS))
        )
    global _TIME_SCALE
    env = dict(os.environ if env is None else env)
    _TIME_SCALE = _read_time_scale(env)
    ctx = _Ctx(
        version,
        env,
        stdout if stdout is not None else sys.stdout.buffer,
        stderr if stderr is not None else sys.stderr.buffer,
        argv0,
    )
    try:
        return _run(ctx, list(argv))
    except _Exit as exc:
        if exc.message is not None:
            ctx.write_err(exc.message + "\n")
        return exc.code
    except _Failure as failure:
        return failure.report(ctx)


def _run(ctx: _Ctx, argv: list) -> int:
    # src/main.rs:519-527: arguments must be UTF-8 (Python hands them over surrogate-escaped).
    for index, arg in enumerate(argv, start=1):
        if _has_surrogates(arg):
            raise _Exit(2, "error: argument %d is not valid UTF-8\n%s" % (index, USAGE_FOOTER))
    args = _configure_session(ctx, argv)
    args, remote = _extract_remote_args(args)
    if (
        remote
        and args
        and not any(
            a in ("--help", "-h", "--version", "-V", "--default-config", "--skill") for a in args
        )
    ):
        raise _Exit(
            2, "error: --remote can only be used with the default launch command\n" + USAGE_FOOTER
        )
    if ctx.v09 and _has_machine_prefix(args):
        # 0.9.x `herdr --machine <label> <command>` routes to a saved SSH machine.
        return _unsupported(ctx, "herdr --machine")
    handled = _maybe_run_cli(ctx, args)
    if handled is not None:
        return handled
    return _launcher(ctx, args, remote)


def _fail_global(message: str) -> _Exit:
    return _Exit(2, "error: %s\n%s" % (message, USAGE_FOOTER))


def _validate_session_name(name: str):
    """src/session.rs validate_name; returns the error message or None."""
    if not name:
        return "session name cannot be empty"
    if len(name.encode("utf-8", "surrogatepass")) > 64:
        return "session name cannot be longer than 64 bytes"
    if name in (".", ".."):
        return "session name cannot be . or .."
    for ch in name:
        if not (ch.isascii() and (ch.isalnum() or ch in "._-")):
            return "session name may only contain ASCII letters, numbers, '.', '_' and '-'"
    return None


def _configure_session(ctx: _Ctx, argv: list) -> list:
    """src/session.rs configure_from_args: strip the global --session before a literal `--`."""
    cleaned = []
    requested = None
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            cleaned.extend(argv[index:])
            break
        if arg == "--session":
            if index + 1 >= len(argv):
                raise _fail_global("missing value for --session")
            requested = argv[index + 1]
            index += 2
            continue
        if arg.startswith("--session="):
            requested = arg[len("--session=") :]
            index += 1
            continue
        cleaned.append(arg)
        index += 1
    if requested is not None:
        _apply_session_name(ctx, requested)
        ctx.explicit_session = True
    elif ctx.var_os_set(SOCKET_PATH_ENV):
        pass
    else:
        session = ctx.var(SESSION_ENV)
        if session is not None:
            if session == DEFAULT_SESSION_NAME:
                ctx.env.pop(SESSION_ENV, None)
            else:
                problem = _validate_session_name(session)
                if problem:
                    raise _fail_global(problem)
    return cleaned


def _apply_session_name(ctx: _Ctx, name: str) -> None:
    if name == DEFAULT_SESSION_NAME:
        ctx.env.pop(SESSION_ENV, None)
        return
    problem = _validate_session_name(name)
    if problem:
        raise _fail_global(problem)
    ctx.env[SESSION_ENV] = name


def _extract_remote_args(argv: list):
    """src/remote/attach.rs extract_remote_args (global --remote/--remote-keybindings/--handoff)."""
    cleaned = []
    remote = None
    keybindings_seen = False
    handoff = False
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            cleaned.extend(argv[index:])
            break
        if arg == "--handoff":
            handoff = True
            index += 1
            continue
        if arg == "--remote" or arg.startswith("--remote="):
            if remote is not None:
                raise _fail_global("--remote can only be specified once")
            if arg == "--remote":
                if index + 1 >= len(argv):
                    raise _fail_global("missing value for --remote")
                value = argv[index + 1]
                index += 2
            else:
                value = arg[len("--remote=") :]
                index += 1
            if not value:
                raise _fail_global("missing value for --remote")
            if value.startswith("-"):
                raise _fail_global("--remote target must not start with '-'")
            remote = value
            continue
        if arg == "--remote-keybindings" or arg.startswith("--remote-keybindings="):
            if keybindings_seen:
                raise _fail_global("--remote-keybindings can only be specified once")
            if arg == "--remote-keybindings":
                if index + 1 >= len(argv):
                    raise _fail_global("missing value for --remote-keybindings")
                value = argv[index + 1]
                index += 2
            else:
                value = arg[len("--remote-keybindings=") :]
                index += 1
            if value not in ("local", "server"):
                # CHOICE: RemoteKeybindings::parse's exact message is not in CLI.md; this is a
                # plausible wording for a flag that only matters to the (unsupported) TUI.
                raise _fail_global(
                    "invalid value for --remote-keybindings: %s (expected local or server)" % value
                )
            keybindings_seen = True
            continue
        cleaned.append(arg)
        index += 1
    if remote is None and keybindings_seen:
        raise _fail_global("--remote-keybindings requires --remote")
    if remote is None and handoff:
        cleaned.append("--handoff")
    return cleaned, remote


def _has_machine_prefix(args: list) -> bool:
    # CHOICE: 0.9.x's `--machine <label>` prefix (saved SSH machines) is not emulated; any
    # leading `--machine` makes the whole call unsupported.
    for arg in args:
        if arg == "--machine" or arg.startswith("--machine="):
            return True
        if not arg.startswith("-") or arg == "--":
            return False
    return False


def _unsupported(ctx: _Ctx, command: str) -> int:
    ctx.write_err(UNSUPPORTED_MESSAGE.format(command=command) + "\n")
    return UNSUPPORTED_EXIT_CODE


# ---------------------------------------------------------------------------------------------
# Clap help interception (src/cli/spec.rs print_requested_help)
# ---------------------------------------------------------------------------------------------

# The clap subcommand tree, used only to decide whether `--help`/`-h` would print clap's
# generated long help (which this stand-in does not reproduce) or reach the normal parser.
_LEAF = {}
_SPEC_TREE = {
    "completion": _LEAF,
    "completions": _LEAF,  # visible alias
    "update": _LEAF,
    "status": {"server": _LEAF, "client": _LEAF},
    "config": {"check": _LEAF, "reset-keys": _LEAF},
    "channel": {"show": _LEAF, "set": _LEAF},
    "server": dict.fromkeys(
        [
            "stop",
            "reload-config",
            "agent-manifests",
            "update-agent-manifests",
            "reload-agent-manifests",
        ],
        _LEAF,
    ),
    "api": {"snapshot": _LEAF, "schema": _LEAF},
    "workspace": dict.fromkeys(
        ["list", "create", "get", "focus", "rename", "report-metadata", "close"], _LEAF
    ),
    "worktree": dict.fromkeys(["list", "create", "open", "remove"], _LEAF),
    "tab": dict.fromkeys(["list", "create", "get", "focus", "rename", "close"], _LEAF),
    "notification": {"show": _LEAF},
    "agent": dict.fromkeys(
        [
            "list",
            "get",
            "read",
            "send-keys",
            "prompt",
            "rename",
            "focus",
            "wait",
            "attach",
            "start",
            "explain",
        ],
        _LEAF,
    ),
    "pane": dict.fromkeys(
        [
            "list",
            "current",
            "get",
            "layout",
            "process-info",
            "neighbor",
            "edges",
            "focus",
            "resize",
            "zoom",
            "read",
            "rename",
            "input",
            "split",
            "swap",
            "move",
            "close",
            "send-text",
            "send-keys",
            "wait-output",
            "run",
            "report-agent",
            "report-agent-session",
            "release-agent",
            "report-metadata",
        ],
        _LEAF,
    ),
    "terminal": {
        "attach": _LEAF,
        "session": {"control": _LEAF, "observe": _LEAF},
        "title": {"set": _LEAF, "clear": _LEAF},
    },
    "session": dict.fromkeys(["list", "attach", "stop", "delete"], _LEAF),
    "integration": dict.fromkeys(["install", "uninstall", "status"], _LEAF),
    "plugin": {
        **dict.fromkeys(
            ["install", "uninstall", "link", "unlink", "enable", "disable", "list", "config-dir"],
            _LEAF,
        ),
        "action": {"list": _LEAF, "invoke": _LEAF},
        "log": {"list": _LEAF},
        "pane": {"open": _LEAF, "focus": _LEAF, "close": _LEAF},
    },
}


def _clap_help_path(ctx: _Ctx, args: list):
    """The command path clap would print long help for, or None (argv without program)."""
    help_index = None
    for index, arg in enumerate(args):
        if arg in ("--help", "-h"):
            help_index = index
            break
    if help_index is None or help_index < 1:
        return None
    if "--" in args[:help_index]:
        return None
    node = dict(_SPEC_TREE)
    if ctx.v09:
        # CHOICE: 0.9.x adds `herdr machine`; its subcommands are unknown (VERSIONS.md §1.7).
        node["machine"] = _LEAF
    path = []
    for segment in args[:help_index]:
        if segment not in node:
            break
        path.append(segment)
        node = node[segment]
    if not path or len(path) != help_index:
        return None
    return path


# ---------------------------------------------------------------------------------------------
# CLI dispatch (src/cli.rs maybe_run) and launcher fallback (src/main.rs)
# ---------------------------------------------------------------------------------------------

_OUT_OF_SCOPE_GROUPS = (
    "completion",
    "completions",
    "config",
    "channel",
    "notification",
    "terminal",
    "plugin",
    "integration",
    "session",
)


def _maybe_run_cli(ctx: _Ctx, args: list):
    if not args:
        return None
    help_path = _clap_help_path(ctx, args)
    if help_path is not None:
        # CHOICE: clap's generated long help is not reproduced.
        return _unsupported(ctx, "herdr %s %s" % (" ".join(help_path), args[len(help_path)]))
    command, rest = args[0], args[1:]
    if command == "server":
        if not rest or rest[0] == "--handoff-import":
            return None  # NotCli: the headless server (launcher path)
        return _run_server(ctx, rest)
    groups = {
        "workspace": _run_workspace,
        "worktree": _run_worktree,
        "tab": _run_tab,
        "pane": _run_pane,
        "agent": _run_agent,
        "api": _run_api,
        "status": _run_status,
    }
    handler = groups.get(command)
    if handler is not None:
        return handler(ctx, rest)
    if command in _OUT_OF_SCOPE_GROUPS or (ctx.v09 and command == "machine"):
        return _unsupported(ctx, " ".join(["herdr", command] + rest[:1]))
    return None


_LAUNCHER_WORDS = (
    "server",
    "client",
    "remote-client-bridge",
    "update",
    "status",
    "config",
    "channel",
    "workspace",
    "worktree",
    "pane",
    "session",
    "integration",
)


def _launcher(ctx: _Ctx, args: list, remote) -> int:
    """src/main.rs after cli::maybe_run returned NotCli.

    CHOICE: everything that would start a process other than a socket client (the TUI launch,
    remote attach, `herdr server`, `client`, `update`, `remote-client-bridge`) and the bundled
    texts (`--default-config`, `--skill`, root `--help`) print UNSUPPORTED_MESSAGE, exit 2.
    """
    first = args[0] if args else None
    if first in ("remote-client-bridge", "server", "client", "update"):
        return _unsupported(ctx, "herdr " + first)
    if any(a in ("--help", "-h") for a in args):
        # CHOICE: the hand-written root help embeds the config and log paths; not reproduced.
        return _unsupported(ctx, "herdr --help")
    if any(a in ("--version", "-V") for a in args):
        ctx.write_out("herdr %s\n" % ctx.version)
        return 0
    for flag in ("--default-config", "--skill"):
        if flag in args:
            return _unsupported(ctx, "herdr " + flag)
    known_flags = [
        "--session",
        "--remote",
        "--remote-keybindings",
        "--version",
        "-V",
        "--default-config",
        "--skill",
        "--help",
        "-h",
    ]
    if not ctx.v09:
        # CHOICE: 0.9.0 removed --no-session (VERSIONS.md §1.7), so 0.9.x calls it unknown.
        known_flags.append("--no-session")
    for arg in args:
        name = arg.split("=", 1)[0]
        if arg.startswith("-") and name not in known_flags:
            raise _Exit(2, "unknown option: %s\n%s" % (arg, USAGE_FOOTER))
        if not arg.startswith("-") and arg not in _LAUNCHER_WORDS:
            raise _Exit(2, "unknown command: %s\n%s" % (arg, USAGE_FOOTER))
    return _unsupported(ctx, "herdr")  # the TUI launcher / remote attach


def _group(ctx, args, help_lines, verbs, group):
    """Common group dispatch: no verb / unknown verb -> list + exit 2; `help` -> list + exit 0."""
    if not args:
        raise _Exit(2, "\n".join(help_lines))
    verb = args[0]
    if verb in ("help", "--help", "-h"):
        raise _Exit(0, "\n".join(help_lines))
    handler = verbs.get(verb)
    if handler is None:
        raise _Exit(2, "\n".join(help_lines))
    if handler is _UNSUPPORTED_VERB:
        return _unsupported(ctx, "herdr %s %s" % (group, verb))
    return handler(ctx, args[1:])


_UNSUPPORTED_VERB = object()

# ---------------------------------------------------------------------------------------------
# Group command lists (stderr).  0.8.2 texts are herdr 0.8.2's own (src/cli/*.rs print_*_help);
# the 0.9.x workspace/worktree lists follow a 0.9.x source file seen in a public fork.  Other
# 0.9.x lists are assumed unchanged from 0.8.2: only partially verified.
# ---------------------------------------------------------------------------------------------


def _workspace_help(ctx):
    close = (
        "  herdr workspace close <workspace_id> [--group]"
        if ctx.v09
        else "  herdr workspace close <workspace_id>"
    )
    return [
        "herdr workspace commands:",
        "  herdr workspace list",
        "  herdr workspace create [--cwd PATH] [--label TEXT] [--env KEY=VALUE] [--focus] [--no-focus]",
        "  herdr workspace get <workspace_id>",
        "  herdr workspace focus <workspace_id>",
        "  herdr workspace rename <workspace_id> <label>",
        "  herdr workspace report-metadata <workspace_id> --source ID [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]",
        close,
    ]


_TAB_HELP = [
    "herdr tab commands:",
    "  herdr tab list [--workspace <workspace_id>]",
    "  herdr tab create [--workspace <workspace_id>] [--cwd PATH] [--label TEXT] [--env KEY=VALUE] [--focus] [--no-focus]",
    "  herdr tab get <tab_id>",
    "  herdr tab focus <tab_id>",
    "  herdr tab rename <tab_id> <label>",
    "  herdr tab close <tab_id>",
]

_PANE_HELP = [
    "herdr pane commands:",
    "  herdr pane list [--workspace <workspace_id>]",
    "  herdr pane current [--pane ID|--current]",
    "  herdr pane get <pane_id>",
    "  herdr pane layout [--pane ID|--current]",
    "  herdr pane process-info [--pane ID|--current]",
    "  herdr pane neighbor --direction left|right|up|down [--pane ID|--current]",
    "  herdr pane edges [--pane ID|--current]",
    "  herdr pane focus --direction left|right|up|down [--pane ID|--current]",
    "  herdr pane resize --direction left|right|up|down [--amount FLOAT] [--pane ID|--current]",
    "  herdr pane zoom [<pane_id>|--pane ID|--current] [--toggle|--on|--off]",
    "  herdr pane rename <pane_id> <label>|--clear",
    "  herdr pane read <pane_id> [--source visible|recent|recent-unwrapped] [--lines N] [--format text|ansi] [--ansi]",
    "  herdr pane input [<pane_id>|--pane ID|--current] --right-click herdr|pane",
    "  herdr pane split [<pane_id>|--pane ID|--current] --direction right|down [--ratio FLOAT] [--cwd PATH] [--env KEY=VALUE] [--right-click herdr|pane] [--focus] [--no-focus]",
    "  herdr pane swap --direction left|right|up|down [--pane ID|--current]",
    "  herdr pane swap --source-pane ID --target-pane ID",
    "  herdr pane move <pane_id> --tab <tab_id> --split right|down [--target-pane ID] [--ratio FLOAT] [--focus|--no-focus]",
    "  herdr pane move <pane_id> --new-tab [--workspace ID] [--label TEXT] [--focus|--no-focus]",
    "  herdr pane move <pane_id> --new-workspace [--label TEXT] [--tab-label TEXT] [--focus|--no-focus]",
    "  herdr pane close <pane_id>",
    "  herdr pane send-text <pane_id> <text>",
    "  herdr pane send-keys <pane_id> <key> [key ...]",
    "  herdr pane wait-output <pane_id> (--match TEXT | --regex PATTERN) [--source visible|recent|recent-unwrapped] [--lines N] [--timeout MS] [--raw]",
    "  herdr pane report-agent <pane_id> --source ID --agent LABEL --state idle|working|blocked|unknown [--message TEXT] [--seq N] [--agent-session-id ID] [--agent-session-path PATH]",
    "  herdr pane report-agent-session <pane_id> --source ID --agent LABEL [--seq N] [--agent-session-id ID] [--agent-session-path PATH]",
    "  herdr pane release-agent <pane_id> --source ID --agent LABEL [--seq N]",
    "  herdr pane report-metadata <pane_id> --source ID [--agent LABEL] [--applies-to-source ID] [--title TEXT|--clear-title] [--display-agent TEXT|--clear-display-agent] [--state-label STATUS=TEXT] [--clear-state-labels] [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]",
    "  herdr pane run <pane_id> <command>",
]

_AGENT_HELP = [
    "herdr agent commands:",
    "  herdr agent list",
    "  herdr agent get <target>",
    "  herdr agent read <target> [--source visible|recent|recent-unwrapped|detection] [--lines N] [--format text|ansi] [--ansi]",
    "  herdr agent send-keys <target> <key> [key ...]",
    "  herdr agent prompt <target> <text> [--wait] [--until STATUS]... [--timeout MS]",
    "  herdr agent rename <target> <name>|--clear",
    "  herdr agent focus <target>",
    "  herdr agent wait <target> [--until STATUS]... [--timeout MS]",
    "  herdr agent attach <target> [--takeover]",
    "  herdr agent start <name> --kind KIND --pane ID [--timeout MS] [-- <agent-args...>]",
    "  herdr agent explain <target> [--json|--format text|json] [--verbose]",
    "  herdr agent explain --file PATH --agent LABEL [--json|--format text|json] [--verbose]",
    "  targets accept unique agent names and pane ids that currently host agents",
    "  kinds: " + "|".join(AGENT_KINDS),
]


def _worktree_help(ctx):
    trust = " [--trust-repository]" if ctx.v09 else ""
    return [
        "herdr worktree commands:",
        "  herdr worktree list [--workspace ID | --cwd PATH]" + trust,
        "  herdr worktree create [--workspace ID | --cwd PATH] [--branch NAME] [--base REF] [--path PATH] [--label TEXT] [--focus] [--no-focus]"
        + trust,
        "  herdr worktree open [--workspace ID | --cwd PATH] (--path PATH | --branch NAME) [--label TEXT] [--focus] [--no-focus]"
        + trust,
        "  herdr worktree remove --workspace ID [--force]" + trust,
    ]


_API_HELP = [
    "herdr api commands:",
    "  herdr api snapshot",
    "  herdr api schema [--json | --output PATH]",
]

_SERVER_HELP = [
    "herdr server commands:",
    "  herdr server                run as headless server",
    "  herdr server stop           stop the running server via the API socket",
    "  herdr server live-handoff   hand off live panes to a new local server",
    "  herdr server reload-config  reload config.toml in the running server",
    "  herdr server agent-manifests [--json]  show agent detection manifest status",
    "  herdr server update-agent-manifests [--json]  fetch and reload agent detection manifests",
    "  herdr server reload-agent-manifests  reload agent detection manifests in the running server",
]

_STATUS_HELP = [
    "herdr status commands:",
    "  herdr status [--json]         show local client and running server status",
    "  herdr status server [--json]  show running server status",
    "  herdr status client [--json]  show local client binary status",
]

# ---------------------------------------------------------------------------------------------
# Small parsers (Rust semantics)
# ---------------------------------------------------------------------------------------------


def _parse_unsigned(text: str, bits: int):
    """``str::parse::<u32/u64>``: optional '+', ASCII digits only, no overflow."""
    digits = text[1:] if text.startswith("+") else text
    if not digits or any(c not in "0123456789" for c in digits):
        return None
    value = int(digits)
    return value if value < 2**bits else None


def _parse_u64_flag(flag: str, value: str, *, usage_exit: bool):
    """parse_u64_flag: usage error (exit 2) or io::Error::other (Error: Custom, exit 1)."""
    parsed = _parse_unsigned(value, 64)
    if parsed is None:
        _value_error("invalid value for %s: %s" % (flag, value), usage_exit)
    return parsed


def _parse_u32_flag(flag: str, value: str, *, usage_exit: bool):
    parsed = _parse_unsigned(value, 32)
    if parsed is None:
        _value_error("invalid value for %s: %s" % (flag, value), usage_exit)
    return parsed


def _value_error(message: str, usage_exit: bool):
    if usage_exit:
        raise _usage(message)
    raise _wire().custom_other(message)


def _parse_read_source(value: str, usage_exit: bool) -> str:
    mapping = {
        "visible": "visible",
        "recent": "recent",
        "recent-unwrapped": "recent_unwrapped",
        "recent_unwrapped": "recent_unwrapped",
        "detection": "detection",
    }
    if value not in mapping:
        _value_error("invalid read source: %s" % value, usage_exit)
    return mapping[value]


def _parse_read_format(value: str, usage_exit: bool) -> str:
    if value not in ("text", "ansi"):
        _value_error("invalid read format: %s" % value, usage_exit)
    return value


def _parse_agent_status(value: str) -> str:
    if value not in _AGENT_STATUSES:
        raise _usage(
            "invalid agent status: %s (expected idle, working, blocked, done, or unknown)" % value
        )
    return value


def _parse_env(raw: str):
    """parse_env_assignment (src/cli.rs:66-77)."""
    if "=" not in raw:
        raise _usage("env must use KEY=VALUE")
    key, value = raw.split("=", 1)
    if not key:
        raise _usage("env key must not be empty")
    if "\0" in key or "\0" in value:
        raise _usage("env must not contain NUL bytes")
    return key, value


def _expand_equals(args: list, value_options) -> list:
    """expand_equals_args: split `--flag=value` only for the listed value options."""
    out = []
    for arg in args:
        if "=" in arg:
            flag, value = arg.split("=", 1)
            if flag in value_options:
                out.append(flag)
                out.append(value)
                continue
        out.append(arg)
    return out


def _take_value(args: list, index: int, flag: str) -> str:
    if index + 1 >= len(args):
        raise _usage("missing value for %s" % flag)
    return args[index + 1]


def _env_pane_id(ctx: _Ctx):
    value = ctx.var("HERDR_PANE_ID")
    if value is None or not value.strip():
        return None
    return value


def _parse_f32(text: str):
    """``str::parse::<f32>``: the value, float('inf')/nan for non-finite, None if unparsable."""
    import re

    if not re.fullmatch(
        r"[+-]?(?:(?i:inf|infinity|nan)|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)", text
    ):
        return None
    value = float(text)
    import struct

    try:
        struct.pack("<f", value)
    except OverflowError:
        return float("inf")
    return value


# ---------------------------------------------------------------------------------------------
# Sending
# ---------------------------------------------------------------------------------------------


def _print_method(ctx, request_id, method, params) -> int:
    wire = _wire()
    return wire.print_response(ctx, wire.send(ctx, request_id, method, params))


def _send_ok(ctx, method, params) -> int:
    """send_ok_request: id cli:request, silent on success."""
    wire = _wire()
    loaded = wire.send(ctx, "cli:request", method, params)
    if wire.has_error(loaded.value):
        ctx.write_err(wire.dumps_sorted(loaded.value, loaded.exact_fast) + "\n")
        return 1
    return 0


# ---------------------------------------------------------------------------------------------
# workspace (src/cli/workspace.rs)
# ---------------------------------------------------------------------------------------------


def _run_workspace(ctx, args):
    verbs = {
        "list": _workspace_list,
        "create": _workspace_create,
        "get": lambda c, a: _one_id(c, a, "workspace", "get", "workspace_id"),
        "focus": lambda c, a: _one_id(c, a, "workspace", "focus", "workspace_id"),
        "rename": _workspace_rename,
        "report-metadata": _UNSUPPORTED_VERB,
        "close": _workspace_close,
    }
    return _group(ctx, args, _workspace_help(ctx), verbs, "workspace")


def _workspace_list(ctx, args):
    if args:
        raise _usage("usage: herdr workspace list")
    return _print_method(ctx, "cli:workspace:list", "workspace.list", {})


def _parse_create_flags(args, allow_workspace: bool):
    """Shared by workspace create and tab create (same flags, same messages)."""
    workspace_id = cwd = label = None
    focus = False
    env = {}
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--workspace" and allow_workspace:
            workspace_id = _take_value(args, index, "--workspace")
            index += 2
        elif arg == "--cwd":
            cwd = _take_value(args, index, "--cwd")
            index += 2
        elif arg == "--label":
            label = _take_value(args, index, "--label")
            index += 2
        elif arg == "--focus":
            focus = True
            index += 1
        elif arg == "--no-focus":
            focus = False
            index += 1
        elif arg == "--env":
            key, value = _parse_env(_take_value(args, index, "--env"))
            # CHOICE: herdr keeps env in a HashMap (random order on the wire); we keep first
            # insertion order, later duplicates overwrite the value.
            env[key] = value
            index += 2
        else:
            raise _usage("unknown option: %s" % arg)
    return workspace_id, cwd, focus, label, env


def _workspace_create(ctx, args):
    _ws, cwd, focus, label, env = _parse_create_flags(args, allow_workspace=False)
    params = {}
    if cwd is not None:
        params["cwd"] = cwd
    params["focus"] = focus
    if label is not None:
        params["label"] = label
    if env:
        params["env"] = env
    return _print_method(ctx, "cli:workspace:create", "workspace.create", params)


def _one_id(ctx, args, noun, verb, field):
    if len(args) != 1:
        raise _usage("usage: herdr %s %s <%s>" % (noun, verb, field))
    return _print_method(ctx, "cli:%s:%s" % (noun, verb), "%s.%s" % (noun, verb), {field: args[0]})


def _workspace_rename(ctx, args):
    if len(args) < 2:
        raise _usage("usage: herdr workspace rename <workspace_id> <label>")
    return _print_method(
        ctx,
        "cli:workspace:rename",
        "workspace.rename",
        {"workspace_id": args[0], "label": " ".join(args[1:])},
    )


def _workspace_close(ctx, args):
    if ctx.v09:
        # 0.9.x: `workspace close <id> [--group]`; close_group is omitted when false.
        if len(args) == 1:
            params = {"workspace_id": args[0]}
        elif len(args) == 2 and args[1] == "--group":
            params = {"workspace_id": args[0], "close_group": True}
        else:
            raise _usage("usage: herdr workspace close <workspace_id> [--group]")
        return _print_method(ctx, "cli:workspace:close", "workspace.close", params)
    return _one_id(ctx, args, "workspace", "close", "workspace_id")


# ---------------------------------------------------------------------------------------------
# tab (src/cli/tab.rs)
# ---------------------------------------------------------------------------------------------


def _run_tab(ctx, args):
    verbs = {
        "list": _tab_list,
        "create": _tab_create,
        "get": lambda c, a: _one_id(c, a, "tab", "get", "tab_id"),
        "focus": lambda c, a: _one_id(c, a, "tab", "focus", "tab_id"),
        "rename": _tab_rename,
        "close": lambda c, a: _one_id(c, a, "tab", "close", "tab_id"),
    }
    return _group(ctx, args, _TAB_HELP, verbs, "tab")


def _parse_workspace_filter(args):
    workspace_id = None
    index = 0
    while index < len(args):
        if args[index] == "--workspace":
            workspace_id = _take_value(args, index, "--workspace")
            index += 2
        else:
            raise _usage("unknown option: %s" % args[index])
    return {} if workspace_id is None else {"workspace_id": workspace_id}


def _tab_list(ctx, args):
    return _print_method(ctx, "cli:tab:list", "tab.list", _parse_workspace_filter(args))


def _tab_create(ctx, args):
    workspace_id, cwd, focus, label, env = _parse_create_flags(args, allow_workspace=True)
    params = {}
    if workspace_id is not None:
        params["workspace_id"] = workspace_id
    if cwd is not None:
        params["cwd"] = cwd
    params["focus"] = focus
    if label is not None:
        params["label"] = label
    if env:
        params["env"] = env
    return _print_method(ctx, "cli:tab:create", "tab.create", params)


def _tab_rename(ctx, args):
    if len(args) < 2:
        raise _usage("usage: herdr tab rename <tab_id> <label>")
    return _print_method(
        ctx, "cli:tab:rename", "tab.rename", {"tab_id": args[0], "label": " ".join(args[1:])}
    )


# ---------------------------------------------------------------------------------------------
# pane (src/cli/pane.rs)
# ---------------------------------------------------------------------------------------------


def _run_pane(ctx, args):
    verbs = {
        "list": _pane_list,
        "current": _pane_current,
        "get": lambda c, a: _pane_one(c, a, "get"),
        "layout": lambda c, a: _pane_optional(c, a, "cli:pane:layout", "pane.layout"),
        "process-info": lambda c, a: _pane_optional(
            c, a, "cli:pane:process_info", "pane.process_info"
        ),
        "neighbor": _UNSUPPORTED_VERB,
        "edges": _UNSUPPORTED_VERB,
        "focus": _UNSUPPORTED_VERB,
        "resize": _UNSUPPORTED_VERB,
        "zoom": _UNSUPPORTED_VERB,
        "read": _pane_read,
        "rename": _pane_rename,
        "input": _UNSUPPORTED_VERB,
        "split": _pane_split,
        "swap": _UNSUPPORTED_VERB,
        "move": _UNSUPPORTED_VERB,
        "close": lambda c, a: _pane_one(c, a, "close"),
        "send-text": _pane_send_text,
        "send-keys": _pane_send_keys,
        "wait-output": _pane_wait_output,
        "report-agent": _pane_report_agent,
        "report-agent-session": _pane_report_agent_session,
        "release-agent": _pane_release_agent,
        "report-metadata": _UNSUPPORTED_VERB,
        "run": _pane_run,
    }
    return _group(ctx, args, _PANE_HELP, verbs, "pane")


def _pane_list(ctx, args):
    return _print_method(ctx, "cli:pane:list", "pane.list", _parse_workspace_filter(args))


def _pane_one(ctx, args, verb):
    if len(args) != 1:
        raise _usage("usage: herdr pane %s <pane_id>" % verb)
    return _print_method(ctx, "cli:pane:" + verb, "pane." + verb, {"pane_id": args[0]})


def _pane_current(ctx, args):
    env_pane = _env_pane_id(ctx)
    caller = env_pane
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--pane":
            caller = _take_value(args, index, "--pane")
            index += 2
        elif arg == "--current":
            caller = env_pane
            index += 1
        else:
            raise _usage("unknown option: %s" % arg)
    params = {} if caller is None else {"caller_pane_id": caller}
    return _print_method(ctx, "cli:pane:current", "pane.current", params)


def _pane_optional(ctx, args, request_id, method):
    """pane layout / process-info: no flag = no pane id; --current = HERDR_PANE_ID or none."""
    env_pane = _env_pane_id(ctx)
    pane_id = None
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--pane":
            pane_id = _take_value(args, index, "--pane")
            index += 2
        elif arg == "--current":
            pane_id = env_pane
            index += 1
        else:
            raise _usage("unknown option: %s" % arg)
    return _print_method(ctx, request_id, method, {} if pane_id is None else {"pane_id": pane_id})


_PANE_READ_USAGE = (
    "usage: herdr pane read <pane_id> [--source visible|recent|recent-unwrapped|detection] "
    "[--lines N] [--format text|ansi] [--ansi] [--raw]"
)


def _pane_read(ctx, args):
    args = _expand_equals(args, ("--source", "--lines", "--format"))
    pane_id = None
    source, lines, fmt, strip_ansi = "recent", None, "text", True
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--source":
            source = _parse_read_source(_take_value(args, index, "--source"), True)
            index += 2
        elif arg == "--lines":
            lines = _parse_u32_flag("--lines", _take_value(args, index, "--lines"), usage_exit=True)
            index += 2
        elif arg == "--format":
            fmt = _parse_read_format(_take_value(args, index, "--format"), True)
            index += 2
        elif arg == "--ansi":
            fmt = "ansi"
            index += 1
        elif arg == "--raw":
            fmt = "ansi"
            strip_ansi = False
            index += 1
        elif arg.startswith("-"):
            raise _usage("unknown option: %s" % arg)
        else:
            if pane_id is not None:
                raise _usage("unexpected argument: %s" % arg)
            pane_id = arg
            index += 1
    if pane_id is None:
        raise _usage(_PANE_READ_USAGE)
    params = {"pane_id": pane_id, "source": source}
    if lines is not None:
        params["lines"] = lines
    params["format"] = fmt
    params["strip_ansi"] = strip_ansi
    wire = _wire()
    return wire.print_read_response(ctx, wire.send(ctx, "cli:pane:read", "pane.read", params))


def _pane_rename(ctx, args):
    if len(args) < 2:
        raise _usage("usage: herdr pane rename <pane_id> <label>|--clear")
    params = {"pane_id": args[0]}
    if not (len(args) == 2 and args[1] == "--clear"):
        params["label"] = " ".join(args[1:])
    return _print_method(ctx, "cli:pane:rename", "pane.rename", params)


_PANE_SPLIT_USAGE = (
    "usage: herdr pane split [<pane_id>|--pane ID|--current] --direction right|down [--ratio FLOAT] "
    "[--cwd PATH] [--env KEY=VALUE] [--right-click herdr|pane] [--focus] [--no-focus]"
)


def _pane_split(ctx, args):
    args = _expand_equals(args, ("--right-click",))
    env_pane = _env_pane_id(ctx)
    env = {}
    pane_id = direction = ratio = cwd = None
    focus = False
    right_click = "herdr"
    index = 0
    if args and not args[0].startswith("--"):
        pane_id = args[0]
        index = 1
    while index < len(args):
        arg = args[index]
        if arg == "--pane":
            pane_id = _take_value(args, index, "--pane")
            index += 2
        elif arg == "--current":
            if env_pane is None:
                raise _usage("--current requires HERDR_PANE_ID")
            pane_id = env_pane
            index += 1
        elif arg == "--direction":
            value = _take_value(args, index, "--direction")
            if value not in ("right", "down"):
                raise _usage("invalid split direction: %s" % value)
            direction = value
            index += 2
        elif arg == "--ratio":
            value = _take_value(args, index, "--ratio")
            parsed = _parse_f32(value)
            if parsed is None or parsed != parsed or parsed in (float("inf"), float("-inf")):
                raise _usage("invalid ratio: %s" % value)
            ratio = parsed
            index += 2
        elif arg == "--cwd":
            cwd = _take_value(args, index, "--cwd")
            index += 2
        elif arg == "--right-click":
            value = _take_value(args, index, "--right-click")
            if value not in ("herdr", "pane"):
                raise _usage("invalid right-click target: %s" % value)
            right_click = value
            index += 2
        elif arg == "--focus":
            focus = True
            index += 1
        elif arg == "--no-focus":
            focus = False
            index += 1
        elif arg == "--env":
            key, value = _parse_env(_take_value(args, index, "--env"))
            env[key] = value
            index += 2
        else:
            raise _usage("unknown option: %s" % arg)
    if direction is None:
        raise _usage(_PANE_SPLIT_USAGE)
    params = {}
    if pane_id is not None:
        params["target_pane_id"] = pane_id
    params["direction"] = direction
    if ratio is not None:
        params["ratio"] = _wire().F32(ratio)
    if cwd is not None:
        params["cwd"] = cwd
    params["focus"] = focus
    params["right_click"] = right_click
    if env:
        params["env"] = env
    return _print_method(ctx, "cli:pane:split", "pane.split", params)


def _pane_send_text(ctx, args):
    if len(args) < 2:
        raise _usage("usage: herdr pane send-text <pane_id> <text>")
    return _send_ok(ctx, "pane.send_text", {"pane_id": args[0], "text": " ".join(args[1:])})


def _pane_send_keys(ctx, args):
    if len(args) < 2:
        raise _usage("usage: herdr pane send-keys <pane_id> <key> [key ...]")
    return _send_ok(ctx, "pane.send_keys", {"pane_id": args[0], "keys": list(args[1:])})


def _pane_run(ctx, args):
    if len(args) < 2:
        raise _usage("usage: herdr pane run <pane_id> <command>")
    params = {"pane_id": args[0]}
    text = " ".join(args[1:])
    if text:  # PaneSendInputParams skips an empty text (src/api/schema/panes.rs)
        params["text"] = text
    params["keys"] = ["Enter"]
    return _send_ok(ctx, "pane.send_input", params)


_WAIT_OUTPUT_USAGE = (
    "usage: herdr pane wait-output <pane_id> (--match TEXT | --regex PATTERN) "
    "[--source visible|recent|recent-unwrapped] [--lines N] [--timeout MS] [--raw]"
)


def _pane_wait_output(ctx, args):
    args = _expand_equals(args, ("--match", "--regex", "--source", "--lines", "--timeout"))
    pane_id = matcher = lines = timeout_ms = None
    source, strip_ansi = "recent", True
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("--match", "--regex"):
            value = _take_value(args, index, arg)
            if matcher is not None:
                raise _usage("--match and --regex are mutually exclusive")
            matcher = {"type": "regex" if arg == "--regex" else "substring", "value": value}
            index += 2
        elif arg == "--source":
            source = _parse_read_source(_take_value(args, index, "--source"), True)
            index += 2
        elif arg == "--lines":
            lines = _parse_u32_flag("--lines", _take_value(args, index, "--lines"), usage_exit=True)
            index += 2
        elif arg == "--timeout":
            timeout_ms = _parse_u64_flag(
                "--timeout", _take_value(args, index, "--timeout"), usage_exit=True
            )
            index += 2
        elif arg == "--raw":
            strip_ansi = False
            index += 1
        elif arg.startswith("-"):
            raise _usage("unknown option: %s" % arg)
        else:
            if pane_id is not None:
                raise _usage("unexpected argument: %s" % arg)
            pane_id = arg
            index += 1
    if pane_id is None:
        raise _usage(_WAIT_OUTPUT_USAGE)
    if matcher is None:
        raise _usage("missing required --match or --regex")
    params = {"pane_id": pane_id, "source": source}
    if lines is not None:
        params["lines"] = lines
    params["match"] = matcher
    if timeout_ms is not None:
        params["timeout_ms"] = timeout_ms
    params["strip_ansi"] = strip_ansi
    return _print_method(ctx, "cli:pane:wait-output", "pane.wait_for_output", params)


_REPORT_AGENT_USAGE = (
    "usage: herdr pane report-agent <pane_id> --source ID --agent LABEL --state idle|working|blocked|unknown "
    "[--message TEXT] [--seq N] [--agent-session-id ID] [--agent-session-path PATH]"
)
_REPORT_AGENT_SESSION_USAGE = (
    "usage: herdr pane report-agent-session <pane_id> --source ID --agent LABEL [--seq N] "
    "[--agent-session-id ID] [--agent-session-path PATH] [--session-start-source SOURCE]"
)


def _parse_reporter(ctx, args, usage, value_flags):
    """report-agent / report-agent-session option scan.

    0.8.2: the pane id is the first word, options follow as separate words.
    0.9.x: options may precede the pane id and `--opt=value` is accepted (VERSIONS.md §1.7);
    a second positional is `unexpected argument: X`, no pane id prints the usage.
    """
    values = {}
    if ctx.v09:
        args = _expand_equals(args, value_flags)
        pane_id = None
        index = 0
    else:
        if not args:
            raise _usage(usage)
        pane_id = args[0]
        index = 1
    while index < len(args):
        arg = args[index]
        if arg in value_flags:
            value = _take_value(args, index, arg)
            if arg == "--state":
                if value not in _PANE_AGENT_STATES:
                    raise _wire().custom_other(
                        "invalid pane agent state: %s (expected idle, working, blocked, or unknown)"
                        % value
                    )
            elif arg == "--seq":
                value = _parse_u64_flag("--seq", value, usage_exit=False)
            values[arg] = value
            index += 2
        elif ctx.v09 and not arg.startswith("-"):
            if pane_id is not None:
                raise _usage("unexpected argument: %s" % arg)
            pane_id = arg
            index += 1
        else:
            raise _usage("unknown option: %s" % arg)
    if pane_id is None:
        raise _usage(usage)
    source = values.get("--source")
    source = source.strip() if source is not None else ""
    if not source:
        raise _usage("missing required --source")
    if "--agent" not in values:
        raise _usage("missing required --agent")
    return pane_id, source, values


def _pane_report_agent(ctx, args):
    flags = (
        "--source",
        "--agent",
        "--state",
        "--message",
        "--seq",
        "--agent-session-id",
        "--agent-session-path",
    )
    pane_id, source, values = _parse_reporter(ctx, args, _REPORT_AGENT_USAGE, flags)
    if "--state" not in values:
        raise _usage("missing required --state")
    params = {
        "pane_id": pane_id,
        "source": source,
        "agent": values["--agent"],
        "state": values["--state"],
    }
    for flag, field in (
        ("--message", "message"),
        ("--seq", "seq"),
        ("--agent-session-id", "agent_session_id"),
        ("--agent-session-path", "agent_session_path"),
    ):
        if flag in values:
            params[field] = values[flag]
    return _send_ok(ctx, "pane.report_agent", params)


def _pane_report_agent_session(ctx, args):
    flags = (
        "--source",
        "--agent",
        "--seq",
        "--agent-session-id",
        "--agent-session-path",
        "--session-start-source",
    )
    pane_id, source, values = _parse_reporter(ctx, args, _REPORT_AGENT_SESSION_USAGE, flags)
    params = {"pane_id": pane_id, "source": source, "agent": values["--agent"]}
    for flag, field in (
        ("--seq", "seq"),
        ("--agent-session-id", "agent_session_id"),
        ("--agent-session-path", "agent_session_path"),
        ("--session-start-source", "session_start_source"),
    ):
        if flag in values:
            params[field] = values[flag]
    return _send_ok(ctx, "pane.report_agent_session", params)


def _pane_release_agent(ctx, args):
    if not args:
        raise _usage(
            "usage: herdr pane release-agent <pane_id> --source ID --agent LABEL [--seq N]"
        )
    pane_id = args[0]
    values = {}
    index = 1
    while index < len(args):
        arg = args[index]
        if arg in ("--source", "--agent", "--seq"):
            value = _take_value(args, index, arg)
            if arg == "--seq":
                value = _parse_u64_flag("--seq", value, usage_exit=False)
            values[arg] = value
            index += 2
        else:
            raise _usage("unknown option: %s" % arg)
    source = (values.get("--source") or "").strip()
    if not source:
        raise _usage("missing required --source")
    if "--agent" not in values:
        raise _usage("missing required --agent")
    params = {"pane_id": pane_id, "source": source, "agent": values["--agent"]}
    if "--seq" in values:
        params["seq"] = values["--seq"]
    return _send_ok(ctx, "pane.release_agent", params)


# ---------------------------------------------------------------------------------------------
# agent (src/cli/agent.rs)
# ---------------------------------------------------------------------------------------------


def _run_agent(ctx, args):
    verbs = {
        "list": _agent_list,
        "get": lambda c, a: _agent_target(c, a, "get"),
        "read": _agent_read,
        "send-keys": _agent_send_keys,
        "prompt": _agent_prompt,
        "rename": _agent_rename,
        "focus": lambda c, a: _agent_target(c, a, "focus"),
        "wait": _agent_wait,
        "attach": _UNSUPPORTED_VERB,  # CHOICE: attaches a terminal stream, not a socket call
        "start": _agent_start,
        "explain": _agent_explain,
    }
    return _group(ctx, args, _AGENT_HELP, verbs, "agent")


def _agent_list(ctx, args):
    if args:
        raise _usage("usage: herdr agent list")
    return _print_method(ctx, "cli:agent:list", "agent.list", {})


def _agent_target(ctx, args, verb):
    if len(args) != 1:
        raise _usage("usage: herdr agent %s <target>" % verb)
    return _print_method(ctx, "cli:agent:" + verb, "agent." + verb, {"target": args[0]})


def _agent_rename(ctx, args):
    if len(args) != 2:
        raise _usage("usage: herdr agent rename <target> <name>|--clear")
    params = {"target": args[0]}
    if args[1] != "--clear":
        params["name"] = args[1]
    return _print_method(ctx, "cli:agent:rename", "agent.rename", params)


def _agent_send_keys(ctx, args):
    if len(args) < 2:
        raise _usage("usage: herdr agent send-keys <target> <key> [key ...]")
    return _print_method(
        ctx, "cli:agent:send-keys", "agent.send_keys", {"target": args[0], "keys": list(args[1:])}
    )


def _parse_timeout(value: str) -> int:
    return _parse_u64_flag("--timeout", value, usage_exit=True)


_AGENT_WAIT_USAGE = "usage: herdr agent wait <target> [--until STATUS]... [--timeout MS]"


def _agent_wait(ctx, args):
    if not args:
        raise _usage(_AGENT_WAIT_USAGE)
    until = []
    timeout_ms = None
    index = 1
    while index < len(args):
        arg = args[index]
        if arg == "--until":
            if index + 1 >= len(args):
                raise _usage("--until requires at least one status")
            until.append(_parse_agent_status(args[index + 1]))
            index += 2
        elif arg == "--timeout":
            timeout_ms = _parse_timeout(_take_value(args, index, "--timeout"))
            index += 2
        elif arg in ("help", "--help", "-h"):
            raise _Exit(0, _AGENT_WAIT_USAGE)
        else:
            raise _usage("unknown option: %s" % arg)
    params = {"target": args[0]}
    if until:
        params["until"] = until
    if timeout_ms is not None:
        params["timeout_ms"] = timeout_ms
    return _print_method(ctx, "cli:agent:wait", "agent.wait", params)


def _agent_prompt(ctx, args):
    if not args:
        raise _usage(
            "usage: herdr agent prompt <target> <text> [--wait] [--until STATUS]... [--timeout MS]"
        )
    if len(args) < 2:
        raise _usage("agent prompt requires text")
    wait = False
    until = []
    timeout_ms = None
    index = 2
    while index < len(args):
        arg = args[index]
        if arg == "--wait":
            wait = True
            index += 1
        elif arg == "--until":
            if index + 1 >= len(args):
                raise _usage("--until requires at least one status")
            until.append(_parse_agent_status(args[index + 1]))
            index += 2
        elif arg == "--timeout":
            timeout_ms = _parse_timeout(_take_value(args, index, "--timeout"))
            index += 2
        else:
            raise _usage("unknown option: %s" % arg)
    if until and not wait:
        raise _usage("--until requires --wait")
    if timeout_ms is not None and not wait:
        raise _usage("--timeout requires --wait")
    params = {"target": args[0], "text": args[1]}
    if wait:
        options = {}
        if until:
            options["until"] = until
        if timeout_ms is not None:
            options["timeout_ms"] = timeout_ms
        params["wait"] = options
    return _print_method(ctx, "cli:agent:prompt", "agent.prompt", params)


def _agent_read(ctx, args):
    """agent read: bad values are io::Error::other -> `Error: Custom {...}`, exit 1."""
    if not args:
        raise _usage(
            "usage: herdr agent read <target> [--source visible|recent|recent-unwrapped] [--lines N] "
            "[--format text|ansi] [--ansi]"
        )
    source, lines, fmt, strip_ansi = "recent", None, "text", True
    index = 1
    while index < len(args):
        arg = args[index]
        if arg == "--source":
            source = _parse_read_source(_take_value(args, index, "--source"), False)
            index += 2
        elif arg == "--lines":
            lines = _parse_u32_flag(
                "--lines", _take_value(args, index, "--lines"), usage_exit=False
            )
            index += 2
        elif arg == "--format":
            fmt = _parse_read_format(_take_value(args, index, "--format"), False)
            strip_ansi = fmt != "ansi"
            index += 2
        elif arg == "--ansi":
            fmt = "ansi"
            strip_ansi = False
            index += 1
        else:
            raise _usage("unknown option: %s" % arg)
    params = {"target": args[0], "source": source}
    if lines is not None:
        params["lines"] = lines
    params["format"] = fmt
    params["strip_ansi"] = strip_ansi
    wire = _wire()
    return wire.print_read_response(ctx, wire.send(ctx, "cli:agent:read", "agent.read", params))


def _agent_explain(ctx, args):
    file = agent = target = None
    json_out = verbose = False
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--file":
            file = _take_value(args, index, "--file")
            index += 2
        elif arg == "--agent":
            agent = _take_value(args, index, "--agent")
            index += 2
        elif arg == "--json":
            json_out = True
            index += 1
        elif arg == "--format":
            value = _take_value(args, index, "--format")
            if value == "json":
                json_out = True
            elif value == "text":
                json_out = False
            else:
                raise _usage("invalid --format: %s (expected text or json)" % value)
            index += 2
        elif arg in ("--verbose", "-v"):
            verbose = True
            index += 1
        elif arg in ("help", "--help", "-h"):
            raise _Exit(
                0,
                "usage: herdr agent explain <target> [--json|--verbose]\n"
                "usage: herdr agent explain --file PATH --agent LABEL [--json|--verbose]",
            )
        elif arg.startswith("-"):
            raise _usage("unknown option: %s" % arg)
        else:
            if target is not None:
                raise _usage("usage: herdr agent explain <target> [--json]")
            target = arg
            index += 1
    if file is not None:
        if target is not None:
            raise _usage("usage: herdr agent explain --file PATH --agent LABEL [--json]")
        if agent is None:
            raise _usage("herdr agent explain --file requires --agent LABEL")
        # CHOICE: explaining a local screen file needs herdr's detection manifests; the
        # argument checks above are reproduced, the command itself is unsupported.
        return _unsupported(ctx, "herdr agent explain --file")
    if target is None:
        raise _usage(
            "usage: herdr agent explain <target> [--json]\n"
            "usage: herdr agent explain --file PATH --agent LABEL [--json]"
        )
    if agent is not None:
        raise _usage("--agent is only valid with --file")
    wire = _wire()
    loaded = wire.send(ctx, "cli:agent:explain", "agent.explain", {"target": target})
    if wire.has_error(loaded.value):
        ctx.write_err(wire.dumps_sorted(loaded.value, loaded.exact_fast) + "\n")
        return 1
    explain = wire.index(loaded.value, "result", "explain")
    if json_out:
        ctx.write_out(wire.dumps_sorted(explain, loaded.exact_fast) + "\n")
    else:
        ctx.write_out(_explain_text(wire, explain, verbose))
    return 0


def _as_str(value):
    return value if isinstance(value, str) else None


def _as_bool(value):
    return value if isinstance(value, bool) else None


def _as_i64(value):
    if isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63:
        return value
    return None


def _as_u64(value):
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**64:
        return value
    return None


def _or(value, default):
    return default if value is None else value


def _explain_text(wire, explain, verbose: bool) -> str:
    """print_agent_explain_text (src/cli/agent.rs:158-261)."""
    get = lambda *keys: wire.index(explain, *keys)  # noqa: E731
    lines = [
        "agent: %s" % _or(_as_str(get("agent")), "unknown"),
        "state: %s" % _or(_as_str(get("state")), "unknown"),
        "manifest: %s %s"
        % (
            _or(_as_str(get("manifest_source")), "none"),
            _or(_as_str(get("manifest_version")), "unknown"),
        ),
    ]
    rule = get("matched_rule")
    if isinstance(rule, dict):
        rule_id = _or(_as_str(rule.get("id")), "-")
        lines.append(
            "rule: %s (region=%s priority=%d)"
            % (
                rule_id,
                _or(_as_str(rule.get("region")), "-"),
                _or(_as_i64(rule.get("priority")), 0),
            )
        )
        rules = get("evaluated_rules")
        if isinstance(rules, list):
            for candidate in rules:
                if isinstance(candidate, dict) and _as_str(candidate.get("id")) == rule_id:
                    preview = _as_str(wire.index(candidate, "evidence", "region_preview"))
                    if preview:
                        lines.append("evidence: %s" % wire.rust_debug_str(preview))
                    break
    else:
        lines.append("rule: none")
    for key in (
        "fallback_reason",
        "screen_detection_skip_reason",
        "skipped_update_reason",
        "warning",
    ):
        value = _as_str(get(key))
        if value is not None:
            lines.append("%s: %s" % (key, value))
    if verbose:
        flag = lambda key: "true" if _as_bool(get(key)) else "false"  # noqa: E731
        lines.append(
            "visible: idle=%s blocker=%s working=%s"
            % (flag("visible_idle"), flag("visible_blocker"), flag("visible_working"))
        )
        lines.append(
            "cached_remote_version: %s" % _or(_as_str(get("cached_remote_version")), "none")
        )
        lines.append(
            "local_override_shadowing_remote: %s" % flag("local_override_shadowing_remote")
        )
        for key in ("remote_update_status", "remote_update_error"):
            value = _as_str(get(key))
            if value is not None:
                lines.append("%s: %s" % (key, value))
        rules = get("evaluated_rules")
        if isinstance(rules, list) and rules:
            lines.append("evaluated_rules:")
            for rule in rules:
                item = lambda *keys: wire.index(rule, *keys)  # noqa: E731
                lines.append(
                    "  %s %s priority=%d region=%s state=%s"
                    % (
                        "\u2713" if _as_bool(item("matched")) else "\u2717",
                        _or(_as_str(item("id")), "-"),
                        _or(_as_i64(item("priority")), 0),
                        _or(_as_str(item("region")), "-"),
                        _or(_as_str(item("state")), "unknown"),
                    )
                )
                lines.append(
                    "    matchers: contains=%s regex=%s line_regex=%s all=%d any=%d not=%d"
                    % (
                        wire.value_debug(item("evidence", "contains")),
                        wire.value_debug(item("evidence", "regex")),
                        wire.value_debug(item("evidence", "line_regex")),
                        _or(_as_u64(item("evidence", "all_count")), 0),
                        _or(_as_u64(item("evidence", "any_count")), 0),
                        _or(_as_u64(item("evidence", "not_count")), 0),
                    )
                )
                lines.append(
                    "    region: bytes=%d preview=%s"
                    % (
                        _or(_as_u64(item("evidence", "region_bytes")), 0),
                        wire.rust_debug_str(_or(_as_str(item("evidence", "region_preview")), "")),
                    )
                )
    return "".join(line + "\n" for line in lines)


# -- agent start (CLI.md §5; src/cli/agent.rs:275-422,548-708) -------------------------------

_AGENT_START_USAGE = (
    "usage: herdr agent start <name> --kind KIND --pane ID [--timeout MS] [-- <agent-args...>]"
)


def _shows_shell_initialization(process_info) -> bool:
    """process_info_shows_shell_initialization (unix)."""
    if not isinstance(process_info, dict):
        return False
    shell_pid = _as_u64(process_info.get("shell_pid"))
    if shell_pid is None or _as_u64(process_info.get("foreground_process_group_id")) != shell_pid:
        return False
    processes = process_info.get("foreground_processes")
    if not isinstance(processes, list):
        return False
    for process in processes:
        if not isinstance(process, dict) or _as_u64(process.get("pid")) != shell_pid:
            continue
        argv = process.get("argv")
        argv0 = argv[0] if isinstance(argv, list) and argv else None
        if _is_shell_name(process.get("name")) or _is_shell_name(argv0):
            return True
    return False


def _cli_error(code: str, message: str) -> dict:
    return {"id": "cli:agent:start", "error": {"code": code, "message": message}}


def _print_value(ctx, value) -> int:
    wire = _wire()
    return wire.print_response(ctx, wire._Loaded(value, True))


def _agent_start(ctx, args):
    if not args:
        raise _usage(_AGENT_START_USAGE)
    name = args[0]
    separator = args.index("--") if "--" in args else len(args)
    kind = pane_id = timeout_ms = None
    index = 1
    while index < separator:
        arg = args[index]
        if arg in ("--kind", "--pane", "--timeout"):
            if index + 1 >= separator:
                raise _usage("missing value for %s" % arg)
            value = args[index + 1]
            if arg == "--kind":
                kind = value
            elif arg == "--pane":
                pane_id = value
            else:
                timeout_ms = _parse_timeout(value)
            index += 2
        else:
            raise _usage("unknown option: %s" % arg)
    if kind is None:
        raise _usage("missing required --kind")
    if pane_id is None:
        raise _usage("missing required --pane")
    expected_kind = parse_agent_kind(kind)
    if expected_kind is None:
        raise _usage("unsupported interactive agent kind: %s" % kind)
    agent_args = list(args[separator + 1 :]) if separator < len(args) else []

    wire = _wire()
    timeout_nominal_ms = AGENT_START_DEFAULT_TIMEOUT_MS if timeout_ms is None else timeout_ms
    retryable = AGENT_START_SETTLE_DELAY_MS < timeout_nominal_ms <= MAX_AGENT_START_TIMEOUT_MS

    def pane_terminal_id():
        loaded = wire.send(ctx, "cli:agent:start:pane", "pane.get", {"pane_id": pane_id})
        return _as_str(wire.index(loaded.value, "result", "pane", "terminal_id"))

    def shell_initializing():
        loaded = wire.send(
            ctx, "cli:agent:start:process_info", "pane.process_info", {"pane_id": pane_id}
        )
        return _shows_shell_initialization(wire.index(loaded.value, "result", "process_info"))

    start_params = {"name": name, "kind": kind, "pane_id": pane_id}
    if agent_args:
        start_params["args"] = agent_args
    if timeout_ms is not None:
        start_params["timeout_ms"] = timeout_ms

    pinned = pane_terminal_id()
    retry_deadline = None
    previous_busy = None
    while True:
        if previous_busy is not None:
            expired = retry_deadline is not None and _monotonic() >= retry_deadline
            if expired or pane_terminal_id() != pinned or not shell_initializing():
                return wire.print_response(ctx, previous_busy)
        response = wire.send(ctx, "cli:agent:start", "agent.start", start_params)
        if not wire.has_error(response.value):
            break
        if (
            wire.index(response.value, "error", "code") != "agent_pane_busy"
            or not retryable
            or pinned is None
            or pane_terminal_id() != pinned
            or not shell_initializing()
        ):
            return wire.print_response(ctx, response)
        if retry_deadline is None:
            retry_deadline = _monotonic() + PANE_SHELL_READINESS_RETRY_TIMEOUT
        previous_busy = response
        remaining = max(0.0, retry_deadline - _monotonic())
        if remaining <= 0:
            return wire.print_response(ctx, previous_busy)
        _sleep(min(AGENT_START_POLL_INTERVAL, remaining))

    expected_terminal = _as_str(wire.index(response.value, "result", "agent", "terminal_id"))
    if expected_terminal is None:
        return _print_value(
            ctx,
            _cli_error("agent_start_failed", "agent start response did not include terminal_id"),
        )
    lost = _cli_error(
        "agent_name_not_found", "named agent %s no longer owns the target terminal" % name
    )
    if pinned is not None and pinned != expected_terminal:
        return _print_value(ctx, lost)
    try:
        outcome = _wait_for_named_agent(
            ctx, wire, name, pane_id, timeout_nominal_ms, expected_kind, expected_terminal, lost
        )
    except wire.ProtocolMismatchReported:
        return 1
    except wire.ServerNotRunning as failure:
        # Printed through print_response, i.e. sorted (error before id), unlike main's print.
        return _print_value(ctx, failure.envelope())
    except wire.TransportError as failure:
        return _print_value(ctx, _cli_error("agent_start_transport_failed", failure.display))
    ok, value = outcome
    if not ok:
        return _print_value(ctx, value)
    envelope = response.value
    result = envelope.get("result")
    if result is None:
        result = envelope["result"] = {}
    result["agent"] = value
    # Two replies merged: print with the exact (pure-Python) serde_json writer.
    return wire.print_response(ctx, wire._Loaded(envelope, False))


def _wait_for_named_agent(
    ctx, wire, name, pane_id, timeout_ms, expected_kind, expected_terminal, lost
):
    """wait_for_named_agent: (True, agent) or (False, error envelope)."""
    timeout_s = timeout_ms / 1000.0
    # Instant::checked_add overflows for absurd timeouts: no deadline at all.  CHOICE: "absurd"
    # is taken as >= 10^12 s (Rust's exact overflow point depends on the platform clock).
    deadline = _monotonic() + timeout_s if timeout_s < 1e12 else None
    first_poll = True
    while True:
        if deadline is not None and _monotonic() >= deadline:
            try:  # let the server reconcile the pending name; any failure is ignored
                wire.send(
                    ctx, "cli:agent:start:timeout", "agent.get", {"target": name}, checked=False
                )
            except _Failure:
                pass
            return False, _cli_error("timeout", "timed out waiting for agent startup")
        loaded = wire.send(
            ctx, "cli:agent:start", "agent.get", {"target": name}, checked=first_poll
        )
        first_poll = False
        if wire.has_error(loaded.value):
            loaded = wire.send(
                ctx, "cli:agent:start", "agent.get", {"target": pane_id}, checked=False
            )
            if wire.has_error(loaded.value):
                _sleep(AGENT_START_POLL_INTERVAL)
                continue
        agent = wire.index(loaded.value, "result", "agent")
        get = lambda key: agent.get(key) if isinstance(agent, dict) else None  # noqa: E731
        actual = _as_str(get("agent"))
        status = _as_str(get("agent_status"))
        if _as_str(get("terminal_id")) != expected_terminal:
            return False, lost
        if actual is not None and actual != expected_kind:
            return False, _cli_error(
                "agent_kind_mismatch", "expected %s, detected %s" % (expected_kind, actual)
            )
        if _as_str(get("name")) != name:
            return False, lost
        if status == "blocked":
            return False, _cli_error(
                "agent_not_ready",
                "agent %s is blocked during startup and is not ready for prompts" % name,
            )
        if status in ("idle", "done"):
            if _as_bool(get("interactive_ready")) is True:
                return True, agent
            if not _or(_as_bool(get("launch_pending")), False):
                return False, _cli_error(
                    "agent_start_failed", "agent process exited before becoming interactive"
                )
        _sleep(AGENT_START_POLL_INTERVAL)


# ---------------------------------------------------------------------------------------------
# worktree (src/cli/worktree.rs; 0.9.x adds --trust-repository)
# ---------------------------------------------------------------------------------------------


def _run_worktree(ctx, args):
    verbs = {
        "list": _worktree_list,
        "create": _worktree_create,
        "open": _worktree_open,
        "remove": _worktree_remove,
    }
    return _group(ctx, args, _worktree_help(ctx), verbs, "worktree")


def _absolute_path_arg(ctx, value: str) -> str:
    """normalize_path_arg: expand `~`/`~/...` with HOME, then make absolute against the cwd."""
    home = ctx.var("HOME")
    path = value
    if value == "~" and home is not None:
        path = home
    elif value.startswith("~/") and home is not None:
        path = _join(home, value[2:])
    if path.startswith("/"):
        return path
    try:
        cwd = os.getcwd()
    except OSError as exc:
        raise _wire().os_error(exc) from None
    return _join(cwd, path)


def _worktree_flags(ctx, args, spec):
    """Scan worktree flags. spec maps flag -> 'value' | 'path' | 'bool'."""
    values = {}
    index = 0
    while index < len(args):
        arg = args[index]
        kind = spec.get(arg)
        if kind in ("value", "path"):
            value = _take_value(args, index, arg)
            values[arg] = _absolute_path_arg(ctx, value) if kind == "path" else value
            index += 2
        elif kind == "bool":
            values[arg] = True
            index += 1
        elif arg == "--no-focus" and "--focus" in spec:
            values["--focus"] = False
            index += 1
        elif arg == "--trust-repository" and ctx.v09:
            values[arg] = True
            index += 1
        elif arg == "--json":  # hidden compatibility no-op
            index += 1
        else:
            raise _usage("unknown option: %s" % arg)
    return values


def _trust_suffix(ctx) -> str:
    return " [--trust-repository]" if ctx.v09 else ""


def _add_trust(ctx, params, values):
    if ctx.v09 and values.get("--trust-repository"):
        params["trust_repository"] = True


def _worktree_list(ctx, args):
    values = _worktree_flags(ctx, args, {"--workspace": "value", "--cwd": "path"})
    if "--workspace" in values and "--cwd" in values:
        raise _usage(
            "usage: herdr worktree list [--workspace ID | --cwd PATH]" + _trust_suffix(ctx)
        )
    params = {}
    for flag, field in (("--workspace", "workspace_id"), ("--cwd", "cwd")):
        if flag in values:
            params[field] = values[flag]
    _add_trust(ctx, params, values)
    return _print_method(ctx, "cli:worktree:list", "worktree.list", params)


def _worktree_create(ctx, args):
    values = _worktree_flags(
        ctx,
        args,
        {
            "--workspace": "value",
            "--cwd": "path",
            "--branch": "value",
            "--base": "value",
            "--path": "path",
            "--label": "value",
            "--focus": "bool",
        },
    )
    if "--workspace" in values and "--cwd" in values:
        raise _usage(
            "usage: herdr worktree create [--workspace ID | --cwd PATH] [--branch NAME] [--base REF] "
            "[--path PATH] [--label TEXT] [--focus] [--no-focus]" + _trust_suffix(ctx)
        )
    params = {}
    for flag, field in (
        ("--workspace", "workspace_id"),
        ("--cwd", "cwd"),
        ("--branch", "branch"),
        ("--base", "base"),
        ("--path", "path"),
        ("--label", "label"),
    ):
        if flag in values:
            params[field] = values[flag]
    params["focus"] = bool(values.get("--focus", False))
    _add_trust(ctx, params, values)
    return _print_method(ctx, "cli:worktree:create", "worktree.create", params)


def _worktree_open(ctx, args):
    values = _worktree_flags(
        ctx,
        args,
        {
            "--workspace": "value",
            "--cwd": "path",
            "--path": "path",
            "--branch": "value",
            "--label": "value",
            "--focus": "bool",
        },
    )
    usage = (
        "usage: herdr worktree open [--workspace ID | --cwd PATH] (--path PATH | --branch NAME) "
        "[--label TEXT] [--focus] [--no-focus]" + _trust_suffix(ctx)
    )
    if "--workspace" in values and "--cwd" in values:
        raise _usage(usage)
    if ("--path" in values) == ("--branch" in values):
        raise _usage(usage)
    params = {}
    for flag, field in (
        ("--workspace", "workspace_id"),
        ("--cwd", "cwd"),
        ("--path", "path"),
        ("--branch", "branch"),
        ("--label", "label"),
    ):
        if flag in values:
            params[field] = values[flag]
    params["focus"] = bool(values.get("--focus", False))
    _add_trust(ctx, params, values)
    return _print_method(ctx, "cli:worktree:open", "worktree.open", params)


def _worktree_remove(ctx, args):
    values = _worktree_flags(ctx, args, {"--workspace": "value", "--force": "bool"})
    if "--workspace" not in values:
        raise _usage("usage: herdr worktree remove --workspace ID [--force]" + _trust_suffix(ctx))
    params = {"workspace_id": values["--workspace"], "force": bool(values.get("--force", False))}
    _add_trust(ctx, params, values)
    return _print_method(ctx, "cli:worktree:remove", "worktree.remove", params)


# ---------------------------------------------------------------------------------------------
# api (src/cli/api.rs)
# ---------------------------------------------------------------------------------------------


def _run_api(ctx, args):
    # CHOICE: `api schema` prints herdr's bundled schema file, which is not shipped here.
    verbs = {"snapshot": _api_snapshot, "schema": _UNSUPPORTED_VERB}
    return _group(ctx, args, _API_HELP, verbs, "api")


def _api_snapshot(ctx, args):
    if args:
        raise _usage("usage: herdr api snapshot")
    return _print_method(ctx, "cli:api:snapshot", "session.snapshot", {})


# ---------------------------------------------------------------------------------------------
# server (src/cli/server.rs, src/session.rs)
# ---------------------------------------------------------------------------------------------


def _run_server(ctx, args):
    # CHOICE: besides `stop`, the two plain-envelope verbs (reload-config,
    # reload-agent-manifests) are implemented; live-handoff and the text-table manifest
    # commands are unsupported.
    verb = args[0]
    rest = args[1:]
    if verb == "stop":
        return _server_stop(ctx, rest)
    if verb in ("reload-config", "reload-agent-manifests"):
        if rest:
            raise _usage("usage: herdr server %s" % verb)
        return _print_method(ctx, "cli:server:" + verb, "server." + verb.replace("-", "_"), {})
    if verb in ("live-handoff", "agent-manifests", "update-agent-manifests"):
        return _unsupported(ctx, "herdr server " + verb)
    if verb in ("help", "--help", "-h"):
        raise _Exit(0, "\n".join(_SERVER_HELP))
    raise _Exit(2, "\n".join(_SERVER_HELP))


def _server_stop(ctx, args):
    """stop_active_server: raw server.stop (no ping), then wait until both sockets are gone."""
    if args:
        raise _usage("usage: herdr server stop")
    wire = _wire()
    socket_path = ctx.socket_path()
    paths = [socket_path, ctx.client_socket_path()]
    deadline = _monotonic() + STOP_WAIT_TIMEOUT
    try:
        sock = wire.connect(socket_path)
    except wire.ConnectFailed as failed:
        raise _Exit(
            1,
            "server is not running or cannot be reached at %s: %s"
            % (socket_path, failed.error.display),
        )
    reply = None
    try:
        sock.sendall(b'{"id":"cli:session:stop","method":"server.stop","params":{}}\n')
        remaining = deadline - _monotonic()
        if remaining > 0:
            sock.settimeout(max(remaining, 0.001) / _TIME_SCALE)
            reply = wire.read_line(sock) or None
    except OSError as exc:
        failure = wire.os_error(exc)
        if not isinstance(exc, TimeoutError) and failure.kind not in (
            "BrokenPipe",
            "ConnectionReset",
            "NotConnected",
            "TimedOut",
            "WouldBlock",
        ):
            raise _Exit(1, failure.display)
        reply = None
    finally:
        sock.close()
    if reply is not None:
        try:
            value = wire.loads(reply.decode("utf-8", "replace")).value
        except wire.JsonError as exc:
            raise _Exit(1, "%s at line %d column %d" % (exc.message, exc.line, exc.column))
        if isinstance(value, dict) and "error" in value:
            raise _Exit(1, wire.dumps_sorted(value["error"]))
    while _monotonic() < deadline:
        if not any(wire.is_reachable(path) for path in paths):
            return 0
        _sleep(min(STOP_WAIT_POLL, max(0.0, deadline - _monotonic())))
    reachable = [path for path in paths if wire.is_reachable(path)]
    if not reachable:
        return 0
    raise _Exit(
        1,
        "server did not stop within %dms; sockets are still reachable at %s"
        % (int(STOP_WAIT_TIMEOUT * 1000), ", ".join(reachable)),
    )


# ---------------------------------------------------------------------------------------------
# status (src/cli/status.rs)
# ---------------------------------------------------------------------------------------------
# CHOICE: the 0.8.2 text/JSON layout is used for every version.  A 0.9.x-era fork prints extra
# endpoint-generation lines and fields, but no released 0.9.x status output was available.


def _run_status(ctx, args):
    if not args:
        scope, json_out = "full", False
    elif args[0] == "--json" and len(args) == 1:
        scope, json_out = "full", True
    elif args[0] in ("server", "client"):
        if len(args) == 1:
            json_out = False
        elif args[1] == "--json" and len(args) == 2:
            json_out = True
        else:
            raise _usage("usage: herdr status %s [--json]" % args[0])
        scope = args[0]
    elif args[0] in ("help", "--help", "-h"):
        raise _Exit(2 if len(args) > 1 else 0, "\n".join(_STATUS_HELP))
    else:
        raise _Exit(2, "\n".join(_STATUS_HELP))
    if scope == "client":
        client = _client_status(ctx)
        if json_out:
            ctx.write_out(_wire().dumps_ordered(client) + "\n")
        else:
            ctx.write_out(
                "version: %s\nchannel: %s\nprotocol: %d\nbinary: %s\n"
                % (client["version"], client["channel"], client["protocol"], client["binary"])
            )
        return 0
    server = _server_runtime_status(ctx)
    if scope == "server":
        if json_out:
            ctx.write_out(_wire().dumps_ordered(_server_status_json(ctx, server)) + "\n")
        else:
            ctx.write_out(_server_status_body(ctx, server, ""))
        return 0
    if json_out:
        full = {
            "client": _client_status(ctx),
            "server": _server_status_json(ctx, server),
            "update": {"restart_needed": _restart_needed(ctx, server)},
        }
        ctx.write_out(_wire().dumps_ordered(full) + "\n")
        return 0
    needed = _restart_needed(ctx, server)
    text = (
        "client:\n  version: %s\n  channel: %s\n  protocol: %d\n\nserver:\n%s\nupdate:\n  restart_needed: %s\n"
        % (
            ctx.version,
            _config_channel(ctx),
            ctx.protocol,
            _server_status_body(ctx, server, "  "),
            "unknown" if needed is None else ("yes" if needed else "no"),
        )
    )
    ctx.write_out(text)
    return 0


def _server_runtime_status(ctx):
    wire = _wire()
    try:
        version, protocol, caps = wire.ping(ctx.socket_path())
    except wire.ConnectFailed as failed:
        if failed.not_running:
            return None
        raise failed.error from None
    return {"version": version, "protocol": protocol, "capabilities": caps}


def _server_status_body(ctx, server, indent: str) -> str:
    path = ctx.socket_path()
    if server is None:
        return "%sstatus: not running\n%ssocket: %s\n" % (indent, indent, path)
    return "{i}status: running\n{i}version: {v}\n{i}protocol: {p}\n{i}compatible: {c}\n{i}socket: {s}\n".format(
        i=indent,
        v=server["version"],
        p=server["protocol"],
        c="yes" if server["protocol"] == ctx.protocol else "no",
        s=path,
    )


def _restart_needed(ctx, server):
    if server is None:
        return False
    return server["version"] != ctx.version


def _client_status(ctx) -> dict:
    return {
        "version": ctx.version,
        "channel": _config_channel(ctx),
        "protocol": ctx.protocol,
        "binary": _current_exe(ctx),
        "session": ctx.active_name(),
    }


def _server_status_json(ctx, server) -> dict:
    if server is None:
        return {
            "status": "not_running",
            "running": False,
            "version": None,
            "protocol": None,
            "capabilities": None,
            "compatible": None,
            "socket": ctx.socket_path(),
            "session": ctx.active_name(),
            "restart_needed": False,
        }
    return {
        "status": "running",
        "running": True,
        "version": server["version"],
        "protocol": server["protocol"],
        "capabilities": server["capabilities"],
        "compatible": server["protocol"] == ctx.protocol,
        "socket": ctx.socket_path(),
        "session": ctx.active_name(),
        "restart_needed": _restart_needed(ctx, server),
    }


def _current_exe(ctx) -> str:
    # CHOICE: herdr prints its own executable; the stand-in prints the launcher script path.
    if ctx.argv0:
        return os.path.realpath(ctx.argv0)
    return "unknown"


def _config_channel(ctx) -> str:
    """config.update.channel (`stable` unless config.toml says `preview`)."""
    path = ctx.var("HERDR_CONFIG_PATH")
    if path is None:
        path = _join(ctx.config_dir(), "config.toml")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return "stable"
    if b"preview" not in data:
        return "stable"
    try:
        import tomllib

        channel = tomllib.loads(data.decode("utf-8")).get("update", {}).get("channel")
    except Exception:  # invalid config falls back to defaults, as herdr does
        return "stable"
    return "preview" if channel == "preview" else "stable"
