"""``herdr terminal`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli.rs``); loaded only by ``herdr terminal ...`` calls."""

from . import terminal
from .table import Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .table import Group


def rows(release: "Release") -> "Group":
    return (
        "herdr terminal commands:",
        [
            Verb(
                name="attach",
                run=terminal.attach,
                usage="usage: herdr terminal attach <terminal_id> [--takeover]",
            ),
            Verb(
                name="session",
                run=terminal.session,
                listed=(
                    "  herdr terminal session control <target> [--takeover] [--cols N] [--rows N]",
                    "  herdr terminal session observe <target> [--cols N] [--rows N]",
                ),
            ),
            Verb(
                name="title",
                run=terminal.title,
                listed=("  herdr terminal title set <title>", "  herdr terminal title clear"),
            ),
        ],
        ("  detach from direct attach with ctrl+b q; send literal ctrl+b with ctrl+b ctrl+b",),
    )
