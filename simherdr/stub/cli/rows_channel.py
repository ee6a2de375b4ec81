"""``herdr channel`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli.rs``); loaded only by ``herdr channel ...`` calls."""


def rows(v09):
    return (
        "herdr channel commands:",
        [
            {
                "name": "show",
                "run": "status:channel_show",
                "lines": (
                    "  herdr channel show                  print the configured update channel",
                ),
            },
            {
                # CHOICE: `channel set` rewrites config.toml and then self-updates the binary
                # (a download): not emulated.
                "name": "set",
                "run": None,
                "lines": ("  herdr channel set <stable|preview>  choose the update channel",),
            },
        ],
        (),
    )
