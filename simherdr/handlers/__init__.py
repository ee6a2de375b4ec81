"""herdr's socket methods, one module per herdr area (SOCKET.md §4).

Importing this package imports every area below; each registers its methods with
:func:`.registry.method` on import. Adding an area is one line here.
"""

from . import (  # noqa: F401  (imported for their registrations)
    agent,
    events,
    graphics,
    layout,
    metadata,
    moves,
    pane,
    plugin,
    server,
    tab,
    workspace,
    worktree,
)
