"""``herdr workspace`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/workspace.rs``); loaded only by ``herdr workspace ...`` calls."""

from .table import _FOCUS, _ids


def rows(v09):
    close_line = "  herdr workspace close <workspace_id>" + (" [--group]" if v09 else "")
    return (
        "herdr workspace commands:",
        [
            {
                "name": "list",
                "shape": "none",
                "usage": "usage: herdr workspace list",
                "lines": ("  herdr workspace list",),
            },
            {
                "name": "create",
                "flags": (("--cwd", "cwd", "str"), ("--label", "label", "str"))
                + _FOCUS
                + (("--env", "env", "env"),),
                "params": (
                    ("cwd", "opt"),
                    ("focus", "req", False),
                    ("label", "opt"),
                    ("env", "any"),
                ),
                "lines": (
                    "  herdr workspace create [--cwd PATH] [--label TEXT] [--env KEY=VALUE] [--focus] [--no-focus]",
                ),
            },
            _ids("workspace", "get", "workspace_id"),
            _ids("workspace", "focus", "workspace_id"),
            {
                "name": "rename",
                "shape": "text",
                "fields": ("workspace_id", "label"),
                "usage": "usage: herdr workspace rename <workspace_id> <label>",
                "lines": ("  herdr workspace rename <workspace_id> <label>",),
            },
            {
                "name": "report-metadata",
                "pos": ("lead", "workspace_id"),
                "flags": (
                    ("--source", "source", "str"),
                    ("--token", "tokens", "token"),
                    ("--clear-token", "tokens", "clear_token"),
                    ("--seq", "seq", "u64"),
                    ("--ttl-ms", "ttl_ms", "u64"),
                ),
                "errors": "io",
                "check": "pane:workspace_metadata_check",
                "params": (
                    ("workspace_id", "req"),
                    ("source", "req"),
                    ("tokens", "req"),
                    ("seq", "opt"),
                    ("ttl_ms", "opt"),
                ),
                "out": "ok",
                "usage": "usage: herdr workspace report-metadata <workspace_id> --source ID [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]",
                "lines": (
                    "  herdr workspace report-metadata <workspace_id> --source ID [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]",
                ),
            },
            {
                "name": "close",
                "shape": "ids",
                "fields": ("workspace_id",),
                # 0.9.x: `workspace close <id> [--group]`; close_group is omitted when false.
                "flag": ("--group", "close_group") if v09 else None,
                "params": (("workspace_id", "req"), ("close_group", "true")),
                "usage": "usage: herdr workspace close <workspace_id>"
                + (" [--group]" if v09 else ""),
                "lines": (close_line,),
            },
        ],
        (),
    )
