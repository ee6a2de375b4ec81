"""Server-level methods: ping, server.stop, session.snapshot, server.live_handoff (SOCKET.md
§1.5, §4.0)."""

from __future__ import annotations

from .. import params as P
from ..facts import errors as E
from .registry import method

# src/server/handoff.rs:26, checked at src/server/headless.rs:1266-1275.
MAX_FDS_PER_HANDOFF = 64
# CHOICE: herdr hands its pane terminals (PTY fds) to a freshly spawned server process and
# exits (src/server/headless.rs:1235-1441, 3636-3660). simherdr cannot pass its panes to another
# process, so after herdr's own checks it answers herdr's failure code with E.HANDOFF_UNSUPPORTED and keeps
# serving, as herdr does after a failed handoff (rolled back, still running).


@method("ping")
def ping(sim, p):
    return {
        "type": "pong",
        "version": sim.version.name,
        "protocol": sim.version.protocol,
        "capabilities": dict(sim.version.rows.capabilities),
    }


@method("server.stop")
def server_stop(sim, p):
    # Answered at once; afterwards everything but ping gets server_unavailable.
    sim.stop()
    return {"type": "ok"}


@method("session.snapshot")
def session_snapshot(sim, p):
    from .. import views as V  # not at start: a first ping reads no session

    return {
        "type": "session_snapshot",
        "snapshot": V.session_snapshot(
            sim.session,
            sim.version.name,
            sim.version.protocol,
            sim.version.rows.agent_completion_seq,
        ),
    }


@method(
    "server.live_handoff",
    import_exe=P.opt(P.STR),
    expected_protocol=P.opt(P.U32),
    expected_version=P.opt(P.STR),
)
def server_live_handoff(sim, p):
    """src/server/headless.rs:1235-1300: params as serde reads them, then herdr's pane-count
    limit; simherdr fails where herdr's spawn would, but before herdr disconnects clients."""
    panes = sum(1 for _ in sim.session.all_panes())
    if panes > MAX_FDS_PER_HANDOFF:
        raise E.handoff_too_many_panes(MAX_FDS_PER_HANDOFF)
    raise E.handoff_unsupported()
