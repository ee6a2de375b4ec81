"""The launcher path: what herdr ``src/main.rs`` does when ``cli::maybe_run`` says NotCli
(0.8.2 ``src/main.rs:575-800``; 0.9.3 adds ``remote-api-bridge``, ``--machine``, ``machine``).

CHOICE: everything that would start a terminal UI (the TUI launch, remote attach, ``update``,
``remote-client-bridge``) prints the unsupported message, exit 2; ``herdr server`` (the
headless server) and ``herdr client`` (its nested guard) go to :mod:`.launch`.
"""

from .base import USAGE_FOOTER, Exit, unsupported

_LAUNCHER_WORDS = (
    "server",
    "client",
    "remote-client-bridge",
    "update",
    "status",
    "config",
    "channel",
    "workspace",
    "worktree",
    "pane",
    "session",
    "integration",
)


def launcher(ctx, args, remote):
    first = args[0] if args else None
    if first in ("server", "client"):
        # `herdr server`: exec `simherdr serve`; `herdr client`: the nested guard (.launch).
        from .launch import run
        from .standalone import run_module

        return run_module(ctx, run, first, args[1:])
    if first in ("remote-client-bridge", "update") or (
        ctx.rows["cli_machine_prefix"] and first == "remote-api-bridge"
    ):
        # 0.9.3 src/main.rs runs the hidden `remote-api-bridge` (the far end of `--machine`,
        # CHOICE: it came with the prefix) before its help and unknown-word checks.
        return unsupported(ctx, "herdr " + first)
    if any(a in ("--help", "-h") for a in args):
        from .help import root_help

        ctx.write_out(root_help(ctx))
        return 0
    if any(a in ("--version", "-V") for a in args):
        ctx.write_out("herdr %s\n" % ctx.version)
        return 0
    for flag in ("--default-config", "--skill"):
        if flag in args:
            return unsupported(ctx, "herdr " + flag)
    known_flags = [
        "--session",
        "--remote",
        "--remote-keybindings",
        "--version",
        "-V",
        "--default-config",
        "--skill",
        "--help",
        "-h",
    ]
    if ctx.rows["cli_machine_prefix"]:
        # 0.9.3 src/main.rs: `--machine` is a known launch flag (it reaches here only in forms
        # the `--machine` prefix parser already refused; 0.9.0 has no prefix: row
        # cli_machine_prefix).
        known_flags.insert(1, "--machine")
    if ctx.cli.no_session_flag:
        # CHOICE: 0.9.0 removed --no-session (VERSIONS.md §1.7), so 0.9.x calls it unknown.
        known_flags.append("--no-session")
    words = _LAUNCHER_WORDS + (("machine",) if ctx.cli.machine else ())
    for arg in args:
        name = arg.split("=", 1)[0]
        if arg.startswith("-") and name not in known_flags:
            raise Exit(2, "unknown option: %s\n%s" % (arg, USAGE_FOOTER))
        if not arg.startswith("-") and arg not in words:
            raise Exit(2, "unknown command: %s\n%s" % (arg, USAGE_FOOTER))
    return unsupported(ctx, "herdr")  # the TUI launcher / remote attach
