"""``herdr api`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/api.rs``); loaded only by ``herdr api ...`` calls."""

from .table import Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .table import Group


def _api_schema():
    from .api_schema import run

    return run


def rows(release: "Release") -> "Group":
    return (
        "herdr api commands:",
        [
            Verb(
                name="snapshot",
                shape="none",
                method="session.snapshot",
                usage="usage: herdr api snapshot",
            ),
            Verb(
                name="schema",
                standalone=_api_schema,
                listed=("  herdr api schema [--json | --output PATH]",),
            ),
        ],
        (),
    )
