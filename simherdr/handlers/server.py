"""Server-level methods: ping, server.stop, session.snapshot (SOCKET.md §1.5, §4.0)."""

from __future__ import annotations

from ..model import views as V
from .registry import method


@method("ping")
def ping(sim, p):
    return {
        "type": "pong",
        "version": sim.profile.version,
        "protocol": sim.profile.protocol,
        "capabilities": dict(sim.profile.capabilities),
    }


@method("server.stop")
def server_stop(sim, p):
    # Answered at once; afterwards everything but ping gets server_unavailable.
    sim.stop()
    return {"type": "ok"}


@method("session.snapshot")
def session_snapshot(sim, p):
    return {
        "type": "session_snapshot",
        "snapshot": V.session_snapshot(sim.session, sim.profile.version, sim.profile.protocol),
    }
