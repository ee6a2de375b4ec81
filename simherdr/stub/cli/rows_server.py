"""``herdr server`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/server.rs``); loaded only by ``herdr server ...`` calls."""


def rows(v09):
    return (
        "herdr server commands:",
        [
            {
                "name": "",
                "lines": ("  herdr server                run as headless server",),
            },
            {
                "name": "stop",
                "run": "server:stop",
                "usage": "usage: herdr server stop",
                "lines": (
                    "  herdr server stop           stop the running server via the API socket",
                ),
            },
            {
                "name": "live-handoff",
                "run": "server:live_handoff",
                "usage": "usage: herdr server live-handoff [--import-exe <path>] [--expected-protocol <n>] [--expected-version <version>]",
                "lines": (
                    "  herdr server live-handoff   hand off live panes to a new local server",
                ),
            },
            {
                "name": "reload-config",
                "shape": "none",
                "usage": "usage: herdr server reload-config",
                "lines": (
                    "  herdr server reload-config  reload config.toml in the running server",
                ),
            },
            {
                "name": "agent-manifests",
                "run": "server:agent_manifests",
                "usage": "usage: herdr server agent-manifests [--json]",
                "lines": (
                    "  herdr server agent-manifests [--json]  show agent detection manifest status",
                ),
            },
            {
                "name": "update-agent-manifests",
                "run": "server:update_agent_manifests",
                "usage": "usage: herdr server update-agent-manifests [--json]",
                "lines": (
                    "  herdr server update-agent-manifests [--json]  fetch and reload agent detection manifests",
                ),
            },
            {
                "name": "reload-agent-manifests",
                "shape": "none",
                "usage": "usage: herdr server reload-agent-manifests",
                "lines": (
                    "  herdr server reload-agent-manifests  reload agent detection manifests in the running server",
                ),
            },
        ],
        (),
    )
