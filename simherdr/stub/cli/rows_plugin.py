"""``herdr plugin`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/plugin.rs``); loaded only by ``herdr plugin ...`` calls."""

from . import plugin
from .table import Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .table import Group


def rows(release: "Release") -> "Group":
    """herdr 0.8.2 src/cli/plugin.rs: hand-written bodies in .plugin; ids ``cli:plugin``."""

    def ids_row(verb: str, method: str) -> Verb:
        return Verb(
            name=verb,
            shape="ids",
            fields=("plugin_id",),
            method=method,
            rid="cli:plugin",
            usage="usage: herdr plugin %s <plugin_id>" % verb,
        )

    return (
        "herdr plugin commands:",
        [
            Verb(
                name="install",
                run=plugin.install,
                listed=("  herdr plugin install <owner>/<repo>[/subdir...] [--ref REF] [--yes]",),
            ),
            Verb(
                name="uninstall",
                run=plugin.uninstall,
                listed=("  herdr plugin uninstall <plugin_id|owner/repo[/subdir...]>",),
            ),
            Verb(
                name="link",
                run=plugin.link,
                listed=("  herdr plugin link <path> [--disabled]",),
            ),
            Verb(
                name="list",
                run=plugin.list_,
                listed=("  herdr plugin list [--plugin ID] [--json]",),
            ),
            Verb(
                name="config-dir",
                run=plugin.config_dir,
                listed=("  herdr plugin config-dir <plugin_id>",),
            ),
            ids_row("unlink", "plugin.unlink"),
            ids_row("enable", "plugin.enable"),
            ids_row("disable", "plugin.disable"),
            Verb(
                name="action",
                run=plugin.action,
                listed=("  herdr plugin action <list|invoke>",),
            ),
            Verb(
                name="log",
                run=plugin.log,
                listed=("  herdr plugin log list [--plugin ID] [--limit N]",),
            ),
            Verb(name="logs", run=plugin.log),
            Verb(
                name="pane",
                run=plugin.pane,
                listed=("  herdr plugin pane <open|focus|close>",),
            ),
        ],
        (),
    )
