"""``herdr pane`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/pane.rs``); loaded only by ``herdr pane ...`` calls."""

from .table import _FOCUS, _FORMAT, _LINES, _SOURCE, PANE_AGENT_STATES

_PANE_TARGET = (("--pane", "pane_id", "str"), ("--current", "pane_id", "current"))
# neighbor/focus/resize/swap: `--current` means "no pane id" (the server's focused pane).
_DIRECTIONAL = (
    ("--pane", "pane_id", "str"),
    ("--current", "pane_id", "set", (("pane_id", None),)),
    (
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
_RIGHT_CLICK = (
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
    ("--pane", "pane_id", "str"),
    ("--current", "pane_id", "set", (("pane_id", None),)),
)

# herdr 0.8.0's `pane read` usage (346411fa:src/cli/pane.rs:445): no `|detection`, no `[--raw]`.
_READ_USAGE_080 = (
    "usage: herdr pane read <pane_id> [--source visible|recent|recent-unwrapped] [--lines N] "
    "[--format text|ansi] [--ansi]"
)


def _current_variants(row):
    """The verb twice, gated by row cli_current_from_env (d8838082, #2298)."""
    return (
        {**row, "flags": _PANE_TARGET, "row": "cli_current_from_env"},
        {**row, "flags": _PANE_TARGET_FOCUSED, "unless": "cli_current_from_env"},
    )


def _lead_variant(row, usage_text):
    """herdr 0.8.0's `pane read` / `pane wait-output` (row cli_read_options_anywhere false,
    346411fa:src/cli/pane.rs:443-511, 938-1022): the first word is the pane id, every later
    word an option ("unknown option: X"), no --opt=value, and a bad value is an io::Error
    out of main (exit 1)."""
    old = {k: v for k, v in row.items() if k not in ("equals", "row")}
    return {
        **old,
        "pos": ("lead", "pane_id"),
        "errors": "io",
        "usage": usage_text,
        "unless": "cli_read_options_anywhere",
    }


def rows(v09):
    report_flags = (
        ("--source", "source", "str"),
        ("--agent", "agent", "str"),
        ("--state", "state", "choice", (PANE_AGENT_STATES, _STATE_ERROR)),
        ("--message", "message", "str"),
        ("--seq", "seq", "u64"),
        ("--agent-session-id", "agent_session_id", "str"),
        ("--agent-session-path", "agent_session_path", "str"),
    )
    session_flags = (
        ("--source", "source", "str"),
        ("--agent", "agent", "str"),
        ("--seq", "seq", "u64"),
        ("--agent-session-id", "agent_session_id", "str"),
        ("--agent-session-path", "agent_session_path", "str"),
        ("--session-start-source", "session_start_source", "str"),
    )
    # 0.8.2: the pane id is the first word, options follow as separate words.  0.9.x: options
    # may precede the pane id and `--opt=value` is accepted (VERSIONS.md §1.7).
    reporter_pos = ("any", "pane_id") if v09 else ("lead", "pane_id")
    table = [
        {
            "name": "list",
            "flags": (("--workspace", "workspace_id", "str"),),
            "params": (("workspace_id", "opt"),),
            "lines": ("  herdr pane list [--workspace <workspace_id>]",),
        },
        {
            "name": "current",
            "envpane": "caller_pane_id",
            "flags": (
                ("--pane", "caller_pane_id", "str"),
                ("--current", "caller_pane_id", "current"),
            ),
            "params": (("caller_pane_id", "opt"),),
            "lines": ("  herdr pane current [--pane ID|--current]",),
        },
        {
            "name": "get",
            "shape": "ids",
            "fields": ("pane_id",),
            "usage": "usage: herdr pane get <pane_id>",
            "lines": ("  herdr pane get <pane_id>",),
        },
        *_current_variants(
            {
                "name": "layout",
                "params": (("pane_id", "opt"),),
                "lines": ("  herdr pane layout [--pane ID|--current]",),
            }
        ),
        *_current_variants(
            {
                "name": "process-info",
                "rid": "cli:pane:process_info",
                "params": (("pane_id", "opt"),),
                "lines": ("  herdr pane process-info [--pane ID|--current]",),
            }
        ),
        {
            "name": "neighbor",
            "flags": _DIRECTIONAL,
            "need": (("direction", None),),
            "params": (("pane_id", "opt"), ("direction", "req")),
            "usage": "usage: herdr pane neighbor --direction left|right|up|down [--pane ID|--current]",
            "lines": (
                "  herdr pane neighbor --direction left|right|up|down [--pane ID|--current]",
            ),
        },
        *_current_variants(
            {
                "name": "edges",
                "params": (("pane_id", "opt"),),
                "lines": ("  herdr pane edges [--pane ID|--current]",),
            }
        ),
        {
            "name": "focus",
            # parse_pane_focus_args maps every neighbor-parser error to this usage.
            "method": "pane.focus_direction",
            "flags": _DIRECTIONAL,
            "need": (("direction", None),),
            "all_usage": True,
            "params": (("pane_id", "opt"), ("direction", "req")),
            "usage": "usage: herdr pane focus --direction left|right|up|down [--pane ID|--current]",
            "lines": ("  herdr pane focus --direction left|right|up|down [--pane ID|--current]",),
        },
        {
            "name": "resize",
            "flags": _DIRECTIONAL + (("--amount", "amount", "f32", "invalid amount: %s"),),
            "need": (("direction", None),),
            "params": (("pane_id", "opt"), ("direction", "req"), ("amount", "opt")),
            "usage": "usage: herdr pane resize --direction left|right|up|down [--amount FLOAT] [--pane ID|--current]",
            "lines": (
                "  herdr pane resize --direction left|right|up|down [--amount FLOAT] [--pane ID|--current]",
            ),
        },
        {
            "name": "zoom",
            "pos": ("first", "pane_id"),
            "flags": (
                ("--pane", "pane_id", "str"),
                ("--current", "pane_id", "set", (("pane_id", None),)),
                ("--toggle", "mode", "once", ("toggle", _ZOOM_ONCE)),
                ("--on", "mode", "once", ("on", _ZOOM_ONCE)),
                ("--off", "mode", "once", ("off", _ZOOM_ONCE)),
            ),
            "params": (("pane_id", "opt"), ("mode", "req", "toggle")),
            "lines": ("  herdr pane zoom [<pane_id>|--pane ID|--current] [--toggle|--on|--off]",),
        },
        {
            "name": "rename",
            "shape": "text",
            "fields": ("pane_id", "label"),
            "clear": True,
            "usage": "usage: herdr pane rename <pane_id> <label>|--clear",
            "lines": ("  herdr pane rename <pane_id> <label>|--clear",),
        },
        {
            "name": "read",
            "row": "cli_read_options_anywhere",
            "pos": ("any", "pane_id"),
            "equals": ("--source", "--lines", "--format"),
            "flags": (
                _SOURCE,
                _LINES,
                _FORMAT,
                ("--ansi", "format", "set", (("format", "ansi"),)),
                ("--raw", "format", "set", (("format", "ansi"), ("strip_ansi", False))),
            ),
            "params": (
                ("pane_id", "req"),
                ("source", "req", "recent"),
                ("lines", "opt"),
                ("format", "req", "text"),
                ("strip_ansi", "req", True),
            ),
            "out": "read",
            "usage": "usage: herdr pane read <pane_id> [--source visible|recent|recent-unwrapped|detection] "
            "[--lines N] [--format text|ansi] [--ansi] [--raw]",
            "lines": (
                "  herdr pane read <pane_id> [--source visible|recent|recent-unwrapped] [--lines N] [--format text|ansi] [--ansi]",
            ),
        },
        {
            "name": "input",
            "row": "cli_pane_input",
            "method": "pane.input.set",
            "rid": "cli:pane:input:set",
            "pos": ("any", "pane_id"),
            "equals": ("--pane", "--right-click"),
            "selector": ("pane_id", "provide only one pane selector"),
            "flags": (
                ("--pane", "pane_id", "str"),
                ("--current", "pane_id", "current", True),
                _RIGHT_CLICK,
            ),
            "need": (("right_click", None),),
            "params": (("pane_id", "req"), ("right_click", "req")),
            "usage": "usage: herdr pane input [<pane_id>|--pane ID|--current] --right-click herdr|pane",
            "lines": (
                "  herdr pane input [<pane_id>|--pane ID|--current] --right-click herdr|pane",
            ),
        },
        {
            "name": "split",
            "row": "cli_pane_input",
            # 0.9.x: no target means the caller's pane (HERDR_PANE_ID); 0.8.2 omits the
            # target and the server splits the focused pane.
            "envpane": "target_pane_id" if v09 else None,
            "pos": ("first", "target_pane_id"),
            "equals": ("--right-click",),
            "flags": (
                ("--pane", "target_pane_id", "str"),
                ("--current", "target_pane_id", "current", True),
                (
                    "--direction",
                    "direction",
                    "choice",
                    ({"right": "right", "down": "down"}, "invalid split direction: %s"),
                ),
                ("--ratio", "ratio", "f32", "invalid ratio: %s"),
                ("--cwd", "cwd", "str"),
                (
                    "--right-click",
                    "right_click",
                    "choice",
                    ({"herdr": "herdr", "pane": "pane"}, "invalid right-click target: %s"),
                ),
            )
            + _FOCUS
            + (("--env", "env", "env"),),
            "need": (("direction", None),),
            "params": (
                ("target_pane_id", "opt"),
                ("direction", "req"),
                ("ratio", "opt"),
                ("cwd", "opt"),
                ("focus", "req", False),
                ("right_click", "req", "herdr"),
                ("env", "any"),
            ),
            "usage": _SPLIT_USAGE,
            "lines": (
                "  herdr pane split [<pane_id>|--pane ID|--current] --direction right|down [--ratio FLOAT] [--cwd PATH] [--env KEY=VALUE] [--right-click herdr|pane] [--focus] [--no-focus]",
            ),
        },
        {
            "name": "swap",
            "flags": _DIRECTIONAL
            + (
                ("--source-pane", "source_pane_id", "str"),
                ("--target-pane", "target_pane_id", "str"),
            ),
            "check": "pane:swap_check",
            "params": (
                ("pane_id", "opt"),
                ("direction", "opt"),
                ("source_pane_id", "opt"),
                ("target_pane_id", "opt"),
            ),
            "usage": "usage: herdr pane swap --direction left|right|up|down [--pane ID|--current]\n"
            "       herdr pane swap --source-pane ID --target-pane ID",
            "lines": (
                "  herdr pane swap --direction left|right|up|down [--pane ID|--current]",
                "  herdr pane swap --source-pane ID --target-pane ID",
            ),
        },
        {
            "name": "move",
            "pos": ("lead", "pane_id"),
            "lead_nodash": True,
            "flags": (
                ("--tab", "tab_id", "str"),
                ("--new-tab", "new_tab", "on"),
                ("--new-workspace", "new_workspace", "on"),
                ("--workspace", "workspace_id", "str"),
                ("--target-pane", "target_pane_id", "str"),
                (
                    "--split",
                    "split",
                    "choice",
                    (
                        {"right": "right", "down": "down"},
                        "invalid split direction: %s (expected right or down)",
                    ),
                ),
                ("--ratio", "ratio", "f32", "invalid ratio: %s"),
                ("--label", "label", "str"),
                ("--tab-label", "tab_label", "str"),
            )
            + _FOCUS,
            "check": "pane:move_check",
            # The CLI starts from focus=true (parse_pane_move_args); the struct default is false.
            "params": (("pane_id", "req"), ("destination", "req"), ("focus", "req", True)),
            "usage": "usage: herdr pane move <pane_id> --tab <tab_id> --split right|down [--target-pane ID] [--ratio FLOAT] [--focus|--no-focus]\n"
            "       herdr pane move <pane_id> --new-tab [--workspace ID] [--label TEXT] [--focus|--no-focus]\n"
            "       herdr pane move <pane_id> --new-workspace [--label TEXT] [--tab-label TEXT] [--focus|--no-focus]",
            "lines": (
                "  herdr pane move <pane_id> --tab <tab_id> --split right|down [--target-pane ID] [--ratio FLOAT] [--focus|--no-focus]",
                "  herdr pane move <pane_id> --new-tab [--workspace ID] [--label TEXT] [--focus|--no-focus]",
                "  herdr pane move <pane_id> --new-workspace [--label TEXT] [--tab-label TEXT] [--focus|--no-focus]",
            ),
        },
        {
            "name": "close",
            "shape": "ids",
            "fields": ("pane_id",),
            "usage": "usage: herdr pane close <pane_id>",
            "lines": ("  herdr pane close <pane_id>",),
        },
        {
            "name": "send-text",
            "shape": "text",
            "fields": ("pane_id", "text"),
            "out": "ok",
            "usage": "usage: herdr pane send-text <pane_id> <text>",
            "lines": ("  herdr pane send-text <pane_id> <text>",),
        },
        {
            "name": "send-keys",
            "shape": "keys",
            "fields": ("pane_id", "keys"),
            "out": "ok",
            "usage": "usage: herdr pane send-keys <pane_id> <key> [key ...]",
            "lines": ("  herdr pane send-keys <pane_id> <key> [key ...]",),
        },
        {
            "name": "wait-output",
            "row": "cli_read_options_anywhere",
            "method": "pane.wait_for_output",
            "pos": ("any", "pane_id"),
            "equals": ("--match", "--regex", "--source", "--lines", "--timeout"),
            "flags": (
                ("--match", "match", "match", "substring"),
                ("--regex", "match", "match", "regex"),
                _SOURCE,
                _LINES,
                ("--timeout", "timeout_ms", "u64"),
                ("--raw", "strip_ansi", "set", (("strip_ansi", False),)),
            ),
            "need": (("match", "missing required --match or --regex"),),
            "params": (
                ("pane_id", "req"),
                ("source", "req", "recent"),
                ("lines", "opt"),
                ("match", "req"),
                ("timeout_ms", "opt"),
                ("strip_ansi", "req", True),
            ),
            "usage": "usage: herdr pane wait-output <pane_id> (--match TEXT | --regex PATTERN) "
            "[--source visible|recent|recent-unwrapped] [--lines N] [--timeout MS] [--raw]",
            "lines": (
                "  herdr pane wait-output <pane_id> (--match TEXT | --regex PATTERN) [--source visible|recent|recent-unwrapped] [--lines N] [--timeout MS] [--raw]",
            ),
        },
        {
            "name": "report-agent",
            "resume": "resume_argv" if v09 else None,
            "pos": reporter_pos,
            "equals": tuple(f[0] for f in report_flags) if v09 else None,
            "flags": report_flags,
            "errors": "io",
            "strip": True,
            "need": (
                ("source", "missing required --source"),
                ("agent", "missing required --agent"),
                ("state", "missing required --state"),
            ),
            "params": (
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
            "out": "ok",
            "usage": "usage: herdr pane report-agent <pane_id> --source ID --agent LABEL --state idle|working|blocked|unknown "
            "[--message TEXT] [--seq N] [--agent-session-id ID] [--agent-session-path PATH]"
            + _RESUME_USAGE[v09],
            "lines": (
                "  herdr pane report-agent <pane_id> --source ID --agent LABEL --state idle|working|blocked|unknown [--message TEXT] [--seq N] [--agent-session-id ID] [--agent-session-path PATH]",
            ),
        },
        {
            "name": "report-agent-session",
            "resume": "resume_argv" if v09 else None,
            "pos": reporter_pos,
            "equals": tuple(f[0] for f in session_flags) if v09 else None,
            "flags": session_flags,
            "errors": "io",
            "strip": True,
            "need": (
                ("source", "missing required --source"),
                ("agent", "missing required --agent"),
            ),
            "params": (
                ("pane_id", "req"),
                ("source", "req"),
                ("agent", "req"),
                ("seq", "opt"),
                ("agent_session_id", "opt"),
                ("agent_session_path", "opt"),
                ("session_start_source", "opt"),
                ("resume_argv", "opt"),
            ),
            "out": "ok",
            "usage": "usage: herdr pane report-agent-session <pane_id> --source ID --agent LABEL [--seq N] "
            "[--agent-session-id ID] [--agent-session-path PATH] [--session-start-source SOURCE]"
            + _RESUME_USAGE[v09],
            "lines": (
                "  herdr pane report-agent-session <pane_id> --source ID --agent LABEL [--seq N] [--agent-session-id ID] [--agent-session-path PATH]",
            ),
        },
        {
            "name": "release-agent",
            "pos": ("lead", "pane_id"),
            "flags": (
                ("--source", "source", "str"),
                ("--agent", "agent", "str"),
                ("--seq", "seq", "u64"),
            ),
            "errors": "io",
            "strip": True,
            "need": (
                ("source", "missing required --source"),
                ("agent", "missing required --agent"),
            ),
            "params": (("pane_id", "req"), ("source", "req"), ("agent", "req"), ("seq", "opt")),
            "out": "ok",
            "usage": "usage: herdr pane release-agent <pane_id> --source ID --agent LABEL [--seq N]",
            "lines": ("  herdr pane release-agent <pane_id> --source ID --agent LABEL [--seq N]",),
        },
        {
            "name": "report-metadata",
            "pos": ("lead", "pane_id"),
            "flags": (
                ("--source", "source", "str"),
                ("--agent", "agent", "str"),
                ("--applies-to-source", "applies_to_source", "str"),
                ("--title", "title", "str"),
                ("--clear-title", "clear_title", "on"),
                ("--display-agent", "display_agent", "str"),
                ("--clear-display-agent", "clear_display_agent", "on"),
                ("--state-label", "state_labels", "state_label"),
                ("--clear-state-labels", "clear_state_labels", "on"),
                ("--token", "tokens", "token"),
                ("--clear-token", "tokens", "clear_token"),
                ("--seq", "seq", "u64"),
                ("--ttl-ms", "ttl_ms", "u64"),
            ),
            "errors": "io",  # parse_u64_flag(...)? is an io::Error::other
            "check": "pane:metadata_check",
            "params": (
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
            "out": "ok",
            "usage": "usage: herdr pane report-metadata <pane_id> --source ID [--agent LABEL] [--applies-to-source ID] [--title TEXT|--clear-title] [--display-agent TEXT|--clear-display-agent] [--state-label STATUS=TEXT] [--clear-state-labels] [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]",
            "lines": (
                "  herdr pane report-metadata <pane_id> --source ID [--agent LABEL] [--applies-to-source ID] [--title TEXT|--clear-title] [--display-agent TEXT|--clear-display-agent] [--state-label STATUS=TEXT] [--clear-state-labels] [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]",
            ),
        },
        {
            "name": "run",
            "method": "pane.send_input",
            "shape": "text",
            "fields": ("pane_id", "text"),
            "const": {"keys": ["Enter"]},
            # PaneSendInputParams skips an empty text (src/api/schema/panes.rs).
            "params": (("pane_id", "req"), ("text", "any"), ("keys", "req")),
            "out": "ok",
            "usage": "usage: herdr pane run <pane_id> <command>",
            "lines": ("  herdr pane run <pane_id> <command>",),
        },
    ]
    return "herdr pane commands:", _with_080_variants(table), ()


def _with_080_variants(table):
    """Each row herdr 0.8.0 parses differently, followed by its 0.8.0 variant."""
    out = []
    for row in table:
        out.append(row)
        if row["name"] == "read":
            out.append(_lead_variant(row, _READ_USAGE_080))
        elif row["name"] == "wait-output":
            out.append(_lead_variant(row, row["usage"]))
        elif row["name"] == "split":
            out.append(_split_080(row))
    return out


def _split_080(row):
    """herdr 0.8.0's `pane split` (row cli_pane_input false, 346411fa:src/cli/pane.rs:528-625):
    no --right-click, and `--current` without HERDR_PANE_ID leaves the target out."""
    flags = tuple(f for f in row["flags"] if f[0] != "--right-click")
    flags = tuple(f[:3] if f[0] == "--current" else f for f in flags)
    usage_text = row["usage"].replace(" [--right-click herdr|pane]", "")
    split = {k: v for k, v in row.items() if k not in ("equals", "row")}
    split.update(
        flags=flags,
        params=tuple(p for p in row["params"] if p[0] != "right_click"),
        usage=usage_text,
        lines=tuple(line.replace(" [--right-click herdr|pane]", "") for line in row["lines"]),
        unless="cli_pane_input",
    )
    return split


# 0.9.x: everything after the first `--` is the resume command (split_resume_argv; VERSIONS.md
# §5 row 21); sent as `resume_argv` (CHOICE: omitted when there is no `--`, as an Option).
_RESUME_USAGE = {False: "", True: " [-- <resume-command...>]"}

_STATE_ERROR = "invalid pane agent state: %s (expected idle, working, blocked, or unknown)"
