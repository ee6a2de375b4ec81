"""``herdr plugin`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/plugin.rs``); loaded only by ``herdr plugin ...`` calls."""


def rows(v09):
    """herdr 0.8.2 src/cli/plugin.rs: hand-written bodies in .plugin; ids ``cli:plugin``."""

    def ids_row(verb, method):
        line = "  herdr plugin %s <plugin_id>" % verb
        return {
            "name": verb,
            "shape": "ids",
            "fields": ("plugin_id",),
            "method": method,
            "rid": "cli:plugin",
            "usage": "usage: herdr plugin %s <plugin_id>" % verb,
            "lines": (line,),
        }

    return (
        "herdr plugin commands:",
        [
            {
                "name": "install",
                "run": "plugin:install",
                "lines": ("  herdr plugin install <owner>/<repo>[/subdir...] [--ref REF] [--yes]",),
            },
            {
                "name": "uninstall",
                "run": "plugin:uninstall",
                "lines": ("  herdr plugin uninstall <plugin_id|owner/repo[/subdir...]>",),
            },
            {
                "name": "link",
                "run": "plugin:link",
                "lines": ("  herdr plugin link <path> [--disabled]",),
            },
            {
                "name": "list",
                "run": "plugin:list_",
                "lines": ("  herdr plugin list [--plugin ID] [--json]",),
            },
            {
                "name": "config-dir",
                "run": "plugin:config_dir",
                "lines": ("  herdr plugin config-dir <plugin_id>",),
            },
            ids_row("unlink", "plugin.unlink"),
            ids_row("enable", "plugin.enable"),
            ids_row("disable", "plugin.disable"),
            {
                "name": "action",
                "run": "plugin:action",
                "lines": ("  herdr plugin action <list|invoke>",),
            },
            {
                "name": "log",
                "run": "plugin:log",
                "lines": ("  herdr plugin log list [--plugin ID] [--limit N]",),
            },
            {"name": "logs", "run": "plugin:log"},
            {
                "name": "pane",
                "run": "plugin:pane",
                "lines": ("  herdr plugin pane <open|focus|close>",),
            },
        ],
        (),
    )
