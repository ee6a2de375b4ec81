"""The one flag scanner: interprets a table row's flags the way herdr's hand-written loops do.

herdr parses argv by hand in ``src/cli/*.rs`` (clap renders help only); every loop has the same
shape: ``--flag VALUE`` (``missing value for --flag`` when the value is absent), boolean flags,
``unknown option: X`` for anything else, and for verbs with a floating positional
``unexpected argument: X`` for a second one.  A :class:`.table.Flag` is ``(name, field, kind,
arg)``:

========== ======================================================================================
kind       effect
========== ======================================================================================
``str``    the next word (``path``: made absolute, ``~`` expanded; src/cli/worktree.rs)
``u32``    ``str::parse::<u32>`` (``u64`` likewise): ``invalid value for --flag: X``
``f32``    ``str::parse::<f32>``, finite; ``arg`` is the error template (``invalid ratio: %s``)
``choice`` ``arg`` = (mapping, error template)
``env``    ``KEY=VALUE`` into a map (src/cli.rs parse_env_assignment)
``on``     ``field = True`` (``off``: False); ``set``: ``arg`` = ((field, value), ...)
``current`` ``HERDR_PANE_ID`` (``arg`` true: ``--current requires HERDR_PANE_ID`` when unset)
``match``  ``--match``/``--regex``: ``{"type", "value"}``, the two are mutually exclusive
``skip``   accepted and ignored (hidden compatibility flags)
``once``   ``arg`` = (value, message): sets the field; a second flag of the field is an error
``token``  ``NAME=VALUE`` into a map (``clear_token``: ``NAME`` -> null); ``state_label``
           ``STATUS=TEXT`` with a known status
========== ======================================================================================

The scanner reads a :class:`.table.Verb`'s ``flags``, ``pos``, ``equals``, ``resume``,
``selector``, ``lead_nodash`` / ``lead_not``, ``envpane``, ``strip``, ``format_strips``, the
post-scan checks (``need``, ``excl``, ``xor``, ``check``) and ``io_errors``: value errors are
usage errors (exit 2) unless the verb says ``io_errors``: herdr then returns
``io::Error::other`` and ``main`` prints ``Error: Custom {...}`` (exit 1).
"""

from .base import join, usage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _wire():
    """:mod:`.wire`, loaded on use (value errors, cwd failures)."""
    from . import wire

    return wire


def parse_unsigned(text, bits):
    """``str::parse::<u32/u64>``: optional '+', ASCII digits only, no overflow."""
    digits = text[1:] if text.startswith("+") else text
    if not digits or any(c not in "0123456789" for c in digits):
        return None
    value = int(digits)
    return value if value < 2**bits else None


def value_error(message, io_errors):
    if io_errors:
        raise _wire().custom_other(message)
    raise usage(message)


def parse_f32(text):
    """``str::parse::<f32>``: the value, float('inf')/nan for non-finite, None if unparsable."""
    import re

    if not re.fullmatch(
        r"[+-]?(?:(?i:inf|infinity|nan)|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)", text
    ):
        return None
    value = float(text)
    import struct

    try:
        struct.pack("<f", value)
    except OverflowError:
        return float("inf")
    return value


def parse_env(raw):
    """parse_env_assignment (src/cli.rs:66-77)."""
    if "=" not in raw:
        raise usage("env must use KEY=VALUE")
    key, value = raw.split("=", 1)
    if not key:
        raise usage("env key must not be empty")
    if "\0" in key or "\0" in value:
        raise usage("env must not contain NUL bytes")
    return key, value


def expand_equals(args, value_options):
    """expand_equals_args: split `--flag=value` only for the listed value options."""
    out = []
    for arg in args:
        if "=" in arg:
            flag, value = arg.split("=", 1)
            if flag in value_options:
                out.append(flag)
                out.append(value)
                continue
        out.append(arg)
    return out


def take_value(args, index, flag, end=None):
    if index + 1 >= (len(args) if end is None else end):
        raise usage("missing value for %s" % flag)
    return args[index + 1]


def absolute_path(ctx, value):
    """normalize_path_arg: expand `~`/`~/...` with HOME, then make absolute against the cwd
    (a machine-routed call keeps the remote path as given, :func:`.machine.remote_path`)."""
    if ctx.machine is not None:
        from .machine import remote_path

        return remote_path(value)
    home = ctx.var("HOME")
    path = value
    if value == "~" and home is not None:
        path = home
    elif value.startswith("~/") and home is not None:
        path = join(home, value[2:])
    if path.startswith("/"):
        return path
    import posix

    try:
        cwd = posix.getcwd()
    except OSError as exc:
        raise _wire().os_error(exc) from None
    return join(cwd, path)


def scan(ctx, row, args):
    """Scan ``args`` against ``row``'s flags and positional; returns {field: value}."""
    flags = {}
    for spec in row.flags:
        flags[spec.name] = spec
    values: dict[str, Any] = {}
    resume = row.resume
    if resume and "--" in args:
        separator = args.index("--")
        values[resume] = list(args[separator + 1 :])
        args = args[:separator]
    if row.equals:
        args = expand_equals(args, row.equals)
    io_errors = row.io_errors
    if row.envpane and ctx.pane_id() is not None:
        values[row.envpane] = ctx.pane_id()
    pos = row.pos
    mode = pos[0] if pos else None
    index = 0
    seen = set()
    selector = row.selector
    if mode == "lead":
        if not args or (row.lead_nodash and args[0].startswith("-")) or args[0] in row.lead_not:
            raise usage(row.usage)
        values[pos[1]] = args[0]
        index = 1
    elif mode == "first" and args and not args[0].startswith("--"):
        values[pos[1]] = args[0]
        index = 1
    while index < len(args):
        arg = args[index]
        spec = flags.get(arg)
        if spec is None:
            if mode == "any" and not arg.startswith("-"):
                if pos[1] in values:
                    raise usage("unexpected argument: %s" % arg)
                values[pos[1]] = arg
                index += 1
                continue
            raise usage("unknown option: %s" % arg)
        field, kind = spec.field, spec.kind
        if selector and field == selector[0] and values.get(field) is not None:
            raise usage(selector[1])
        if kind == "on":
            values[field] = True
        elif kind == "off":
            values[field] = False
        elif kind == "set":
            for name, value in spec.arg:
                values[name] = value
        elif kind == "skip":
            pass
        elif kind == "once":
            if field in seen:
                raise usage(spec.arg[1])
            seen.add(field)
            values[field] = spec.arg[0]
        elif kind == "current":
            pane = ctx.pane_id()
            if pane is None and spec.arg:
                raise usage("--current requires HERDR_PANE_ID")
            values[field] = pane
        else:
            value = take_value(args, index, arg)
            index += 1
            if kind == "str":
                values[field] = value
            elif kind == "path":
                values[field] = absolute_path(ctx, value)
            elif kind in ("u32", "u64"):
                parsed = parse_unsigned(value, 32 if kind == "u32" else 64)
                if parsed is None:
                    value_error("invalid value for %s: %s" % (arg, value), io_errors)
                values[field] = parsed
            elif kind == "choice":
                mapping, template = spec.arg
                if value not in mapping:
                    value_error(template % value, io_errors)
                values[field] = mapping[value]
                if row.format_strips and field == "format":
                    values["strip_ansi"] = values[field] != "ansi"
            elif kind == "env":
                key, item = parse_env(value)
                # CHOICE: herdr keeps env in a HashMap (random order on the wire); we keep
                # first insertion order, later duplicates overwrite the value.
                values.setdefault(field, {})[key] = item
            elif kind == "f32":
                parsed = parse_f32(value)
                if parsed is None or parsed != parsed or parsed in (float("inf"), float("-inf")):
                    raise usage(spec.arg % value)
                from .rustvalue import F32

                values[field] = F32(parsed)
            elif kind == "token":
                # src/cli.rs parse_token_assignment
                if "=" not in value:
                    raise usage("token must use NAME=VALUE")
                key, item = value.split("=", 1)
                if not key:
                    raise usage("token name must not be empty")
                values.setdefault(field, {})[key] = item
            elif kind == "clear_token":
                values.setdefault(field, {})[value] = None
            elif kind == "state_label":
                if "=" not in value:
                    raise usage("expected --state-label STATUS=TEXT")
                status, label = value.split("=", 1)
                status = _ascii_lower(status.strip())
                if status not in ("idle", "working", "blocked", "done", "unknown"):
                    raise usage("unknown state label: %s" % status)
                values.setdefault(field, {})[status] = label
            elif kind == "match":
                if field in values:
                    raise usage("--match and --regex are mutually exclusive")
                values[field] = {"type": spec.arg, "value": value}
        index += 1
    if mode == "any" and pos[1] not in values:
        raise usage(row.usage)
    if row.strip and values.get("source") is not None:
        values["source"] = values["source"].strip() or None
    for first, second, message in row.excl:
        if first in values and second in values:
            raise usage(message or row.usage)
    for first, second in row.xor:
        if (first in values) == (second in values):
            raise usage(row.usage)
    for field, message in row.need:
        value = values.get(field)
        if value is None:
            raise usage(message or row.usage)
    if row.check is not None:
        row.check(ctx, row, values)
    return values


def _ascii_lower(text):
    """``str::to_ascii_lowercase``."""
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def trim(text):
    """``str::trim``: Unicode White_Space at both ends (Python's strip is close: it also
    strips the ASCII separators \x1c-\x1f, which Rust keeps)."""
    return text.strip()


def build(row, values):
    """Params in herdr's struct field order with its skip-if-empty rules.

    ``params`` entries: ``(field, rule[, default])``; rule ``req`` always present (default
    used when unset), ``opt`` skipped when unset, ``true`` skipped unless true, ``any``
    skipped when unset or empty (serde ``skip_serializing_if = "…::is_empty"``).
    """
    params = {}
    for entry in row.params:
        field, rule = entry[0], entry[1]
        value = values.get(field)
        if rule == "req":
            params[field] = entry[2] if value is None and len(entry) > 2 else value
        elif rule == "opt":
            if value is not None:
                params[field] = value
        elif rule == "true":
            if value:
                params[field] = True
        elif value:  # "any"
            params[field] = value
    return params
