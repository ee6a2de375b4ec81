"""``herdr server`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/server.rs``); loaded only by ``herdr server ...`` calls."""

from . import server
from .table import Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .table import Group


def rows(release: "Release") -> "Group":
    return (
        "herdr server commands:",
        [
            Verb(
                name="",
                listed=("  herdr server                run as headless server",),
            ),
            Verb(
                name="stop",
                run=server.stop,
                usage="usage: herdr server stop",
                listed=(
                    "  herdr server stop           stop the running server via the API socket",
                ),
            ),
            Verb(
                name="live-handoff",
                run=server.live_handoff,
                usage="usage: herdr server live-handoff [--import-exe <path>] [--expected-protocol <n>] [--expected-version <version>]",
                listed=("  herdr server live-handoff   hand off live panes to a new local server",),
            ),
            Verb(
                name="reload-config",
                shape="none",
                usage="usage: herdr server reload-config",
                listed=("  herdr server reload-config  reload config.toml in the running server",),
            ),
            Verb(
                name="agent-manifests",
                run=server.agent_manifests,
                usage="usage: herdr server agent-manifests [--json]",
                listed=(
                    "  herdr server agent-manifests [--json]  show agent detection manifest status",
                ),
            ),
            Verb(
                name="update-agent-manifests",
                run=server.update_agent_manifests,
                usage="usage: herdr server update-agent-manifests [--json]",
                listed=(
                    "  herdr server update-agent-manifests [--json]  fetch and reload agent detection manifests",
                ),
            ),
            Verb(
                name="reload-agent-manifests",
                shape="none",
                usage="usage: herdr server reload-agent-manifests",
                listed=(
                    "  herdr server reload-agent-manifests  reload agent detection manifests in the running server",
                ),
            ),
        ],
        (),
    )
