"""herdr's own directories, from the host as the Config gives it (src/config/io.rs:30-42,
src/session.rs:157-166): config dir ``$XDG_CONFIG_HOME/herdr`` else ``~/.config/herdr``; state
dir ``$XDG_STATE_HOME/herdr`` else ``~/.local/state/herdr``; the (default, unnamed) session's
data dir is the config dir, a named session's ``<config>/sessions/NAME``. The environment is read once, by whoever builds the Config
(``simherdr serve``); ``Config.herdr_config_dir`` / ``herdr_state_dir`` override."""

from __future__ import annotations

import os

APP_DIR = "herdr"  # app_dir_name() of a release build


def config_dir(config) -> str:
    return config.herdr_config_dir or os.path.join(config.home, ".config", APP_DIR)


def state_dir(config) -> str:
    return config.herdr_state_dir or os.path.join(config.home, ".local", "state", APP_DIR)


def data_dir(config) -> str:
    """data_dir_for (src/session.rs:157-166): a named session's is <config>/sessions/NAME."""
    name = config.herdr_session
    return os.path.join(config_dir(config), "sessions", name) if name else config_dir(config)


def from_environment(environ=os.environ) -> dict:
    """Config overrides from XDG_CONFIG_HOME / XDG_STATE_HOME, as herdr reads them."""
    out = {}
    if environ.get("XDG_CONFIG_HOME"):
        out["herdr_config_dir"] = os.path.join(environ["XDG_CONFIG_HOME"], APP_DIR)
    if environ.get("XDG_STATE_HOME"):
        out["herdr_state_dir"] = os.path.join(environ["XDG_STATE_HOME"], APP_DIR)
    return out


CONFIG_PATH_ENV = "HERDR_CONFIG_PATH"  # src/config.rs:52


def config_path(config, environ=os.environ) -> str:
    """herdr's config.toml (src/config/io.rs:169-174): $HERDR_CONFIG_PATH, else in the config dir."""
    return environ.get(CONFIG_PATH_ENV) or os.path.join(config_dir(config), "config.toml")
