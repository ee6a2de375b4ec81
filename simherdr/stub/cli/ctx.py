"""The stand-in's per-invocation context: what a verb body needs from the call (environment,
streams, release, clock) and herdr's path rules read through it.

Below the command table and every verb (they annotate with :class:`Ctx`); above :mod:`.base`
only.  :mod:`.core` builds one per call.
"""

from . import base
from .base import join

# herdr's path and session rules live in .base (one place); these names stay for callers.
SESSION_ENV = base.SESSION_ENV
SOCKET_PATH_ENV = base.SOCKET_PATH_ENV
CLIENT_SOCKET_PATH_ENV = "HERDR_CLIENT_SOCKET_PATH"
DEFAULT_SESSION_NAME = base.DEFAULT_SESSION_NAME
APP_DIR_NAME = base.APP_DIR_NAME  # release builds; debug builds use herdr-dev (CLI.md §2.1)


class Ctx:
    """Per-invocation state: environment (mutated like herdr mutates its own), streams, version."""

    def __init__(self, release, env, stdout, stderr, argv0, clock):
        self.release = release  # base.Release: the emulated herdr release
        self.version = release.name
        self.protocol = release.protocol
        self.cli = release.grammar  # the CLI grammar rows (base.GRAMMAR)
        self.rows = release.rows  # the version rows the stand-in reads (base.VERSION_ROWS)
        self.env = env
        self.stdout = stdout
        self.stderr = stderr
        self.argv0 = argv0
        self.clock = clock  # base.Clock: every wait of the call (SIMHERDR_TIME_SCALE)
        self.explicit_session = False
        #: the saved machine ``--machine`` routed this call to (0.9.x ``target.rs`` TARGET);
        #: None for the local server
        self.machine = None

    # -- output -----------------------------------------------------------------------------
    @staticmethod
    def _bytes(text):
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            return text.encode(
                "utf-8", "surrogateescape" if _only_escapes(text) else "surrogatepass"
            )

    def write_out(self, text):
        self.stdout.write(self._bytes(text))

    def write_err(self, text):
        self.stderr.write(self._bytes(text))

    # -- environment ------------------------------------------------------------------------
    def var(self, name):
        """``std::env::var``: None when unset or not valid Unicode."""
        value = self.env.get(name)
        if value is None or has_surrogates(value):
            return None
        return value

    def var_os_set(self, name):
        return name in self.env

    def pane_id(self):
        """``HERDR_PANE_ID`` when set and not blank; never for a machine-routed call
        (0.9.3 src/cli/target.rs caller_pane_id)."""
        if self.machine is not None:
            return None
        value = self.var("HERDR_PANE_ID")
        if value is None or not value.strip():
            return None
        return value

    # -- paths (src/config/io.rs, src/session.rs) --------------------------------------------
    def config_dir(self):
        return base.config_dir(self.env)

    def active_name(self):
        return base.active_name(self.env)

    def data_dir_for(self, name):
        return base.data_dir_for(self.env, name)

    def api_socket_path_for(self, name):
        return base.api_socket_path_for(self.env, name)

    def socket_path(self):
        if self.machine is not None:
            # target.rs api_client: the machine's SSH bridge is where a routed call connects;
            # it cannot start here (stub/cli/machine.py CHOICE(unreachable)).
            from .machine import unreachable

            raise unreachable(self, self.machine)
        if self.explicit_session:
            return self.api_socket_path_for(self.active_name())
        override = self.var(SOCKET_PATH_ENV)
        if override is not None:
            return override
        return self.api_socket_path_for(self.active_name())

    def client_socket_path(self):
        """src/server/socket_paths.rs client_socket_path (server stop waits for it too)."""
        if self.explicit_session:
            return join(self.data_dir_for(self.active_name()), "herdr-client.sock")
        override = self.var(SOCKET_PATH_ENV)
        if override is not None:
            from ...facts.paths import client_socket_for_api_socket

            return client_socket_for_api_socket(override)
        legacy = self.var(CLIENT_SOCKET_PATH_ENV)
        if legacy is not None:
            return legacy
        return join(self.data_dir_for(self.active_name()), "herdr-client.sock")

    def local_attach_command(self):
        name = self.active_name()
        return "herdr session attach %s" % name if name else "herdr"

    def startup_command(self, socket_path):
        """src/cli/server_not_running.rs startup_command."""
        from ...facts.paths import rust_paths_equal  # PathBuf equality, one place

        session_socket = self.api_socket_path_for(self.active_name())
        if rust_paths_equal(socket_path, session_socket):
            return self.local_attach_command()
        return "herdr"

    def restart_guidance(self):
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


def has_surrogates(text):
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def _only_escapes(text):
    return all(not ("\ud800" <= ch <= "\udfff") or "\udc80" <= ch <= "\udcff" for ch in text)
