"""The environment herdr gives a pane's process: one place, for real panes
(:class:`simherdr.panes.pty.PtyBackend`) and for a command run "as if inside a pane"
(``simherdr run --in-pane``, the pytest plugin's ``in_pane``).

herdr 0.8.2 ``src/pane.rs:74-81,129-152`` (``apply_pane_launch_env``), ``src/integration/env.rs:
26-31`` (``apply_pane_base_env``), ``src/main.rs:11-12`` (``HERDR_ENV=1``): the server's
environment, ``TERM``/``COLORTERM``, the release's removed variables (row ``pane_env_removed``;
0.8.0 and 0.8.2 remove only ``CODEX_THREAD_ID``), ``TERM_PROGRAM`` (row ``term_program_env``),
then the caller's ``env``, then ``HERDR_ENV``, ``HERDR_SOCKET_PATH``, ``HERDR_BIN_PATH`` and the
pane's ``HERDR_WORKSPACE_ID``/``HERDR_TAB_ID``/``HERDR_PANE_ID``, which the caller's env cannot
override. 0.9: the pane's ``SSH_AUTH_SOCK`` when the server relays an ssh agent.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..facts.versions import HerdrVersion

PANE_TERM = "xterm-256color"  # src/pane.rs:56
PANE_COLORTERM = "truecolor"  # src/pane.rs:57
HERDR_ENV = "HERDR_ENV"  # src/main.rs:11
HERDR_ENV_VALUE = "1"  # src/main.rs:12
#: What a pane's process is told about its pane (src/integration/env.rs:8-10 names).
IDENTITY_NAMES = ("HERDR_WORKSPACE_ID", "HERDR_TAB_ID", "HERDR_PANE_ID")


def pane_env(
    base: Mapping[str, str],
    version: HerdrVersion,
    *,
    socket_path: str | None,
    herdr_bin_path: str | None,
    workspace_id: str,
    tab_id: str,
    pane_id: str,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """``base`` (the server's environment) as herdr hands it to the process of pane
    ``pane_id`` of ``tab_id`` in ``workspace_id``; ``extra``: the caller's launch env."""
    env = dict(base)
    agent = f"{socket_path}.agent" if socket_path else None
    if "server.ssh_agent.register" in version.methods and agent and os.path.islink(agent):
        env["SSH_AUTH_SOCK"] = agent  # 0.9 ssh_agent::apply_pane_env (before the caller's env)
    for key in version.rows.pane_env_removed:
        env.pop(key, None)
    env["TERM"] = PANE_TERM
    env["COLORTERM"] = PANE_COLORTERM
    if version.rows.term_program_env:
        env["TERM_PROGRAM"] = "herdr"
        env["TERM_PROGRAM_VERSION"] = version.name
    env.update(extra or {})
    env[HERDR_ENV] = HERDR_ENV_VALUE
    if socket_path:
        env["HERDR_SOCKET_PATH"] = socket_path
    if herdr_bin_path:
        env["HERDR_BIN_PATH"] = herdr_bin_path
    env.update(zip(IDENTITY_NAMES, (workspace_id, tab_id, pane_id), strict=True))
    return env
