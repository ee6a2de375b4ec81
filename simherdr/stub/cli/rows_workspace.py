"""``herdr workspace`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/workspace.rs``); loaded only by ``herdr workspace ...`` calls."""

from .base import usage
from .table import _FOCUS, Flag, Pos, Verb, _ids

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .table import Group


def rows(release: "Release") -> "Group":
    group = release.grammar.workspace_close_group
    return (
        "herdr workspace commands:",
        [
            Verb(
                name="list",
                shape="none",
                usage="usage: herdr workspace list",
            ),
            Verb(
                name="create",
                flags=(Flag("--cwd", "cwd", "str"), Flag("--label", "label", "str"))
                + _FOCUS
                + (Flag("--env", "env", "env"),),
                params=(
                    ("cwd", "opt"),
                    ("focus", "req", False),
                    ("label", "opt"),
                    ("env", "any"),
                ),
                listed=(
                    "  herdr workspace create [--cwd PATH] [--label TEXT] [--env KEY=VALUE] [--focus] [--no-focus]",
                ),
            ),
            _ids("workspace", "get", "workspace_id"),
            _ids("workspace", "focus", "workspace_id"),
            Verb(
                name="rename",
                shape="text",
                fields=("workspace_id", "label"),
                usage="usage: herdr workspace rename <workspace_id> <label>",
            ),
            Verb(
                name="report-metadata",
                pos=Pos("lead", "workspace_id"),
                flags=(
                    Flag("--source", "source", "str"),
                    Flag("--token", "tokens", "token"),
                    Flag("--clear-token", "tokens", "clear_token"),
                    Flag("--seq", "seq", "u64"),
                    Flag("--ttl-ms", "ttl_ms", "u64"),
                ),
                io_errors=True,
                check=workspace_metadata_check,
                params=(
                    ("workspace_id", "req"),
                    ("source", "req"),
                    ("tokens", "req"),
                    ("seq", "opt"),
                    ("ttl_ms", "opt"),
                ),
                out="ok",
                usage="usage: herdr workspace report-metadata <workspace_id> --source ID [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]",
            ),
            Verb(
                name="close",
                shape="ids",
                fields=("workspace_id",),
                # 0.9.x: `workspace close <id> [--group]`; close_group is omitted when false.
                flag=Flag("--group", "close_group", "on") if group else None,
                params=(("workspace_id", "req"), ("close_group", "true")),
                usage="usage: herdr workspace close <workspace_id>"
                + (" [--group]" if group else ""),
            ),
        ],
        (),
    )


def workspace_metadata_check(ctx, verb, values):
    """workspace_report_metadata: the source is checked, not trimmed (src/cli/workspace.rs)."""
    source = values.get("source")
    if source is None or not source.strip():
        raise usage("missing required --source")
    if not values.get("tokens"):
        raise usage("missing token to set or clear")
