"""0.9.x saved SSH machines: the ``--machine`` prefix and ``herdr machine`` (0.9.3
``src/cli/target.rs``, ``src/cli/machine.rs``; VERSIONS.md §5 row 12).

CHOICE: the stand-in keeps no machine catalog: the list is always empty, so every selector is
unknown, and the commands that change the catalog or need SSH (``add``, ``rename``, ``remove``,
``enable``, ``disable``) answer "not supported" once their arguments parse.
"""

from .core import Exit, unsupported

MACHINE_HELP = """Usage:
  herdr machine list [--json]
  herdr machine status [<label-or-id>] [--json]
  herdr machine reconnect <label-or-id>
  herdr machine add <ssh-target> [--label <label>] [--remote-session <name>]
  herdr machine rename <profile-id> --label <label>
  herdr machine remove <profile-id>
  herdr machine enable <profile-id>
  herdr machine disable <profile-id>

Add prepares the remote Herdr installation and starts its server before saving.
Missing or incompatible installations require approval in an interactive terminal.
Changes apply automatically to open local Herdr clients.
Removing or disabling a machine leaves its remote sessions running.
Saved machines contain only a label, SSH target, explicit Herdr session, and enabled state.
SSH credentials and key material remain owned by OpenSSH."""

#: The saved machines (``EndpointCatalog::load_profiles``); see the module CHOICE.
SAVED_MACHINES = ()

_API_BACKED = {
    "workspace": None,
    "worktree": None,
    "tab": None,
    "pane": None,
    "notification": None,
    "api": ("snapshot",),
    "status": ("server",),
    "plugin": ("link", "unlink", "enable", "disable", "list", "action", "log", "logs", "pane"),
    "server": ("stop", "reload-config", "agent-manifests", "reload-agent-manifests"),
}


def _usage_error(message):
    return Exit(2, "error: " + message)


def _parse_prefix(args):
    """parse_machine_prefix: (selector, command argv)."""
    index = 0
    machine = None
    other_prefix = False
    while index < len(args):
        arg = args[index]
        if arg == "--machine" or arg.startswith("--machine="):
            if machine is not None:
                raise _usage_error("--machine can only be specified once")
            if arg.startswith("--machine="):
                value = arg[len("--machine=") :]
            else:
                index += 1
                if index >= len(args):
                    raise _usage_error("missing value for --machine")
                value = args[index]
            if not value.strip() or value.startswith("-"):
                raise _usage_error("--machine requires a saved machine label or profile ID")
            machine = value
        elif arg.startswith("-") and arg != "--":
            other_prefix = True
            if arg in ("--session", "--remote", "--remote-keybindings"):
                index += 1
        else:
            break
        index += 1
    if other_prefix:
        raise _usage_error(
            "--machine cannot be combined with other launch options; it uses the saved "
            "machine's session"
        )
    if index >= len(args) or args[index] == "--":
        raise _usage_error("usage: herdr --machine <label-or-id> <command>")
    return machine, args[index:]


def _validate(args):
    command = args[0] if args else ""
    sub = args[1] if len(args) > 1 else ""
    if command == "agent":
        ok = sub != "attach" and not (
            sub == "explain" and any(a == "--file" or a.startswith("--file=") for a in args[2:])
        )
    elif command in _API_BACKED:
        allowed = _API_BACKED[command]
        ok = allowed is None or sub in allowed
    else:
        ok = False
    if not ok:
        raise _usage_error(
            "`%s %s` is not an API-backed machine command; --machine does not run local "
            "management commands or attach a TUI" % (command, sub)
        )


def resolve(selector):
    """resolve_machine over SAVED_MACHINES (empty): the unknown-machine message."""
    return "unknown machine '%s'; use `herdr machine list`" % selector


def run_machine_prefix(ctx, argv):
    selector, args = _parse_prefix(argv)
    _validate(args)
    if "--help" in args or "-h" in args:
        from .help import requested_help

        text = requested_help(ctx, args)
        if text is not None:
            ctx.write_out(text)
            return 0
    raise _usage_error(resolve(selector))


def run_group(ctx, row, args):
    verb = args[0] if args else None
    rest = args[1:]
    if verb == "list":
        if rest not in ([], ["--json"]):
            raise Exit(2, "usage: herdr machine list [--json]")
        # serde_json::to_string_pretty of an empty Vec is "[]".
        ctx.write_out("[]\n" if rest else "No saved SSH machines.\n")
        return 0
    if verb == "status":
        json_out = False
        selector = None
        for arg in rest:
            if arg == "--json" and not json_out:
                json_out = True
            elif not arg.startswith("-") and selector is None:
                selector = arg
            else:
                raise Exit(2, "usage: herdr machine status [<label-or-id>] [--json]")
        if selector is not None:
            raise Exit(2, resolve(selector))
        ctx.write_out("[]\n" if json_out else "No saved SSH machines.\n")
        return 0
    if verb == "reconnect":
        if len(rest) != 1:
            raise Exit(2, "usage: herdr machine reconnect <label-or-id>")
        raise Exit(2, resolve(rest[0]))
    if verb in ("add", "rename", "remove", "enable", "disable"):
        return unsupported(ctx, "herdr machine " + verb)
    if verb in ("help", "--help", "-h"):
        raise Exit(0, MACHINE_HELP, stdout=True)
    raise Exit(2, MACHINE_HELP)
