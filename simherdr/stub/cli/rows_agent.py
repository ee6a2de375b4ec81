"""``herdr agent`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/agent.rs``); loaded only by ``herdr agent ...`` calls."""

from .table import _FORMAT, _LINES, _SOURCE, Flag, Pos, Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .ctx import Ctx
    from .table import Group


# The irregular bodies live in .agent (and .terminal), imported only when such a verb runs:
# `agent list|get|read|...` never load them.


def _prompt(ctx: "Ctx", verb: Verb, args: list[str]) -> int:
    from .agent import prompt

    return prompt(ctx, verb, args)


def _wait(ctx: "Ctx", verb: Verb, args: list[str]) -> int:
    from .agent import wait

    return wait(ctx, verb, args)


def _start(ctx: "Ctx", verb: Verb, args: list[str]) -> int:
    from .agent import start

    return start(ctx, verb, args)


def _explain(ctx: "Ctx", verb: Verb, args: list[str]) -> int:
    from .agent import explain

    return explain(ctx, verb, args)


def _attach(ctx: "Ctx", verb: Verb, args: list[str]) -> int:
    from .attach import agent_attach

    return agent_attach(ctx, verb, args)


def rows(release: "Release") -> "Group":
    from simherdr.facts.kinds import kind_names_in

    # "kinds: {spec::agent_kind_values()}" is Agent::ALL of the version (src/cli/agent.rs
    # print_agent_help): the release's agent-kinds table (facts.kinds KIND_TABLES).
    kinds = kind_names_in(release.agent_kinds)
    return (
        "herdr agent commands:",
        [
            Verb(
                name="list",
                shape="none",
                usage="usage: herdr agent list",
            ),
            _target("get"),
            Verb(
                name="read",
                pos=Pos("lead", "target"),
                io_errors=True,
                format_strips=True,
                flags=(
                    _SOURCE,
                    _LINES,
                    _FORMAT,
                    Flag("--ansi", "format", "set", (("format", "ansi"), ("strip_ansi", False))),
                ),
                params=(
                    ("target", "req"),
                    ("source", "req", "recent"),
                    ("lines", "opt"),
                    ("format", "req", "text"),
                    ("strip_ansi", "req", True),
                ),
                out="read",
                usage="usage: herdr agent read <target> [--source visible|recent|recent-unwrapped] [--lines N] "
                "[--format text|ansi] [--ansi]",
                listed=(
                    "  herdr agent read <target> [--source visible|recent|recent-unwrapped|detection] [--lines N] [--format text|ansi] [--ansi]",
                ),
            ),
            Verb(
                name="send-keys",
                shape="keys",
                fields=("target", "keys"),
                usage="usage: herdr agent send-keys <target> <key> [key ...]",
            ),
            Verb(
                name="prompt",
                run=_prompt,
                usage="usage: herdr agent prompt <target> <text> [--wait] [--until STATUS]... [--timeout MS]",
            ),
            Verb(
                name="rename",
                shape="pair",
                fields=("target", "name"),
                usage="usage: herdr agent rename <target> <name>|--clear",
            ),
            _target("focus"),
            Verb(
                name="wait",
                run=_wait,
                usage="usage: herdr agent wait <target> [--until STATUS]... [--timeout MS]",
            ),
            Verb(
                # agent.get (cli:agent:attach:resolve), then a direct attach (stub/cli/attach.py)
                name="attach",
                run=_attach,
                command="herdr agent attach",
                usage="usage: herdr agent attach <target> [--takeover]",
            ),
            Verb(
                name="start",
                run=_start,
                usage="usage: herdr agent start <name> --kind KIND --pane ID [--timeout MS] [-- <agent-args...>]",
            ),
            Verb(
                name="explain",
                run=_explain,
                listed=(
                    "  herdr agent explain <target> [--json|--format text|json] [--verbose]",
                    "  herdr agent explain --file PATH --agent LABEL [--json|--format text|json] [--verbose]",
                ),
            ),
        ],
        (
            "  targets accept unique agent names and pane ids that currently host agents",
            "  kinds: " + "|".join(kinds),
        ),
    )


def _target(verb: str) -> Verb:
    return Verb(
        name=verb, shape="ids", fields=("target",), usage="usage: herdr agent %s <target>" % verb
    )
