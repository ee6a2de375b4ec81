"""``herdr api`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/api.rs``); loaded only by ``herdr api ...`` calls."""


def rows(v09):
    return (
        "herdr api commands:",
        [
            {
                "name": "snapshot",
                "shape": "none",
                "method": "session.snapshot",
                "usage": "usage: herdr api snapshot",
                "lines": ("  herdr api snapshot",),
            },
            {
                "name": "schema",
                "mod": "api_schema",
                "lines": ("  herdr api schema [--json | --output PATH]",),
            },
        ],
        (),
    )
