"""``herdr server stop`` (herdr 0.8.2 ``src/cli/server.rs``, ``src/session.rs``).

The other server verbs are rows of :mod:`.table`.
"""

from . import wire
from .base import Exit, join, usage

STOP_WAIT_TIMEOUT = 15.0  # s, src/session.rs:14
STOP_WAIT_POLL = 0.025  # s, src/session.rs:15


def stop(ctx, row, args):
    """stop_active_server: raw server.stop (no ping), then wait until both sockets are gone."""
    if args:
        raise usage(row.usage)
    socket_path = ctx.socket_path()
    paths = [socket_path, ctx.client_socket_path()]
    deadline = ctx.clock.monotonic() + STOP_WAIT_TIMEOUT
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
        remaining = deadline - ctx.clock.monotonic()
        if remaining > 0:
            sock.settimeout(ctx.clock.real_seconds(max(remaining, 0.001)))
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
    while ctx.clock.monotonic() < deadline:
        if not any(wire.is_reachable(path) for path in paths):
            return 0
        ctx.clock.sleep(min(STOP_WAIT_POLL, max(0.0, deadline - ctx.clock.monotonic())))
    reachable = [path for path in paths if wire.is_reachable(path)]
    if not reachable:
        return 0
    raise Exit(
        1,
        "server did not stop within %dms; sockets are still reachable at %s"
        % (int(STOP_WAIT_TIMEOUT * 1000), ", ".join(reachable)),
    )


def live_handoff(ctx, row, args):
    """server_live_handoff: sent without the ping guard (it is the mismatch recovery path)."""
    params = {}
    index = 0
    while index < len(args):
        arg = args[index]
        if "=" in arg:
            flag, value = arg.split("=", 1)
        else:
            flag = arg
            index += 1
            if index >= len(args):
                raise usage(row.usage)
            value = args[index]
        if flag == "--import-exe":
            params["import_exe"] = value
        elif flag == "--expected-protocol":
            from .scan import parse_unsigned

            protocol = parse_unsigned(value, 32)
            if protocol is None:
                raise usage(row.usage)
            params["expected_protocol"] = protocol
        elif flag == "--expected-version":
            params["expected_version"] = value
        else:
            raise usage(row.usage)
        index += 1
    # ServerLiveHandoffParams field order: import_exe, expected_protocol, expected_version.
    ordered = {
        k: params[k] for k in ("import_exe", "expected_protocol", "expected_version") if k in params
    }
    loaded = wire.send(
        ctx, "cli:server:live-handoff", "server.live_handoff", ordered, checked=False
    )
    if wire.has_error(loaded.value):
        ctx.write_err(wire.dumps_sorted(loaded.value, loaded.exact_fast) + "\n")
        return 1
    log = join(ctx.data_dir_for(ctx.active_name()), "herdr-server.log")
    ctx.write_err("live handoff complete; server log: %s\n" % log)
    return 0


def _json_flag(row, args):
    if not args:
        return False
    if args == ["--json"]:
        return True
    raise usage(row.usage)


def agent_manifests(ctx, row, args):
    json_out = _json_flag(row, args)
    loaded = wire.send(ctx, "cli:server:agent-manifests", "server.agent_manifests", {})
    if json_out or wire.has_error(loaded.value):
        return wire.print_response(ctx, loaded)
    ctx.write_out(_manifest_status_text(loaded.value))
    return 0


def update_agent_manifests(ctx, row, args):
    """Fetch, reload, then read the status (src/cli/server.rs update_agent_manifest_status).

    CHOICE: the stand-in never downloads manifests: the fetch step succeeds without network,
    so the command is the reload followed by the status read.
    """
    json_out = _json_flag(row, args)
    loaded = wire.send(
        ctx, "cli:server:reload-agent-manifests", "server.reload_agent_manifests", {}
    )
    if not wire.has_error(loaded.value):
        loaded = wire.send(ctx, "cli:server:agent-manifests", "server.agent_manifests", {})
    if json_out or wire.has_error(loaded.value):
        return wire.print_response(ctx, loaded)
    ctx.write_out(_manifest_status_text(loaded.value))
    return 0


def _str(value, default):
    return value if isinstance(value, str) else default


def _manifest_status_text(response):
    """print_agent_manifest_status (src/cli/server.rs:152-190)."""
    result = wire.index(response, "result")
    last_check = wire.index(result, "last_check_unix")
    if isinstance(last_check, int) and not isinstance(last_check, bool) and 0 <= last_check < 2**64:
        last_check = str(last_check)
    else:
        last_check = "never"
    lines = [
        "last check: %s" % last_check,
        "result: %s" % _str(wire.index(result, "last_result"), "not checked"),
        "",
    ]
    manifests = wire.index(result, "manifests")
    if isinstance(manifests, list):
        for manifest in manifests:
            get = lambda key, manifest=manifest: wire.index(manifest, key)  # noqa: E731
            shadowing = get("local_override_shadowing_remote") is True
            error = get("remote_update_error")
            marker = "!" if shadowing else ("x" if isinstance(error, str) else " ")
            lines.append(
                "%s %-9s %-14s active %-14s remote %-14s %s"
                % (
                    marker,
                    _str(get("agent"), "-"),
                    _str(get("source_kind"), "-"),
                    _str(get("active_version"), "-"),
                    _str(get("cached_remote_version"), "-"),
                    _str(get("remote_update_result"), "not checked"),
                )
            )
            if isinstance(error, str):
                lines.append("  " + error)
            elif shadowing:
                lines.append("  local override shadows cached remote rules")
            elif isinstance(get("warning"), str):
                lines.append("  " + get("warning"))
    return "".join(line + "\n" for line in lines)
