"""``herdr status [server|client] [--json]``.

herdr 0.8.2 ``src/cli/status.rs``; 0.9.3 ``src/cli/status.rs`` (VERSIONS.md §5 row 3): the
text gains ``endpoint_protocol_generation``, ``endpoint_compatible``, ``private_protocol`` /
``private_protocol_compatible`` and ``server_binary_stale``; ``restart_needed`` means the
server's endpoint generation is not the client's (0.8.2: the server version differs).
"""

from . import wire
from .base import Exit, ListGroup, join, usage

STATUS_HELP = "\n".join(
    (
        "herdr status commands:",
        "  herdr status [--json]         show local client and running server status",
        "  herdr status server [--json]  show running server status",
        "  herdr status client [--json]  show local client binary status",
    )
)

#: 0.9.3 ``src/protocol/endpoint.rs``: ENDPOINT_PROTOCOL_GENERATION and the client's endpoint
#: capabilities (SURFACE_INTEREST, PRESENTATION_EFFECTS_FENCE, HEALTH_CHECK), in that order.
ENDPOINT_PROTOCOL_GENERATION = 1
ENDPOINT_CAPABILITIES = ("surface_interest", "presentation_effects_fence", "health_check")
#: CHOICE: ``platform::REMOTE_BRIDGE_IDLE_TIMEOUT_SUPPORTED`` taken as true on Linux.
REMOTE_BRIDGE_IDLE_TIMEOUT_SUPPORTED = True
_CAPS_093 = (
    "live_handoff",
    "detached_server_daemon",
    "endpoint_protocol_generation",
    "surface_interest",
    "health_check",
    "ssh_agent_registration",
)


def run(ctx, row, args):
    if not args:
        scope, json_out = "full", False
    elif args[0] == "--json" and len(args) == 1:
        scope, json_out = "full", True
    elif args[0] in ("server", "client"):
        if len(args) == 1:
            json_out = False
        elif args[1] == "--json" and len(args) == 2:
            json_out = True
        else:
            raise usage("usage: herdr status %s [--json]" % args[0])
        scope = args[0]
    elif args[0] in ("help", "--help", "-h"):
        raise Exit(2 if len(args) > 1 else 0, STATUS_HELP)
    else:
        raise Exit(2, STATUS_HELP)
    dumps = wire.dumps_ordered
    if scope == "client":
        client = _client_status(ctx)
        if json_out:
            ctx.write_out(dumps(client) + "\n")
        else:
            lines = ["version: %s" % ctx.version, "channel: %s" % client["channel"]]
            lines.append("protocol: %d" % ctx.protocol)
            if ctx.rows["cli_status_endpoint_generation"]:
                lines.append("endpoint_protocol_generation: %d" % ENDPOINT_PROTOCOL_GENERATION)
            lines.append("binary: %s" % client["binary"])
            ctx.write_out("".join(line + "\n" for line in lines))
        return 0
    server = _server_runtime_status(ctx)
    if scope == "server":
        if json_out:
            ctx.write_out(dumps(_server_status_json(ctx, server)) + "\n")
        else:
            ctx.write_out(_server_status_body(ctx, server, ""))
        return 0
    if json_out:
        update = {"restart_needed": _restart_needed(ctx, server)}
        if ctx.rows["cli_status_endpoint_generation"]:
            update["server_binary_stale"] = _binary_stale(ctx, server)
        full = {
            "client": _client_status(ctx),
            "server": _server_status_json(ctx, server),
            "update": update,
        }
        ctx.write_out(dumps(full) + "\n")
        return 0
    client = ["  version: %s" % ctx.version, "  channel: %s" % _config_channel(ctx)]
    client.append("  protocol: %d" % ctx.protocol)
    update_lines = ["  restart_needed: %s" % _label(_restart_needed(ctx, server))]
    if ctx.rows["cli_status_endpoint_generation"]:
        client.append("  endpoint_protocol_generation: %d" % ENDPOINT_PROTOCOL_GENERATION)
        update_lines.append("  server_binary_stale: %s" % _label(_binary_stale(ctx, server)))
    text = "client:\n%s\n\nserver:\n%s\nupdate:\n%s\n" % (
        "\n".join(client),
        _server_status_body(ctx, server, "  "),
        "\n".join(update_lines),
    )
    ctx.write_out(text)
    return 0


def _label(value):
    return "unknown" if value is None else ("yes" if value else "no")


def _server_runtime_status(ctx):
    try:
        version, protocol, caps = wire.ping(ctx.socket_path())
    except wire.ConnectFailed as failed:
        if failed.not_running:
            return None
        raise failed.error from None
    return {"version": version, "protocol": protocol, "capabilities": caps}


def _generation(server):
    caps = server["capabilities"]
    return None if caps is None else caps.get("endpoint_protocol_generation")


def _server_status_body(ctx, server, indent):
    path = ctx.socket_path()
    if server is None:
        return "%sstatus: not running\n%ssocket: %s\n" % (indent, indent, path)
    compatible = "yes" if server["protocol"] == ctx.protocol else "no"
    if ctx.rows["cli_status_endpoint_generation"]:
        generation = _generation(server)
        lines: tuple[str, ...] = (
            "status: running",
            "version: %s" % server["version"],
            "endpoint_compatible: %s"
            % (
                "unknown"
                if generation is None
                else _label(generation == ENDPOINT_PROTOCOL_GENERATION)
            ),
            "private_protocol: %d" % server["protocol"],
            "private_protocol_compatible: %s" % compatible,
            "socket: %s" % path,
        )
    else:
        lines = (
            "status: running",
            "version: %s" % server["version"],
            "protocol: %d" % server["protocol"],
            "compatible: %s" % compatible,
            "socket: %s" % path,
        )
    return "".join(indent + line + "\n" for line in lines)


def _restart_needed(ctx, server):
    if server is None:
        return False
    if ctx.rows["cli_status_endpoint_generation"]:
        return _generation(server) != ENDPOINT_PROTOCOL_GENERATION
    return server["version"] != ctx.version


def _binary_stale(ctx, server):
    return False if server is None else server["version"] != ctx.version


def _client_status(ctx):
    if not ctx.rows["cli_status_endpoint_generation"]:
        return {
            "version": ctx.version,
            "channel": _config_channel(ctx),
            "protocol": ctx.protocol,
            "binary": _current_exe(ctx),
            "session": ctx.active_name(),
        }
    return {
        "version": ctx.version,
        "channel": _config_channel(ctx),
        "protocol": ctx.protocol,
        "endpoint_protocol_generation": ENDPOINT_PROTOCOL_GENERATION,
        "endpoint_capabilities": list(ENDPOINT_CAPABILITIES),
        "remote_host_bridge": True,
        "remote_bridge_idle_timeout": REMOTE_BRIDGE_IDLE_TIMEOUT_SUPPORTED,
        "binary": _current_exe(ctx),
        "session": ctx.active_name(),
    }


def _capabilities(ctx, caps):
    if caps is None:
        return None
    if not ctx.rows["cli_status_endpoint_generation"]:
        return {
            "live_handoff": caps["live_handoff"],
            "detached_server_daemon": caps.get("detached_server_daemon", False),
        }
    # CHOICE: absent optional capability flags read as false (serde default).
    out = {}
    for key in _CAPS_093:
        out[key] = caps.get(key) if key == "endpoint_protocol_generation" else caps.get(key, False)
    return out


def _server_status_json(ctx, server):
    endpoint = ctx.rows["cli_status_endpoint_generation"]
    if server is None:
        out = {
            "status": "not_running",
            "running": False,
            "version": None,
            "protocol": None,
            "capabilities": None,
            "compatible": None,
        }
        if endpoint:
            out["endpoint_compatible"] = None
        out.update(socket=ctx.socket_path(), session=ctx.active_name(), restart_needed=False)
        if endpoint:
            out["server_binary_stale"] = False
        return out
    out = {
        "status": "running",
        "running": True,
        "version": server["version"],
        "protocol": server["protocol"],
        "capabilities": _capabilities(ctx, server["capabilities"]),
        "compatible": server["protocol"] == ctx.protocol,
    }
    if endpoint:
        generation = _generation(server)
        out["endpoint_compatible"] = (
            None if generation is None else generation == ENDPOINT_PROTOCOL_GENERATION
        )
    out.update(
        socket=ctx.socket_path(),
        session=ctx.active_name(),
        restart_needed=_restart_needed(ctx, server),
    )
    if endpoint:
        out["server_binary_stale"] = _binary_stale(ctx, server)
    return out


def _current_exe(ctx):
    # CHOICE: herdr prints its own executable; the stand-in prints the launcher script path.
    if ctx.argv0:
        import os

        return os.path.realpath(ctx.argv0)
    return "unknown"


def _config_channel(ctx):
    """config.update.channel (`stable` unless config.toml says `preview`)."""
    path = ctx.var("HERDR_CONFIG_PATH")
    if path is None:
        path = join(ctx.config_dir(), "config.toml")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return "stable"
    if b"preview" not in data:
        return "stable"
    try:
        import tomllib

        channel = tomllib.loads(data.decode("utf-8")).get("update", {}).get("channel")
    except Exception:  # invalid config falls back to defaults, as herdr does
        return "stable"
    return "preview" if channel == "preview" else "stable"


def channel_show(ctx, row, args):
    """``herdr channel show`` (src/cli.rs run_channel_command): the configured channel."""
    if args:
        raise ListGroup(2)
    ctx.write_out(_config_channel(ctx) + "\n")
    return 0
