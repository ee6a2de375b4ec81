"""``herdr terminal`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli.rs``); loaded only by ``herdr terminal ...`` calls."""


def rows(v09):
    return (
        "herdr terminal commands:",
        [
            {
                "name": "attach",
                "run": "terminal:attach",
                "usage": "usage: herdr terminal attach <terminal_id> [--takeover]",
                "lines": ("  herdr terminal attach <terminal_id> [--takeover]",),
            },
            {
                "name": "session",
                "run": "terminal:session",
                "lines": (
                    "  herdr terminal session control <target> [--takeover] [--cols N] [--rows N]",
                    "  herdr terminal session observe <target> [--cols N] [--rows N]",
                ),
            },
            {
                "name": "title",
                "run": "terminal:title",
                "lines": ("  herdr terminal title set <title>", "  herdr terminal title clear"),
            },
        ],
        ("  detach from direct attach with ctrl+b q; send literal ctrl+b with ctrl+b ctrl+b",),
    )
