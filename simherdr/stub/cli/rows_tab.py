"""``herdr tab`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/tab.rs``); loaded only by ``herdr tab ...`` calls."""

from .table import _FOCUS, _ids


def rows(v09):
    return (
        "herdr tab commands:",
        [
            {
                "name": "list",
                "flags": (("--workspace", "workspace_id", "str"),),
                "params": (("workspace_id", "opt"),),
                "lines": ("  herdr tab list [--workspace <workspace_id>]",),
            },
            {
                "name": "create",
                "flags": (
                    ("--workspace", "workspace_id", "str"),
                    ("--cwd", "cwd", "str"),
                    ("--label", "label", "str"),
                )
                + _FOCUS
                + (("--env", "env", "env"),),
                "params": (
                    ("workspace_id", "opt"),
                    ("cwd", "opt"),
                    ("focus", "req", False),
                    ("label", "opt"),
                    ("env", "any"),
                ),
                "lines": (
                    "  herdr tab create [--workspace <workspace_id>] [--cwd PATH] [--label TEXT] [--env KEY=VALUE] [--focus] [--no-focus]",
                ),
            },
            _ids("tab", "get", "tab_id"),
            _ids("tab", "focus", "tab_id"),
            {
                "name": "rename",
                "shape": "text",
                "fields": ("tab_id", "label"),
                "usage": "usage: herdr tab rename <tab_id> <label>",
                "lines": ("  herdr tab rename <tab_id> <label>",),
            },
            _ids("tab", "close", "tab_id"),
        ],
        (),
    )
