"""``herdr tab`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/tab.rs``); loaded only by ``herdr tab ...`` calls."""

from .table import _FOCUS, Flag, Verb, _ids

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .table import Group


def rows(release: "Release") -> "Group":
    return (
        "herdr tab commands:",
        [
            Verb(
                name="list",
                flags=(Flag("--workspace", "workspace_id", "str"),),
                params=(("workspace_id", "opt"),),
                listed=("  herdr tab list [--workspace <workspace_id>]",),
            ),
            Verb(
                name="create",
                flags=(
                    Flag("--workspace", "workspace_id", "str"),
                    Flag("--cwd", "cwd", "str"),
                    Flag("--label", "label", "str"),
                )
                + _FOCUS
                + (Flag("--env", "env", "env"),),
                params=(
                    ("workspace_id", "opt"),
                    ("cwd", "opt"),
                    ("focus", "req", False),
                    ("label", "opt"),
                    ("env", "any"),
                ),
                listed=(
                    "  herdr tab create [--workspace <workspace_id>] [--cwd PATH] [--label TEXT] [--env KEY=VALUE] [--focus] [--no-focus]",
                ),
            ),
            _ids("tab", "get", "tab_id"),
            _ids("tab", "focus", "tab_id"),
            Verb(
                name="rename",
                shape="text",
                fields=("tab_id", "label"),
                usage="usage: herdr tab rename <tab_id> <label>",
            ),
            _ids("tab", "close", "tab_id"),
        ],
        (),
    )
