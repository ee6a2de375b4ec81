"""Developer tool: transcribe herdr's API type declarations into simherdr's type table.

Reads herdr's ``src/api/schema.rs`` and ``src/api/schema/*.rs`` from a git mirror (names,
field types and serde attributes only: facts, never code) and prints the JSON of
``simherdr/apischema/types_082.json`` (package data). Run::

    python tools/transcribe_herdr_types.py /work/.mirror/herdrdev+herdr/repo 1c76079f \
        > simherdr/apischema/types_082.json

The generator (``python -m simherdr.apischema``) turns the table plus the simulator's
own params specs into the schema files the stand-in's ``herdr api schema`` prints.
"""

from __future__ import annotations

import re
import subprocess
import sys

FILES = [
    "src/api/schema.rs",
    *(
        "src/api/schema/%s.rs" % name
        for name in [
            "agents",
            "common",
            "events",
            "integrations",
            "panes",
            "plugins",
            "response",
            "server",
            "session",
            "tabs",
            "workspaces",
            "worktrees",
        ]
    ),
]


def _serde(attrs: list[str]) -> dict:
    out: dict = {}
    for attr in attrs:
        m = re.match(r"#\[(serde|schemars)\((.*)\)\]$", attr.strip(), re.S)
        if not m:
            continue
        kind, body = m.groups()
        for part in re.findall(r'(\w+)(?:\s*=\s*("[^"]*"|[^,]+))?', body):
            key, value = part
            value = value.strip().strip('"') if value else True
            out[("schemars." if kind == "schemars" else "") + key] = value
    return out


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(re.sub(r"(^|[^:])//.*$", r"\1", line) for line in text.split("\n"))


def _block(text: str, start: int) -> tuple[str, int]:
    """The text between the brace at ``start`` and its match, and the index after it."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1 : i], i + 1
    raise ValueError("unbalanced braces")


def _split_top(body: str) -> list[str]:
    """Split a struct/enum body on top-level commas (braces, <> and () nest)."""
    parts, depth, cur = [], 0, []
    for ch in body:
        if ch in "{<(":
            depth += 1
        elif ch in "}>)":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return [p for p in parts if p.strip()]


def _attrs_and_rest(item: str) -> tuple[list[str], str]:
    attrs, rest = [], item.strip()
    while rest.startswith("#["):
        depth, i = 0, 0
        for i, ch in enumerate(rest):  # noqa: B007 (i is the bracket end, used below)
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    break
        attrs.append(rest[: i + 1])
        rest = rest[i + 1 :].strip()
    return attrs, rest


def _fields(body: str) -> list:
    out = []
    for item in _split_top(body):
        attrs, rest = _attrs_and_rest(item)
        rest = re.sub(r"^pub(\([^)]*\))?\s+", "", rest)
        if ":" not in rest:
            continue
        name, ty = rest.split(":", 1)
        name = name.strip().removeprefix("r#")
        out.append([name, " ".join(ty.split()), _serde(attrs)])
    return out


def transcribe(text: str, types: dict) -> None:
    text = _strip_comments(text)
    pattern = re.compile(
        r"((?:#\[[^\]]*(?:\[[^\]]*\][^\]]*)*\]\s*)*)pub(?:\([^)]*\))?\s+(struct|enum)\s+(\w+)"
    )
    pos = 0
    while True:
        m = pattern.search(text, pos)
        if not m:
            return
        attrs_text, kind, name = m.groups()
        attrs = re.findall(r"#\[(?:[^\[\]]|\[[^\]]*\])*\]", attrs_text)
        container = _serde(attrs)
        after = m.end()
        head = text[after : after + 200].lstrip()
        if head.startswith(";"):
            types[name] = {"kind": "struct", "fields": [], "attrs": container}
            pos = after
            continue
        if head.startswith("("):
            inner = head[1 : head.index(")")]
            types[name] = {"kind": "newtype", "type": inner.strip(), "attrs": container}
            pos = after
            continue
        brace = text.index("{", after)
        body, pos = _block(text, brace)
        if kind == "struct":
            types[name] = {"kind": "struct", "fields": _fields(body), "attrs": container}
            continue
        variants = []
        for item in _split_top(body):
            vattrs, rest = _attrs_and_rest(item)
            vm = re.match(r"(\w+)\s*(.*)$", rest, re.S)
            if not vm:
                continue
            vname, tail = vm.groups()
            tail = tail.strip()
            if tail.startswith("{"):
                inner, _ = _block(tail, 0)
                variants.append([vname, "struct", _fields(inner), _serde(vattrs)])
            elif tail.startswith("("):
                variants.append([vname, "newtype", tail[1:-1].strip(), _serde(vattrs)])
            else:
                variants.append([vname, "unit", None, _serde(vattrs)])
        types[name] = {"kind": "enum", "variants": variants, "attrs": container}


ROOTS = (
    "Request",
    "SuccessResponse",
    "ErrorResponse",
    "EventEnvelope",
    "SubscriptionEventEnvelope",
)


def _names(expr: str) -> list[str]:
    return re.findall(r"[A-Za-z_][\w:]*", expr)


def reachable(types: dict) -> dict:
    """Only the types the five schema roots reach, in declaration order."""
    seen: set[str] = set()
    todo = list(ROOTS)
    while todo:
        name = todo.pop()
        if name in seen or name not in types:
            continue
        seen.add(name)
        t = types[name]
        exprs = []
        if t["kind"] == "struct":
            exprs = [f[1] for f in t["fields"]]
        elif t["kind"] == "newtype":
            exprs = [t["type"]]
        else:
            for v in t["variants"]:
                if v[1] == "struct":
                    exprs += [f[1] for f in v[2]]
                elif v[1] == "newtype":
                    exprs.append(v[2])
        for e in exprs:
            todo += _names(e)
    return {k: v for k, v in types.items() if k in seen}


def emit(types: dict, commit: str = "1c76079f") -> str:
    """The package-data file: its source, then one type per entry (indented JSON)."""
    import json

    doc = {
        "source": "herdr %s src/api/schema.rs, src/api/schema/*.rs (tools/transcribe_herdr_types.py):"
        " type names, field names, Rust field types and serde attributes" % commit,
        "types": types,
    }
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    repo, commit = argv[1], argv[2]
    types: dict = {}
    for path in FILES:
        text = subprocess.run(
            ["git", "-C", repo, "show", "%s:%s" % (commit, path)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        transcribe(text, types)
    sys.stdout.write(emit(reachable(types), commit))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
