"""Replay recorded herdr conversations (cassettes) and compare replies.

A cassette is a JSON file: ``{"name", "source", "profiles", "steps": [...]}``. Each step has a
socket form (``method`` + ``params``) and, where the binary has a command for it, a CLI form
(``cli``: argv after ``herdr``). ``expect`` holds what herdr answered:

- ``{"result": {...}}`` or ``{"error": {...}}`` for the reply (the CLI form prints the same
  envelope with its own id: stdout + exit 0, or stderr + exit 1);
- ``{"usage": "text"}``: a CLI usage error (stderr, exit 2; socket forms skip the step).

Patterns inside expected values:
- ``"{name=}"`` captures the actual string into ``name``; ``"{name}"`` inside a string
  substitutes a capture or a context value (``tmp``);
- ``"<any>"`` any value; ``"<term>"`` a terminal id; ``"<absent>"`` the key must be missing;
- an object containing ``"<more>": true`` may have extra keys; otherwise keys must match
  exactly — an unexpected field is drift.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

CASSETTES = Path(__file__).parent / "cassettes"
_TERM = re.compile(r"^term_[0-9a-f]+$")
_VAR = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
_CAPTURE = re.compile(r"^\{([a-z_][a-z0-9_]*)=\}$")


def load_all() -> list[dict]:
    out = []
    for p in sorted(CASSETTES.glob("*.json")):
        c = json.loads(p.read_text())
        c["file"] = p.name
        out.append(c)
    return out


def substitute(value, ctx: dict):
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
    expected: object
    actual: object

    def __str__(self) -> str:
        return f"{self.path}: expected {json.dumps(self.expected)}, got {json.dumps(self.actual)}"


@dataclass
class Matcher:
    ctx: dict
    problems: list = field(default_factory=list)

    def match(self, expected, actual, path: str = "$") -> None:
        if isinstance(expected, str):
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
            more = expected.get("<more>", False)
            for k, v in expected.items():
                if k == "<more>":
                    continue
                if v == "<absent>":
                    if k in actual:
                        self.problems.append(Mismatch(f"{path}.{k}", "<absent>", actual[k]))
                    continue
                if k not in actual:
                    self.problems.append(Mismatch(f"{path}.{k}", v, "<missing>"))
                    continue
                self.match(v, actual[k], f"{path}.{k}")
            if not more:
                for k in actual:
                    if k not in expected:
                        self.problems.append(Mismatch(f"{path}.{k}", "<not expected>", actual[k]))
            return
        if isinstance(expected, list):
            if not isinstance(actual, list) or len(actual) != len(expected):
                self.problems.append(Mismatch(path, expected, actual))
                return
            for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
                self.match(e, a, f"{path}[{i}]")
            return
        if expected != actual or type(expected) is not type(actual):
            self.problems.append(Mismatch(path, expected, actual))


def check_reply(step: dict, reply: dict, ctx: dict) -> list[Mismatch]:
    """Compare a socket/in-process reply envelope with the step's expectation."""
    exp = step["expect"]
    m = Matcher(ctx)
    if "result" in exp:
        if "result" not in reply:
            return [Mismatch("$", {"result": exp["result"]}, reply)]
        m.match(exp["result"], reply["result"], "$.result")
    else:
        if "error" not in reply:
            return [Mismatch("$", {"error": exp["error"]}, reply)]
        m.match(exp["error"], reply["error"], "$.error")
    return m.problems


def check_cli(step: dict, code: int, out: str, err: str, ctx: dict) -> list[Mismatch]:
    exp = step["expect"]
    if "usage" in exp:
        problems = []
        if code != 2:
            problems.append(Mismatch("exit", 2, code))
        if err.rstrip("\n") != substitute(exp["usage"], ctx) or out:
            problems.append(Mismatch("stderr", exp["usage"], err))
        return problems
    want_code = 0 if "result" in exp else 1
    stream = out if want_code == 0 else err
    problems = []
    if code != want_code:
        problems.append(Mismatch("exit", want_code, code))
    if out if want_code == 1 else err:
        problems.append(Mismatch("other stream", "", out if want_code == 1 else err))
    try:
        env = json.loads(stream)
    except json.JSONDecodeError:
        return problems + [Mismatch("output", "one JSON envelope", stream)]
    # herdr prints keys sorted, compact, one line
    if stream != json.dumps(env, separators=(",", ":"), ensure_ascii=False, sort_keys=True) + "\n":
        problems.append(Mismatch("format", "compact sorted JSON + newline", stream))
    if step.get("cli_id") and env.get("id") != step["cli_id"]:
        problems.append(Mismatch("$.id", step["cli_id"], env.get("id")))
    return problems + check_reply(step, env, ctx)
