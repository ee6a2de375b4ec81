"""``herdr channel`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli.rs``); loaded only by ``herdr channel ...`` calls."""

from .status import channel_show
from .table import Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .table import Group


def rows(release: "Release") -> "Group":
    return (
        "herdr channel commands:",
        [
            Verb(
                name="show",
                run=channel_show,
                listed=(
                    "  herdr channel show                  print the configured update channel",
                ),
            ),
            Verb(
                # CHOICE: `channel set` rewrites config.toml and then self-updates the binary
                # (a download): not emulated.
                name="set",
                unsupported=True,
                listed=("  herdr channel set <stable|preview>  choose the update channel",),
            ),
        ],
        (),
    )
