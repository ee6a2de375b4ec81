"""Integrations: integration.install / integration.uninstall (both versions,
src/app/api/integrations.rs) and 0.9.x integration.list ([H093] src/integration/registry.rs
integration_recommendations, integration_target_label/_command, integration_target_available).

herdr's server runs the same install code as its CLI; so does simherdr: the one core is
:mod:`simherdr.hostcore.integration` (also the stand-in's `herdr integration`), run against the
simulator's host (``Config.home`` as HOME, plus ``Config.integration_env``).
"""

from __future__ import annotations

import os

from .. import params as P
from ..facts import errors as E
from ..hostcore import integration as core
from .registry import method

# (target, label, command names), in herdr's integration_specs order (registry.rs).
TARGETS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("pi", "pi", ("pi",)),
    ("omp", "omp", ("omp",)),
    ("claude", "claude", ("claude",)),
    ("codex", "codex", ("codex",)),
    ("copilot", "copilot", ("copilot",)),
    ("devin", "devin", ("devin",)),
    ("droid", "droid", ("droid",)),
    ("kimi", "kimi", ("kimi",)),
    ("opencode", "opencode", ("opencode",)),
    ("kilo", "kilo", ("kilo", "kilo-code")),
    ("hermes", "hermes", ("hermes",)),
    ("qodercli", "qodercli", ("qodercli",)),
    ("qwen", "qwen", ("qwen",)),
    ("cursor", "cursor", ("cursor-agent",)),
    ("mastracode", "mastracode", ("mastracode",)),
    ("antigravity_cli", "antigravity-cli", ("agy",)),
    ("grok", "grok", ("grok",)),
)


def command_available(command: str, path: str | None) -> bool:
    """An executable regular file named ``command`` in a directory of PATH (registry.rs)."""
    for d in (path or "").split(os.pathsep):
        candidate = os.path.join(d or ".", command)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return True
    return False


def _state(sim, name: str) -> str:
    """registry.rs integration_status_at, on what integration.install wrote."""
    try:
        return core.status(_target(sim, name), install_env(sim), sim.version.name).state
    except OSError:
        return "not_installed"


@method("integration.list")
def integration_list(sim, p):
    """``state`` is the shared core's status of what integration.install wrote under the
    simulator's home; CHOICE: ``available`` is herdr's own test against the server process's
    PATH (the codex/hermes install-layout probes are left out)."""
    path = os.environ.get("PATH")
    return {
        "type": "integration_list",
        "integrations": [
            {
                "target": target,
                "label": label,
                "command": commands[0],
                "available": any(command_available(c, path) for c in commands),
                "state": _state(sim, target),
            }
            for target, label, commands in TARGETS
        ],
    }


def install_env(sim) -> dict[str, str]:
    """The environment herdr's install_target would see in the server process."""
    return {**sim.config.integration_env, "HOME": sim.config.home}


def _target(sim, name: str) -> core.Target:
    target = core.resolve(name, sim.version.name)
    assert target is not None, name  # the params' enum admits socket targets only
    return target


@method("integration.install", target=P.req(P.enum(*core.SOCKET_TARGETS)))
def integration_install(sim, p):
    """src/app/api/integrations.rs:8-25: the install's messages, or its error's text."""
    try:
        messages = core.install(_target(sim, p["target"]), install_env(sim), sim.version.name)
    except (core.IntegrationError, OSError) as exc:
        raise E.HerdrError("integration_install_failed", core.error_text(exc)) from None
    return {
        "type": "integration_install",
        "target": p["target"],
        "details": {"messages": messages},
    }


@method("integration.uninstall", target=P.req(P.enum(*core.SOCKET_TARGETS)))
def integration_uninstall(sim, p):
    """src/app/api/integrations.rs:27-45."""
    try:
        messages = core.uninstall(_target(sim, p["target"]), install_env(sim), sim.version.name)
    except (core.IntegrationError, OSError) as exc:
        raise E.HerdrError("integration_uninstall_failed", core.error_text(exc)) from None
    return {
        "type": "integration_uninstall",
        "target": p["target"],
        "details": {"messages": messages},
    }
