"""``herdr integration`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/integration.rs``); loaded only by ``herdr integration ...`` calls."""

from .table import Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .table import Group


def _integration():
    from .integration import run

    return run


def rows(release: "Release") -> "Group":
    """src/cli/integration.rs print_integration_help: one line per target (the target list
    lives in .integration, imported only when this group runs)."""
    from .integration import help_labels

    labels = help_labels(release.name)
    return (
        "herdr integration commands:",
        [
            Verb(
                name="install",
                standalone=_integration,
                listed=tuple("  herdr integration install %s" % t for t in labels),
            ),
            Verb(
                name="uninstall",
                standalone=_integration,
                listed=tuple("  herdr integration uninstall %s" % t for t in labels),
            ),
            Verb(
                name="status",
                standalone=_integration,
                listed=("  herdr integration status [--outdated-only]",),
            ),
        ],
        (),
    )
