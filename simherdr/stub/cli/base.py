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

from ...facts.paths import join  # PathBuf::join: one place, shared with facts.integration

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the stand-in ~20 ms
if TYPE_CHECKING:  # annotations only: the stand-in's core imports this module on every call
    from collections.abc import Mapping

SESSION_ENV = "HERDR_SESSION"  # src/session.rs:10
SOCKET_PATH_ENV = "HERDR_SOCKET_PATH"  # src/api/mod.rs
CONFIG_PATH_ENV = "HERDR_CONFIG_PATH"  # src/config.rs:53
DEFAULT_SESSION_NAME = "default"  # src/session.rs:11
MAX_SESSION_NAME_LEN = 64  # src/session.rs:13
APP_DIR_NAME = "herdr"  # release builds (src/config/io.rs:22-28)


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


def parent_and_stem(path: str) -> tuple[str, str | None]:
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


def usage(message, code=2):
    return Exit(code, message)


def fail_global(message):
    return Exit(2, "error: %s\n%s" % (message, USAGE_FOOTER))


def unsupported(ctx, command):
    ctx.write_err(UNSUPPORTED_MESSAGE.format(command=command) + "\n")
    return UNSUPPORTED_EXIT_CODE
