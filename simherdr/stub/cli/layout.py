"""The pane layout verbs whose parsers do more than scan flags (herdr 0.8.2 src/cli/pane.rs:
pane_focus 203-213,298-306; pane_zoom 365-432; pane_swap/pane_move 750-988). Their rows in
:mod:`.table` hold the flags; these bodies add herdr's checks and build the params."""

from .core import usage, wire
from .scan import scan

_ONE_MODE = "provide only one of --toggle, --on, or --off"
SWAP_USAGE = (
    "usage: herdr pane swap --direction left|right|up|down [--pane ID|--current]\n"
    "       herdr pane swap --source-pane ID --target-pane ID"
)
MOVE_USAGE = (
    "usage: herdr pane move <pane_id> --tab <tab_id> --split right|down [--target-pane ID] "
    "[--ratio FLOAT] [--focus|--no-focus]\n"
    "       herdr pane move <pane_id> --new-tab [--workspace ID] [--label TEXT] [--focus|--no-focus]\n"
    "       herdr pane move <pane_id> --new-workspace [--label TEXT] [--tab-label TEXT] "
    "[--focus|--no-focus]"
)


def _send(ctx, request_id, method, params):
    w = wire()
    return w.print_response(ctx, w.send(ctx, request_id, method, params))


def focus(ctx, row, args):
    """parse_pane_focus_args: the neighbour parser, every error replaced by the usage line."""
    from .core import Exit

    try:
        values = scan(ctx, row, args)
    except Exit as exc:
        if exc.code != 2:
            raise
        raise usage(row["usage"]) from None
    params = {}
    if values.get("pane_id") is not None:
        params["pane_id"] = values["pane_id"]
    params["direction"] = values["direction"]
    return _send(ctx, "cli:pane:focus", "pane.focus_direction", params)


def zoom(ctx, row, args):
    """A first word that is not an option is the pane; one mode at most (default toggle)."""
    pane_id = None
    mode = "toggle"
    seen = False
    index = 0
    if args and not args[0].startswith("--"):
        pane_id = args[0]
        index = 1
    while index < len(args):
        arg = args[index]
        if arg == "--pane":
            if index + 1 >= len(args):
                raise usage("missing value for --pane")
            pane_id = args[index + 1]
            index += 2
        elif arg == "--current":
            pane_id = None
            index += 1
        elif arg in ("--toggle", "--on", "--off"):
            if seen:
                raise usage(_ONE_MODE)
            mode, seen = arg[2:], True
            index += 1
        else:
            raise usage("unknown option: %s" % arg)
    params = {} if pane_id is None else {"pane_id": pane_id}
    params["mode"] = mode
    return _send(ctx, "cli:pane:zoom", "pane.zoom", params)


def swap(ctx, row, args):
    """Either --direction (with an optional --pane) or both --source-pane and --target-pane."""
    values = scan(ctx, row, args)
    directional = values.get("direction") is not None
    explicit = values.get("source_pane_id") is not None or values.get("target_pane_id") is not None
    if directional and not explicit:
        params = {}
        if values.get("pane_id") is not None:
            params["pane_id"] = values["pane_id"]
        params["direction"] = values["direction"]
    elif (
        explicit
        and not directional
        and values.get("pane_id") is None
        and values.get("source_pane_id") is not None
        and values.get("target_pane_id") is not None
    ):
        params = {
            "source_pane_id": values["source_pane_id"],
            "target_pane_id": values["target_pane_id"],
        }
    else:
        raise usage(SWAP_USAGE)
    return _send(ctx, "cli:pane:swap", "pane.swap", params)


def move(ctx, row, args):
    """One destination (--tab with --split, --new-tab, --new-workspace) and only its options;
    focus defaults to true on the command line (src/cli/pane.rs:790)."""
    if not args or args[0].startswith("-"):
        raise usage(MOVE_USAGE)
    values = scan(ctx, row, args[1:])
    tab = values.get("tab_id")
    new_tab = values.get("new_tab", False)
    new_ws = values.get("new_workspace", False)
    if (tab is not None) + new_tab + new_ws != 1:
        raise usage(MOVE_USAGE)

    def absent(*fields):
        if any(values.get(f) not in (None, False) for f in fields):
            raise usage(MOVE_USAGE)

    if tab is not None:
        if values.get("split") is None:
            raise usage(MOVE_USAGE)
        absent("workspace_id", "label", "tab_label")
        destination = {"type": "tab", "tab_id": tab}
        if values.get("target_pane_id") is not None:
            destination["target_pane_id"] = values["target_pane_id"]
        destination["split"] = values["split"]
        if values.get("ratio") is not None:
            destination["ratio"] = values["ratio"]
    elif new_tab:
        absent("split", "target_pane_id", "tab_label")
        destination = {"type": "new_tab"}
        for field in ("workspace_id", "label"):
            if values.get(field) is not None:
                destination[field] = values[field]
    else:
        absent("split", "target_pane_id", "workspace_id")
        destination = {"type": "new_workspace"}
        for field in ("label", "tab_label"):
            if values.get(field) is not None:
                destination[field] = values[field]
    params = {
        "pane_id": args[0],
        "destination": destination,
        "focus": values.get("focus", True),
    }
    return _send(ctx, "cli:pane:move", "pane.move", params)
