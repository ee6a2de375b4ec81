"""herdr's socket methods, one module per herdr area (SOCKET.md §4).

Importing this package imports every area below; each registers its methods with
:func:`.registry.method` on import. Adding an area is one line here.
"""

from . import (  # noqa: F401  (imported for their registrations)  # noqa: F401  (0.9.x)
    agent,
    client,
    client_surface,
    config,
    events,
    graphics,
    integrations,
    layout,
    links,
    metadata,
    moves,
    pane,
    plugin,
    scrollback,
    selection,
    server,
    ssh_agent,
    tab,
    workspace,
    worktree,
)
