"""0.9.x server.ssh_agent.register ([H093] src/api/server.rs handle_connection_with_stop,
src/platform/ssh_agent.rs SshAgentRegistry::register): a connection-scoped lease."""

from __future__ import annotations

import os
import stat

from .. import params as P
from ..facts import errors as E
from .registry import method

INVALID = "SSH agent must be an absolute, user-owned socket"


def usable_socket(path: str) -> bool:
    """A socket owned by this process's effective user (never another user's agent)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISSOCK(st.st_mode) and st.st_uid == os.geteuid()


def stable_path(sim) -> str | None:
    """The agent address herdr publishes beside its API socket (ssh_agent::socket_path)."""
    return f"{sim.config.socket_path}.agent" if sim.config.socket_path else None


@method("server.ssh_agent.register", kind="stream", socket_path=P.req(P.STR))
async def register(sim, p, rid, conn):
    """Validates the path, answers ok, then holds the lease until the client sends a byte or
    disconnects. CHOICE: the simulator records the lease in ``sim.ssh_agent_leases`` but
    publishes no ``<socket>.agent`` symlink and gives panes no SSH_AUTH_SOCK."""
    path = p["socket_path"]
    if not os.path.isabs(path) or path == stable_path(sim) or not usable_socket(path):
        raise E.HerdrError("invalid_ssh_agent", INVALID)
    leases = sim.ssh_agent_leases
    await conn.send({"id": rid, "result": {"type": "ok"}})
    leases.append(path)
    try:
        while not sim.stopping and not conn.cancelled():
            await sim.wait_change(None, conn)
    finally:
        leases.remove(path)
