"""Help: clap's long help for a subcommand path; herdr's hand-written root help.

herdr 0.8.2 ``src/cli/spec.rs`` ``write_requested_help``: when argv holds ``--help``/``-h``
after at least one word and every word before it names a subcommand, clap's
``write_long_help`` prints that command's help to stdout, then a newline (exit 0).  Depth-1
commands with subcommands carry the agent footer as after-help (``configure_help``).

The renderer reproduces clap 4's default template in long mode (herdr builds clap without the
``wrap_help`` feature, so nothing is wrapped): ``about``, ``Usage: ...``, then ``Commands:``
(name column padded to the longest name + 2), ``Arguments:`` and ``Options:`` with every
argument's help on the next line indented 10 columns (that line is started even for an
argument without help) and a blank line between arguments,
possible values as ``[possible values: ...]`` after a blank line, and the after-help.
"""

from .roothelp import AGENT_HELP_FOOTER, root_help  # noqa: F401 - root_help re-exported


def _find(command, name):
    for sub in command[3]:
        if sub[0] == name or sub[4].get("alias") == name:
            return sub
    return None


def help_path(ctx, args):
    """(path, command) clap would print long help for, or None (argv without program)."""
    help_index = None
    for index, arg in enumerate(args):
        if arg in ("--help", "-h"):
            help_index = index
            break
    if help_index is None or help_index < 1 or "--" in args[:help_index]:
        return None
    from .spec import tree

    node = tree(ctx.release)
    path = []
    for segment in args[:help_index]:
        found = _find(node, segment)
        if found is None:
            break
        path.append(segment)
        node = found
    if not path or len(path) != help_index:
        return None
    return path, node


def requested_help(ctx, args):
    found = help_path(ctx, args)
    if found is None:
        return None
    path, command = found
    footer = ctx.rows["cli_agent_help_footer"]
    return render(command, "herdr " + " ".join(path), depth=len(path), footer=footer) + "\n"


def _display(arg, required=None):
    """clap's ``Arg`` display: ``--long <VALUE>``, ``-s, --long``, ``<NAME>...``, ``[NAME]``."""
    if arg.get("long") is None:
        req = (arg.get("req") if required is None else required) and not arg.get("min0")
        name = ("<%s>" if req else "[%s]") % arg["value"]
        return name + ("..." if arg.get("multi") else "")
    text = "--" + arg["long"]
    if arg.get("value"):
        text += " <%s>" % arg["value"]
    return text


_HELP_ARG = {"id": "help", "long": "help", "short": "h", "help": "Print help"}


def _usage(command, bin_name):
    """clap ``Usage::write_help_usage``: name, ``[OPTIONS]``, required options, required
    groups, every positional in index order (optional ones bracketed), ``[COMMAND]``."""
    extra = command[4]
    if extra.get("usage"):
        return extra["usage"]
    args = command[2]
    group = extra.get("group") or ()
    parts = [bin_name]
    options = [a for a in args if a.get("long")]
    if any(not a.get("req") and a["id"] not in group for a in options):
        parts.append("[OPTIONS]")
    parts.extend(_display(a) for a in options if a.get("req") and a["id"] not in group)
    if group:
        members = [a for a in args if a["id"] in group]
        parts.append(
            "<%s>" % "|".join(a["value"] if not a.get("long") else _display(a) for a in members)
        )
    for arg in args:
        if arg.get("long") or arg["id"] in group:
            continue
        if arg.get("last"):
            parts.append("[-- %s]" % _display(arg, required=True))
        else:
            parts.append(_display(arg))
    if command[3]:
        parts.append("[COMMAND]")
    return " ".join(parts)


def _arg_block(arg):
    if arg.get("long") is None:
        head = "  " + _display(arg)
    elif arg.get("short"):
        head = "  -%s, %s" % (arg["short"], _display(arg))
    else:
        head = "      " + _display(arg)
    body = arg.get("help") or ""
    if arg.get("pv"):
        values = "[possible values: %s]" % ", ".join(arg["pv"])
        body = body + "\n\n" + values if body else values
    # clap starts the next-line help (newline + 10 columns) even when the help is empty.
    indent = " " * 10
    return head + "\n" + indent + body.replace("\n", "\n" + indent)


def render(command, bin_name, depth, footer=True):
    """clap's long help; ``footer`` (row cli_agent_help_footer, 1af1a5b8): a command group's
    help ends with AGENT_HELP_FOOTER (0.8.2 spec.rs configure_help depth 1; 0.8.0 has none)."""
    name, about, args, subs, extra = command
    out = []
    if about:
        out.append(about + "\n")
    out.append("\nUsage: " + _usage(command, bin_name) + "\n\n")
    sections = []
    if subs:
        width = max([2] + [len(sub[0]) for sub in subs])
        lines = []
        for sub in subs:
            text = sub[1] or ""
            if sub[4].get("alias"):
                text += " [aliases: %s]" % sub[4]["alias"]
            lines.append("  " + sub[0] + " " * (width + 2 - len(sub[0])) + text)
        sections.append("Commands:\n" + "\n".join(lines))
    positionals = [a for a in args if a.get("long") is None]
    if positionals:
        sections.append("Arguments:\n" + "\n\n".join(_arg_block(a) for a in positionals))
    options = [a for a in args if a.get("long")] + [_HELP_ARG]
    sections.append("Options:\n" + "\n\n".join(_arg_block(a) for a in options))
    out.append("\n\n".join(sections))
    after = extra.get("after")
    if depth == 1 and subs and footer:
        after = AGENT_HELP_FOOTER
    if after:
        out.append("\n\n" + after)
    return "".join(out).rstrip() + "\n"
