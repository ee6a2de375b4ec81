"""``herdr status [server|client] [--json]`` (herdr 0.8.2 ``src/cli/status.rs``).

CHOICE: the 0.8.2 text/JSON layout is used for every version.  A 0.9.x-era fork prints extra
endpoint-generation lines and fields, but no released 0.9.x status output was available.
"""

from .core import Exit, join, usage, wire
from .core import wire as core_wire

STATUS_HELP = "\n".join(
    (
        "herdr status commands:",
        "  herdr status [--json]         show local client and running server status",
        "  herdr status server [--json]  show running server status",
        "  herdr status client [--json]  show local client binary status",
    )
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
    if scope == "client":
        client = _client_status(ctx)
        if json_out:
            ctx.write_out(wire().dumps_ordered(client) + "\n")
        else:
            ctx.write_out(
                "version: %s\nchannel: %s\nprotocol: %d\nbinary: %s\n"
                % (client["version"], client["channel"], client["protocol"], client["binary"])
            )
        return 0
    server = _server_runtime_status(ctx)
    if scope == "server":
        if json_out:
            ctx.write_out(wire().dumps_ordered(_server_status_json(ctx, server)) + "\n")
        else:
            ctx.write_out(_server_status_body(ctx, server, ""))
        return 0
    if json_out:
        full = {
            "client": _client_status(ctx),
            "server": _server_status_json(ctx, server),
            "update": {"restart_needed": _restart_needed(ctx, server)},
        }
        ctx.write_out(wire().dumps_ordered(full) + "\n")
        return 0
    needed = _restart_needed(ctx, server)
    text = (
        "client:\n  version: %s\n  channel: %s\n  protocol: %d\n\nserver:\n%s\nupdate:\n  restart_needed: %s\n"
        % (
            ctx.version,
            _config_channel(ctx),
            ctx.protocol,
            _server_status_body(ctx, server, "  "),
            "unknown" if needed is None else ("yes" if needed else "no"),
        )
    )
    ctx.write_out(text)
    return 0


def _server_runtime_status(ctx):
    wire = core_wire()
    try:
        version, protocol, caps = wire.ping(ctx.socket_path())
    except wire.ConnectFailed as failed:
        if failed.not_running:
            return None
        raise failed.error from None
    return {"version": version, "protocol": protocol, "capabilities": caps}


def _server_status_body(ctx, server, indent: str) -> str:
    path = ctx.socket_path()
    if server is None:
        return "%sstatus: not running\n%ssocket: %s\n" % (indent, indent, path)
    return "{i}status: running\n{i}version: {v}\n{i}protocol: {p}\n{i}compatible: {c}\n{i}socket: {s}\n".format(
        i=indent,
        v=server["version"],
        p=server["protocol"],
        c="yes" if server["protocol"] == ctx.protocol else "no",
        s=path,
    )


def _restart_needed(ctx, server):
    if server is None:
        return False
    return server["version"] != ctx.version


def _client_status(ctx) -> dict:
    return {
        "version": ctx.version,
        "channel": _config_channel(ctx),
        "protocol": ctx.protocol,
        "binary": _current_exe(ctx),
        "session": ctx.active_name(),
    }


def _server_status_json(ctx, server) -> dict:
    if server is None:
        return {
            "status": "not_running",
            "running": False,
            "version": None,
            "protocol": None,
            "capabilities": None,
            "compatible": None,
            "socket": ctx.socket_path(),
            "session": ctx.active_name(),
            "restart_needed": False,
        }
    return {
        "status": "running",
        "running": True,
        "version": server["version"],
        "protocol": server["protocol"],
        "capabilities": server["capabilities"],
        "compatible": server["protocol"] == ctx.protocol,
        "socket": ctx.socket_path(),
        "session": ctx.active_name(),
        "restart_needed": _restart_needed(ctx, server),
    }


def _current_exe(ctx) -> str:
    # CHOICE: herdr prints its own executable; the stand-in prints the launcher script path.
    if ctx.argv0:
        import os

        return os.path.realpath(ctx.argv0)
    return "unknown"


def _config_channel(ctx) -> str:
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
