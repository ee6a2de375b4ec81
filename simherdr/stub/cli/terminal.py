"""``herdr terminal`` (herdr 0.8.2 ``src/cli.rs`` run_terminal_command).

``title set|clear`` are socket calls; ``attach`` (:mod:`.attach`) and ``session
control|observe`` (:mod:`.termsession`) speak herdr's client socket.
"""

from . import wire
from .base import Exit, usage

_TITLE_USAGE = "usage: herdr terminal title set <title>\n       herdr terminal title clear"


def attach(ctx, row, args):
    from .attach import terminal_attach

    return terminal_attach(ctx, row, args)


def session(ctx, row, args):
    from .termsession import session as run_session

    return run_session(ctx, row, args)


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
