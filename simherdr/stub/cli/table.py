"""The command table: one typed, frozen row per verb (herdr 0.8.2 ``src/cli/*.rs``).

herdr keeps a hand-written parser per verb (``src/cli/<group>.rs``) and a typed params struct
per method (``src/api/schema``); a :class:`Verb` says in data what those two say in code, its
options are :class:`Flag` s and its floating positional a :class:`Pos` (:mod:`.scan` reads
them).  Each group's rows live in ``rows_<group>.py`` (``rows(release)`` -> :data:`Group`),
imported and built on use: a call unmarshals and constructs only its own group's rows.  This
module keeps the row types, the value tuples several groups share and the ping every checked
row sends first.  Clap's ``--help`` tree lives in :mod:`.spec` (herdr's ``src/cli/spec.rs`` is
separate from the parsers too); ``tests/stub/test_stub_rows_spec.py`` ties the two together.

A verb's usage text is written once (:attr:`Verb.usage`): the group's hand-written command
list derives its lines from it (:attr:`Verb.lines`) unless herdr lists the verb differently
(``listed``).
"""

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the stand-in ~20 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Literal, TypeAlias

    from .ctx import Ctx

    Shape: TypeAlias = Literal["flags", "none", "ids", "text", "keys", "pair"]
    FlagKind: TypeAlias = Literal[
        "str", "path", "u32", "u64", "f32", "choice", "env", "on", "off", "set", "current",
        "match", "skip", "once", "token", "clear_token", "state_label",
    ]  # fmt: skip
    PosMode: TypeAlias = Literal["lead", "first", "any"]
    ParamRule: TypeAlias = Literal["req", "opt", "true", "any"]
    #: ``(field, rule[, default])`` in the params struct's field order (:func:`.scan.build`)
    Param: TypeAlias = tuple[str, ParamRule] | tuple[str, ParamRule, object]
    Out: TypeAlias = Literal["envelope", "ok", "read"]
    #: an irregular verb body: ``(ctx, verb, args) -> exit code``
    Body: TypeAlias = Callable[[Ctx, "Verb", list[str]], int]
    #: a post-scan check: ``(ctx, verb, values)``; may rewrite ``values``, raises usage errors
    Check: TypeAlias = Callable[[Ctx, "Verb", dict[str, object]], None]
    #: a server-free command's ``run(verb, args, env, version, out, err) -> exit code``
    Standalone: TypeAlias = Callable[..., int]
    #: (header line, the version's verbs, trailer lines) of a group's command list
    Group: TypeAlias = tuple[str, list["Verb"], tuple[str, ...]]


class Flag(tuple):  # (name, field, kind, arg): immutable, cheap to build
    """One option of herdr's hand-written loop (:mod:`.scan` lists the kinds): ``name`` sets
    ``field`` the way ``kind`` says; ``arg`` is the kind's extra (choice table and error
    template, ``set`` pairs, ``once`` value and message, ``match`` type, f32 error template,
    ``current``'s "required" bit)."""

    __slots__ = ()

    def __new__(
        cls, name: str, field: "str | None", kind: "FlagKind", arg: object = None
    ) -> "Flag":
        return tuple.__new__(cls, (name, field, kind, arg))

    @property
    def name(self) -> str:
        return self[0]

    @property
    def field(self) -> "str | None":
        return self[1]

    @property
    def kind(self) -> "FlagKind":
        return self[2]

    @property
    def arg(self) -> object:
        return self[3]


class Pos(tuple):
    """The verb's positional: ``lead`` (the first word, required), ``first`` (the first word
    unless it is an option) or ``any`` (one word anywhere, required)."""

    __slots__ = ()

    def __new__(cls, mode: "PosMode", field: str) -> "Pos":
        return tuple.__new__(cls, (mode, field))

    @property
    def mode(self) -> "PosMode":
        return self[0]

    @property
    def field(self) -> str:
        return self[1]


class Verb:
    """One verb: how its argv is read, the request it sends, how the reply is printed.

    Frozen.  The class attributes are the defaults; an instance stores only what its row sets
    (building a group's rows is on every call's path: a keyword call and one dict update).
    """

    name: str
    #: ``none`` (no arguments), ``ids`` (exactly ``fields`` positionals; ``flag`` an optional
    #: trailing boolean), ``text`` (id + the rest joined by spaces; ``clear``: a lone
    #: ``--clear`` omits the text), ``keys`` (id + the rest as a list), ``pair`` (exactly two,
    #: the second ``--clear`` omits it), ``flags`` (:func:`.scan.scan`)
    shape: "Shape" = "flags"
    fields: "tuple[str, ...]" = ()
    flag: "Flag | None" = None
    clear: bool = False
    #: the scanner's options and positional; ``equals``: options that also take ``--opt=value``
    flags: "tuple[Flag, ...]" = ()
    pos: "Pos | None" = None
    equals: "tuple[str, ...]" = ()
    #: post-scan checks (message None = the usage text): a required field, two exclusive
    #: fields, exactly one of two fields; ``check``: a verb's own rule
    need: "tuple[tuple[str, str | None], ...]" = ()
    excl: "tuple[tuple[str, str, str | None], ...]" = ()
    xor: "tuple[tuple[str, str], ...]" = ()
    check: "Check | None" = None
    #: a second flag of ``selector[0]`` is the error ``selector[1]``
    selector: "tuple[str, str] | None" = None
    #: words the leading positional may not be (``lead_nodash``: any option word)
    lead_nodash: bool = False
    lead_not: "tuple[str, ...]" = ()
    #: the field preset from HERDR_PANE_ID; the field taking the words after ``--``
    envpane: "str | None" = None
    resume: "str | None" = None
    #: trim ``source`` (None when blank); ``--format`` also sets ``strip_ansi``
    strip: bool = False
    format_strips: bool = False
    #: value errors are ``io::Error::other`` (``Error: Custom {...}``, exit 1), not usage
    io_errors: bool = False
    #: every scan error of the verb is its usage text (parse_pane_focus_args)
    all_usage: bool = False
    #: fixed values merged after the scan; the params in struct order (:func:`.scan.build`)
    const: "Mapping[str, object] | None" = None
    params: "tuple[Param, ...] | None" = None
    #: socket method and request id (defaults ``<group>.<verb with _>``, ``cli:<group>:<verb>``)
    method: "str | None" = None
    rid: "str | None" = None
    #: ``envelope`` (print_response), ``ok`` (send_ok_request: id ``cli:request``, silent),
    #: ``read`` (print_read_response)
    out: "Out" = "envelope"
    #: an irregular body instead of the interpreter; a server-free command (:mod:`.standalone`);
    #: not emulated (the "not supported" line)
    run: "Body | None" = None
    standalone: "Callable[[], Standalone] | None" = None
    unsupported: bool = False
    #: the command words a body names in its "not supported" line
    command: "str | None" = None
    #: herdr's usage-error text (stderr, exit 2); ``listed``: the verb's lines in the group's
    #: command list when they are not the usage's forms
    usage: "str | None" = None
    listed: "tuple[str, ...] | None" = None

    if TYPE_CHECKING:

        def __init__(
            self,
            *,
            name: str,
            shape: Shape = ...,
            fields: tuple[str, ...] = ...,
            flag: Flag | None = ...,
            clear: bool = ...,
            flags: tuple[Flag, ...] = ...,
            pos: Pos | None = ...,
            equals: tuple[str, ...] = ...,
            need: tuple[tuple[str, str | None], ...] = ...,
            excl: tuple[tuple[str, str, str | None], ...] = ...,
            xor: tuple[tuple[str, str], ...] = ...,
            check: Check | None = ...,
            selector: tuple[str, str] | None = ...,
            lead_nodash: bool = ...,
            lead_not: tuple[str, ...] = ...,
            envpane: str | None = ...,
            resume: str | None = ...,
            strip: bool = ...,
            format_strips: bool = ...,
            io_errors: bool = ...,
            all_usage: bool = ...,
            const: Mapping[str, object] | None = ...,
            params: tuple[Param, ...] | None = ...,
            method: str | None = ...,
            rid: str | None = ...,
            out: Out = ...,
            run: Body | None = ...,
            standalone: Callable[[], Standalone] | None = ...,
            unsupported: bool = ...,
            command: str | None = ...,
            usage: str | None = ...,
            listed: tuple[str, ...] | None = ...,
        ) -> None: ...

    else:

        def __init__(self, **row):
            self.__dict__.update(row)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Verb is frozen: %s" % name)

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Verb is frozen: %s" % name)

    def __repr__(self) -> str:
        return "Verb(%s)" % ", ".join("%s=%r" % item for item in self.__dict__.items())

    @property
    def lines(self) -> "tuple[str, ...]":
        """The verb's lines in its group's command list: ``listed``, else each form of the
        usage text (``usage: herdr ...`` then ``       herdr ...`` lines), indented by two."""
        if self.listed is not None:
            return self.listed
        if self.usage is None:
            return ()
        forms = self.usage[len("usage: ") :].split("\n")
        return tuple("  " + form.lstrip(" ") for form in forms)


#: herdr's ping line (src/api/client.rs ``status``: request id ``api-client:status``), written
#: by :func:`.core.open_ping` before :mod:`.wire` loads and by :func:`.wire.ping`.
PING_LINE = b'{"id":"api-client:status","method":"ping","params":{}}\n'

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

_SOURCE = Flag("--source", "source", "choice", (READ_SOURCES, "invalid read source: %s"))
_FORMAT = Flag("--format", "format", "choice", (READ_FORMATS, "invalid read format: %s"))
_LINES = Flag("--lines", "lines", "u32")
_FOCUS = (Flag("--focus", "focus", "on"), Flag("--no-focus", "focus", "off"))


def _ids(group: str, verb: str, field: str) -> Verb:
    return Verb(
        name=verb,
        shape="ids",
        fields=(field,),
        usage="usage: herdr %s %s <%s>" % (group, verb, field),
    )


def varied(verb: "Verb", **changes: object) -> "Verb":
    """A copy of ``verb`` with ``changes`` (a release's variant of it)."""
    return Verb(**{**verb.__dict__, **changes})


def group_list(group: "Group") -> str:
    """A group's hand-written command list (its header, each verb's lines, its trailer)."""
    header, verbs, trailer = group
    lines = [header]
    for verb in verbs:
        lines.extend(verb.lines)
    lines.extend(trailer)
    return "\n".join(lines)
