"""``herdr agent`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/agent.rs``); loaded only by ``herdr agent ...`` calls."""

from .table import _FORMAT, _LINES, _SOURCE

RELEASE_ROWS = True  # the group help lists the release's kinds (table.group)


def rows(v09, release):
    from simherdr.facts.kinds import kind_names_in

    # "kinds: {spec::agent_kind_values()}" is Agent::ALL of the release (src/cli/agent.rs
    # print_agent_help): 0.8.0 lacks qwen, 0.9 adds muse, 0.9.1 letta (facts.kinds KIND_TABLES).
    kinds = kind_names_in(release.table("agent_kinds"))
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
            "  kinds: " + "|".join(kinds),
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
