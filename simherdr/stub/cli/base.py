"""The base of the stand-in CLI, below every other module of it (it imports nothing of the
package): herdr's local path and session rules, ``Path`` helpers, and how a call ends early
(:class:`Exit`, :class:`Failure`).

*Paths* (src/config/io.rs, src/session.rs): pure functions over an environment mapping, the one
place for these rules.  The CLI core's context delegates here; the server-free commands (config
check, session list, integration status, `herdr server`) and ``simherdr serve --session`` call
them directly.  *Exits*: raised anywhere below :func:`.core.run` (by :mod:`.scan`, :mod:`.wire`,
:mod:`.rust`, :mod:`.launcher`, the group modules) and reported there.

One module, not two: the core imports it on every call, and each module a call imports costs
the stand-in ~0.1 ms (measured: a 35-line module, ~95 us).  Import-light (no ``os``).
"""

import posix

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the stand-in ~20 ms
if TYPE_CHECKING:  # annotations only: the stand-in's core imports this module on every call
    from collections.abc import Mapping

SESSION_ENV = "HERDR_SESSION"  # src/session.rs:10
SOCKET_PATH_ENV = "HERDR_SOCKET_PATH"  # src/api/mod.rs
CONFIG_PATH_ENV = "HERDR_CONFIG_PATH"  # src/config.rs:53
DEFAULT_SESSION_NAME = "default"  # src/session.rs:11
MAX_SESSION_NAME_LEN = 64  # src/session.rs:13
APP_DIR_NAME = "herdr"  # release builds (src/config/io.rs:22-28)


def join(base: str, rest: str) -> str:
    """``PathBuf::join``: :func:`simherdr.facts.paths.join` (one place, shared with
    hostcore.integration), imported on first use: a call with HERDR_SOCKET_PATH set joins no
    path, and the two modules it would load cost ~0.3 ms of every call."""
    from ...facts.paths import join as path_join

    return path_join(base, rest)


def var(env: "Mapping[str, str]", name: str) -> str | None:
    """``std::env::var``: None when unset or not valid Unicode (surrogate-escaped)."""
    value = env.get(name)
    if value is None or any("\ud800" <= ch <= "\udfff" for ch in value):
        return None
    return value


def config_dir(env: "Mapping[str, str]") -> str:
    """src/config/io.rs:30-35,61-68."""
    xdg = var(env, "XDG_CONFIG_HOME")
    if xdg is not None:
        return join(xdg, APP_DIR_NAME)
    home = var(env, "HOME")
    if home is not None:
        return join(home, ".config/" + APP_DIR_NAME)
    return join(env.get("TMPDIR") or "/tmp", APP_DIR_NAME)


def config_path(env: "Mapping[str, str]") -> str:
    """src/config/io.rs:163-168."""
    override = var(env, CONFIG_PATH_ENV)
    return override if override is not None else join(config_dir(env), "config.toml")


def validate_session_name(name: str) -> str | None:
    """src/session.rs:425-446; the error message or None."""
    if not name:
        return "session name cannot be empty"
    if len(name.encode("utf-8", "surrogatepass")) > MAX_SESSION_NAME_LEN:
        return "session name cannot be longer than %d bytes" % MAX_SESSION_NAME_LEN
    if name in (".", ".."):
        return "session name cannot be . or .."
    if not all(ch.isascii() and (ch.isalnum() or ch in "._-") for ch in name):
        return "session name may only contain ASCII letters, numbers, '.', '_' and '-'"
    return None


def active_name(env: "Mapping[str, str]") -> str | None:
    """src/session.rs:96-101."""
    name = var(env, SESSION_ENV)
    if name is None or name == DEFAULT_SESSION_NAME or validate_session_name(name):
        return None
    return name


def data_dir_for(env: "Mapping[str, str]", name: str | None) -> str:
    """src/session.rs:161-167: the default session lives in the config dir itself."""
    base = config_dir(env)
    return join(join(base, "sessions"), name) if name else base


def api_socket_path_for(env: "Mapping[str, str]", name: str | None) -> str:
    return join(data_dir_for(env, name), "herdr.sock")


def client_socket_path_for(env: "Mapping[str, str]", name: str | None) -> str:
    return join(data_dir_for(env, name), "herdr-client.sock")


def active_api_socket_path(env: "Mapping[str, str]") -> str:
    """src/session.rs:173-181. An explicit `--session NAME` beats HERDR_SOCKET_PATH
    (EXPLICIT_SESSION_REQUESTED): the CLI core then hands command modules an ``env`` without
    HERDR_SOCKET_PATH, so the override is honoured exactly when it is present."""
    override = var(env, SOCKET_PATH_ENV)
    if override is not None:
        return override
    return api_socket_path_for(env, active_name(env))


def os_error_text(exc: OSError) -> str:
    """Rust's io::Error Display for an OS error: "<strerror> (os error N)"."""
    if exc.errno is None:
        return str(exc)
    return "%s (os error %d)" % (posix.strerror(exc.errno), exc.errno)


# ---------------------------------------------------------------------------------------------
# ``Path`` primitives on unix path strings (surrogate-escaped like ``os.fsdecode``)
# ---------------------------------------------------------------------------------------------


def fsencode(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


def path_exists(path: str) -> bool:
    try:
        posix.stat(fsencode(path))
    except (OSError, ValueError):
        return False
    return True


# ---------------------------------------------------------------------------------------------
# The release the stand-in emulates (from simherdr.facts.versions) and its CLI grammar rows
# ---------------------------------------------------------------------------------------------

#: The stand-in's CLI grammar rows: release rows ``cli_<name>`` of simherdr.facts.versions'
#: ``Rows`` (set with their sources in simherdr/facts/releases/*.toml), read as
#: ``ctx.cli.<name>``; a reader names the row, never a version.
GRAMMAR = (
    "machine",
    "no_session_flag",
    "split_targets_caller",
    "workspace_close_group",
    "explain_file_errors_as_envelope",
    "start_codex_unknown_ready",
    "plugin_install_options_anywhere",
)


#: The rows of simherdr.facts.versions' ``Rows`` the stand-in reads (each a CLI difference too).
VERSION_ROWS = (
    "report_agent_options_anywhere",
    "report_resume_argv",
    "trust_repository",
    # herdr 0.8.0 / 0.8.1 (facts/releases/0.8.0.toml, 0.8.1.toml)
    "prompt_refuses_blocked",
    "cli_pane_input",
    "cli_current_from_env",
    "cli_read_options_anywhere",
    "cli_agent_start_pins_pane",
    "cli_agent_start_follows_status",
    "cli_agent_help_footer",
    "cli_quiet_broken_pipe",
    # `agent prompt --help` words the 0.9 wait gate (spec.rs after_help)
    "prompt_gate_needs_activity",
    # herdr status / session texts and rules (status.rs, session.rs)
    "cli_status_endpoint_generation",
    "cli_session_probe_errors",
    "cli_session_delete_exact_name",
    "cli_session_dash_dash",
    # the CLI grammar rows (:data:`GRAMMAR`, read as ``ctx.cli.<name>``)
    *("cli_" + name for name in GRAMMAR),
    # herdr 0.9.1 (facts/releases/0.9.1.toml)
    "cli_machine_prefix",
    # the terminal client's wire shapes and control commands (stub/cli/termclient.py)
    "cli_terminal_hello",
    "cli_terminal_pixel_mouse",
    "cli_terminal_control_mouse",
    "cli_attach_bracketed_paste",
    "cli_attach_errors_to_main",
    "cli_attach_mouse_events",
)


class Release:
    """The slice of :class:`simherdr.facts.versions.HerdrVersion` a call reads: name, parsed
    key, protocol, its agent-kinds table key, and :data:`VERSION_ROWS` (its :data:`GRAMMAR`
    rows also as ``grammar``).  ``install-stub`` writes :meth:`compact` into the
    launcher, so a call parses no release file; in-process callers pass a name
    (:func:`release_of`)."""

    __slots__ = ("agent_kinds", "grammar", "key", "name", "protocol", "rows")

    def __init__(self, name, key, protocol, agent_kinds, rows):
        self.name = name
        self.key = tuple(key)
        self.protocol = protocol
        self.agent_kinds = agent_kinds
        self.rows = dict(rows)
        self.grammar = Grammar(self.rows)

    def compact(self):
        """A literal of plain values (the launcher's argument)."""
        return (self.name, self.key, self.protocol, self.agent_kinds, self.rows)


#: the releases this process was handed in compact form (a launcher's call: what install-stub
#: resolved), by name: a module given the call's release by name (the session verbs' rows)
#: finds it here, without loading simherdr.facts (~25M instructions of a Python start)
_HANDED: dict = {}


def release_of(version):
    """A :class:`Release` from a Release, its :meth:`~Release.compact` tuple, a release name or
    a ``HerdrVersion`` (names resolve through simherdr.facts.versions: in-process callers and
    ``install-stub``, never the launcher's path; a name this process was handed in compact form
    is that release).  An unknown name raises its ``UnknownVersion`` (a ValueError naming the
    known releases)."""
    if isinstance(version, Release):
        return version
    if isinstance(version, tuple):
        release = _HANDED[version[0]] = Release(*version)
        return release
    handed = _HANDED.get(version)
    if handed is not None:
        return handed
    from ...facts.versions import resolve

    v = resolve(version)
    rows = {name: getattr(v.rows, name) for name in VERSION_ROWS}
    return Release(v.name, v.key, v.protocol, v.tables.agent_kinds, rows)


class Grammar:
    """The release's :data:`GRAMMAR` rows as attributes (declared here for the type checker;
    tests/stub/test_stub_rows_spec.py checks both lists agree)."""

    machine: bool
    no_session_flag: bool
    split_targets_caller: bool
    workspace_close_group: bool
    explain_file_errors_as_envelope: bool
    start_codex_unknown_ready: bool
    plugin_install_options_anywhere: bool

    def __init__(self, rows):
        for name in GRAMMAR:
            setattr(self, name, rows["cli_" + name])


# ---------------------------------------------------------------------------------------------
# The clock the CLI's own waits run on (passed in the context, never a global)
# ---------------------------------------------------------------------------------------------

#: simherdr extension (not a herdr variable): the simulator may run on a scaled clock.  Every
#: wait the CLI itself performs (agent start's 100 ms poll, 2 s busy-shell window and start
#: deadline; server stop's 25 ms poll and 15 s limit) is divided by this factor.  Messages keep
#: herdr's nominal numbers.  CHOICE: not-a-number, infinite, non-positive and out-of-range
#: values (outside [MIN_TIME_SCALE, MAX_TIME_SCALE]) mean 1.0, so no wait overflows
#: ``settimeout``/``sleep`` (issue 14: ``1e-300`` raised OverflowError).
TIME_SCALE_ENV = "SIMHERDR_TIME_SCALE"
MIN_TIME_SCALE = 1e-6
MAX_TIME_SCALE = 1e6


def read_time_scale(env: "Mapping[str, str]") -> float:
    raw = env.get(TIME_SCALE_ENV)
    if not raw:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        return 1.0
    if not MIN_TIME_SCALE <= value <= MAX_TIME_SCALE:  # also false for nan
        return 1.0
    return value


class Clock:
    """Nominal seconds on a clock running ``scale`` times real time (``SIMHERDR_TIME_SCALE``).

    Every wait of a call goes through ``ctx.clock``; in-process tests pass their own (any
    object with ``scale``, ``monotonic()`` and ``sleep()``) to :func:`.core.run`."""

    __slots__ = ("_lost", "scale")

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale
        self._lost = 0.0  # wall seconds this process overslept on a scaled clock (not counted)

    def monotonic(self) -> float:
        import time

        return (time.monotonic() - self._lost) * self.scale

    def sleep(self, seconds: float) -> None:
        """Sleep ``seconds`` nominal seconds (real time divided by the scale). CHOICE (as the
        server's paced clock, simherdr.clock): on a scaled clock an oversleep (this process
        starved on a loaded machine) is not counted as nominal time, so herdr's own CLI
        deadlines (agent start's 30 s: 30 ms at 1000x) measure the waits the CLI meant, not
        the machine's load. At scale 1 the wall clock is herdr's own."""
        if seconds > 0:
            import time

            wall = seconds / self.scale
            t0 = time.monotonic()
            time.sleep(wall)
            if self.scale != 1.0:
                over = time.monotonic() - t0 - wall
                if over > 0:
                    self._lost += over

    def real_seconds(self, seconds: float) -> float:
        """The real duration of ``seconds`` nominal seconds (a socket timeout)."""
        return seconds / self.scale


# ---------------------------------------------------------------------------------------------
# Exits: what ends a call early (core.run prints and returns them)
# ---------------------------------------------------------------------------------------------

#: What every command this stand-in does not implement prints (stderr, exit 2).
UNSUPPORTED_MESSAGE = "simherdr: '{command}' is not supported by this stand-in"
UNSUPPORTED_EXIT_CODE = 2

USAGE_FOOTER = "run 'herdr --help' for usage"


class Failure(Exception):
    """Base for everything that ends the process with its own report (see .rust)."""

    def report(self, ctx):  # pragma: no cover - overridden
        return 1


class Exit(Exception):
    """Print ``message`` (if any) to stderr (or stdout) and exit with ``code``."""

    def __init__(self, code, message=None, stdout=False):
        super().__init__(message)
        self.code = code
        self.message = message
        self.stdout = stdout


class ListGroup(Exception):
    """Print the running group's command list and exit with ``code`` (a verb body that
    answers like a bare group, e.g. ``herdr channel show extra``); :func:`.core.run_group`
    renders the list from the group's rows."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def usage(message, code=2):
    return Exit(code, message)


def fail_global(message):
    return Exit(2, "error: %s\n%s" % (message, USAGE_FOOTER))


def unsupported(ctx, command):
    ctx.write_err(UNSUPPORTED_MESSAGE.format(command=command) + "\n")
    return UNSUPPORTED_EXIT_CODE
