"""``herdr integration`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/integration.rs``); loaded only by ``herdr integration ...`` calls."""

RELEASE_ROWS = True  # the group help lists the release's targets (table.group)


def rows(v09, release):
    """src/cli/integration.rs print_integration_help: one line per target (the target list
    lives in .integration, imported only when this group runs)."""
    from .integration import help_labels

    labels = help_labels(release.version)
    return (
        "herdr integration commands:",
        [
            {
                "name": "install",
                "mod": "integration",
                "lines": tuple("  herdr integration install %s" % t for t in labels),
            },
            {
                "name": "uninstall",
                "mod": "integration",
                "lines": tuple("  herdr integration uninstall %s" % t for t in labels),
            },
            {
                "name": "status",
                "mod": "integration",
                "lines": ("  herdr integration status [--outdated-only]",),
            },
        ],
        (),
    )
