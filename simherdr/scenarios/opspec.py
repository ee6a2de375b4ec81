"""What each control-plane op takes: its arguments, which are required and their JSON types, as
data in one table. The control plane checks a request against it before running the op, so a
mistake is answered with a message about the op's own arguments (never a Python signature).
"""

from __future__ import annotations

import math
from typing import Any

# op -> {argument: (JSON type, required)}; types: string, number, boolean, object, integer;
# "X|null" also accepts null.
OP_ARGS: dict[str, dict[str, tuple[str, bool]]] = {
    "fault.remove": {"name": ("string", True)},
    "fault.list": {},
    "fault.clear": {},
    "agent.exit": {"pane_id": ("string", True)},
    "agent.block": {"pane_id": ("string", True)},
    "agent.state": {"pane_id": ("string", True), "state": ("string", True)},
    "session.report": {
        "pane_id": ("string", True),
        "value": ("string|null", False),
        "start_source": ("string", False),
    },
    "pane.reuse": {
        "pane_id": ("string", True),
        "kind": ("string", True),
        "exit_seen": ("boolean", False),
        "overrides": ("object|null", False),
    },
    "agent.vanish": {"pane_id": ("string", True), "close": ("string|null", False)},
    "shell.busy": {
        "pane_id": ("string", True),
        "command": ("string|array", False),
        "duration": ("number|null", False),
    },
    "shell.idle": {"pane_id": ("string", True)},
    "shell.cd": {"pane_id": ("string", True), "path": ("string", True)},
    "foreground.cwd": {"pane_id": ("string", True), "path": ("string|null", False)},
    "behaviour.set": {
        "kind": ("string|null", False),
        "pane_id": ("string|null", False),
        "values": ("object|null", False),
    },
    "detection.misread": {
        "pane_id": ("string", True),
        "state": ("string", True),
        "agent": ("string|null", False),
    },
    "agent.suspend": {"pane_id": ("string", True)},
    "agent.fg": {"pane_id": ("string", True)},
    "server.restart": {},
    "server.reset": {},
    "server.info": {},
    "trace.get": {"since": ("integer", False)},
    "trace.clear": {},
    "scenario.load": {"scenario": ("string", True), "seed": ("integer|null", False)},
}

# fault.add takes a fault spec: its type, the matcher fields every fault has, and its own.
FAULT_COMMON: dict[str, tuple[str, bool]] = {
    "type": ("string", True),
    "name": ("string|null", False),
    "method": ("string", False),
    "params": ("object|null", False),
    "count": ("integer|null", False),
    "probability": ("number", False),
    "seed": ("integer|null", False),
    "start": ("number", False),
    "duration": ("number|null", False),
}
FAULT_FIELDS: dict[str, dict[str, tuple[str, bool]]] = {
    "latency": {"ms": ("number", True), "jitter_ms": ("number", False), "stage": ("string", False)},
    "hang": {},
    "drop": {"stage": ("string", False)},
    "wrong_pane": {
        "to_pane": ("string", True),
        "to_terminal": ("string|null", False),
        "fields": ("array", False),
    },
    "unlisted": {"pane": ("string", False), "mode": ("string", False)},
    "error": {
        "code": ("string", True),
        "message": ("string|null", False),
        "stage": ("string", False),
    },
}


def _is(value: Any, typ: str) -> bool:
    for t in typ.split("|"):
        if t == "null" and value is None:
            return True
        if t == "string" and isinstance(value, str):
            return True
        if t == "boolean" and isinstance(value, bool):
            return True
        if t == "integer" and isinstance(value, int) and not isinstance(value, bool):
            return True
        if (
            t == "number"
            and isinstance(value, (int, float))
            and not isinstance(value, bool)
            and math.isfinite(value)
        ):
            return True
        if t == "object" and isinstance(value, dict):
            return True
        if t == "array" and isinstance(value, list):
            return True
    return False


def _check(label: str, spec: dict[str, tuple[str, bool]], args: dict) -> str | None:
    unknown = sorted(k for k in args if k not in spec)
    if unknown:
        takes = ", ".join(spec) or "no arguments"
        return f"{label}: unknown argument(s) {', '.join(map(str, unknown))} (takes: {takes})"
    for name, (typ, required) in spec.items():
        if name not in args:
            if required:
                return f"{label}: missing argument {name} ({typ.replace('|', ' or ')})"
            continue
        if not _is(args[name], typ):
            return f"{label}: {name} must be {typ.replace('|', ' or ')}, not {_kind(args[name])}"
    return None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number" if math.isfinite(value) else "a non-finite number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def check_args(op: str, args: dict) -> str | None:
    """None when ``args`` fit ``op``; else one line saying what is wrong."""
    if op == "fault.add":
        kind = args.get("type")
        if not isinstance(kind, str) or kind not in FAULT_FIELDS:
            return f"fault.add: type must be one of {', '.join(FAULT_FIELDS)}, not {kind!r}"
        return _check(f"fault.add ({kind})", {**FAULT_COMMON, **FAULT_FIELDS[kind]}, args)
    spec = OP_ARGS.get(op)
    if spec is None:
        return None
    return _check(op, spec, args)
