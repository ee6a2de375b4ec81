"""``herdr terminal`` (herdr 0.8.2 ``src/cli.rs:397-416,679-720,1021-1029``): ``title set|clear``
(the foreground client's window title); ``attach`` and ``session`` (a terminal attached to the
client socket) are not emulated and say so.
"""

from .core import Exit, unsupported, usage, wire


def _print(ctx, request_id, method, params):
    w = wire()
    return w.print_response(ctx, w.send(ctx, request_id, method, params))


TERMINAL_TITLE_HELP = "usage: herdr terminal title set <title>\n       herdr terminal title clear"
TERMINAL_HELP = "\n".join(
    (
        "herdr terminal commands:",
        "  herdr terminal attach <terminal_id> [--takeover]",
        "  herdr terminal session control <target> [--takeover] [--cols N] [--rows N]",
        "  herdr terminal session observe <target> [--cols N] [--rows N]",
        "  herdr terminal title set <title>",
        "  herdr terminal title clear",
        "  detach from direct attach with ctrl+b q; send literal ctrl+b with ctrl+b ctrl+b",
    )
)


def run(ctx, row, args):
    first = args[0] if args else None
    if first in ("attach", "session"):
        return unsupported(ctx, "herdr terminal %s" % first)
    if first != "title":
        raise Exit(0 if first in ("help", "--help", "-h") else 2, TERMINAL_HELP)
    rest = args[1:]
    verb = rest[0] if rest else None
    if verb == "set":
        if len(rest) != 2:
            raise usage("usage: herdr terminal title set <title>")
        return _print(ctx, "cli:terminal:title:set", "client.window_title.set", {"title": rest[1]})
    if verb == "clear":
        if len(rest) != 1:
            raise usage("usage: herdr terminal title clear")
        return _print(ctx, "cli:terminal:title:clear", "client.window_title.clear", {})
    raise Exit(0 if verb in ("help", "--help", "-h") else 2, TERMINAL_TITLE_HELP)
