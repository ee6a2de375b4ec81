"""Comparing what a cassette expects with what a target answered, path by path.

Hand-written expectations may hold patterns (the authored cassettes of tests/contract):

- ``"{name=}"`` captures the actual string into ``name``; ``"{name}"`` inside a string
  substitutes a capture or a context value (``tmp``, ``version``);
- ``"<any>"`` any value; ``"<term>"`` a terminal id; ``"<absent>"`` the key must be missing;
- an object containing ``"<more>": true`` may have extra keys; otherwise keys must match
  exactly: an unexpected field is drift.

Recorded expectations are normalized replies (:mod:`.normalize`) and compare exactly.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_TERM = re.compile(r"^term_[0-9a-f]+$")
_VAR = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
_CAPTURE = re.compile(r"^\{([a-z_][a-z0-9_]*)=\}$")
MISSING = "<missing>"
UNEXPECTED = "<not expected>"


def substitute(value: Any, ctx: dict) -> Any:
    if isinstance(value, str):
        return _VAR.sub(lambda m: str(ctx[m.group(1)]), value)
    if isinstance(value, list):
        return [substitute(v, ctx) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, ctx) for k, v in value.items()}
    return value


@dataclass
class Mismatch:
    path: str
    expected: Any
    actual: Any

    def __str__(self) -> str:
        return f"{self.path}: expected {_show(self.expected)}, got {_show(self.actual)}"


def _show(v: Any) -> str:
    return (
        json.dumps(v, ensure_ascii=False) if not isinstance(v, str) or not v.startswith("<") else v
    )


@dataclass
class Matcher:
    ctx: dict = field(default_factory=dict)
    patterns: bool = True
    problems: list[Mismatch] = field(default_factory=list)

    def match(self, expected: Any, actual: Any, path: str = "$") -> None:
        if self.patterns and isinstance(expected, str):
            cap = _CAPTURE.match(expected)
            if cap:
                if not isinstance(actual, str):
                    self.problems.append(Mismatch(path, expected, actual))
                else:
                    self.ctx[cap.group(1)] = actual
                return
            if expected == "<any>":
                return
            if expected == "<term>":
                if not (isinstance(actual, str) and _TERM.match(actual)):
                    self.problems.append(Mismatch(path, expected, actual))
                return
            expected = substitute(expected, self.ctx)
        if isinstance(expected, dict):
            if not isinstance(actual, dict):
                self.problems.append(Mismatch(path, expected, actual))
                return
            more = self.patterns and expected.get("<more>", False)
            for k, v in expected.items():
                if self.patterns and k == "<more>":
                    continue
                if self.patterns and v == "<absent>":
                    if k in actual:
                        self.problems.append(Mismatch(f"{path}.{k}", "<absent>", actual[k]))
                    continue
                if k not in actual:
                    self.problems.append(Mismatch(f"{path}.{k}", v, MISSING))
                    continue
                self.match(v, actual[k], f"{path}.{k}")
            if not more:
                for k in actual:
                    if k not in expected:
                        self.problems.append(Mismatch(f"{path}.{k}", UNEXPECTED, actual[k]))
            return
        if isinstance(expected, list):
            if not isinstance(actual, list) or len(actual) != len(expected):
                self.problems.append(Mismatch(path, expected, actual))
                return
            for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
                self.match(e, a, f"{path}[{i}]")
            return
        if expected != actual or type(expected) is not type(actual):
            self.problems.append(Mismatch(path, expected, actual))


def compare(
    expected: Any, actual: Any, ctx: dict | None = None, patterns: bool = True
) -> list[Mismatch]:
    m = Matcher(ctx if ctx is not None else {}, patterns)
    m.match(expected, actual)
    return m.problems


def check_envelope(expect: dict, reply: Any, ctx: dict) -> list[Mismatch]:
    """An authored step's ``{"result": ...}`` / ``{"error": ...}`` against a reply envelope."""
    if not isinstance(reply, dict):
        return [Mismatch("$", expect, reply)]
    key = "result" if "result" in expect else "error"
    if key not in reply:
        return [Mismatch("$", {key: expect[key]}, reply)]
    m = Matcher(ctx)
    m.match(expect[key], reply[key], f"$.{key}")
    problems = m.problems
    if "id" in expect and reply.get("id") != expect["id"]:
        problems.append(Mismatch("$.id", expect["id"], reply.get("id")))
    return problems


def check_authored_cli(step: dict, code: int, out: str, err: str, ctx: dict) -> list[Mismatch]:
    """An authored step's expectation against one run of a ``herdr`` binary."""
    exp = step["expect"]
    if "usage" in exp:
        problems = []
        if code != 2:
            problems.append(Mismatch("exit", 2, code))
        if err.rstrip("\n") != substitute(exp["usage"], ctx) or out:
            problems.append(Mismatch("stderr", exp["usage"], err))
        return problems
    want_code = 0 if "result" in exp else 1
    stream, other = (out, err) if want_code == 0 else (err, out)
    problems = []
    if code != want_code:
        problems.append(Mismatch("exit", want_code, code))
    if other:
        problems.append(Mismatch("other stream", "", other))
    try:
        env = json.loads(stream)
    except json.JSONDecodeError:
        return problems + [Mismatch("output", "one JSON envelope", stream)]
    # herdr prints keys sorted, compact, one line
    if stream != json.dumps(env, separators=(",", ":"), ensure_ascii=False, sort_keys=True) + "\n":
        problems.append(Mismatch("format", "compact sorted JSON + newline", stream))
    if step.get("cli_id") and env.get("id") != step["cli_id"]:
        problems.append(Mismatch("$.id", step["cli_id"], env.get("id")))
    expect = {k: v for k, v in exp.items() if k != "id"}
    return problems + check_envelope(expect, env, ctx)
