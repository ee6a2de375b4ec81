"""``herdr plugin ...`` bodies herdr writes by hand (herdr 0.8.2 ``src/cli/plugin.rs``).

Every request has id ``cli:plugin``; replies print as ``print_response``. CHOICE: herdr's
offline fallbacks (``plugin link`` / ``plugin list`` writing or reading ``plugins.json`` when
no server answers) and ``install`` / ``uninstall`` (git checkouts, build commands) are not
emulated: without a server the usual connection error is printed; ``install`` and
``uninstall`` check their arguments as herdr does and then answer "not supported".
"""

from . import wire
from .base import Exit, join, unsupported, usage
from .scan import absolute_path, parse_env

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RID = "cli:plugin"

ACTION_HELP = "\n".join(
    (
        "herdr plugin action commands:",
        "  herdr plugin action list [--plugin ID]",
        "  herdr plugin action invoke <action_id> [--plugin ID]",
    )
)
PANE_HELP = "\n".join(
    (
        "herdr plugin pane commands:",
        "  herdr plugin pane open --plugin ID --entrypoint ID [--placement overlay|popup|split|tab|zoomed] [--width SIZE] [--height SIZE] [--workspace ID] [--target-pane PANE] [--direction right|down] [--cwd PATH] [--env KEY=VALUE] [--focus|--no-focus]",
        "  herdr plugin pane focus <pane_id>",
        "  herdr plugin pane close <pane_id>",
    )
)
PLACEMENTS = {
    "overlay": "overlay",
    "popup": "popup",
    "split": "split",
    "tab": "tab",
    "zoomed": "zoomed",
    "fullscreen": "zoomed",
}


#: ``plugin install`` usage texts: 0.8.2 (src/cli/plugin.rs:154-158, 729-731) and 0.9.3's
#: ``PLUGIN_INSTALL_USAGE``, which also answers a source without ``owner/repo``.
INSTALL_USAGE_082 = "usage: herdr plugin install <owner>/<repo>[/subdir...] [--ref REF] [--yes]"
SOURCE_USAGE_082 = "usage: herdr plugin install <owner>/<repo>[/subdir...]"
INSTALL_USAGE_093 = "usage: herdr plugin install [--ref REF] [--yes|-y] <owner>/<repo>[/subdir...]"
UNINSTALL_USAGE = "usage: herdr plugin uninstall <plugin_id|owner/repo[/subdir...]>"


def _send(ctx, method, params):
    return wire.print_response(ctx, wire.send(ctx, RID, method, params))


def _value(args, index, flag):
    """required_value: the next word, or 'missing value for FLAG' (exit 2)."""
    if index + 1 >= len(args):
        raise usage("missing value for %s" % flag)
    return args[index + 1]


def _unknown(arg):
    return usage("unknown option: %s" % arg)


def github_source_error(value, short_usage):
    """GithubPluginSource::parse (plugin.rs:721-751): the error text, or None when valid."""
    if value.startswith(("http://", "https://", "git@")) or ":" in value:
        return "plugin install v1 accepts only owner/repo[/subdir] shorthand"
    parts = value.split("/")
    if len(parts) < 2:
        return short_usage
    for label, segment in (("owner", parts[0]), ("repo", parts[1])):
        if not segment:
            return "GitHub %s must not be empty" % label
        if segment in (".", ".."):
            return "GitHub %s is invalid: %s" % (label, segment)
        if not all((ch.isascii() and ch.isalnum()) or ch in "-_." for ch in segment):
            return "GitHub %s contains invalid characters: %s" % (label, segment)
    for segment in parts[2:]:
        if segment in ("", ".", "..") or "\\" in segment or "\0" in segment:
            return "invalid plugin subdir segment: %s" % segment
    return None


def _install_args_082(args):
    """0.8.2 plugin_install: the source first, then ``--ref REF`` / ``--yes`` / ``-y``."""
    if not args:
        raise usage(INSTALL_USAGE_082)
    problem = github_source_error(args[0], SOURCE_USAGE_082)
    if problem:
        raise usage(problem)
    yes, index = False, 1
    while index < len(args):
        if args[index] == "--ref":
            _value(args, index, "--ref")
            index += 2
        elif args[index] in ("--yes", "-y"):
            yes, index = True, index + 1
        else:
            raise _unknown(args[index])
    return yes


def _install_args_093(args):
    """0.9.3 parse_plugin_install_args: options before or after the one source word."""
    source, yes, index = None, False, 0
    while index < len(args):
        arg = args[index]
        if arg == "--ref":
            _value(args, index, "--ref")
            index += 2
        elif arg in ("--yes", "-y"):
            yes, index = True, index + 1
        elif arg.startswith("-") or source is not None:
            raise _unknown(arg)
        else:
            source, index = arg, index + 1
    if source is None:
        raise usage(INSTALL_USAGE_093)
    problem = github_source_error(source, INSTALL_USAGE_093)
    if problem:
        raise usage(problem)
    return yes


def install(ctx, row, args):
    """``plugin install``: herdr's argument checks, then "not supported" (git, builds)."""
    yes = (_install_args_093 if ctx.cli.plugin_install_options_anywhere else _install_args_082)(
        args
    )
    if not yes and not _stdin_is_terminal():
        raise usage("remote plugin install requires --yes when stdin is not interactive")
    return unsupported(ctx, "herdr plugin install")


def _stdin_is_terminal():
    import posix

    try:
        return posix.isatty(0)
    except OSError:
        return False


def uninstall(ctx, row, args):
    """``plugin uninstall``: exactly one target (plugin.rs:263-271), then "not supported"."""
    if len(args) != 1:
        raise usage(UNINSTALL_USAGE)
    return unsupported(ctx, "herdr plugin uninstall")


def link(ctx, row, args):
    if not args:
        raise usage("usage: herdr plugin link <path> [--disabled]")
    path = absolute_path(ctx, args[0])
    enabled = True
    for arg in args[1:]:
        if arg not in ("--disabled", "--enabled"):
            raise _unknown(arg)
        enabled = arg == "--enabled"
    return _send(ctx, "plugin.link", {"path": path, "enabled": enabled})


def _plugin_option(args, start=0, allowed=("--plugin",)):
    values = {}
    index = start
    while index < len(args):
        arg = args[index]
        if arg in allowed:
            values[arg] = _value(args, index, arg)
            index += 2
        else:
            raise _unknown(arg)
    return values


def list_(ctx, row, args):
    plugin_id, json_out, index = None, False, 0
    while index < len(args):
        if args[index] == "--json":
            json_out = True
            index += 1
        elif args[index] == "--plugin":
            plugin_id = _value(args, index, "--plugin")
            index += 2
        else:
            raise _unknown(args[index])
    params = {"plugin_id": plugin_id} if plugin_id is not None else {}
    loaded = wire.send(ctx, RID, "plugin.list", params)
    result = loaded.value.get("result") if isinstance(loaded.value, dict) else None
    if json_out or not isinstance(result, dict) or result.get("type") != "plugin_list":
        return wire.print_response(ctx, loaded)
    return _print_list_human(ctx, result["plugins"])


def _source_display(plugin):
    """source_display (plugin.rs:1179-1200)."""
    source = plugin.get("source") or {}
    if source.get("kind") == "github":
        subdir = "/" + source["subdir"] if source.get("subdir") else ""
        ref = source.get("requested_ref") or source.get("resolved_commit") or "unknown"
        return "github:%s/%s%s@%s" % (
            source.get("owner") or "unknown",
            source.get("repo") or "unknown",
            subdir,
            ref,
        )
    return "local:%s" % plugin["plugin_root"]


def config_dir_for(ctx, plugin_id):
    """plugin_config_dir (src/plugin_paths.rs:15-19, 66-92)."""
    component = []
    for byte in plugin_id.encode():
        ch = chr(byte)
        keep = ("a" <= ch <= "z") or ("0" <= ch <= "9") or ch in "._-"
        component.append(ch if keep else "%%%02X" % byte)
    name = "".join(component)
    if name.endswith("."):
        name = name[:-1] + "%2E"
    if not name:
        name = "%plugin"
    reserved = {"CON", "PRN", "AUX", "NUL"} | {
        p + str(i) for p in ("COM", "LPT") for i in range(1, 10)
    }
    if name.split(".")[0].upper() in reserved:
        name = "%" + name
    if len(name) > 120:
        import hashlib

        digest = hashlib.sha256(plugin_id.encode()).hexdigest()[:12]
        name = name[: 120 - len(digest) - 1] + "-" + digest
    return join(join(join(ctx.config_dir(), "plugins"), "config"), name)


def _print_list_human(ctx, plugins):
    """print_plugin_list_human (plugin.rs:1131-1177)."""
    if not plugins:
        ctx.write_out("No plugins installed.\n")
        return 0
    lines = ["%d plugin%s installed:" % (len(plugins), "" if len(plugins) == 1 else "s")]
    for plugin in plugins:
        warnings = plugin.get("warnings") or []
        note = "; %d warning(s)" % len(warnings) if warnings else ""
        lines.append(
            "- %s (%s) %s [%s%s]"
            % (
                plugin["plugin_id"],
                plugin["name"],
                "enabled" if plugin["enabled"] else "disabled",
                _source_display(plugin),
                note,
            )
        )
        lines.append("  config: %s" % config_dir_for(ctx, plugin["plugin_id"]))
        lines.extend("  warning: %s" % warning for warning in warnings)
    ctx.write_out("\n".join(lines) + "\n")
    return 0


def config_dir(ctx, row, args):
    """``plugin config-dir <id>``: prints the dir and creates it (and the state dir)."""
    if len(args) != 1:
        raise usage("usage: herdr plugin config-dir <plugin_id>")
    import os

    path = config_dir_for(ctx, args[0])
    os.makedirs(path, exist_ok=True)
    ctx.write_out(path + "\n")
    return 0


def log(ctx, row, args):
    params, index = {}, 0
    while index < len(args):
        arg = args[index]
        if arg == "list" and index == 0:
            index += 1
        elif arg == "--plugin":
            params["plugin_id"] = _value(args, index, "--plugin")
            index += 2
        elif arg == "--limit":
            raw = _value(args, index, "--limit")
            if not (raw.isascii() and raw.isdigit()) or int(raw) >= 2**64:
                raise usage("invalid --limit value: %s" % raw)
            params["limit"] = int(raw)
            index += 2
        else:
            raise _unknown(arg)
    return _send(ctx, "plugin.log.list", params)


def action(ctx, row, args):
    sub = args[0] if args else None
    if sub == "list":
        values = _plugin_option(args, 1)
        params = {"plugin_id": values["--plugin"]} if "--plugin" in values else {}
        return _send(ctx, "plugin.action.list", params)
    if sub == "invoke":
        if len(args) < 2:
            raise usage("usage: herdr plugin action invoke <action_id> [--plugin ID]")
        values = _plugin_option(args, 2)
        params = {"action_id": args[1]}
        if "--plugin" in values:
            params["plugin_id"] = values["--plugin"]
        params["context"] = {"invocation_source": "cli"}
        return _send(ctx, "plugin.action.invoke", params)
    raise Exit(0 if sub in ("help", "--help", "-h") else 2, ACTION_HELP)


def _popup_size(value, flag):
    """PopupSize::parse_cli (src/popup_size.rs:20-34)."""
    message = "must be a number of cells or a percentage like 80%"
    if value.endswith("%"):
        digits = value[:-1]
        if not (digits.isascii() and digits.isdigit()) or int(digits) > 255:
            raise usage("%s %s" % (flag, message))
        if not 1 <= int(digits) <= 100:
            raise usage("%s percentage must be between 1%% and 100%%" % flag)
        return value
    if not (value.isascii() and value.isdigit()) or int(value) > 65535:
        raise usage("%s %s" % (flag, message))
    return int(value)


def pane(ctx, row, args):
    sub = args[0] if args else None
    if sub in ("focus", "close"):
        if len(args) != 2:
            raise usage("usage: herdr plugin pane %s <pane_id>" % sub)
        return _send(ctx, "plugin.pane." + sub, {"pane_id": args[1]})
    if sub != "open":
        raise Exit(0 if sub in ("help", "--help", "-h") else 2, PANE_HELP)
    values: dict[str, Any] = {"focus": True, "env": {}}
    simple = {
        "--plugin": "plugin_id",
        "--entrypoint": "entrypoint",
        "--workspace": "workspace_id",
        "--target-pane": "target_pane_id",
        "--cwd": "cwd",
    }
    rest, index = args[1:], 0
    while index < len(rest):
        arg = rest[index]
        if arg in ("--focus", "--no-focus"):
            values["focus"] = arg == "--focus"
            index += 1
            continue
        if arg not in simple and arg not in (
            "--placement",
            "--width",
            "--height",
            "--direction",
            "--env",
        ):
            raise _unknown(arg)
        value = _value(rest, index, arg)
        index += 2
        if arg in simple:
            values[simple[arg]] = value
        elif arg == "--placement":
            if value not in PLACEMENTS:
                raise usage("invalid pane placement: %s" % value)
            values["placement"] = PLACEMENTS[value]
        elif arg in ("--width", "--height"):
            values[arg[2:]] = _popup_size(value, arg)
        elif arg == "--direction":
            if value not in ("right", "down"):
                raise usage("invalid split direction: %s" % value)
            values["direction"] = value
        else:
            key, item = parse_env(value)
            values["env"][key] = item
    if "plugin_id" not in values:
        raise usage("missing required --plugin")
    if "entrypoint" not in values:
        raise usage("missing required --entrypoint")
    order = (
        "plugin_id",
        "entrypoint",
        "placement",
        "width",
        "height",
        "workspace_id",
        "target_pane_id",
        "direction",
        "cwd",
        "focus",
        "env",
    )
    params = {k: values[k] for k in order if k in values}
    if not params["env"]:
        del params["env"]  # skip_serializing_if = "HashMap::is_empty"
    return _send(ctx, "plugin.pane.open", params)
