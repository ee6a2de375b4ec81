"""0.9.x saved SSH machines: the ``--machine`` prefix and ``herdr machine`` (0.9.3
``src/cli/target.rs``, ``src/cli/machine.rs``; VERSIONS.md §5 row 12), over the catalog herdr
keeps in its state dir (:mod:`.catalog`).

What needs no SSH is herdr's: ``list``, the catalog edits (``rename``, ``remove``, ``enable``,
``disable``), ``status`` of a disabled machine, every argument check and refusal (unknown,
ambiguous and disabled machines), and ``add``'s checks up to its SSH connection.

CHOICE(unreachable): the stand-in has no SSH, so every enabled saved machine is one herdr
cannot reach.  herdr's first SSH step for a machine (``detect_remote_platform``,
src/remote/attach.rs) then fails with ``remote platform detection failed: <ssh's stderr>``;
the stand-in uses the text OpenSSH prints for a host it cannot resolve, or the text in
``SIMHERDR_MACHINE_SSH_ERROR`` (:data:`SSH_ERROR_ENV`; e.g. ``Permission denied (publickey).``
makes ``machine status`` report ``auth required``).  ``--machine`` routing fails where herdr
starts its SSH bridge: on the command's first request, after the command parsed its own
arguments.  ``machine add`` (which would prepare the remote installation) still answers
"not supported" once herdr's checks pass.
"""

from . import catalog as C
from .base import Exit, unsupported

#: simherdr extension (not a herdr variable): what ``ssh`` prints (its stderr, trimmed) when
#: herdr tries to reach any enabled saved machine (see the module CHOICE).
SSH_ERROR_ENV = "SIMHERDR_MACHINE_SSH_ERROR"

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

MAX_LABEL_BYTES = C.MAX_LABEL_BYTES
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
            if not value.strip(C.RUST_WHITESPACE) or value.startswith("-"):
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


def _load(ctx, *, selection=True):
    """``load_catalog`` / ``load_profiles``: a failure is ``io::Error::other`` (main prints
    ``Error: Custom {...}``, exit 1)."""
    try:
        return C.load(ctx.env, selection=selection)
    except C.CatalogError as exc:
        raise _other(exc.message) from None


def _store(ctx, catalog, *, selection_changed=False):
    try:
        C.store(ctx.env, catalog)
        if selection_changed:
            C.store_selection(ctx.env, catalog)
    except C.CatalogError as exc:
        raise _other(exc.message) from None


def _other(message):
    from .rust import custom_other

    return custom_other(message)


# -- reaching a machine (see the module CHOICE) ------------------------------------------------


def ssh_host(target):
    """The host ``ssh`` names in its errors: ``default_label``'s host, session aside."""
    return default_label(target, DEFAULT_SESSION_NAME)


def ssh_error(ctx, profile):
    """What ssh prints when herdr tries to reach ``profile`` (see the module CHOICE)."""
    configured = ctx.var(SSH_ERROR_ENV)
    if configured is not None and configured.strip():
        return configured.strip()
    return "ssh: Could not resolve hostname %s: Name or service not known" % ssh_host(
        profile.target
    )


def reach_error(ctx, profile):
    """``detect_remote_platform``'s error (``command_failed`` of the ssh exit 255)."""
    return "remote platform detection failed: " + ssh_error(ctx, profile)


def unreachable(ctx, profile):
    """src/cli/target.rs api_client: the bridge did not start -> ``machine '<label>': <error>``
    (``io::Error::new(kind, ...)``, Other here), which main prints as ``Error: Custom {...}``."""
    return _other("machine '%s': %s" % (profile.label, reach_error(ctx, profile)))


def remote_path(value):
    """0.9.3 src/cli/worktree.rs normalize_path_arg for a remote target: an absolute path
    (POSIX, UNC or drive, target.rs remote_path_is_absolute) or ``~``/``~/...`` is sent as
    given, never expanded here; anything else is ``io::Error::new(InvalidInput, ...)``."""
    drive = len(value) >= 3 and value[0].isascii() and value[0].isalpha() and value[1] == ":"
    if (
        value.startswith(("/", "\\\\"))
        or (drive and value[2] in "/\\")
        or value == "~"
        or value.startswith("~/")
    ):
        return value
    from ...facts.rusttext import rust_debug_str
    from .rust import TransportError

    message = "remote worktree paths must be absolute or start with ~/"
    raise TransportError(
        "Custom { kind: InvalidInput, error: %s }" % rust_debug_str(message),
        message,
        "InvalidInput",
    )


# -- herdr --machine <label-or-id> <command> ----------------------------------------------------


def route(ctx, argv):
    """target.rs maybe_run up to the command: the prefix, the allow-list, help, the catalog
    and resolve_machine.  Returns an exit code (help printed) or the command's argv; the CLI
    core then runs it with ``ctx.machine`` set (its first request fails, :func:`unreachable`)."""
    selector, args = _parse_prefix(argv)
    _validate(args)
    if "--help" in args or "-h" in args:
        from .help import requested_help

        text = requested_help(ctx, args)
        if text is not None:
            ctx.write_out(text)
            return 0
    profiles = _load(ctx, selection=False).ssh
    try:
        ctx.machine = C.resolve(profiles, selector)
    except C.CatalogError as exc:
        raise _usage_error(exc.message) from None
    return args


# -- herdr machine ... --------------------------------------------------------------------------


def run_group(ctx, row, args):
    verb = args[0] if args else None
    rest = args[1:]
    if verb == "list":
        return _list(ctx, rest)
    if verb == "status":
        return _status(ctx, rest)
    if verb == "reconnect":
        return _reconnect(ctx, rest)
    if verb == "add":
        return _add(ctx, rest)
    if verb == "rename":
        return _rename(ctx, rest)
    if verb == "remove":
        return _remove(ctx, rest)
    if verb in ("enable", "disable"):
        return _set_enabled(ctx, verb, rest)
    if verb in ("help", "--help", "-h"):
        raise Exit(0, MACHINE_HELP, stdout=True)
    raise Exit(2, MACHINE_HELP)


def _list(ctx, rest):
    if rest not in ([], ["--json"]):
        raise Exit(2, "usage: herdr machine list [--json]")
    catalog = _load(ctx)
    rows = [
        {
            "id": p.id,
            "label": p.label,
            "target": p.target,
            "session": p.session,
            "enabled": p.enabled,
            "selected": catalog.selected == p.id,
        }
        for p in catalog.ssh
    ]
    if rest:
        ctx.write_out(C.pretty(rows) + "\n")
    elif not rows:
        ctx.write_out("No saved SSH machines.\n")
    else:
        ctx.write_out(
            "".join(
                "%s\t%s\t%s\t%s\t%s\n"
                % (r["id"], r["label"], r["target"], r["session"], _state(r["enabled"]))
                for r in rows
            )
        )
    return 0


def _state(enabled):
    return "enabled" if enabled else "disabled"


def _resolve_or_exit(profiles, selector):
    """status / reconnect: resolve_machine's refusal on stderr without ``error: ``, exit 2."""
    try:
        return C.resolve(profiles, selector)
    except C.CatalogError as exc:
        raise Exit(2, exc.message) from None


def _status(ctx, rest):
    json_out = False
    selector = None
    for arg in rest:
        if arg == "--json" and not json_out:
            json_out = True
        elif not arg.startswith("-") and selector is None:
            selector = arg
        else:
            raise Exit(2, "usage: herdr machine status [<label-or-id>] [--json]")
    catalog = _load(ctx)
    profiles = catalog.ssh if selector is None else [_resolve_or_exit(catalog.ssh, selector)]
    rows = []
    for profile in profiles:
        status, error = "disabled", None
        if profile.enabled:
            # check_saved_ssh: the target and session were checked when the catalog loaded;
            # then the SSH probe, which fails (module CHOICE).
            error = reach_error(ctx, profile)
            status = "auth required" if _requires_authentication(error) else "error"
        rows.append({"id": profile.id, "label": profile.label, "status": status, "error": error})
    if json_out:
        ctx.write_out(C.pretty(rows) + "\n")
    else:
        out = []
        for r in rows:
            out.append("%s\t%s\t%s\n" % (r["id"], r["label"], r["status"]))
            if r["error"] is not None:
                out.append("  %s\n" % _escape_debug(r["error"]))
        if not rows:
            out.append("No saved SSH machines.\n")
        ctx.write_out("".join(out))
    return 1 if any(r["error"] is not None for r in rows) else 0


def _requires_authentication(message):
    """src/remote/attach.rs ssh_error_requires_authentication."""
    message = message.lower()
    if (
        "host key verification failed" in message
        or "remote host identification has changed" in message
    ):
        return False
    return (
        "permission denied" in message
        and any(m in message for m in ("(publickey", "(keyboard-interactive", "(password"))
    ) or ("signing failed" in message and ("sign_and_send_pubkey" in message or "agent" in message))


def _escape_debug(text):
    """Rust ``str::escape_debug``: ``{:?}`` without the quotes, single quotes escaped too."""
    from ...facts.rusttext import rust_debug_str

    return rust_debug_str(text)[1:-1].replace("'", "\\'")


def _reconnect(ctx, rest):
    if len(rest) != 1:
        raise Exit(2, "usage: herdr machine reconnect <label-or-id>")
    profile = _resolve_or_exit(_load(ctx).ssh, rest[0])
    if not _is_terminal(0):
        raise Exit(
            2,
            "reconnect requires an interactive terminal; use herdr machine status for "
            "noninteractive checks",
        )
    # The interactive `ssh ... exit` (ssh_authentication_command) prints its own error to the
    # terminal and fails (module CHOICE).
    ctx.write_err(ssh_error(ctx, profile) + "\n")
    raise Exit(1, "SSH authentication failed; the saved machine was not changed.")


def _profile_id(raw):
    """one_profile_id / rename's parse: ``error: <parse error>``, exit 2."""
    try:
        return C.parse_profile_id(raw)
    except C.CatalogError as exc:
        raise _usage_error(exc.message) from None


def _rename(ctx, rest):
    rest = _expand_equals(rest, ("--label",))
    if len(rest) != 3 or rest[1] != "--label":
        raise Exit(2, RENAME_USAGE)
    profile_id = _profile_id(rest[0])
    label = rest[2]
    catalog = _load(ctx)
    profile = catalog.find(profile_id)
    if profile is None:
        raise Exit(1, "machine profile %s was not found" % profile_id)
    renamed = C.Profile(profile.id, label, profile.target, profile.session, profile.enabled)
    try:
        C.validate_profile(renamed)
    except C.CatalogError as exc:
        raise _usage_error(exc.message) from None
    profile.label = label
    _store(ctx, catalog)
    ctx.write_out("Renamed SSH machine %s.\n" % profile_id)
    return 0


def _one_profile_id(verb, rest):
    if len(rest) != 1:
        raise Exit(2, "usage: herdr machine %s <profile-id>" % verb)
    return _profile_id(rest[0])


def _remove(ctx, rest):
    profile_id = _one_profile_id("remove", rest)
    catalog = _load(ctx)
    previous = catalog.selected
    if catalog.find(profile_id) is None:
        raise Exit(1, "machine profile %s was not found" % profile_id)
    catalog.ssh = [p for p in catalog.ssh if p.id != profile_id]
    if catalog.selected == profile_id:
        catalog.selected = None
    # CHOICE: herdr also drops the machine's SSH metadata cache; the stand-in keeps none.
    _store(ctx, catalog, selection_changed=catalog.selected != previous)
    ctx.write_out("Removed SSH machine %s.\n" % profile_id)
    return 0


def _set_enabled(ctx, verb, rest):
    profile_id = _one_profile_id(verb, rest)
    enabled = verb == "enable"
    catalog = _load(ctx)
    previous = catalog.selected
    profile = catalog.find(profile_id)
    if profile is None:
        raise Exit(1, "machine profile %s was not found" % profile_id)
    profile.enabled = enabled
    if not enabled and catalog.selected == profile_id:
        catalog.selected = None
    _store(ctx, catalog, selection_changed=catalog.selected != previous)
    ctx.write_out("%s SSH machine %s.\n" % ("Enabled" if enabled else "Disabled", profile_id))
    return 0


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


def _add(ctx, args):
    """machine add: herdr's checks up to its SSH connection, then "not supported".

    Order as herdr: arguments; the session (an interactive terminal would ask the remote
    host); the default label; the catalog (its load, the default label's length and
    uniqueness, ``add_ssh``: the profile count and ``SavedSshEndpoint::validate``); then
    ``SavedSshSetup::connect`` (SSH: not emulated)."""
    target, label, session = _parse_add(args)
    if session is None and _is_terminal(0) and _is_terminal(2):
        return unsupported(ctx, "herdr machine add")  # remote session discovery over SSH
    session = DEFAULT_SESSION_NAME if session is None else session
    label_is_default = label is None
    if label is None:
        label = default_label(target, session)
    catalog = _load(ctx)
    if label_is_default:
        if len(label.encode("utf-8", "surrogatepass")) > MAX_LABEL_BYTES:
            raise _usage_error(
                "default machine name '%s' is longer than %d bytes; pass --label to choose a "
                "name" % (label, MAX_LABEL_BYTES)
            )
        if any(p.label == label for p in catalog.ssh):
            raise _usage_error(
                "a machine named '%s' already exists; pass --label to choose another name" % label
            )
    if len(catalog.ssh) >= C.MAX_PROFILES:
        raise _usage_error("at most %d SSH endpoints can be saved" % C.MAX_PROFILES)
    # SavedSshEndpoint::new validates a fresh profile (a generated id always parses).
    try:
        C.validate_profile(C.Profile("0" * C.PROFILE_ID_HEX, label, target, session, True))
    except C.CatalogError as exc:
        raise _usage_error(exc.message) from None
    return unsupported(ctx, "herdr machine add")


def _is_terminal(fd):
    import posix

    try:
        return posix.isatty(fd)
    except OSError:
        return False
