"""Help: clap's long help for a subcommand path, herdr's hand-written root help.

herdr 0.8.2 ``src/cli/spec.rs`` ``write_requested_help``: when argv holds ``--help``/``-h``
after at least one word and every word before it names a subcommand, clap prints that
command's long help to stdout (exit 0).
"""

from .core import UNSUPPORTED_EXIT_CODE, UNSUPPORTED_MESSAGE, Exit

_LEAF = {}
_SPEC_TREE = {
    "completion": _LEAF,
    "completions": _LEAF,  # visible alias
    "update": _LEAF,
    "status": {"server": _LEAF, "client": _LEAF},
    "config": {"check": _LEAF, "reset-keys": _LEAF},
    "channel": {"show": _LEAF, "set": _LEAF},
    "server": dict.fromkeys(
        [
            "stop",
            "reload-config",
            "agent-manifests",
            "update-agent-manifests",
            "reload-agent-manifests",
        ],
        _LEAF,
    ),
    "api": {"snapshot": _LEAF, "schema": _LEAF},
    "workspace": dict.fromkeys(
        ["list", "create", "get", "focus", "rename", "report-metadata", "close"], _LEAF
    ),
    "worktree": dict.fromkeys(["list", "create", "open", "remove"], _LEAF),
    "tab": dict.fromkeys(["list", "create", "get", "focus", "rename", "close"], _LEAF),
    "notification": {"show": _LEAF},
    "agent": dict.fromkeys(
        [
            "list",
            "get",
            "read",
            "send-keys",
            "prompt",
            "rename",
            "focus",
            "wait",
            "attach",
            "start",
            "explain",
        ],
        _LEAF,
    ),
    "pane": dict.fromkeys(
        [
            "list",
            "current",
            "get",
            "layout",
            "process-info",
            "neighbor",
            "edges",
            "focus",
            "resize",
            "zoom",
            "read",
            "rename",
            "input",
            "split",
            "swap",
            "move",
            "close",
            "send-text",
            "send-keys",
            "wait-output",
            "run",
            "report-agent",
            "report-agent-session",
            "release-agent",
            "report-metadata",
        ],
        _LEAF,
    ),
    "terminal": {
        "attach": _LEAF,
        "session": {"control": _LEAF, "observe": _LEAF},
        "title": {"set": _LEAF, "clear": _LEAF},
    },
    "session": dict.fromkeys(["list", "attach", "stop", "delete"], _LEAF),
    "integration": dict.fromkeys(["install", "uninstall", "status"], _LEAF),
    "plugin": {
        **dict.fromkeys(
            ["install", "uninstall", "link", "unlink", "enable", "disable", "list", "config-dir"],
            _LEAF,
        ),
        "action": {"list": _LEAF, "invoke": _LEAF},
        "log": {"list": _LEAF},
        "pane": {"open": _LEAF, "focus": _LEAF, "close": _LEAF},
    },
}


def help_path(ctx, args):
    """The command path clap would print long help for, or None (argv without program)."""
    help_index = None
    for index, arg in enumerate(args):
        if arg in ("--help", "-h"):
            help_index = index
            break
    if help_index is None or help_index < 1:
        return None
    if "--" in args[:help_index]:
        return None
    node = dict(_SPEC_TREE)
    if ctx.v09:
        node["machine"] = _LEAF
    path = []
    for segment in args[:help_index]:
        if segment not in node:
            break
        path.append(segment)
        node = node[segment]
    if not path or len(path) != help_index:
        return None
    return path


def requested_help(ctx, args):
    path = help_path(ctx, args)
    if path is None:
        return None
    # CHOICE: clap's generated long help is not reproduced yet.
    raise Exit(
        UNSUPPORTED_EXIT_CODE,
        UNSUPPORTED_MESSAGE.format(command="herdr %s %s" % (" ".join(path), args[len(path)])),
    )


def root_help(ctx):
    raise Exit(UNSUPPORTED_EXIT_CODE, UNSUPPORTED_MESSAGE.format(command="herdr --help"))
