"""0.9.x server.ssh_agent.register ([H093] src/api/server.rs handle_connection_with_stop,
src/platform/ssh_agent.rs SshAgentRegistry::register): a connection-scoped lease."""

from __future__ import annotations

import contextlib
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


def publish(sim) -> None:
    """Point ``<socket>.agent`` at the first live registered agent, else at
    ``<socket>.unavailable`` (ssh_agent.rs State::publish: a symlink swapped in atomically).
    CHOICE: "live" is herdr's usable-socket test without its connect probe (handlers open no
    sockets), no inherited SSH_AUTH_SOCK fallback, and the symlink stays (dangling) after the
    last lease, as herdr's does until the server exits."""
    stable = stable_path(sim)
    if stable is None:
        return
    base = stable.removesuffix(".agent")
    live = next((a for a in sim.ssh_agent_leases if usable_socket(a)), None)
    target = live or base + ".unavailable"
    try:
        if os.readlink(stable) == target:
            return
    except OSError:
        pass
    tmp = f"{base}.{os.getpid()}.new"
    with contextlib.suppress(FileNotFoundError):
        os.remove(tmp)
    os.symlink(target, tmp)
    os.replace(tmp, stable)


@method("server.ssh_agent.register", kind="stream", socket_path=P.req(P.STR))
async def register(sim, p, rid, conn):
    """Validates the path, answers ok, then holds the lease until the client sends a byte or
    disconnects; meanwhile ``<socket>.agent`` points at the agent (new real panes get it as
    SSH_AUTH_SOCK, panes/pty.py)."""
    path = p["socket_path"]
    if not os.path.isabs(path) or path == stable_path(sim) or not usable_socket(path):
        raise E.HerdrError("invalid_ssh_agent", INVALID)
    leases = sim.ssh_agent_leases
    leases.append(path)
    try:
        publish(sim)
    except OSError as e:
        leases.remove(path)
        raise E.HerdrError("ssh_agent_unavailable", str(e)) from None
    await conn.send({"id": rid, "result": {"type": "ok"}})
    try:
        while not sim.stopping and not conn.cancelled():
            await sim.wait_change(None, conn)
    finally:
        leases.remove(path)
        with contextlib.suppress(OSError):
            publish(sim)
