"""Everything that comes from the host in real herdr, made explicit (:class:`Config`)."""

from __future__ import annotations

import os

from ..facts.record import field, record
from ..facts.versions import DEFAULT_VERSION, HerdrVersion, resolve
from ..trace import DEFAULT_SIZE as DEFAULT_TRACE_SIZE


@record
class Config:
    """Everything that comes from the host in real herdr, made explicit."""

    home: str = field(default_factory=lambda: os.path.expanduser("~"))
    server_cwd: str = field(default_factory=os.getcwd)
    shell: str = "bash"
    # Every pane's terminal size, fixed (cols, rows); None: herdr's geometry (model/geometry.py:
    # the release's headless frame less the view's chrome, resized as herdr's draws resize).
    cols: int | None = None
    rows: int | None = None
    worktrees_dir: str | None = None  # [worktrees].directory; default ~/.herdr/worktrees
    confirm_close: bool = True  # ui.confirm_close (src/config/model.rs:1116)
    new_cwd: str = "follow"  # [terminal] new_cwd (src/config/model.rs:229-270)
    socket_path: str | None = None
    # Real panes (simherdr.panes.pty): "simulated" (default), "pty" (every pane real) or
    # "mixed" (simulated unless the pane's env has SIMHERDR_PANE_MODE=pty).
    pane_mode: str = "simulated"
    pty_shell: str | list | None = None  # herdr's configured shell; else $SHELL, else `shell`
    # The terminal plane's render cadence in simulated seconds (CHOICE(render-cadence) in
    # simherdr/terminalplane/plane.py): 0 renders on the next loop turn; herdr's is 0.016.
    render_interval: float = 0.0
    herdr_bin_path: str | None = None  # HERDR_BIN_PATH given to real panes, when known
    # herdr's config.toml (simherdr.hostconfig): None = none read (the test default).
    config_path: str | None = None  # server.reload_config re-reads it
    default_shell: str = ""  # [terminal] default_shell (real panes; "" = $SHELL)
    shell_mode: str = "auto"  # [terminal] shell_mode (read and reported, not applied)
    toast_delivery: str = "off"  # [ui.toast] delivery: notification.show's path
    # The trace (simherdr.trace): entries kept in the ring; 0 records nothing.
    trace_size: int = DEFAULT_TRACE_SIZE
    # The view area pane rects are laid out on (x, y, width, height): simherdr.model.layout
    # DEFAULT_AREA names the choice.
    layout_area: tuple[int, int, int, int] | None = None
    # herdr's config/state dirs (simherdr.dirs); None: under ``home`` as herdr derives them.
    herdr_config_dir: str | None = None
    herdr_state_dir: str | None = None
    # herdr's named session whose data dir (<config>/sessions/NAME) holds the session file;
    # None: the default session (the config dir itself). simherdr.dirs.data_dir.
    herdr_session: str | None = None
    # The environment herdr's integration install reads besides HOME (always ``home``): the
    # agents' directory overrides (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME, ...) and PATH
    # (`kimi --version`). Empty by default, so an install lands under ``home`` only;
    # ``simherdr serve`` passes its own environment, as herdr's server process has it.
    integration_env: dict[str, str] = field(default_factory=dict)
    # Session persistence (simherdr.persist): False keeps everything in memory (the default of
    # ``simherdr serve``); True saves/restores herdr's session.json in the data dir.
    persist: bool = False
    pane_history: bool = False  # [experimental] pane_history: also session-history.json


#: The Config fields herdr's config.toml sets (hostconfig.SECTION_OF). A missing file gives
#: each its default, which is Config's own (tests/core/test_session_made_on_use.py checks both
#: against hostconfig): `simherdr serve` without a config file starts without hostconfig.
HOST_CONFIG_FIELDS = (
    "default_shell",
    "shell_mode",
    "new_cwd",
    "pane_history",
    "confirm_close",
    "toast_delivery",
    "worktrees_dir",
)


def no_config_file() -> dict[str, object]:
    """What a missing config.toml applies: each of :data:`HOST_CONFIG_FIELDS` at Config's
    default (issue 26: the no-file path of ``hostconfig.load_at_start``, without it)."""
    return {
        f.name: f.default
        for f in Config.__record_fields__  # type: ignore[attr-defined]
        if f.name in HOST_CONFIG_FIELDS
    }


def release_of(given: HerdrVersion | str | None) -> HerdrVersion:
    """The herdr release a simulator is, resolved once (a name or a version)."""
    if isinstance(given, HerdrVersion):
        return given
    return resolve(given or DEFAULT_VERSION)


def load_host_config(config: Config, version: HerdrVersion) -> list:
    """Apply herdr's config.toml (``config.config_path``) to ``config``, as herdr reads it at
    start; returns its diagnostics (the client surface reports them)."""
    if not config.config_path:
        return []
    try:
        os.stat(config.config_path)
    except FileNotFoundError:  # no file: herdr's defaults, no diagnostics (hostconfig unread)
        for name, value in no_config_file().items():
            setattr(config, name, value)
        return []
    except OSError:
        pass  # hostconfig reads it and says why it cannot
    from .. import hostconfig

    loaded = hostconfig.load_at_start(config.config_path, version)
    hostconfig.apply(config, loaded)
    return loaded.diagnostics
