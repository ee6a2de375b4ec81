"""``herdr terminal`` (herdr 0.8.2 ``src/cli.rs`` run_terminal_command).

``title set|clear`` are socket calls; ``attach`` and ``session control|observe`` stream a raw
terminal (CHOICE: their arguments are checked as herdr checks them, then they answer "not
supported": the stand-in has no terminal stream client).
"""

from . import wire
from .base import Exit, unsupported, usage

_CONTROL_USAGE = "usage: herdr terminal session control <target> [--takeover] [--cols N] [--rows N]"
_OBSERVE_USAGE = "usage: herdr terminal session observe <target> [--cols N] [--rows N]"
_TITLE_USAGE = "usage: herdr terminal title set <title>\n       herdr terminal title clear"


def attach(ctx, row, args):
    """parse_attach_target (src/cli.rs; also ``agent attach``), then the unsupported attach."""
    if not args:
        raise usage(row.usage)
    for arg in args[1:]:
        if arg == "--takeover":
            continue
        if arg in ("help", "--help", "-h"):
            raise Exit(0, row.usage)
        raise usage("unknown option: %s" % arg)
    return unsupported(ctx, row.command or "herdr terminal attach")


def session(ctx, row, args):
    verb = args[0] if args else None
    if verb in ("control", "observe"):
        return unsupported(ctx, "herdr terminal session " + verb)
    code = 0 if verb in ("help", "--help", "-h") else 2
    raise Exit(code, _CONTROL_USAGE + "\n" + _OBSERVE_USAGE)


def title(ctx, row, args):
    verb = args[0] if args else None
    if verb == "set":
        if len(args) != 2:
            raise usage("usage: herdr terminal title set <title>")
        loaded = wire.send(
            ctx, "cli:terminal:title:set", "client.window_title.set", {"title": args[1]}
        )
        return wire.print_response(ctx, loaded)
    if verb == "clear":
        if len(args) != 1:
            raise usage("usage: herdr terminal title clear")
        loaded = wire.send(ctx, "cli:terminal:title:clear", "client.window_title.clear", {})
        return wire.print_response(ctx, loaded)
    raise Exit(0 if verb in ("help", "--help", "-h") else 2, _TITLE_USAGE)
