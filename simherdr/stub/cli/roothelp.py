"""herdr's hand-written root help (``herdr --help``), per version.

0.8.2: ``src/main.rs:616-690``; 0.9.3: the same block of the 0.9.3 sources (adds the
``--machine`` usage line, ``herdr machine``, drops ``--no-session``).  ``AGENT_HELP_FOOTER`` is
``src/cli.rs:45-53`` (the same in both).  Texts are data: printed as herdr prints them.
"""

AGENT_HELP_FOOTER = (
    "Are you an AI? Use these resources ONLY IF your task specifically asks you to:\n"
    "  Help a human understand or set up Herdr for the first time:\n"
    "    https://herdr.dev/agent-guide.md\n"
    "  Debug or investigate a problem with Herdr:\n"
    "    https://herdr.dev/llms.txt\n"
    "  Control Herdr panes, agents, or workspaces:\n"
    "    SKIP if a Herdr skill is already in your context. Otherwise run: herdr --skill"
)

SKILL_LINE_080 = "Skill:  herdr --skill prints agent instructions for driving herdr from a pane"

_USAGE = (
    ("herdr [options]", None),
    ("herdr --session <name> [options]", None),
    ("herdr --machine <label-or-id> <command>", "machine"),
    ("herdr --remote <ssh-target> [--session <name>]", None),
    ("herdr session attach <name>", None),
    ("herdr completion zsh", None),
    ("herdr update [--handoff]", None),
    ("herdr channel set <stable|preview>", None),
    ("herdr machine <subcommand> ...", "machine"),
    ("herdr server stop", None),
    ("herdr server reload-config", None),
    ("herdr api <subcommand> ...", None),
    ("herdr completion <shell>", None),
    ("herdr config <subcommand> ...", None),
    ("herdr channel <subcommand> ...", None),
    ("herdr workspace <subcommand> ...", None),
    ("herdr worktree <subcommand> ...", None),
    ("herdr tab <subcommand> ...", None),
    ("herdr notification <subcommand> ...", None),
    ("herdr agent <subcommand> ...", None),
    ("herdr pane <subcommand> ...", None),
    ("herdr session <subcommand> ...", None),
    ("herdr integration <subcommand> ...", None),
)

_COMMON = (
    ("herdr", "Launch or attach to the persistent session", None),
    ("herdr status [server|client]", "Show local client and running server status", None),
    ("herdr update", "Download and install the latest version", None),
    ("herdr completion zsh", "Generate shell completions for zsh", None),
    ("herdr server stop", "Stop the running server via the API socket", None),
    ("herdr channel set <stable|preview>", "Choose the stable or preview update channel", None),
    ("herdr server reload-config", "Reload config.toml in the running server", None),
    ("herdr config reset-keys", "Back up config.toml and remove custom keybindings", None),
    ("herdr channel <subcommand>", "Manage the stable or preview update channel", None),
    ("herdr machine <subcommand>", "Manage saved SSH machines", "machine"),
    ("herdr api <subcommand>", "Inspect socket API metadata and live runtime state", None),
    ("herdr workspace <subcommand>", "Workspace helpers over the socket API", None),
    ("herdr worktree <subcommand>", "Git worktree helpers over the socket API", None),
    ("herdr tab <subcommand>", "Tab helpers over the socket API", None),
    ("herdr notification <subcommand>", "Notification helpers over the socket API", None),
    ("herdr agent <subcommand>", "Agent/terminal helpers over the socket API", None),
    ("herdr pane <subcommand>", "Pane control helpers over the socket API", None),
    ("herdr session <subcommand>", "Manage named persistent sessions", None),
    ("herdr integration <subcommand>", "Manage built-in agent integrations", None),
)

_OPTIONS = (
    (
        "  --no-session        Run monolithically (no server/client, escape hatch)",
        "no_session_flag",
    ),
    ("  --session <name>    Use or create a named persistent session", None),
    ("  --machine <label-or-id>  Run an API command on a saved SSH machine", "machine"),
    ("  --remote <target>   Attach through SSH to a remote Herdr server", None),
    ("  --remote-keybindings <local|server>", None),
    ("                      Keybindings for --remote app attach (default: local)", None),
    ("  --handoff           Opt into live handoff for update or remote attach", None),
    ("  --default-config    Print default configuration and exit", None),
    ("  --skill             Print the agent skill file and exit", None),
    ("  --version, -V       Print version and exit", None),
    ("  --help, -h          Show this help", None),
)


def _keep(gate, cli):
    """An entry without a gate, or whose grammar row (base.GRAMMAR) is on."""
    return gate is None or getattr(cli, gate)


def root_help(ctx):
    """The root help text (stdout, exit 0), with this invocation's config and log paths."""
    from .base import join

    cli = ctx.cli
    usage = [u for u, gate in _USAGE if _keep(gate, cli)]
    lines = ["herdr \u2014 terminal workspace manager for AI coding agents", ""]
    lines.append("Usage: " + usage[0])
    lines.extend("       " + u for u in usage[1:])
    lines += ["", "Common commands:"]
    for command, description, gate in _COMMON:
        if _keep(gate, cli):
            lines.append("  %-32s %s" % (command, description))
    lines += ["", "Advanced commands:", "  %-32s Run as headless server" % "herdr server", ""]
    lines.append("Options:")
    lines.extend(text for text, gate in _OPTIONS if _keep(gate, cli))
    config = ctx.var("HERDR_CONFIG_PATH")
    if config is None:
        config = join(ctx.config_dir(), "config.toml")
    log = join(ctx.data_dir_for(ctx.active_name()), "herdr.log")
    lines += [
        "",
        "Config: " + config,
        "Logs:   %s (plus herdr-client.log, herdr-server.log)" % log,
        "Env:    HERDR_CONFIG_PATH overrides config file path",
        "Home:   https://herdr.dev",
    ]
    if ctx.rows["cli_agent_help_footer"]:
        lines += ["", AGENT_HELP_FOOTER]
    else:
        # herdr 0.8.0 (346411fa:src/main.rs:687), before the footer of 1af1a5b8.
        lines.append(SKILL_LINE_080)
    return "\n".join(lines) + "\n"
