"""``herdr config`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli.rs``); loaded only by ``herdr config ...`` calls."""


def rows(v09):
    return (
        "herdr config commands:",
        [
            {
                "name": "check",
                "mod": "config_check",
                "lines": ("  herdr config check  validate config.toml and print diagnostics",),
            },
            {
                "name": "reset-keys",
                "run": "reset_keys:run",
                "lines": (
                    "  herdr config reset-keys  back up config.toml and remove custom keybindings",
                ),
            },
        ],
        (),
    )
