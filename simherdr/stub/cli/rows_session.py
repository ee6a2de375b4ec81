"""``herdr session`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli.rs``); loaded only by ``herdr session ...`` calls."""

from .table import Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .table import Group


def _sessions():
    from .sessions import run

    return run


def rows(release: "Release") -> "Group":
    """src/cli.rs print_session_help (same in 0.9.3)."""
    return (
        "herdr session commands:",
        [
            Verb(name=verb, standalone=_sessions, listed=(line,))
            for verb, line in (
                ("list", "  herdr session list [--json]"),
                ("attach", "  herdr session attach <name>"),
                ("stop", "  herdr session stop <name> [--json]"),
                ("delete", "  herdr session delete <name> [--json]"),
            )
        ],
        ("  use 'default' as <name> to target the default session for stop",),
    )
