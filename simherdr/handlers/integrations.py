"""0.9.x integration.list ([H093] src/integration/registry.rs integration_recommendations,
integration_target_label/_command, integration_target_available)."""

from __future__ import annotations

import os

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


@method("integration.list")
def integration_list(sim, p):
    """CHOICE: the simulator installs no integrations (integration.install is not modelled),
    so every state is not_installed; ``available`` is herdr's own test against the server's
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
                "state": "not_installed",
            }
            for target, label, commands in TARGETS
        ],
    }
