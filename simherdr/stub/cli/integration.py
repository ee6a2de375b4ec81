"""`herdr integration install|uninstall|status [--outdated-only]`, locally, as herdr does.

herdr installs its own hook scripts and plugins into each agent's config directory and
registers them in the agent's config (src/cli/integration.rs, src/integration/*.rs). The
install / uninstall / status core, its target table and simherdr's own asset files live in
:mod:`simherdr.hostcore.integration`, shared with the server's ``integration.install`` /
``integration.uninstall``; this module is the CLI around it (usage, target words, printing).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...hostcore.integration import (
    _DIRS,  # noqa: F401  (tests read the agents' directories through this module)
    LETTA,
    TARGETS,
    IntegrationError,
    Status,
    cli_labels,
    error_text,
    expected_version,  # noqa: F401
    has_letta,
    help_labels,
    install,
    parse_version,  # noqa: F401
    resolve,
    status,
    targets,
    uninstall,
)

TYPE_CHECKING = False  # (not typing's: importing typing costs the stand-in ~8 ms a call)
if TYPE_CHECKING:
    from typing import TextIO

__all__ = ["LETTA", "TARGETS", "cli_labels", "help_labels", "run"]

_resolve = resolve  # the CLI's target words (tests use this name)


def describe(s: Status) -> str:
    """src/cli/integration.rs:40-60."""
    shown = "v%d" % s.installed if s.installed is not None else "legacy"
    if s.state == "not_installed":
        return "not installed"
    if s.state == "current":
        return "current (%s)" % shown
    if s.installed is not None and s.installed >= s.expected:
        return "needs repair (%s)" % shown
    return "outdated (%s < v%d)" % (shown, s.expected)


def run(
    verb: str, args: list[str], env: Mapping[str, str], version: str, out: TextIO, err: TextIO
) -> int:
    """``verb``: install, uninstall or status (the group help is the CLI table's)."""
    if verb == "status":
        if args not in ([], ["--outdated-only"]):
            err.write("usage: herdr integration status [--outdated-only]\n")
            return 2
        try:
            found = [status(t, env, version) for t in targets(version)]
            letta = status(LETTA, env, version) if has_letta(version) else None
        except OSError:
            found, letta = [], None  # integration_specs skips unresolvable paths
        if args:
            outdated = [s.target.label for s in found if s.state == "outdated"]
            if outdated:
                commands = ["herdr integration install %s" % label for label in outdated]
                joined = (
                    commands[0]
                    if len(commands) == 1
                    else ("%s and %s" % (", ".join(commands[:-1]), commands[-1]))
                )
                err.write("installed herdr integrations need updating; run %s.\n" % joined)
            return 0
        for s in found:
            out.write("%s: %s (%s)\n" % (s.target.label, describe(s), s.path))
        if letta is not None:
            out.write("letta (experimental): %s (%s)\n" % (describe(letta), letta.path))
        return 0
    usage = "usage: herdr integration %s <%s>" % (verb, "|".join(cli_labels(version)))
    if len(args) != 1:
        err.write(usage + "\n")
        return 2
    target = resolve(args[0], version)
    if target is None:
        labels = help_labels(version)
        err.write(
            "unknown integration target: %s\ncurrently supported: %s\n"
            % (args[0], ", ".join(labels))
        )
        return 2
    try:
        lines = (install if verb == "install" else uninstall)(target, env, version)
    except (IntegrationError, OSError) as exc:
        err.write("%s\n" % error_text(exc))
        return 1
    for line in lines:
        out.write(line + "\n")
    return 0
