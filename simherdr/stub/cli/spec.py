"""herdr's clap tree (``src/cli/spec.rs``): the data ``--help`` is rendered from.

herdr parses argv by hand and keeps this tree for help and completion only; so does the
stand-in (:mod:`.table` holds the parser rows).  Read from herdr 0.8.2 ``src/cli/spec.rs``
and the 0.9.3 one (``herdsman`` renamed to ``herdr``; the fork's stack and worktree-group
commands left out).  Imported only when help is requested.

A command is ``(name, about, args, subcommands, extra)``; an arg is a dict with ``id``, ``long``
/``short``, ``value`` (value name; absent for flags), ``help``, ``pv`` (possible values),
``req``, ``multi`` (``num_args(1..)``; with ``min0``: ``(0..)``), ``last``, ``append``
(ArgAction::Append), ``hint`` (``path``: ValueHint::AnyPath), ``conflicts``; ``extra`` carries
``usage`` (override_usage), ``after`` (after_help), ``alias`` (visible alias) and ``group``
(a required ArgGroup's member ids).
"""

AGENT_STATUSES = ["idle", "working", "blocked", "done", "unknown"]


def flag(name, help=None, short=None):
    return {"id": name, "long": name, "short": short, "help": help}


def option(name, value, help=None, pv=None, req=False, append=False, path=False):
    arg = {"id": name, "long": name, "value": value, "help": help, "pv": pv, "req": req}
    if append:  # ArgAction::Append (zsh marks it repeatable)
        arg["append"] = True
    if path:  # ValueHint::AnyPath (path_option)
        arg["hint"] = "path"
    return arg


def path_option(name, value):
    return option(name, value, path=True)


def required(name, value, multi=False):
    return {"id": name, "value": value, "req": True, "multi": multi}


def positional(name, value, multi=False):
    return {"id": name, "value": value, "req": False, "multi": multi}


def cmd(name, about, args=(), subs=(), **extra):
    return (name, about, list(args), list(subs), extra)


def id_command(name, field, about):
    return cmd(name, about, [required(field, field)])


def _current_pane():
    return [option("pane", "ID"), flag("current")]


def _direction(req=False, split=False):
    values = ["right", "down"] if split else ["left", "right", "up", "down"]
    return option("direction", "DIRECTION", pv=values, req=req)


def _read_source(detection):
    values = ["visible", "recent", "recent-unwrapped"] + (["detection"] if detection else [])
    return option("source", "SOURCE", "Terminal snapshot source (default: recent)", values)


def _env():
    return option(
        "env", "KEY=VALUE", "Set an environment variable for the launched process", append=True
    )


def _json():
    return flag("json")


def _text_ansi():
    return option("format", "FORMAT", pv=["text", "ansi"])


def tree(release):
    """The root command of a :class:`.base.Release`'s clap tree (its grammar rows, agent-kinds
    table and version rows: ``machine``, ``no_session_flag``, ``trust_repository``,
    ``prompt_gate_needs_activity``, ``prompt_refuses_blocked``, ``report_resume_argv``)."""
    machine = release.grammar.machine
    from simherdr.facts.kinds import kind_names_in

    from .integration import LETTA, TARGETS

    agent_kinds = list(kind_names_in(release.agent_kinds))  # spec.rs agent_kind_values
    # IntegrationTarget::ALL, then (0.9.x) EXPERIMENTAL_INTEGRATION_TARGET_LABELS (spec.rs).
    # a target comes with its kind (0.8.0 has no qwen, 0.9.0 no letta)
    targets = [t.label for t in TARGETS if t.label != "qwen" or "qwen" in agent_kinds]
    targets += [LETTA.label] if "letta" in agent_kinds else []
    trust = [flag("trust-repository")] if release.rows["trust_repository"] else []
    if release.rows["prompt_gate_needs_activity"]:
        prompt_after = (
            "If the agent is already blocked, submission is rejected with agent_blocked before any "
            "input is sent. When an accepted submission starts from another non-working state, "
            "--wait requires an observed working or blocked state within 5000ms; otherwise it "
            "returns agent_prompt_stalled. A caller timeout that expires first returns timeout. It "
            "then matches idle, done, or blocked by default, or any exact --until state. It does "
            "not track turns: if the agent is already working, that active turn's completion may "
            "match."
        )
    elif not release.rows["prompt_refuses_blocked"]:
        # herdr 0.8.0 (346411fa:src/cli/spec.rs:357): before agent_blocked (9351b058, #2790).
        prompt_after = (
            "When submission starts from a non-working state, --wait first requires an observed "
            "state change within 5000ms; otherwise it returns agent_prompt_stalled. A shorter "
            "--timeout returns timeout instead. It then matches idle, done, or blocked by "
            "default, or any exact --until state. It does not track turns: if the agent is "
            "already working, that active turn's completion may match. Without --timeout, the "
            "settled-state wait is indefinite."
        )
    else:
        prompt_after = (
            "If the agent is already blocked, submission is rejected with agent_blocked before any "
            "input is sent. When an accepted submission starts from another non-working state, "
            "--wait first requires an observed state change within 5000ms; otherwise it returns "
            "agent_prompt_stalled. A shorter --timeout returns timeout instead. It then matches "
            "idle, done, or blocked by default, or any exact --until state. It does not track "
            "turns: if the agent is already working, that active turn's completion may match. "
            "Without --timeout, the settled-state wait is indefinite."
        )
    subs = [
        cmd(
            "completion",
            "Generate shell completion scripts",
            [
                {
                    "id": "shell",
                    "value": "SHELL",
                    "req": True,
                    "pv": ["bash", "elvish", "fish", "powershell", "zsh"],
                    "help": "Shell to generate completions for",
                }
            ],
            alias="completions",
        ),
        cmd(
            "update",
            "Download and install the latest version",
            [flag("handoff", "Try live handoff after installing")],
        ),
        cmd(
            "status",
            "Show local client and running server status",
            [_json()],
            [
                cmd("server", "Show running server status", [_json()]),
                cmd("client", "Show local client status", [_json()]),
            ],
        ),
        cmd(
            "config",
            "Manage local configuration",
            subs=[
                cmd("check", "Validate config.toml and print diagnostics"),
                cmd("reset-keys", "Reset custom keybindings"),
            ],
        ),
        cmd(
            "channel",
            "Manage stable and preview update channels",
            subs=[
                cmd("show", "Print the configured update channel"),
                cmd(
                    "set",
                    "Choose the update channel",
                    [
                        {
                            "id": "channel",
                            "value": "CHANNEL",
                            "req": True,
                            "pv": ["stable", "preview"],
                        }
                    ],
                ),
            ],
        ),
    ]
    if machine:
        subs.append(_machine_command())
    subs += [
        cmd(
            "server",
            "Run or control the headless server",
            subs=[
                cmd("stop", "Stop the running server"),
                cmd("reload-config", "Reload config in the running server"),
                cmd("agent-manifests", "Show active agent detection manifests", [_json()]),
                cmd(
                    "update-agent-manifests",
                    "Fetch and reload agent detection manifests",
                    [_json()],
                ),
                cmd("reload-agent-manifests", "Reload local agent detection manifest overrides"),
            ],
        ),
        cmd(
            "api",
            "Inspect socket API metadata and live runtime state",
            subs=[
                cmd("snapshot", "Print the live session snapshot"),
                cmd(
                    "schema",
                    "Print or write the bundled API schema",
                    [_json(), path_option("output", "PATH")],
                ),
            ],
        ),
        cmd(
            "workspace",
            "Manage workspaces over the socket API",
            subs=[
                cmd("list", "List workspaces"),
                cmd(
                    "create",
                    "Create a workspace",
                    [
                        path_option("cwd", "PATH"),
                        option("label", "TEXT"),
                        _env(),
                        flag("focus"),
                        flag("no-focus"),
                    ],
                ),
                id_command("get", "workspace_id", "Show a workspace"),
                id_command("focus", "workspace_id", "Focus a workspace"),
                cmd(
                    "rename",
                    "Rename a workspace",
                    [
                        required("workspace_id", "WORKSPACE_ID"),
                        required("label", "LABEL", multi=True),
                    ],
                ),
                cmd(
                    "report-metadata",
                    "Report display-only workspace metadata",
                    [
                        required("workspace_id", "WORKSPACE_ID"),
                        option("source", "ID", req=True),
                        option("token", "NAME=VALUE", append=True),
                        option("clear-token", "NAME", append=True),
                        option("seq", "N"),
                        option("ttl-ms", "N"),
                    ],
                ),
                id_command("close", "workspace_id", "Close a workspace"),
            ],
        ),
        cmd(
            "worktree",
            "Manage Git worktree-backed workspaces",
            subs=[
                cmd(
                    "list",
                    "List worktree workspaces",
                    [option("workspace", "ID"), path_option("cwd", "PATH")] + trust,
                ),
                cmd(
                    "create",
                    "Create and open a Git worktree",
                    [
                        option("workspace", "ID"),
                        path_option("cwd", "PATH"),
                        option("branch", "NAME"),
                        option("base", "REF"),
                        path_option("path", "PATH"),
                        option("label", "TEXT"),
                        flag("focus"),
                        flag("no-focus"),
                    ]
                    + trust,
                ),
                cmd(
                    "open",
                    "Open an existing Git worktree",
                    [
                        option("workspace", "ID"),
                        path_option("cwd", "PATH"),
                        path_option("path", "PATH"),
                        option("branch", "NAME"),
                        option("label", "TEXT"),
                        flag("focus"),
                        flag("no-focus"),
                    ]
                    + trust,
                ),
                cmd(
                    "remove",
                    "Remove a worktree checkout",
                    [option("workspace", "ID"), flag("force")] + trust,
                ),
            ],
        ),
        cmd(
            "tab",
            "Manage tabs over the socket API",
            subs=[
                cmd("list", "List tabs", [option("workspace", "WORKSPACE_ID")]),
                cmd(
                    "create",
                    "Create a tab",
                    [
                        option("workspace", "WORKSPACE_ID"),
                        path_option("cwd", "PATH"),
                        option("label", "TEXT"),
                        _env(),
                        flag("focus"),
                        flag("no-focus"),
                    ],
                ),
                id_command("get", "tab_id", "Show a tab"),
                id_command("focus", "tab_id", "Focus a tab"),
                cmd(
                    "rename",
                    "Rename a tab",
                    [required("tab_id", "TAB_ID"), required("label", "LABEL", multi=True)],
                ),
                id_command("close", "tab_id", "Close a tab"),
            ],
        ),
        cmd(
            "notification",
            "Show Herdr notifications",
            subs=[
                cmd(
                    "show",
                    "Show a notification",
                    [
                        required("title", "TITLE"),
                        option("body", "TEXT"),
                        option(
                            "position",
                            "POSITION",
                            pv=["top-left", "top-right", "bottom-left", "bottom-right"],
                        ),
                        option("sound", "SOUND", pv=["none", "done", "request"]),
                    ],
                )
            ],
        ),
        cmd(
            "agent",
            "Control and inspect agent panes",
            subs=[
                cmd("list", "List agents"),
                id_command("get", "target", "Show an agent"),
                cmd(
                    "read",
                    "Read agent terminal output",
                    [
                        required("target", "TARGET"),
                        _read_source(True),
                        option("lines", "N"),
                        _text_ansi(),
                        flag("ansi"),
                    ],
                    usage="herdr agent read <TARGET> [OPTIONS]",
                ),
                cmd(
                    "send-keys",
                    "Send key presses to an agent",
                    [required("target", "TARGET"), required("key", "KEY", multi=True)],
                    after="Use esc as the canonical Escape key name; escape is also accepted.",
                ),
                cmd(
                    "prompt",
                    "Submit a prompt to an agent",
                    [
                        required("target", "TARGET"),
                        required("text", "TEXT"),
                        flag("wait", "Wait for the first matching state observed after submission"),
                        option(
                            "until",
                            "STATUS",
                            "State to match after --wait; repeat for more than one state",
                            AGENT_STATUSES,
                            append=True,
                        ),
                        option("timeout", "MS", "Fail after this many milliseconds"),
                    ],
                    usage="herdr agent prompt <TARGET> <TEXT> [OPTIONS]",
                    after=prompt_after,
                ),
                cmd(
                    "rename",
                    "Rename an agent",
                    [required("target", "TARGET"), positional("name", "NAME"), flag("clear")],
                    usage="herdr agent rename <TARGET> <NAME>|--clear",
                    group=("name", "clear"),
                ),
                id_command("focus", "target", "Focus an agent"),
                cmd(
                    "wait",
                    "Wait until an agent reaches one of the requested states",
                    [
                        required("target", "TARGET"),
                        option(
                            "until",
                            "STATUS",
                            "State to match; repeat for more than one state",
                            AGENT_STATUSES,
                            append=True,
                        ),
                        option("timeout", "MS", "Fail after this many milliseconds"),
                    ],
                    usage="herdr agent wait <TARGET> [OPTIONS]",
                    after="Without --until, matches idle, done, or blocked. Use --until unknown "
                    "explicitly when needed. Without --timeout, waits indefinitely.",
                ),
                cmd(
                    "attach",
                    "Attach directly to an agent terminal",
                    [required("target", "TARGET"), flag("takeover")],
                    usage="herdr agent attach <TARGET> [OPTIONS]",
                ),
                cmd(
                    "start",
                    "Start a supported interactive agent in an existing pane",
                    [
                        required("name", "NAME"),
                        option(
                            "kind",
                            "KIND",
                            "Supported agent kind and canonical executable",
                            agent_kinds,
                            req=True,
                        ),
                        option(
                            "pane", "ID", "Existing pane at an interactive shell prompt", req=True
                        ),
                        option(
                            "timeout",
                            "MS",
                            "Wait for interactive readiness (default: 30000; max: 300000)",
                        ),
                        {
                            "id": "agent_args",
                            "value": "AGENT_ARG",
                            "req": False,
                            "multi": True,
                            "min0": True,
                            "last": True,
                        },
                    ],
                    usage="herdr agent start <NAME> --kind <KIND> --pane <ID> [OPTIONS] "
                    "[-- [AGENT_ARG]...]",
                    after="The pane must be at its interactive shell prompt. Success means the "
                    "expected agent was detected in the same terminal and is ready for input."
                    "\n\nnext: herdr agent prompt <TARGET> <TEXT> --wait",
                ),
                cmd(
                    "explain",
                    "Explain agent detection state",
                    [
                        positional("target", "TARGET"),
                        path_option("file", "PATH"),
                        option("agent", "LABEL"),
                        _json(),
                        option("format", "FORMAT", pv=["text", "json"]),
                        flag("verbose", short="v"),
                    ],
                ),
            ],
        ),
        _pane_command(release.rows["report_resume_argv"], release.rows["cli_pane_input"]),
        cmd(
            "terminal",
            "Attach to or observe raw terminal streams",
            subs=[
                cmd(
                    "attach",
                    "Attach directly to a terminal stream",
                    [required("terminal_id", "TERMINAL_ID"), flag("takeover")],
                ),
                cmd(
                    "session",
                    "Work with terminal sessions",
                    subs=[
                        cmd(
                            "control",
                            "Control a terminal stream",
                            [
                                required("target", "TARGET"),
                                flag("takeover"),
                                option("cols", "N"),
                                option("rows", "N"),
                            ],
                        ),
                        cmd(
                            "observe",
                            "Observe a terminal stream",
                            [
                                required("target", "TARGET"),
                                option("cols", "N"),
                                option("rows", "N"),
                            ],
                        ),
                    ],
                ),
                cmd(
                    "title",
                    "Manage the outer terminal title",
                    subs=[
                        cmd("set", "Set the outer terminal title", [required("title", "TITLE")]),
                        cmd("clear", "Clear the outer terminal title"),
                    ],
                ),
            ],
        ),
        cmd(
            "session",
            "Manage named persistent sessions",
            subs=[
                cmd("list", "List sessions", [_json()]),
                cmd("attach", "Attach to a session", [required("name", "NAME")]),
                cmd("stop", "Stop a session", [required("name", "NAME"), _json()]),
                cmd("delete", "Delete a stopped session", [required("name", "NAME"), _json()]),
            ],
        ),
        cmd(
            "integration",
            "Manage built-in agent integrations",
            subs=[
                cmd("install", "Install an integration", [_target(targets)]),
                cmd("uninstall", "Uninstall an integration", [_target(targets)]),
                cmd("status", "Show integration status", [flag("outdated-only")]),
            ],
        ),
        _plugin_command(),
    ]
    return cmd(
        "herdr",
        "terminal workspace manager for AI coding agents",
        _root_args(release.grammar, release.rows["cli_machine_prefix"]),
        subs=subs,
    )


def _root_args(grammar, machine_prefix):
    """The root command's own args (``spec.rs`` ``command()``): clap never renders the root
    help (herdr prints its own), completions list them (``--machine``: row cli_machine_prefix)."""
    args = [flag("help", "Show help", short="h")]
    if grammar.no_session_flag:
        args.append(flag("no-session", "Run monolithically without server/client session mode"))
    args.append(option("session", "NAME", "Use or create a named persistent session"))
    if machine_prefix:
        args.append(option("machine", "LABEL-OR-ID", "Run an API command on a saved SSH machine"))
    args += [
        option("remote", "TARGET", "Attach through SSH to a remote Herdr server"),
        option(
            "remote-keybindings",
            "MODE",
            "Choose local or server keybindings for remote attach",
            ["local", "server"],
        ),
        flag("handoff", "Opt into live handoff for update or remote attach"),
        flag("default-config", "Print default configuration and exit"),
        flag("skill", "Print the agent skill file and exit"),
        flag("version", "Print version and exit", short="V"),
    ]
    return args


def _target(targets):
    return {"id": "target", "value": "TARGET", "req": True, "pv": targets}


def _machine_command():
    """0.9.3 ``src/cli/spec/machine.rs``."""

    def profile(name, about, *args):
        return cmd(name, about, [required("profile-id", "PROFILE_ID"), *args])

    return cmd(
        "machine",
        "Manage saved SSH machines",
        subs=[
            cmd("list", "List saved SSH machines", [_json()]),
            cmd(
                "status",
                "Check saved machines without prompting for authentication",
                [positional("machine", "LABEL_OR_ID"), _json()],
            ),
            cmd(
                "reconnect",
                "Authenticate a saved machine in this terminal and verify connectivity",
                [required("machine", "LABEL_OR_ID")],
            ),
            cmd(
                "add",
                "Prepare the remote Herdr server and save an SSH machine",
                [
                    required("ssh-target", "SSH_TARGET"),
                    option(
                        "label",
                        "LABEL",
                        "Set the machine label shown in the sidebar (defaults to the SSH host, "
                        "or host/session)",
                    ),
                    option(
                        "remote-session",
                        "NAME",
                        "Select a session explicitly (default without an interactive terminal)",
                    ),
                ],
            ),
            profile(
                "rename",
                "Rename a saved SSH machine",
                option("label", "LABEL", "Set the machine label shown in the sidebar", req=True),
            ),
            profile("remove", "Remove a saved SSH machine"),
            profile("enable", "Enable a saved SSH machine"),
            profile("disable", "Disable a saved SSH machine"),
        ],
    )


def _resume_argv(resume):
    """0.9.3 ``resume_argv_arg`` (VERSIONS.md §5 row 21), with the version row
    ``report_resume_argv``."""
    if not resume:
        return []
    return [
        {
            "id": "resume_argv",
            "value": "RESUME_ARG",
            "req": False,
            "multi": True,
            "min0": True,
            "last": True,
            "help": "Command that resumes this session after a Herdr restart; starts with a "
            "plain command name",
        }
    ]


def _pane_command(resume, pane_input):
    """``pane_input`` (row cli_pane_input): 0.8.0 has no `pane input` and no split
    `--right-click` (10974c82)."""
    right_click = [option("right-click", "TARGET", pv=["herdr", "pane"])] if pane_input else []
    return cmd(
        "pane",
        "Control terminal panes",
        subs=[
            cmd("list", "List panes", [option("workspace", "WORKSPACE_ID")]),
            cmd("current", "Show the current pane", _current_pane()),
            id_command("get", "pane_id", "Show a pane"),
            cmd("layout", "Show pane layout information", _current_pane()),
            cmd("process-info", "Show pane process information", _current_pane()),
            cmd("neighbor", "Find a pane neighbor", [_direction(req=True)] + _current_pane()),
            cmd("edges", "Show pane edge information", _current_pane()),
            cmd("focus", "Focus a neighboring pane", [_direction(req=True)] + _current_pane()),
            cmd(
                "resize",
                "Resize a pane split",
                [_direction(req=True), option("amount", "FLOAT")] + _current_pane(),
            ),
            cmd(
                "zoom",
                "Toggle or set pane zoom",
                [positional("pane_id", "PANE_ID")]
                + _current_pane()
                + [flag("toggle"), flag("on"), flag("off")],
            ),
            cmd(
                "read",
                "Read pane terminal output",
                [
                    required("pane_id", "PANE_ID"),
                    _read_source(True),
                    option("lines", "N"),
                    _text_ansi(),
                    flag("ansi"),
                    flag("raw"),
                ],
            ),
            cmd(
                "rename",
                "Rename a pane",
                [
                    required("pane_id", "PANE_ID"),
                    positional("label", "LABEL", multi=True),
                    flag("clear"),
                ],
            ),
            *(
                [
                    cmd(
                        "input",
                        "Set pane input routing",
                        [positional("pane_id", "PANE_ID")]
                        + _current_pane()
                        + [option("right-click", "TARGET", pv=["herdr", "pane"], req=True)],
                    )
                ]
                if pane_input
                else []
            ),
            cmd(
                "split",
                "Split a pane",
                [positional("pane_id", "PANE_ID")]
                + _current_pane()
                + [
                    _direction(split=True),
                    option("ratio", "FLOAT"),
                    path_option("cwd", "PATH"),
                    _env(),
                    *right_click,
                    flag("focus"),
                    flag("no-focus"),
                ],
            ),
            cmd(
                "swap",
                "Swap panes",
                [_direction()]
                + _current_pane()
                + [option("source-pane", "ID"), option("target-pane", "ID")],
            ),
            cmd(
                "move",
                "Move a pane",
                [
                    required("pane_id", "PANE_ID"),
                    option("tab", "TAB_ID"),
                    option("split", "DIRECTION", pv=["right", "down"]),
                    option("target-pane", "ID"),
                    option("ratio", "FLOAT"),
                    flag("new-tab"),
                    option("workspace", "ID"),
                    flag("new-workspace"),
                    option("label", "TEXT"),
                    option("tab-label", "TEXT"),
                    flag("focus"),
                    flag("no-focus"),
                ],
            ),
            id_command("close", "pane_id", "Close a pane"),
            cmd(
                "send-text",
                "Send literal text to a pane",
                [required("pane_id", "PANE_ID"), required("text", "TEXT")],
                after="next: herdr pane run <PANE_ID> <COMMAND> sends text and Enter in one call",
            ),
            cmd(
                "send-keys",
                "Send key presses to a pane",
                [required("pane_id", "PANE_ID"), required("key", "KEY", multi=True)],
                after="Use esc as the canonical Escape key name; escape is also accepted.",
            ),
            cmd(
                "wait-output",
                "Wait for matching pane output",
                [
                    required("pane_id", "PANE_ID"),
                    dict(
                        option("match", "TEXT", "Match a literal substring"), conflicts=("regex",)
                    ),
                    dict(
                        option("regex", "PATTERN", "Match a Rust regular expression"),
                        conflicts=("match",),
                    ),
                    _read_source(False),
                    option("lines", "N", "Restrict the searched snapshot to N lines"),
                    option("timeout", "MS", "Fail after this many milliseconds"),
                    flag("raw", "Keep ANSI escape sequences while matching"),
                ],
                group=("match", "regex"),
                after="The selected snapshot is searched immediately, including existing "
                "output, then polled. Without --timeout, this waits indefinitely.",
            ),
            cmd(
                "run",
                "Run a command in a pane",
                [required("pane_id", "PANE_ID"), required("command", "COMMAND", multi=True)],
            ),
            cmd(
                "report-agent",
                "Report pane agent lifecycle state",
                [
                    required("pane_id", "PANE_ID"),
                    option("source", "ID", req=True),
                    option("agent", "LABEL", req=True),
                    option(
                        "state", "STATUS", pv=["idle", "working", "blocked", "unknown"], req=True
                    ),
                    option("message", "TEXT"),
                    option("seq", "N"),
                    option("agent-session-id", "ID"),
                    path_option("agent-session-path", "PATH"),
                ]
                + _resume_argv(resume),
            ),
            cmd(
                "report-agent-session",
                "Report pane agent session identity",
                [
                    required("pane_id", "PANE_ID"),
                    option("source", "ID", req=True),
                    option("agent", "LABEL", req=True),
                    option("seq", "N"),
                    option("agent-session-id", "ID"),
                    path_option("agent-session-path", "PATH"),
                    option("session-start-source", "SOURCE"),
                ]
                + _resume_argv(resume),
            ),
            cmd(
                "release-agent",
                "Release pane agent lifecycle authority",
                [
                    required("pane_id", "PANE_ID"),
                    option("source", "ID", req=True),
                    option("agent", "LABEL", req=True),
                    option("seq", "N"),
                ],
            ),
            cmd(
                "report-metadata",
                "Report display-only pane metadata",
                [
                    required("pane_id", "PANE_ID"),
                    option("source", "ID", req=True),
                    option("agent", "LABEL"),
                    option("applies-to-source", "ID"),
                    option("title", "TEXT"),
                    flag("clear-title"),
                    option("display-agent", "TEXT"),
                    flag("clear-display-agent"),
                    option("state-label", "STATUS=TEXT"),
                    flag("clear-state-labels"),
                    option("token", "NAME=VALUE", append=True),
                    option("clear-token", "NAME", append=True),
                    option("seq", "N"),
                    option("ttl-ms", "N"),
                ],
            ),
        ],
    )


def _plugin_command():
    plugin_id = [required("plugin_id", "PLUGIN_ID")]
    return cmd(
        "plugin",
        "Install and run workflow plugins",
        subs=[
            cmd(
                "install",
                "Install a plugin from GitHub",
                [
                    required("source", "OWNER/REPO[/SUBDIR]"),
                    option("ref", "REF"),
                    flag("yes", short="y"),
                ],
            ),
            cmd("uninstall", "Uninstall a plugin", [required("plugin", "PLUGIN")]),
            cmd(
                "link",
                "Link a local plugin",
                [dict(required("path", "PATH"), hint="path"), flag("disabled"), flag("enabled")],
            ),
            cmd("unlink", "Unlink a local plugin", plugin_id),
            cmd("enable", "Enable a plugin", plugin_id),
            cmd("disable", "Disable a plugin", plugin_id),
            cmd("list", "List installed plugins", [option("plugin", "ID"), _json()]),
            cmd("config-dir", "Print a plugin config directory", plugin_id),
            cmd(
                "action",
                "List or invoke plugin actions",
                subs=[
                    cmd("list", "List plugin actions", [option("plugin", "ID")]),
                    cmd(
                        "invoke",
                        "Invoke a plugin action",
                        [required("action_id", "ACTION_ID"), option("plugin", "ID")],
                    ),
                ],
            ),
            cmd(
                "log",
                "Inspect plugin command logs",
                subs=[
                    cmd(
                        "list",
                        "List plugin command logs",
                        [option("plugin", "ID"), option("limit", "N")],
                    )
                ],
                alias="logs",
            ),
            cmd(
                "pane",
                "Manage plugin-owned panes",
                subs=[
                    cmd(
                        "open",
                        "Open a plugin pane",
                        [
                            option("plugin", "ID"),
                            option("entrypoint", "ID"),
                            option(
                                "placement",
                                "PLACEMENT",
                                pv=["overlay", "split", "tab", "zoomed"],
                            ),
                            option("workspace", "ID"),
                            option("target-pane", "PANE"),
                            _direction(split=True),
                            path_option("cwd", "PATH"),
                            _env(),
                            flag("focus"),
                            flag("no-focus"),
                        ],
                    ),
                    cmd("focus", "Focus a plugin pane", [required("pane_id", "PANE_ID")]),
                    cmd("close", "Close a plugin pane", [required("pane_id", "PANE_ID")]),
                ],
            ),
        ],
    )
