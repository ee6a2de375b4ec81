"""``herdr pane`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/pane.rs``); loaded only by ``herdr pane ...`` calls."""

from .base import usage
from .table import _FOCUS, _FORMAT, _LINES, _SOURCE, PANE_AGENT_STATES, Flag, Pos, Verb, varied

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .table import Group

_PANE_TARGET = (Flag("--pane", "pane_id", "str"), Flag("--current", "pane_id", "current"))
# neighbor/focus/resize/swap: `--current` means "no pane id" (the server's focused pane).
_DIRECTIONAL = (
    Flag("--pane", "pane_id", "str"),
    Flag("--current", "pane_id", "set", (("pane_id", None),)),
    Flag(
        "--direction",
        "direction",
        "choice",
        (
            {"left": "left", "right": "right", "up": "up", "down": "down"},
            "invalid pane direction: %s (expected left, right, up, or down)",
        ),
    ),
)
_ZOOM_ONCE = "provide only one of --toggle, --on, or --off"
_RIGHT_CLICK = Flag(
    "--right-click",
    "right_click",
    "choice",
    ({"herdr": "herdr", "pane": "pane"}, "invalid right-click target: %s"),
)

_SPLIT_USAGE = (
    "usage: herdr pane split [<pane_id>|--pane ID|--current] --direction right|down [--ratio FLOAT] "
    "[--cwd PATH] [--env KEY=VALUE] [--right-click herdr|pane] [--focus] [--no-focus]"
)


# herdr 0.8.0 (row cli_current_from_env false, 346411fa:src/cli/pane.rs:225-245): `--current`
# sends no pane id (the server's focused pane) even inside a pane; 0.8.2 sends HERDR_PANE_ID.
_PANE_TARGET_FOCUSED = (
    Flag("--pane", "pane_id", "str"),
    Flag("--current", "pane_id", "set", (("pane_id", None),)),
)

# herdr 0.8.0's `pane read` usage (346411fa:src/cli/pane.rs:445): no `|detection`, no `[--raw]`.
_READ_USAGE_080 = (
    "usage: herdr pane read <pane_id> [--source visible|recent|recent-unwrapped] [--lines N] "
    "[--format text|ansi] [--ansi]"
)


def _for_release(verbs: "list[Verb]", rows: "dict[str, object]") -> "list[Verb]":
    """The verbs as this release parses them: herdr 0.8.0's variants where its rows say so."""
    out = []
    for verb in verbs:
        if verb.name in ("layout", "process-info", "edges") and not rows["cli_current_from_env"]:
            # d8838082 (#2297/#2298)
            verb = varied(verb, flags=_PANE_TARGET_FOCUSED)
        elif verb.name in ("read", "wait-output") and not rows["cli_read_options_anywhere"]:
            # ecddecec (#2183): 0.8.0's first word is the pane id, every later word an option
            # ("unknown option: X"), no --opt=value, and a bad value is an io::Error out of main
            # (346411fa:src/cli/pane.rs:443-511, 938-1022).
            verb = varied(
                verb,
                pos=Pos("lead", "pane_id"),
                equals=(),
                io_errors=True,
                usage=_READ_USAGE_080 if verb.name == "read" else verb.usage,
            )
        elif verb.name == "input" and not rows["cli_pane_input"]:
            continue  # 10974c82 (#2504)
        elif verb.name == "split" and not rows["cli_pane_input"]:
            # 10974c82 (#2504): 0.8.0 has no --right-click, and `--current` without
            # HERDR_PANE_ID leaves the target out (346411fa:src/cli/pane.rs:528-625).
            assert verb.usage is not None
            verb = varied(
                verb,
                flags=tuple(
                    Flag(f.name, f.field, f.kind) if f.name == "--current" else f
                    for f in verb.flags
                    if f.name != "--right-click"
                ),
                equals=(),
                params=tuple(p for p in verb.params or () if p[0] != "right_click"),
                usage=verb.usage.replace(" [--right-click herdr|pane]", ""),
            )
        out.append(verb)
    return out


def rows(release: "Release") -> "Group":
    cli, version_rows = release.grammar, release.rows
    anywhere = version_rows["report_agent_options_anywhere"]
    resume = "resume_argv" if version_rows["report_resume_argv"] else None
    report_flags = (
        Flag("--source", "source", "str"),
        Flag("--agent", "agent", "str"),
        Flag("--state", "state", "choice", (PANE_AGENT_STATES, _STATE_ERROR)),
        Flag("--message", "message", "str"),
        Flag("--seq", "seq", "u64"),
        Flag("--agent-session-id", "agent_session_id", "str"),
        Flag("--agent-session-path", "agent_session_path", "str"),
    )
    session_flags = (
        Flag("--source", "source", "str"),
        Flag("--agent", "agent", "str"),
        Flag("--seq", "seq", "u64"),
        Flag("--agent-session-id", "agent_session_id", "str"),
        Flag("--agent-session-path", "agent_session_path", "str"),
        Flag("--session-start-source", "session_start_source", "str"),
    )
    # 0.8.2: the pane id is the first word, options follow as separate words.  0.9.x: options
    # may precede the pane id and `--opt=value` is accepted (VERSIONS.md §1.7).
    reporter_pos = Pos("any", "pane_id") if anywhere else Pos("lead", "pane_id")
    return (
        "herdr pane commands:",
        _for_release(
            [
                Verb(
                    name="list",
                    flags=(Flag("--workspace", "workspace_id", "str"),),
                    params=(("workspace_id", "opt"),),
                    listed=("  herdr pane list [--workspace <workspace_id>]",),
                ),
                Verb(
                    name="current",
                    envpane="caller_pane_id",
                    flags=(
                        Flag("--pane", "caller_pane_id", "str"),
                        Flag("--current", "caller_pane_id", "current"),
                    ),
                    params=(("caller_pane_id", "opt"),),
                    listed=("  herdr pane current [--pane ID|--current]",),
                ),
                Verb(
                    name="get",
                    shape="ids",
                    fields=("pane_id",),
                    usage="usage: herdr pane get <pane_id>",
                ),
                Verb(
                    name="layout",
                    flags=_PANE_TARGET,
                    params=(("pane_id", "opt"),),
                    listed=("  herdr pane layout [--pane ID|--current]",),
                ),
                Verb(
                    name="process-info",
                    rid="cli:pane:process_info",
                    flags=_PANE_TARGET,
                    params=(("pane_id", "opt"),),
                    listed=("  herdr pane process-info [--pane ID|--current]",),
                ),
                Verb(
                    name="neighbor",
                    flags=_DIRECTIONAL,
                    need=(("direction", None),),
                    params=(("pane_id", "opt"), ("direction", "req")),
                    usage="usage: herdr pane neighbor --direction left|right|up|down [--pane ID|--current]",
                ),
                Verb(
                    name="edges",
                    flags=_PANE_TARGET,
                    params=(("pane_id", "opt"),),
                    listed=("  herdr pane edges [--pane ID|--current]",),
                ),
                Verb(
                    name="focus",
                    # parse_pane_focus_args maps every neighbor-parser error to this usage.
                    method="pane.focus_direction",
                    flags=_DIRECTIONAL,
                    need=(("direction", None),),
                    all_usage=True,
                    params=(("pane_id", "opt"), ("direction", "req")),
                    usage="usage: herdr pane focus --direction left|right|up|down [--pane ID|--current]",
                ),
                Verb(
                    name="resize",
                    flags=_DIRECTIONAL + (Flag("--amount", "amount", "f32", "invalid amount: %s"),),
                    need=(("direction", None),),
                    params=(("pane_id", "opt"), ("direction", "req"), ("amount", "opt")),
                    usage="usage: herdr pane resize --direction left|right|up|down [--amount FLOAT] [--pane ID|--current]",
                ),
                Verb(
                    name="zoom",
                    pos=Pos("first", "pane_id"),
                    flags=(
                        Flag("--pane", "pane_id", "str"),
                        Flag("--current", "pane_id", "set", (("pane_id", None),)),
                        Flag("--toggle", "mode", "once", ("toggle", _ZOOM_ONCE)),
                        Flag("--on", "mode", "once", ("on", _ZOOM_ONCE)),
                        Flag("--off", "mode", "once", ("off", _ZOOM_ONCE)),
                    ),
                    params=(("pane_id", "opt"), ("mode", "req", "toggle")),
                    listed=(
                        "  herdr pane zoom [<pane_id>|--pane ID|--current] [--toggle|--on|--off]",
                    ),
                ),
                Verb(
                    name="rename",
                    shape="text",
                    fields=("pane_id", "label"),
                    clear=True,
                    usage="usage: herdr pane rename <pane_id> <label>|--clear",
                ),
                Verb(
                    name="read",
                    pos=Pos("any", "pane_id"),
                    equals=("--source", "--lines", "--format"),
                    flags=(
                        _SOURCE,
                        _LINES,
                        _FORMAT,
                        Flag("--ansi", "format", "set", (("format", "ansi"),)),
                        Flag("--raw", "format", "set", (("format", "ansi"), ("strip_ansi", False))),
                    ),
                    params=(
                        ("pane_id", "req"),
                        ("source", "req", "recent"),
                        ("lines", "opt"),
                        ("format", "req", "text"),
                        ("strip_ansi", "req", True),
                    ),
                    out="read",
                    usage="usage: herdr pane read <pane_id> [--source visible|recent|recent-unwrapped|detection] "
                    "[--lines N] [--format text|ansi] [--ansi] [--raw]",
                    listed=(
                        "  herdr pane read <pane_id> [--source visible|recent|recent-unwrapped] [--lines N] [--format text|ansi] [--ansi]",
                    ),
                ),
                Verb(
                    name="input",
                    method="pane.input.set",
                    rid="cli:pane:input:set",
                    pos=Pos("any", "pane_id"),
                    equals=("--pane", "--right-click"),
                    selector=("pane_id", "provide only one pane selector"),
                    flags=(
                        Flag("--pane", "pane_id", "str"),
                        Flag("--current", "pane_id", "current", True),
                        _RIGHT_CLICK,
                    ),
                    need=(("right_click", None),),
                    params=(("pane_id", "req"), ("right_click", "req")),
                    usage="usage: herdr pane input [<pane_id>|--pane ID|--current] --right-click herdr|pane",
                ),
                Verb(
                    name="split",
                    # 0.9.x: no target means the caller's pane (HERDR_PANE_ID); 0.8.2 omits the
                    # target and the server splits the focused pane.
                    envpane="target_pane_id" if cli.split_targets_caller else None,
                    pos=Pos("first", "target_pane_id"),
                    equals=("--right-click",),
                    flags=(
                        Flag("--pane", "target_pane_id", "str"),
                        Flag("--current", "target_pane_id", "current", True),
                        Flag(
                            "--direction",
                            "direction",
                            "choice",
                            ({"right": "right", "down": "down"}, "invalid split direction: %s"),
                        ),
                        Flag("--ratio", "ratio", "f32", "invalid ratio: %s"),
                        Flag("--cwd", "cwd", "str"),
                        Flag(
                            "--right-click",
                            "right_click",
                            "choice",
                            ({"herdr": "herdr", "pane": "pane"}, "invalid right-click target: %s"),
                        ),
                    )
                    + _FOCUS
                    + (Flag("--env", "env", "env"),),
                    need=(("direction", None),),
                    params=(
                        ("target_pane_id", "opt"),
                        ("direction", "req"),
                        ("ratio", "opt"),
                        ("cwd", "opt"),
                        ("focus", "req", False),
                        ("right_click", "req", "herdr"),
                        ("env", "any"),
                    ),
                    usage=_SPLIT_USAGE,
                ),
                Verb(
                    name="swap",
                    flags=_DIRECTIONAL
                    + (
                        Flag("--source-pane", "source_pane_id", "str"),
                        Flag("--target-pane", "target_pane_id", "str"),
                    ),
                    check=swap_check,
                    params=(
                        ("pane_id", "opt"),
                        ("direction", "opt"),
                        ("source_pane_id", "opt"),
                        ("target_pane_id", "opt"),
                    ),
                    usage="usage: herdr pane swap --direction left|right|up|down [--pane ID|--current]\n"
                    "       herdr pane swap --source-pane ID --target-pane ID",
                ),
                Verb(
                    name="move",
                    pos=Pos("lead", "pane_id"),
                    lead_nodash=True,
                    flags=(
                        Flag("--tab", "tab_id", "str"),
                        Flag("--new-tab", "new_tab", "on"),
                        Flag("--new-workspace", "new_workspace", "on"),
                        Flag("--workspace", "workspace_id", "str"),
                        Flag("--target-pane", "target_pane_id", "str"),
                        Flag(
                            "--split",
                            "split",
                            "choice",
                            (
                                {"right": "right", "down": "down"},
                                "invalid split direction: %s (expected right or down)",
                            ),
                        ),
                        Flag("--ratio", "ratio", "f32", "invalid ratio: %s"),
                        Flag("--label", "label", "str"),
                        Flag("--tab-label", "tab_label", "str"),
                    )
                    + _FOCUS,
                    check=move_check,
                    # The CLI starts from focus=true (parse_pane_move_args); the struct default is false.
                    params=(("pane_id", "req"), ("destination", "req"), ("focus", "req", True)),
                    usage="usage: herdr pane move <pane_id> --tab <tab_id> --split right|down [--target-pane ID] [--ratio FLOAT] [--focus|--no-focus]\n"
                    "       herdr pane move <pane_id> --new-tab [--workspace ID] [--label TEXT] [--focus|--no-focus]\n"
                    "       herdr pane move <pane_id> --new-workspace [--label TEXT] [--tab-label TEXT] [--focus|--no-focus]",
                ),
                Verb(
                    name="close",
                    shape="ids",
                    fields=("pane_id",),
                    usage="usage: herdr pane close <pane_id>",
                ),
                Verb(
                    name="send-text",
                    shape="text",
                    fields=("pane_id", "text"),
                    out="ok",
                    usage="usage: herdr pane send-text <pane_id> <text>",
                ),
                Verb(
                    name="send-keys",
                    shape="keys",
                    fields=("pane_id", "keys"),
                    out="ok",
                    usage="usage: herdr pane send-keys <pane_id> <key> [key ...]",
                ),
                Verb(
                    name="wait-output",
                    method="pane.wait_for_output",
                    pos=Pos("any", "pane_id"),
                    equals=("--match", "--regex", "--source", "--lines", "--timeout"),
                    flags=(
                        Flag("--match", "match", "match", "substring"),
                        Flag("--regex", "match", "match", "regex"),
                        _SOURCE,
                        _LINES,
                        Flag("--timeout", "timeout_ms", "u64"),
                        Flag("--raw", "strip_ansi", "set", (("strip_ansi", False),)),
                    ),
                    need=(("match", "missing required --match or --regex"),),
                    params=(
                        ("pane_id", "req"),
                        ("source", "req", "recent"),
                        ("lines", "opt"),
                        ("match", "req"),
                        ("timeout_ms", "opt"),
                        ("strip_ansi", "req", True),
                    ),
                    usage="usage: herdr pane wait-output <pane_id> (--match TEXT | --regex PATTERN) "
                    "[--source visible|recent|recent-unwrapped] [--lines N] [--timeout MS] [--raw]",
                ),
                Verb(
                    name="report-agent",
                    resume=resume,
                    pos=reporter_pos,
                    equals=tuple(f.name for f in report_flags) if anywhere else (),
                    flags=report_flags,
                    io_errors=True,
                    strip=True,
                    need=(
                        ("source", "missing required --source"),
                        ("agent", "missing required --agent"),
                        ("state", "missing required --state"),
                    ),
                    params=(
                        ("pane_id", "req"),
                        ("source", "req"),
                        ("agent", "req"),
                        ("state", "req"),
                        ("message", "opt"),
                        ("seq", "opt"),
                        ("agent_session_id", "opt"),
                        ("agent_session_path", "opt"),
                        ("resume_argv", "opt"),
                    ),
                    out="ok",
                    usage="usage: herdr pane report-agent <pane_id> --source ID --agent LABEL --state idle|working|blocked|unknown "
                    "[--message TEXT] [--seq N] [--agent-session-id ID] [--agent-session-path PATH]"
                    + _RESUME_USAGE[resume is not None],
                    listed=(
                        "  herdr pane report-agent <pane_id> --source ID --agent LABEL --state idle|working|blocked|unknown [--message TEXT] [--seq N] [--agent-session-id ID] [--agent-session-path PATH]",
                    ),
                ),
                Verb(
                    name="report-agent-session",
                    resume=resume,
                    pos=reporter_pos,
                    equals=tuple(f.name for f in session_flags) if anywhere else (),
                    flags=session_flags,
                    io_errors=True,
                    strip=True,
                    need=(
                        ("source", "missing required --source"),
                        ("agent", "missing required --agent"),
                    ),
                    params=(
                        ("pane_id", "req"),
                        ("source", "req"),
                        ("agent", "req"),
                        ("seq", "opt"),
                        ("agent_session_id", "opt"),
                        ("agent_session_path", "opt"),
                        ("session_start_source", "opt"),
                        ("resume_argv", "opt"),
                    ),
                    out="ok",
                    usage="usage: herdr pane report-agent-session <pane_id> --source ID --agent LABEL [--seq N] "
                    "[--agent-session-id ID] [--agent-session-path PATH] [--session-start-source SOURCE]"
                    + _RESUME_USAGE[resume is not None],
                    listed=(
                        "  herdr pane report-agent-session <pane_id> --source ID --agent LABEL [--seq N] [--agent-session-id ID] [--agent-session-path PATH]",
                    ),
                ),
                Verb(
                    name="release-agent",
                    pos=Pos("lead", "pane_id"),
                    flags=(
                        Flag("--source", "source", "str"),
                        Flag("--agent", "agent", "str"),
                        Flag("--seq", "seq", "u64"),
                    ),
                    io_errors=True,
                    strip=True,
                    need=(
                        ("source", "missing required --source"),
                        ("agent", "missing required --agent"),
                    ),
                    params=(
                        ("pane_id", "req"),
                        ("source", "req"),
                        ("agent", "req"),
                        ("seq", "opt"),
                    ),
                    out="ok",
                    usage="usage: herdr pane release-agent <pane_id> --source ID --agent LABEL [--seq N]",
                ),
                Verb(
                    name="report-metadata",
                    pos=Pos("lead", "pane_id"),
                    flags=(
                        Flag("--source", "source", "str"),
                        Flag("--agent", "agent", "str"),
                        Flag("--applies-to-source", "applies_to_source", "str"),
                        Flag("--title", "title", "str"),
                        Flag("--clear-title", "clear_title", "on"),
                        Flag("--display-agent", "display_agent", "str"),
                        Flag("--clear-display-agent", "clear_display_agent", "on"),
                        Flag("--state-label", "state_labels", "state_label"),
                        Flag("--clear-state-labels", "clear_state_labels", "on"),
                        Flag("--token", "tokens", "token"),
                        Flag("--clear-token", "tokens", "clear_token"),
                        Flag("--seq", "seq", "u64"),
                        Flag("--ttl-ms", "ttl_ms", "u64"),
                    ),
                    io_errors=True,  # parse_u64_flag(...)? is an io::Error::other
                    check=metadata_check,
                    params=(
                        ("pane_id", "req"),
                        ("source", "req"),
                        ("agent", "opt"),
                        ("applies_to_source", "opt"),
                        ("title", "opt"),
                        ("display_agent", "opt"),
                        ("state_labels", "any"),
                        ("tokens", "any"),
                        ("clear_title", "req", False),
                        ("clear_display_agent", "req", False),
                        ("clear_state_labels", "req", False),
                        ("seq", "opt"),
                        ("ttl_ms", "opt"),
                    ),
                    out="ok",
                    usage="usage: herdr pane report-metadata <pane_id> --source ID [--agent LABEL] [--applies-to-source ID] [--title TEXT|--clear-title] [--display-agent TEXT|--clear-display-agent] [--state-label STATUS=TEXT] [--clear-state-labels] [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]",
                ),
                Verb(
                    name="run",
                    method="pane.send_input",
                    shape="text",
                    fields=("pane_id", "text"),
                    const={"keys": ["Enter"]},
                    # PaneSendInputParams skips an empty text (src/api/schema/panes.rs).
                    params=(("pane_id", "req"), ("text", "any"), ("keys", "req")),
                    out="ok",
                    usage="usage: herdr pane run <pane_id> <command>",
                ),
            ],
            version_rows,
        ),
        (),
    )


# 0.9.x: everything after the first `--` is the resume command (split_resume_argv; VERSIONS.md
# §5 row 21); sent as `resume_argv` (CHOICE: omitted when there is no `--`, as an Option).
_RESUME_USAGE = {False: "", True: " [-- <resume-command...>]"}

_STATE_ERROR = "invalid pane agent state: %s (expected idle, working, blocked, or unknown)"


# Post-scan rules of the irregular pane verbs (src/cli/pane.rs): the rows scan the flags,
# these check the combinations and shape the params the way the Rust parsers build their
# structs.


def swap_check(ctx, verb, values):
    """parse_pane_swap_args: directional XOR explicit source/target."""
    directional = values.get("direction") is not None
    explicit = values.get("source_pane_id") is not None or values.get("target_pane_id") is not None
    if directional and not explicit:
        values.pop("source_pane_id", None)
        values.pop("target_pane_id", None)
        return
    if (
        explicit
        and not directional
        and values.get("pane_id") is None
        and values.get("source_pane_id") is not None
        and values.get("target_pane_id") is not None
    ):
        values.pop("pane_id", None)
        return
    raise usage(verb.usage)


def move_check(ctx, verb, values):
    """parse_pane_move_args: exactly one destination, each with its own options.

    PaneMoveDestination is internally tagged (``type`` first), fields in declaration order.
    """
    tab_id = values.get("tab_id")
    new_tab = values.get("new_tab", False)
    new_workspace = values.get("new_workspace", False)
    if (tab_id is not None) + new_tab + new_workspace != 1:
        raise usage(verb.usage)
    get = values.get
    if tab_id is not None:
        if get("split") is None or get("workspace_id") is not None or get("label") is not None:
            raise usage(verb.usage)
        if get("tab_label") is not None:
            raise usage(verb.usage)
        destination = {"type": "tab", "tab_id": tab_id}
        if get("target_pane_id") is not None:
            destination["target_pane_id"] = get("target_pane_id")
        destination["split"] = get("split")
        if get("ratio") is not None:
            destination["ratio"] = get("ratio")
    elif new_tab:
        if get("split") is not None or get("target_pane_id") is not None or get("tab_label"):
            raise usage(verb.usage)
        destination = {"type": "new_tab"}
        for field in ("workspace_id", "label"):
            if get(field) is not None:
                destination[field] = get(field)
    else:
        if (
            get("split") is not None
            or get("target_pane_id") is not None
            or get("workspace_id") is not None
        ):
            raise usage(verb.usage)
        destination = {"type": "new_workspace"}
        for field in ("label", "tab_label"):
            if get(field) is not None:
                destination[field] = get(field)
    values["destination"] = destination


def metadata_check(ctx, verb, values):
    """pane_report_metadata's checks after the flag loop (src/cli/pane.rs:1583-1610)."""
    source = values.get("source")
    source = source.strip() if source is not None else ""
    if not source:
        raise usage("missing required --source")
    values["source"] = source
    applies = values.get("applies_to_source")
    if applies is not None and not applies.strip():
        raise usage("missing value for --applies-to-source")
    get = values.get
    if (
        (get("title") is not None and get("clear_title"))
        or (get("display_agent") is not None and get("clear_display_agent"))
        or (get("state_labels") and get("clear_state_labels"))
    ):
        raise usage("cannot set and clear the same metadata field")
    if (
        get("title") is None
        and get("display_agent") is None
        and not get("state_labels")
        and not get("tokens")
        and not get("clear_title")
        and not get("clear_display_agent")
        and not get("clear_state_labels")
    ):
        raise usage("missing metadata field to set or clear")
