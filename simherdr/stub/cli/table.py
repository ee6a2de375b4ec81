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
``row`` / ``unless``  a behaviour row (facts/versions.py ``Rows``) the verb needs true / false:
              a release that differs by a row keeps both variants, each gated by it.

Each group's rows live in ``rows_<group>.py`` (``rows(v09)``), imported and built on use: a call
unmarshals and constructs only its own group's rows.  This module keeps the index, the
value tuples several groups share and the ping every checked row sends first.
"""

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

_SOURCE = ("--source", "source", "choice", (READ_SOURCES, "invalid read source: %s"))
_FORMAT = ("--format", "format", "choice", (READ_FORMATS, "invalid read format: %s"))
_LINES = ("--lines", "lines", "u32")
_FOCUS = (("--focus", "focus", "on"), ("--no-focus", "focus", "off"))


def _ids(group, verb, field):
    return {
        "name": verb,
        "shape": "ids",
        "fields": (field,),
        "usage": "usage: herdr %s %s <%s>" % (group, verb, field),
        "lines": ("  herdr %s %s <%s>" % (group, verb, field),),
    }


SPECIAL = {
    "status": "status:run",
    "completion": "completion:run",
    "completions": "completion:run",  # visible alias (spec.rs)
}
SPECIAL_09 = {"machine": "machine:run_group"}
OPAQUE = ()


#: Group name -> the module holding its rows (``rows_<group>``: ``rows(v09)``), imported on use
#: so a call unmarshals only its own group's rows.
GROUPS = {
    "workspace": "rows_workspace",
    "worktree": "rows_worktree",
    "tab": "rows_tab",
    "pane": "rows_pane",
    "agent": "rows_agent",
    "api": "rows_api",
    "server": "rows_server",
    "config": "rows_config",
    "notification": "rows_notification",
    "channel": "rows_channel",
    "terminal": "rows_terminal",
    "session": "rows_session",
    "integration": "rows_integration",
    "plugin": "rows_plugin",
}


def call(target, ctx, row, args):
    """Call a ``module:function`` target of this package (a row's ``run`` / ``check``, a
    :data:`SPECIAL` command), imported on use."""
    module_name, _, function = target.partition(":")
    module = __import__(__package__ + "." + module_name, fromlist=[function])
    return getattr(module, function)(ctx, row, args)


def group(name, v09, flag=None, release=None):
    """(header, rows for this version, trailer) of a row-table group; ``flag(row_name)`` reads
    the release's behaviour rows (rows gated by ``row`` / ``unless``). A group whose lines
    list the release's kinds or targets (``RELEASE_ROWS``) gets ``release`` (the invocation's
    context: ``.version``, ``.table(name)``) too."""
    module = __import__("%s.rows_%s" % (__package__, name), fromlist=["rows"])
    if getattr(module, "RELEASE_ROWS", False) and release is not None:
        header, rows, trailer = module.rows(v09, release)
    else:
        header, rows, trailer = module.rows(v09)
    want = "0.9" if v09 else "0.8"
    kept = []
    for row in rows:
        since, until = row.get("since"), row.get("until")
        if (since and want < since) or (until and want >= until):
            continue
        if "row" in row and not flag(row["row"]):
            continue
        if "unless" in row and flag(row["unless"]):
            continue
        kept.append(row)
    return header, kept, trailer
