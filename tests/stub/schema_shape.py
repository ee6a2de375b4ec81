"""Canonical *shape* of a JSON Schema: what a client can rely on (property names, required
sets, value kinds, referenced type names, enum values, tagged-union variants), without
documentation and numeric details (descriptions, formats, bounds, defaults, patterns)."""

from __future__ import annotations

_IGNORED = {
    "title",
    "description",
    "$schema",
    "default",
    "format",
    "minimum",
    "maximum",
    "pattern",
    "maxProperties",
    "minProperties",
    "propertyNames",
    "examples",
    "$defs",
    "maxItems",
    "minItems",
    "maxLength",
    "minLength",
}


def shape(s):
    if s is True or s == {}:
        return ("any",)
    if not isinstance(s, dict):
        return ("literal", repr(s))
    s = {k: v for k, v in s.items() if k not in _IGNORED}
    if "$ref" in s and len(s) == 1:
        return ("ref", s["$ref"].rsplit("/", 1)[-1])
    for key in ("anyOf", "oneOf"):
        if key in s and set(s) - {"type"} == {key}:
            items = s[key]
            nulls = [i for i in items if i == {"type": "null"}]
            rest = [i for i in items if i != {"type": "null"}]
            if (
                all(
                    isinstance(i, dict)
                    and "const" in i
                    and set(i) <= {"const", "type", "description"}
                    for i in rest
                )
                and rest
            ):
                inner = ("enum", frozenset(i["const"] for i in rest))
            elif len(rest) == 1:
                inner = shape(rest[0])
            else:
                inner = ("union", frozenset(shape(i) for i in rest))
            return ("nullable", inner) if nulls else inner
    if "enum" in s:
        values = [v for v in s["enum"] if v is not None]
        inner = ("enum", frozenset(values))
        return ("nullable", inner) if None in s["enum"] or _has_null(s) else inner
    if "const" in s:
        return ("const", s["const"])
    kind = s.get("type")
    if isinstance(kind, list):
        rest = [k for k in kind if k != "null"]
        inner = shape(dict(s, type=rest[0] if len(rest) == 1 else rest))
        return ("nullable", inner) if "null" in kind else inner
    if kind == "array":
        return ("array", shape(s.get("items", True)))
    if kind == "object" or "properties" in s:
        props = tuple(sorted((k, shape(v)) for k, v in s.get("properties", {}).items()))
        extra = s.get("additionalProperties")
        out = (
            "object",
            props,
            frozenset(s.get("required", [])),
            None if extra is None else shape(extra),
        )
        others = {k: v for k, v in s.items() if k in ("oneOf", "anyOf", "allOf")}
        if others:
            out += tuple(sorted((k, frozenset(shape(i) for i in v)) for k, v in others.items()))
        return out
    if "allOf" in s:
        return ("all", frozenset(shape(i) for i in s["allOf"]))
    if kind:
        return (kind,)
    return ("other", repr(sorted(s)))


def _has_null(s) -> bool:
    return isinstance(s.get("type"), list) and "null" in s["type"]


def diff(ours: dict, theirs: dict) -> list[str]:
    """Differences between two schema documents, per root and per named definition."""
    out = []
    for root in sorted(set(ours["schemas"]) | set(theirs["schemas"])):
        a, b = ours["schemas"].get(root), theirs["schemas"].get(root)
        if a is None or b is None:
            out.append("%s: only in %s" % (root, "theirs" if a is None else "ours"))
            continue
        if shape(a) != shape(b):
            out.append("%s: root differs" % root)
        da, db = a.get("$defs", {}), b.get("$defs", {})
        for name in sorted(set(da) | set(db)):
            if name not in da or name not in db:
                out.append(
                    "%s.%s: only in %s" % (root, name, "theirs" if name not in da else "ours")
                )
            elif shape(da[name]) != shape(db[name]):
                out.append("%s.%s: differs" % (root, name))
    return out
