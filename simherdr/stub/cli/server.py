"""``herdr server stop`` (herdr 0.8.2 ``src/cli/server.rs``, ``src/session.rs``).

The other server verbs are rows of :mod:`.table`.
"""

from . import core
from .core import Exit, usage
from .core import wire as core_wire

STOP_WAIT_TIMEOUT = 15.0  # s, src/session.rs:14
STOP_WAIT_POLL = 0.025  # s, src/session.rs:15


def stop(ctx, row, args):
    """stop_active_server: raw server.stop (no ping), then wait until both sockets are gone."""
    if args:
        raise usage(row["usage"])
    wire = core_wire()
    socket_path = ctx.socket_path()
    paths = [socket_path, ctx.client_socket_path()]
    deadline = core._monotonic() + STOP_WAIT_TIMEOUT
    try:
        sock = wire.connect(socket_path)
    except wire.ConnectFailed as failed:
        raise Exit(
            1,
            "server is not running or cannot be reached at %s: %s"
            % (socket_path, failed.error.display),
        ) from None
    reply = None
    try:
        sock.sendall(b'{"id":"cli:session:stop","method":"server.stop","params":{}}\n')
        remaining = deadline - core._monotonic()
        if remaining > 0:
            sock.settimeout(max(remaining, 0.001) / core.time_scale())
            reply = wire.read_line(sock) or None
    except OSError as exc:
        failure = wire.os_error(exc)
        if not isinstance(exc, TimeoutError) and failure.kind not in (
            "BrokenPipe",
            "ConnectionReset",
            "NotConnected",
            "TimedOut",
            "WouldBlock",
        ):
            raise Exit(1, failure.display) from None
        reply = None
    finally:
        sock.close()
    if reply is not None:
        try:
            value = wire.loads(reply.decode("utf-8", "replace")).value
        except wire.JsonError as exc:
            raise Exit(1, "%s at line %d column %d" % (exc.message, exc.line, exc.column)) from None
        if isinstance(value, dict) and "error" in value:
            raise Exit(1, wire.dumps_sorted(value["error"]))
    while core._monotonic() < deadline:
        if not any(wire.is_reachable(path) for path in paths):
            return 0
        core._sleep(min(STOP_WAIT_POLL, max(0.0, deadline - core._monotonic())))
    reachable = [path for path in paths if wire.is_reachable(path)]
    if not reachable:
        return 0
    raise Exit(
        1,
        "server did not stop within %dms; sockets are still reachable at %s"
        % (int(STOP_WAIT_TIMEOUT * 1000), ", ".join(reachable)),
    )
