"""herdr's terminal plane (the client socket ``<stem>-client.sock``): its limits and the texts
its server sends, each with its herdr source. Stdlib-only, like every fact.

Sources: 0.8.2 = herdrdev/herdr@1c76079f (``/work/src/herdr-v0.8.2``), 0.8.0 = tag v0.8.0
(``/work/src/herdr-v0.8.0``: the same texts), 0.9.3 = [H093] remziduzagac/herdsman@feeb0f97
(product renamed back to herdr). What differs between releases is a row of ``Rows``
(``terminal_*``); the texts below are the ones every release shares.
"""

from __future__ import annotations

# --- limits (src/server/client_transport.rs) -------------------------------------------------

MIN_CLIENT_COLS = 1  # client_transport.rs:31 (clamp_terminal_size)
MIN_CLIENT_ROWS = 1  # client_transport.rs:32
MAX_INPUT_PAYLOAD = 1024 * 1024  # client_transport.rs:41: one Input message
MAX_INPUT_EVENT_BATCH = 4096  # client_transport.rs:43: structured events in one message
# A herdr handshake thread gives a silent client 4 s, then closes (client_transport.rs:38).
HANDSHAKE_TIMEOUT = 4.0

# --- ServerShutdown reasons (src/server/headless.rs, 0.8.2 line numbers) ------------------------

SERVER_SHUTTING_DOWN = "server is shutting down"  # headless.rs:4842, client_transport.rs:651
DETACHED = "detached"  # headless.rs:2768 (send_terminal_stream_detach_shutdown)
TAKEN_OVER = "terminal attach taken over"  # headless.rs:2864


def attach_not_pending() -> str:
    """headless.rs:2806-2811: an AttachTerminal on a connection not pending terminal attach."""
    return "terminal attach failed: connection is not pending terminal attach"


def attach_not_found(terminal_id: str) -> str:
    """headless.rs:2818-2826: AttachTerminal names no terminal id (ids only, no targets)."""
    return f"terminal attach failed: terminal {terminal_id} not found"


def attach_read_in_progress(terminal_id: str) -> str:
    """headless.rs:2835-2843: an alternate-screen history read holds the terminal."""
    return f"terminal attach failed: terminal {terminal_id} has a read in progress; retry"


def attach_owned(terminal_id: str) -> str:
    """headless.rs:2849-2858: the single-writer rule, without ``takeover``."""
    return (
        f"terminal attach failed: terminal {terminal_id} already has an attached client; "
        "retry with --takeover"
    )


def session_not_pending(action: str) -> str:
    """headless.rs:1849-1859 (``action``: observe | control)."""
    return f"terminal session {action} failed: connection is not pending terminal session"


def session_target_not_found(action: str, target: str) -> str:
    """headless.rs:1863-1873."""
    return f"terminal session {action} failed: terminal target {target} not found"


def terminal_exited(terminal_id: str) -> str:
    """headless.rs:2588-2593 (AppEvent::PaneDied: every stream client of the terminal)."""
    return f"terminal {terminal_id} exited"


def terminal_gone(terminal_id: str) -> str:
    """headless.rs:4511-4518: at render time the stream's terminal is gone."""
    return f"terminal attach ended: terminal {terminal_id} not found"


# --- Notify (headless.rs:3114-3127: ClientPasteRejected) ---------------------------------------

PASTE_REJECTED = "Paste rejected"


def paste_rejected_body(size: int, limit: int) -> str:
    return f"Input message is {size} bytes; Herdr's limit is {limit} bytes"


# --- the handshake (client_transport.rs; the version check is simherdr.protocol's) ------------

# 0.9: the EndpointControl kind a client-owned shell (herdr's own client) opens with
# ([H093] src/protocol/endpoint.rs ENDPOINT_HELLO_KIND; handle_client_handshake)
ENDPOINT_HELLO_KIND = "endpoint.hello.v1"


def invalid_keybindings(error: str) -> str:
    """client_transport.rs:413-414 (parse_client_keybindings): a Local keys_toml that is not
    herdr's config.toml."""
    return f"invalid client keybindings: {error}"
