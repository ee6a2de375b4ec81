"""0.9.x saved SSH machines: the ``--machine`` prefix and ``herdr machine`` (0.9.3
``src/cli/target.rs``, ``src/cli/machine.rs``; VERSIONS.md §5 row 12).

CHOICE: the stand-in keeps no machine catalog: the list is always empty, so every selector is
unknown, and the commands that change the catalog or need SSH (``add``, ``rename``, ``remove``,
``enable``, ``disable``) answer "not supported" once herdr's own argument checks pass.  With an
empty catalog herdr answers ``machine profile <id> was not found`` (exit 1) for a profile id
it can parse; ``ProfileId::parse`` is not readable here (``src/client/endpoint`` is not in the
fork's index), so only ids shaped like the ones herdr generates (:data:`PROFILE_ID_SHAPE`) get
that answer, any other id "not supported".
"""

from .base import Exit, unsupported

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

#: CHOICE: profile ids herdr surely parses: 32 lowercase hex digits, the shape of the ids it
#: generates (0.9.3 ``src/cli/machine.rs`` tests).
PROFILE_ID_SHAPE = (32, "0123456789abcdef")
#: 0.9.3 ``src/client/endpoint/catalog.rs`` MAX_LABEL_BYTES / MAX_TARGET_BYTES.
MAX_LABEL_BYTES = 128
MAX_TARGET_BYTES = 1024
DEFAULT_SESSION_NAME = "default"

ADD_USAGE = "usage: herdr machine add <ssh-target> [--label <label>] [--remote-session <name>]"
RENAME_USAGE = "usage: herdr machine rename <profile-id> --label <label>"

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
    if verb == "add":
        return _add(ctx, rest)
    if verb == "rename":
        rest = _expand_equals(rest, ("--label",))
        if len(rest) != 3 or rest[1] != "--label":
            raise Exit(2, RENAME_USAGE)
        return _profile_not_found(ctx, verb, rest[0])
    if verb in ("remove", "enable", "disable"):
        if len(rest) != 1:
            raise Exit(2, "usage: herdr machine %s <profile-id>" % verb)
        return _profile_not_found(ctx, verb, rest[0])
    if verb in ("help", "--help", "-h"):
        raise Exit(0, MACHINE_HELP, stdout=True)
    raise Exit(2, MACHINE_HELP)


def _expand_equals(args, options):
    """src/cli.rs expand_equals_args: ``--opt=value`` -> ``--opt value`` for ``options``."""
    out = []
    for arg in args:
        flag, sep, value = arg.partition("=")
        if sep and flag in options:
            out += [flag, value]
        else:
            out.append(arg)
    return out


def _profile_not_found(ctx, verb, raw):
    """rename/remove/enable/disable on the empty catalog (see the module CHOICE)."""
    size, digits = PROFILE_ID_SHAPE
    if len(raw) == size and all(ch in digits for ch in raw):
        raise Exit(1, "machine profile %s was not found" % raw)
    return unsupported(ctx, "herdr machine " + verb)


def _parse_add(args):
    """parse_add_args (0.9.3 src/cli/machine.rs): (target, label, session) or a usage Exit."""
    args = _expand_equals(args, ("--label", "--remote-session"))
    target = label = session = None
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("--label", "--remote-session"):
            if index + 1 >= len(args):
                raise Exit(2, "missing value for %s" % arg)
            value = args[index + 1]
            index += 2
            if arg == "--label":
                if label is not None:
                    raise Exit(2, "--label can only be specified once")
                label = value
            else:
                if session is not None:
                    raise Exit(2, "--remote-session can only be specified once")
                session = value
        elif not arg.startswith("-") and target is None:
            target = arg
            index += 1
        else:
            raise Exit(2, "unknown machine add option: %s" % arg)
    if target is None:
        raise Exit(2, ADD_USAGE)
    return target, label, session


def default_label(target, session):
    """default_label: the SSH host (``user@``, ``ssh://`` port and brackets dropped), plus
    ``/session`` when the session is not the default one."""
    url = target[len("ssh://") :].rstrip("/") if target.startswith("ssh://") else None
    authority = target if url is None else url
    host = authority.rsplit("@", 1)[1] if "@" in authority else authority
    if url is not None:
        if host.startswith("["):
            bracketed = host[1:]
            host = bracketed.split("]", 1)[0] if "]" in bracketed else host
        else:
            host = host.split(":", 1)[0]
    return host if session == DEFAULT_SESSION_NAME else "%s/%s" % (host, session)


#: Rust ``str::trim``: Unicode White_Space (Python's ``str.strip`` also drops U+001C..U+001F).
_RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _has_control(text):
    # Rust char::is_control: the Unicode Cc category.
    return any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in text)


def _add(ctx, args):
    """machine add: herdr's checks up to the SSH connection, then "not supported".

    Order as herdr: arguments; the session (an interactive terminal would ask the remote
    host); the default label's length; then ``SavedSshEndpoint::validate`` up to the target
    check that needs ``remote::validate_remote_target`` (not emulated)."""
    target, label, session = _parse_add(args)
    if session is None and _is_terminal(0) and _is_terminal(2):
        return unsupported(ctx, "herdr machine add")  # remote session discovery over SSH
    session = DEFAULT_SESSION_NAME if session is None else session
    if label is None:
        label = default_label(target, session)
        if len(label.encode()) > MAX_LABEL_BYTES:
            raise _usage_error(
                "default machine name '%s' is longer than %d bytes; pass --label to choose a "
                "name" % (label, MAX_LABEL_BYTES)
            )
    trimmed = label.strip(_RUST_WHITESPACE)
    if not trimmed:
        raise _usage_error("SSH endpoint label cannot be empty")
    if len(trimmed.encode()) > MAX_LABEL_BYTES or _has_control(trimmed):
        raise _usage_error(
            "SSH endpoint label must be at most %d bytes and contain no control characters"
            % MAX_LABEL_BYTES
        )
    if len(target.encode()) > MAX_TARGET_BYTES or _has_control(target):
        raise _usage_error(
            "SSH target must be at most %d bytes and contain no control characters"
            % MAX_TARGET_BYTES
        )
    return unsupported(ctx, "herdr machine add")


def _is_terminal(fd):
    import posix

    try:
        return posix.isatty(fd)
    except OSError:
        return False
