"""`herdr server live-handoff` (src/cli/server.rs:209-266).

Live handoff is herdr's own protocol-mismatch recovery path, so the request goes out WITHOUT
the ping and protocol guard every other socket command runs first (``send_request_unchecked``).
"""

from __future__ import annotations

import re

from .core import Exit, join, wire

USAGE = (
    "usage: herdr server live-handoff [--import-exe <path>] [--expected-protocol <n>] "
    "[--expected-version <version>]"
)
_FIELDS = {  # flag -> ServerLiveHandoffParams field, in the struct's order
    "--import-exe": "import_exe",
    "--expected-protocol": "expected_protocol",
    "--expected-version": "expected_version",
}
_U32 = re.compile(r"^\+?[0-9]+$")  # Rust's u32::from_str


def parse(args):
    """parse_live_handoff_params: ``--flag value`` or ``--flag=value``; None on any problem."""
    found = {}
    index = 0
    while index < len(args):
        arg = args[index]
        if "=" in arg:
            flag, value = arg.split("=", 1)
        else:
            flag = arg
            value = args[index + 1] if index + 1 < len(args) else None
            index += 1
        if value is None or flag not in _FIELDS:
            return None
        if flag == "--expected-protocol":
            if not _U32.match(value) or int(value) >= 2**32:
                return None
            found["expected_protocol"] = int(value)
        else:
            found[_FIELDS[flag]] = value
        index += 1
    # skip_serializing_if = "Option::is_none": only given fields, in the struct's order.
    return {field: found[field] for field in _FIELDS.values() if field in found}


def live_handoff(ctx, row, args):
    params = parse(args)
    if params is None:
        raise Exit(2, USAGE)
    w = wire()
    loaded = w.send(ctx, "cli:server:live-handoff", "server.live_handoff", params, checked=False)
    if w.has_error(loaded.value):
        ctx.write_err(w.dumps_sorted(loaded.value, loaded.exact_fast) + "\n")
        return 1
    log = join(ctx.data_dir_for(ctx.active_name()), "herdr-server.log")
    ctx.write_err("live handoff complete; server log: %s\n" % log)
    return 0
