"""The command table: one row per verb, one builder per group (herdr 0.8.2 ``src/cli/*.rs``).

herdr keeps a hand-written parser per verb (``src/cli/<group>.rs``) and a typed params struct
per method (``src/api/schema``); a row says in data what those two say in code:

``name``      the verb; ``method`` / ``rid``: socket method and request id (defaults
              ``<group>.<verb with _>`` and ``cli:<group>:<verb>``)
``shape``     ``none`` (no arguments), ``ids`` (exactly ``fields`` positionals; ``flag`` an
              optional trailing boolean), ``text`` (id + the rest joined by spaces; ``clear``:
              a lone ``--clear`` omits the text), ``keys`` (id + the rest as a list), ``pair``
              (exactly two, the second ``--clear`` omits it), ``flags`` (:func:`.scan.scan`)
``flags``     ``(name, field, kind[, arg])`` tuples for the scanner; ``pos``: the positional
              (``lead``: first word, ``first``: first word unless it is an option, ``any``: one
              word anywhere); ``equals``: options that also accept ``--opt=value``;
              ``need`` / ``excl`` / ``xor``: post-scan checks (message None = the usage line)
``params``    ``(field, rule[, default])`` in the struct's field order (:func:`.scan.build`)
``out``       ``envelope`` (print_response), ``ok`` (send_ok_request: id ``cli:request``,
              silent), ``read`` (print_read_response)
``run``       ``module:function`` for irregular bodies (group modules, loaded on use);
              ``mod``: a server-free module with ``run(verb, args, env, version, out, err)``
``usage``     herdr's usage-error text (stderr, exit 2); ``lines``: the verb's lines in the
              group's hand-written command list.  Clap's ``--help`` texts live in
              :mod:`.spec` (herdr's ``src/cli/spec.rs`` is separate from the parsers too).
``since`` / ``until``  version gate (``"0.9"``: 0.9.x only / before 0.9).

Rows are built per group on use, so a call constructs only its own group's rows.
"""

READ_SOURCES = {
    "visible": "visible",
    "recent": "recent",
    "recent-unwrapped": "recent_unwrapped",
    "recent_unwrapped": "recent_unwrapped",
    "detection": "detection",
}
READ_FORMATS = {"text": "text", "ansi": "ansi"}
PANE_AGENT_STATES = dict.fromkeys(("idle", "working", "blocked", "unknown"))
for _state in PANE_AGENT_STATES:
    PANE_AGENT_STATES[_state] = _state

_SOURCE = ("--source", "source", "choice", (READ_SOURCES, "invalid read source: %s"))
_FORMAT = ("--format", "format", "choice", (READ_FORMATS, "invalid read format: %s"))
_LINES = ("--lines", "lines", "u32")
_FOCUS = (("--focus", "focus", "on"), ("--no-focus", "focus", "off"))


def _workspace(v09):
    close_line = "  herdr workspace close <workspace_id>" + (" [--group]" if v09 else "")
    return (
        "herdr workspace commands:",
        [
            {
                "name": "list",
                "shape": "none",
                "usage": "usage: herdr workspace list",
                "lines": ("  herdr workspace list",),
            },
            {
                "name": "create",
                "flags": (("--cwd", "cwd", "str"), ("--label", "label", "str"))
                + _FOCUS
                + (("--env", "env", "env"),),
                "params": (
                    ("cwd", "opt"),
                    ("focus", "req", False),
                    ("label", "opt"),
                    ("env", "any"),
                ),
                "lines": (
                    "  herdr workspace create [--cwd PATH] [--label TEXT] [--env KEY=VALUE] [--focus] [--no-focus]",
                ),
            },
            _ids("workspace", "get", "workspace_id"),
            _ids("workspace", "focus", "workspace_id"),
            {
                "name": "rename",
                "shape": "text",
                "fields": ("workspace_id", "label"),
                "usage": "usage: herdr workspace rename <workspace_id> <label>",
                "lines": ("  herdr workspace rename <workspace_id> <label>",),
            },
            {
                "name": "report-metadata",
                "pos": ("lead", "workspace_id"),
                "flags": (
                    ("--source", "source", "str"),
                    ("--token", "tokens", "token"),
                    ("--clear-token", "tokens", "clear_token"),
                    ("--seq", "seq", "u64"),
                    ("--ttl-ms", "ttl_ms", "u64"),
                ),
                "errors": "io",
                "check": "pane:workspace_metadata_check",
                "params": (
                    ("workspace_id", "req"),
                    ("source", "req"),
                    ("tokens", "req"),
                    ("seq", "opt"),
                    ("ttl_ms", "opt"),
                ),
                "out": "ok",
                "usage": "usage: herdr workspace report-metadata <workspace_id> --source ID [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]",
                "lines": (
                    "  herdr workspace report-metadata <workspace_id> --source ID [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]",
                ),
            },
            {
                "name": "close",
                "shape": "ids",
                "fields": ("workspace_id",),
                # 0.9.x: `workspace close <id> [--group]`; close_group is omitted when false.
                "flag": ("--group", "close_group") if v09 else None,
                "params": (("workspace_id", "req"), ("close_group", "true")),
                "usage": "usage: herdr workspace close <workspace_id>"
                + (" [--group]" if v09 else ""),
                "lines": (close_line,),
            },
        ],
        (),
    )


def _ids(group, verb, field):
    return {
        "name": verb,
        "shape": "ids",
        "fields": (field,),
        "usage": "usage: herdr %s %s <%s>" % (group, verb, field),
        "lines": ("  herdr %s %s <%s>" % (group, verb, field),),
    }


def _tab(v09):
    return (
        "herdr tab commands:",
        [
            {
                "name": "list",
                "flags": (("--workspace", "workspace_id", "str"),),
                "params": (("workspace_id", "opt"),),
                "lines": ("  herdr tab list [--workspace <workspace_id>]",),
            },
            {
                "name": "create",
                "flags": (
                    ("--workspace", "workspace_id", "str"),
                    ("--cwd", "cwd", "str"),
                    ("--label", "label", "str"),
                )
                + _FOCUS
                + (("--env", "env", "env"),),
                "params": (
                    ("workspace_id", "opt"),
                    ("cwd", "opt"),
                    ("focus", "req", False),
                    ("label", "opt"),
                    ("env", "any"),
                ),
                "lines": (
                    "  herdr tab create [--workspace <workspace_id>] [--cwd PATH] [--label TEXT] [--env KEY=VALUE] [--focus] [--no-focus]",
                ),
            },
            _ids("tab", "get", "tab_id"),
            _ids("tab", "focus", "tab_id"),
            {
                "name": "rename",
                "shape": "text",
                "fields": ("tab_id", "label"),
                "usage": "usage: herdr tab rename <tab_id> <label>",
                "lines": ("  herdr tab rename <tab_id> <label>",),
            },
            _ids("tab", "close", "tab_id"),
        ],
        (),
    )


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


def _pane(v09):
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
    return (
        "herdr pane commands:",
        [
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
            {
                "name": "layout",
                "flags": _PANE_TARGET,
                "params": (("pane_id", "opt"),),
                "lines": ("  herdr pane layout [--pane ID|--current]",),
            },
            {
                "name": "process-info",
                "rid": "cli:pane:process_info",
                "flags": _PANE_TARGET,
                "params": (("pane_id", "opt"),),
                "lines": ("  herdr pane process-info [--pane ID|--current]",),
            },
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
            {
                "name": "edges",
                "flags": _PANE_TARGET,
                "params": (("pane_id", "opt"),),
                "lines": ("  herdr pane edges [--pane ID|--current]",),
            },
            {
                "name": "focus",
                # parse_pane_focus_args maps every neighbor-parser error to this usage.
                "method": "pane.focus_direction",
                "flags": _DIRECTIONAL,
                "need": (("direction", None),),
                "all_usage": True,
                "params": (("pane_id", "opt"), ("direction", "req")),
                "usage": "usage: herdr pane focus --direction left|right|up|down [--pane ID|--current]",
                "lines": (
                    "  herdr pane focus --direction left|right|up|down [--pane ID|--current]",
                ),
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
                "lines": (
                    "  herdr pane zoom [<pane_id>|--pane ID|--current] [--toggle|--on|--off]",
                ),
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
                "lines": (
                    "  herdr pane release-agent <pane_id> --source ID --agent LABEL [--seq N]",
                ),
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
        ],
        (),
    )


# 0.9.x: everything after the first `--` is the resume command (split_resume_argv; VERSIONS.md
# §5 row 21); sent as `resume_argv` (CHOICE: omitted when there is no `--`, as an Option).
_RESUME_USAGE = {False: "", True: " [-- <resume-command...>]"}

_STATE_ERROR = "invalid pane agent state: %s (expected idle, working, blocked, or unknown)"


def _agent(v09):
    from simherdr.facts.kinds import KIND_NAMES

    return (
        "herdr agent commands:",
        [
            {
                "name": "list",
                "shape": "none",
                "usage": "usage: herdr agent list",
                "lines": ("  herdr agent list",),
            },
            _target("get"),
            {
                "name": "read",
                "pos": ("lead", "target"),
                "errors": "io",
                "format_strips": True,
                "flags": (
                    _SOURCE,
                    _LINES,
                    _FORMAT,
                    ("--ansi", "format", "set", (("format", "ansi"), ("strip_ansi", False))),
                ),
                "params": (
                    ("target", "req"),
                    ("source", "req", "recent"),
                    ("lines", "opt"),
                    ("format", "req", "text"),
                    ("strip_ansi", "req", True),
                ),
                "out": "read",
                "usage": "usage: herdr agent read <target> [--source visible|recent|recent-unwrapped] [--lines N] "
                "[--format text|ansi] [--ansi]",
                "lines": (
                    "  herdr agent read <target> [--source visible|recent|recent-unwrapped|detection] [--lines N] [--format text|ansi] [--ansi]",
                ),
            },
            {
                "name": "send-keys",
                "shape": "keys",
                "fields": ("target", "keys"),
                "usage": "usage: herdr agent send-keys <target> <key> [key ...]",
                "lines": ("  herdr agent send-keys <target> <key> [key ...]",),
            },
            {
                "name": "prompt",
                "run": "agent:prompt",
                "usage": "usage: herdr agent prompt <target> <text> [--wait] [--until STATUS]... [--timeout MS]",
                "lines": (
                    "  herdr agent prompt <target> <text> [--wait] [--until STATUS]... [--timeout MS]",
                ),
            },
            {
                "name": "rename",
                "shape": "pair",
                "fields": ("target", "name"),
                "usage": "usage: herdr agent rename <target> <name>|--clear",
                "lines": ("  herdr agent rename <target> <name>|--clear",),
            },
            _target("focus"),
            {
                "name": "wait",
                "run": "agent:wait",
                "usage": "usage: herdr agent wait <target> [--until STATUS]... [--timeout MS]",
                "lines": ("  herdr agent wait <target> [--until STATUS]... [--timeout MS]",),
            },
            {
                # CHOICE: attaches a terminal stream, not a socket call.
                "name": "attach",
                "run": "terminal:attach",
                "command": "herdr agent attach",
                "usage": "usage: herdr agent attach <target> [--takeover]",
                "lines": ("  herdr agent attach <target> [--takeover]",),
            },
            {
                "name": "start",
                "run": "agent:start",
                "usage": "usage: herdr agent start <name> --kind KIND --pane ID [--timeout MS] [-- <agent-args...>]",
                "lines": (
                    "  herdr agent start <name> --kind KIND --pane ID [--timeout MS] [-- <agent-args...>]",
                ),
            },
            {
                "name": "explain",
                "run": "agent:explain",
                "lines": (
                    "  herdr agent explain <target> [--json|--format text|json] [--verbose]",
                    "  herdr agent explain --file PATH --agent LABEL [--json|--format text|json] [--verbose]",
                ),
            },
        ],
        (
            "  targets accept unique agent names and pane ids that currently host agents",
            "  kinds: " + "|".join(KIND_NAMES),
        ),
    )


def _target(verb):
    return {
        "name": verb,
        "shape": "ids",
        "fields": ("target",),
        "usage": "usage: herdr agent %s <target>" % verb,
        "lines": ("  herdr agent %s <target>" % verb,),
    }


def _worktree(v09):
    trust = " [--trust-repository]" if v09 else ""
    extra = (("--json", None, "skip"),)  # hidden compatibility no-op
    if v09:
        extra += (("--trust-repository", "trust_repository", "on"),)
    scope = (("--workspace", "workspace_id", "str"), ("--cwd", "cwd", "path"))
    excl = (("workspace_id", "cwd", None),)
    create_usage = (
        "usage: herdr worktree create [--workspace ID | --cwd PATH] [--branch NAME] [--base REF] "
        "[--path PATH] [--label TEXT] [--focus] [--no-focus]" + trust
    )
    open_usage = (
        "usage: herdr worktree open [--workspace ID | --cwd PATH] (--path PATH | --branch NAME) "
        "[--label TEXT] [--focus] [--no-focus]" + trust
    )
    return (
        "herdr worktree commands:",
        [
            {
                "name": "list",
                "flags": scope + extra,
                "excl": excl,
                "params": (("workspace_id", "opt"), ("cwd", "opt"), ("trust_repository", "true")),
                "usage": "usage: herdr worktree list [--workspace ID | --cwd PATH]" + trust,
                "lines": ("  herdr worktree list [--workspace ID | --cwd PATH]" + trust,),
            },
            {
                "name": "create",
                "flags": scope
                + (
                    ("--branch", "branch", "str"),
                    ("--base", "base", "str"),
                    ("--path", "path", "path"),
                    ("--label", "label", "str"),
                )
                + _FOCUS
                + extra,
                "excl": excl,
                "params": (
                    ("workspace_id", "opt"),
                    ("cwd", "opt"),
                    ("branch", "opt"),
                    ("base", "opt"),
                    ("path", "opt"),
                    ("label", "opt"),
                    ("focus", "req", False),
                    ("trust_repository", "true"),
                ),
                "usage": create_usage,
                "lines": ("  " + create_usage[len("usage: ") :],),
            },
            {
                "name": "open",
                "flags": scope
                + (
                    ("--path", "path", "path"),
                    ("--branch", "branch", "str"),
                    ("--label", "label", "str"),
                )
                + _FOCUS
                + extra,
                "excl": excl,
                "xor": (("path", "branch"),),
                "params": (
                    ("workspace_id", "opt"),
                    ("cwd", "opt"),
                    ("path", "opt"),
                    ("branch", "opt"),
                    ("label", "opt"),
                    ("focus", "req", False),
                    ("trust_repository", "true"),
                ),
                "usage": open_usage,
                "lines": ("  " + open_usage[len("usage: ") :],),
            },
            {
                "name": "remove",
                "flags": (("--workspace", "workspace_id", "str"), ("--force", "force", "on"))
                + extra,
                "need": (("workspace_id", None),),
                "params": (
                    ("workspace_id", "req"),
                    ("force", "req", False),
                    ("trust_repository", "true"),
                ),
                "usage": "usage: herdr worktree remove --workspace ID [--force]" + trust,
                "lines": ("  herdr worktree remove --workspace ID [--force]" + trust,),
            },
        ],
        (),
    )


def _api(v09):
    return (
        "herdr api commands:",
        [
            {
                "name": "snapshot",
                "shape": "none",
                "method": "session.snapshot",
                "usage": "usage: herdr api snapshot",
                "lines": ("  herdr api snapshot",),
            },
            {
                "name": "schema",
                "mod": "api_schema",
                "lines": ("  herdr api schema [--json | --output PATH]",),
            },
        ],
        (),
    )


def _server(v09):
    return (
        "herdr server commands:",
        [
            {
                "name": "",
                "lines": ("  herdr server                run as headless server",),
            },
            {
                "name": "stop",
                "run": "server:stop",
                "usage": "usage: herdr server stop",
                "lines": (
                    "  herdr server stop           stop the running server via the API socket",
                ),
            },
            {
                "name": "live-handoff",
                "run": "server:live_handoff",
                "usage": "usage: herdr server live-handoff [--import-exe <path>] [--expected-protocol <n>] [--expected-version <version>]",
                "lines": (
                    "  herdr server live-handoff   hand off live panes to a new local server",
                ),
            },
            {
                "name": "reload-config",
                "shape": "none",
                "usage": "usage: herdr server reload-config",
                "lines": (
                    "  herdr server reload-config  reload config.toml in the running server",
                ),
            },
            {
                "name": "agent-manifests",
                "run": "server:agent_manifests",
                "usage": "usage: herdr server agent-manifests [--json]",
                "lines": (
                    "  herdr server agent-manifests [--json]  show agent detection manifest status",
                ),
            },
            {
                "name": "update-agent-manifests",
                "run": "server:update_agent_manifests",
                "usage": "usage: herdr server update-agent-manifests [--json]",
                "lines": (
                    "  herdr server update-agent-manifests [--json]  fetch and reload agent detection manifests",
                ),
            },
            {
                "name": "reload-agent-manifests",
                "shape": "none",
                "usage": "usage: herdr server reload-agent-manifests",
                "lines": (
                    "  herdr server reload-agent-manifests  reload agent detection manifests in the running server",
                ),
            },
        ],
        (),
    )


_NOTIFICATION_USAGE = (
    "usage: herdr notification show <title> [--body TEXT] "
    "[--position top-left|top-right|bottom-left|bottom-right] [--sound none|done|request]"
)


def _notification(v09):
    return (
        "herdr notification commands:",
        [
            {
                "name": "show",
                "pos": ("lead", "title"),
                "lead_not": ("help", "--help", "-h"),
                "flags": (
                    ("--body", "body", "str"),
                    (
                        "--position",
                        "position",
                        "choice",
                        (
                            {
                                "top-left": "top-left",
                                "top-right": "top-right",
                                "bottom-left": "bottom-left",
                                "bottom-right": "bottom-right",
                            },
                            "invalid position: %s (expected top-left, top-right, bottom-left, or bottom-right)",
                        ),
                    ),
                    (
                        "--sound",
                        "sound",
                        "choice",
                        (
                            {"none": None, "done": "done", "request": "request"},
                            "invalid sound: %s (expected none, done, or request)",
                        ),
                    ),
                ),
                # `sound` is skipped when none (NotificationShowSound::is_none).
                "params": (
                    ("title", "req"),
                    ("body", "opt"),
                    ("position", "opt"),
                    ("sound", "opt"),
                ),
                "usage": _NOTIFICATION_USAGE,
                "lines": ("  " + _NOTIFICATION_USAGE[len("usage: ") :],),
            }
        ],
        (),
    )


def _channel(v09):
    return (
        "herdr channel commands:",
        [
            {
                "name": "show",
                "run": "status:channel_show",
                "lines": (
                    "  herdr channel show                  print the configured update channel",
                ),
            },
            {
                # CHOICE: `channel set` rewrites config.toml and then self-updates the binary
                # (a download): not emulated.
                "name": "set",
                "run": None,
                "lines": ("  herdr channel set <stable|preview>  choose the update channel",),
            },
        ],
        (),
    )


def _terminal(v09):
    return (
        "herdr terminal commands:",
        [
            {
                "name": "attach",
                "run": "terminal:attach",
                "usage": "usage: herdr terminal attach <terminal_id> [--takeover]",
                "lines": ("  herdr terminal attach <terminal_id> [--takeover]",),
            },
            {
                "name": "session",
                "run": "terminal:session",
                "lines": (
                    "  herdr terminal session control <target> [--takeover] [--cols N] [--rows N]",
                    "  herdr terminal session observe <target> [--cols N] [--rows N]",
                ),
            },
            {
                "name": "title",
                "run": "terminal:title",
                "lines": ("  herdr terminal title set <title>", "  herdr terminal title clear"),
            },
        ],
        ("  detach from direct attach with ctrl+b q; send literal ctrl+b with ctrl+b ctrl+b",),
    )


def _config(v09):
    return (
        "herdr config commands:",
        [
            {
                "name": "check",
                "mod": "config_check",
                "lines": ("  herdr config check  validate config.toml and print diagnostics",),
            },
            {
                "name": "reset-keys",
                "run": "reset_keys:run",
                "lines": (
                    "  herdr config reset-keys  back up config.toml and remove custom keybindings",
                ),
            },
        ],
        (),
    )


def _session(v09):
    """src/cli.rs print_session_help (same in 0.9.3)."""
    return (
        "herdr session commands:",
        [
            {"name": verb, "mod": "sessions", "lines": (line,)}
            for verb, line in (
                ("list", "  herdr session list [--json]"),
                ("attach", "  herdr session attach <name>"),
                ("stop", "  herdr session stop <name> [--json]"),
                ("delete", "  herdr session delete <name> [--json]"),
            )
        ],
        ("  use 'default' as <name> to target the default session for stop",),
    )


def _integration(v09):
    """src/cli/integration.rs print_integration_help: one line per target (the target list
    lives in .integration, imported only when this group runs)."""
    from .integration import help_labels

    labels = help_labels("0.9" if v09 else "0.8")
    return (
        "herdr integration commands:",
        [
            {
                "name": "install",
                "mod": "integration",
                "lines": tuple("  herdr integration install %s" % t for t in labels),
            },
            {
                "name": "uninstall",
                "mod": "integration",
                "lines": tuple("  herdr integration uninstall %s" % t for t in labels),
            },
            {
                "name": "status",
                "mod": "integration",
                "lines": ("  herdr integration status [--outdated-only]",),
            },
        ],
        (),
    )


def _plugin(v09):
    """herdr 0.8.2 src/cli/plugin.rs: hand-written bodies in .plugin; ids ``cli:plugin``."""

    def ids_row(verb, method):
        line = "  herdr plugin %s <plugin_id>" % verb
        return {
            "name": verb,
            "shape": "ids",
            "fields": ("plugin_id",),
            "method": method,
            "rid": "cli:plugin",
            "usage": "usage: herdr plugin %s <plugin_id>" % verb,
            "lines": (line,),
        }

    return (
        "herdr plugin commands:",
        [
            {
                "name": "install",
                "run": None,
                "lines": ("  herdr plugin install <owner>/<repo>[/subdir...] [--ref REF] [--yes]",),
            },
            {
                "name": "uninstall",
                "run": None,
                "lines": ("  herdr plugin uninstall <plugin_id|owner/repo[/subdir...]>",),
            },
            {
                "name": "link",
                "run": "plugin:link",
                "lines": ("  herdr plugin link <path> [--disabled]",),
            },
            {
                "name": "list",
                "run": "plugin:list_",
                "lines": ("  herdr plugin list [--plugin ID] [--json]",),
            },
            {
                "name": "config-dir",
                "run": "plugin:config_dir",
                "lines": ("  herdr plugin config-dir <plugin_id>",),
            },
            ids_row("unlink", "plugin.unlink"),
            ids_row("enable", "plugin.enable"),
            ids_row("disable", "plugin.disable"),
            {
                "name": "action",
                "run": "plugin:action",
                "lines": ("  herdr plugin action <list|invoke>",),
            },
            {
                "name": "log",
                "run": "plugin:log",
                "lines": ("  herdr plugin log list [--plugin ID] [--limit N]",),
            },
            {"name": "logs", "run": "plugin:log"},
            {
                "name": "pane",
                "run": "plugin:pane",
                "lines": ("  herdr plugin pane <open|focus|close>",),
            },
        ],
        (),
    )


#: Groups whose parser is a row table.  ``status`` has one irregular body (src/cli/status.rs);
#: the groups in OPAQUE are not emulated yet: any call prints the unsupported message with the
#: group and its first word.
GROUPS = {
    "workspace": _workspace,
    "worktree": _worktree,
    "tab": _tab,
    "pane": _pane,
    "agent": _agent,
    "api": _api,
    "server": _server,
    "config": _config,
    "notification": _notification,
    "channel": _channel,
    "terminal": _terminal,
    "session": _session,
    "integration": _integration,
    "plugin": _plugin,
}
SPECIAL = {
    "status": "status:run",
    "completion": "completion:run",
    "completions": "completion:run",  # visible alias (spec.rs)
}
SPECIAL_09 = {"machine": "machine:run_group"}
OPAQUE = ()


def group(name, v09):
    """(header, rows for this version, trailer) of a row-table group."""
    header, rows, trailer = GROUPS[name](v09)
    want = "0.9" if v09 else "0.8"
    kept = []
    for row in rows:
        since, until = row.get("since"), row.get("until")
        if (since and want < since) or (until and want >= until):
            continue
        kept.append(row)
    return header, kept, trailer
