"""Generate the API schema the stand-in's ``herdr api schema`` prints, per herdr version.

    python -m simherdr.apischema          # rewrites simherdr/stub/data/api-schema-*.json

What comes from where (one place for each fact):

* method names and order: herdr's ``Method`` enum in the type table (``types_082.json`` plus
  the 0.9 deltas of ``types_093``), checked against :data:`simherdr.facts.methods`;
* the params of every method the simulator models: GENERATED from the simulator's own params
  specs (``simherdr.handlers`` with ``simherdr.params``): field names, required/optional/
  default, value kinds and enum variants. The names of nested types come from the table;
* the params of methods the simulator does not model, and every result, event and error
  shape: rendered from the table (herdr's types, transcribed) — the simulator has no reply
  specs. Rendering follows schemars' conventions (the generator herdr uses).

The stand-in reads only the JSON files this writes (``simherdr/stub/data``).
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "stub", "data")
ROOTS = {  # src/api/schema/tests.rs:32-45
    "request": "Request",
    "success_response": "SuccessResponse",
    "error_response": "ErrorResponse",
    "event": "EventEnvelope",
    "subscription_event": "SubscriptionEventEnvelope",
}
_UINT = {"u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "usize": "uint"}
_INT = {"i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "isize": "int"}
_TOKEN_SCHEMAS = {  # src/api/schema/common.rs:3-23 (schema_with helpers)
    "super::common::metadata_token_values_schema": {"type": "string"},
    "super::common::metadata_token_patch_schema": {"type": ["string", "null"]},
}


#: The published schema's release -> its type deltas over types_082.json (None: the table).
TYPE_DELTAS = {"0.8.0": "types_080", "0.8.2": None, "0.9.3": "types_093"}


def _base_types() -> dict:
    """herdr 0.8.2's type table (package data ``types_082.json``, tools/transcribe_herdr_types.py)."""
    with open(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "types_082.json"), "rb"
    ) as f:
        return json.load(f)["types"]


def _types(version: str) -> dict:
    import importlib

    types = _base_types()
    delta = TYPE_DELTAS[version]
    if delta is not None:
        importlib.import_module(f"{__package__}.{delta}").apply(types)
    return types


# --- Rust type expressions -------------------------------------------------------------------


def _split_generic(expr: str) -> tuple[str, list[str]]:
    expr = expr.strip()
    if "<" not in expr:
        return expr.split("::")[-1], []
    head, inner = expr[: expr.index("<")], expr[expr.index("<") + 1 : expr.rindex(">")]
    args, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    args.append(cur.strip())
    return head.strip().split("::")[-1], args


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _rename(name: str, rule: str | None) -> str:
    if rule == "snake_case":
        return _snake(name)
    if rule == "kebab-case":
        return _snake(name).replace("_", "-")
    if rule == "lowercase":
        return name.lower()
    if rule == "SCREAMING_SNAKE_CASE":
        return _snake(name).upper()
    return name


class Renderer:
    """schemars-style JSON Schema for herdr types, collecting ``$defs`` per root."""

    def __init__(self, types: dict, root: str, sim_params: dict):
        self.types = types
        self.root = root
        self.defs: dict[str, Any] = {}
        self.sim_params = sim_params  # herdr params type name -> simulator spec

    def ref(self, name: str) -> dict:
        if name not in self.defs:
            self.defs[name] = None  # reserve (recursive types)
            self.defs[name] = self.define(name)
        return {"$ref": "#/schemas/%s/$defs/%s" % (self.root, name)}

    # -- type expressions --
    def expr(self, expr: str) -> dict:
        head, args = _split_generic(expr)
        if head in ("Box", "Arc"):
            return self.expr(args[0])
        if head == "Option":
            return _nullable(self.expr(args[0]))
        if head in ("Vec", "VecDeque", "BTreeSet", "HashSet"):
            return {"type": "array", "items": self.expr(args[0])}
        if head in ("HashMap", "BTreeMap", "IndexMap"):
            return {"type": "object", "additionalProperties": self.expr(args[1])}
        if head in ("String", "str", "PathBuf", "&str"):
            return {"type": "string"}
        if head == "bool":
            return {"type": "boolean"}
        if head in _UINT:
            return {"type": "integer", "format": _UINT[head], "minimum": 0}
        if head in _INT:
            return {"type": "integer", "format": _INT[head]}
        if head in ("f32", "f64"):
            return {"type": "number", "format": "float" if head == "f32" else "double"}
        if head == "Value":
            return True
        if head in self.types:
            t = self.types[head]
            if t["kind"] == "newtype":
                return self.expr(t["type"])
            return self.ref(head)
        raise KeyError("unknown type %r" % expr)

    def field(self, f: list) -> tuple[str, Any, bool]:
        name, expr, attrs = f
        if "schemars.schema_with" in attrs:
            value = _TOKEN_SCHEMAS.get(attrs["schemars.schema_with"])
            schema = {"type": "object", "additionalProperties": value} if value else True
        else:
            schema = self.expr(expr)
        optional = _split_generic(expr)[0] == "Option" or "default" in attrs
        return attrs.get("rename", name), schema, not optional

    def fields_object(self, fields: list, extra: dict | None = None) -> dict:
        props: dict[str, Any] = dict(extra or {})
        required: list[str] = list(extra or {})
        for f in _shown(fields):
            if f[2].get("flatten"):
                inner = self.define(_split_generic(f[1])[0])
                props.update(inner.get("properties", {}))
                required += inner.get("required", [])
                continue
            name, schema, req = self.field(f)
            props[name] = schema
            if req:
                required.append(name)
        out: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            out["required"] = required
        return out

    # -- named types --
    def define(self, name: str) -> dict:
        if name in self.sim_params:
            return self.sim_params[name](self)
        t = self.types[name]
        if t["kind"] == "schema":
            return dict(t["schema"], title=name)
        if t["kind"] == "struct":
            out = self.fields_object(t["fields"])
            out["title"] = name
            return out if t["fields"] else {"type": "object", "title": name}
        return self.enum(name, t)

    def enum(self, name: str, t: dict) -> dict:
        attrs = t["attrs"]
        rule = attrs.get("rename_all")
        variants = _shown(t["variants"])

        def wire(v):
            return v[3].get("rename") or _rename(v[0], rule)

        if all(v[1] == "unit" for v in variants) and "tag" not in attrs:
            return {"type": "string", "enum": [wire(v) for v in variants], "title": name}
        options = []
        for v in variants:
            if attrs.get("untagged"):
                if v[1] == "newtype":
                    options.append(self.expr(v[2]))
                elif v[1] == "struct":
                    options.append(self.fields_object(v[2]))
                else:
                    options.append({"type": "null"})
                continue
            if "tag" in attrs:
                tag = {attrs["tag"]: {"type": "string", "const": wire(v)}}
                if v[1] == "struct":
                    options.append(self.fields_object(v[2], tag))
                elif v[1] == "newtype":
                    inner = self.expr(v[2])
                    merged = {"type": "object", "properties": dict(tag), "required": [attrs["tag"]]}
                    options.append({"allOf": [inner, merged]} if "$ref" in inner else merged)
                else:
                    options.append(
                        {"type": "object", "properties": tag, "required": [attrs["tag"]]}
                    )
                continue
            # externally tagged
            if v[1] == "unit":
                options.append({"type": "string", "const": wire(v)})
            else:
                body = self.expr(v[2]) if v[1] == "newtype" else self.fields_object(v[2])
                options.append(
                    {
                        "type": "object",
                        "properties": {wire(v): body},
                        "required": [wire(v)],
                        "additionalProperties": False,
                    }
                )
        key = "anyOf" if attrs.get("untagged") else "oneOf"
        return {key: options, "title": name}


def _shown(items: list) -> list:
    """Drop what serde/schemars skip (``#[serde(skip)]``, ``#[schemars(skip)]``)."""
    return [i for i in items if not (i[-1].get("skip") or i[-1].get("schemars.skip"))]


def methods(types: dict) -> list[tuple[str, str]]:
    """(method name, params type) in herdr's Method order."""
    return [(v[3]["rename"], v[2]) for v in _shown(types["Method"]["variants"])]


def _nullable(schema: Any) -> Any:
    if schema is True:
        return True
    if "$ref" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    kind = schema.get("type")
    if isinstance(kind, str):
        return dict(schema, type=[kind, "null"])
    return {"anyOf": [schema, {"type": "null"}]}


# --- the simulator's params specs --------------------------------------------------------------


def _checker_schema(check, herdr_expr: str | None, r: Renderer, profile) -> Any:
    """A params field's schema from the simulator's own checker (simherdr.params)."""
    from simherdr import params as P

    named = (
        _split_generic(herdr_expr)[1][0]
        if herdr_expr and herdr_expr.startswith("Option<")
        else herdr_expr
    )
    simple = {
        P.STR: {"type": "string"},
        P.BOOL: {"type": "boolean"},
        P.U64: {"type": "integer", "format": "uint64", "minimum": 0},
        P.U32: {"type": "integer", "format": "uint32", "minimum": 0},
        P.FLOAT: {"type": "number", "format": "float"},
        P.LIST_STR: {"type": "array", "items": {"type": "string"}},
        P.MAP_STR: {"type": "object", "additionalProperties": {"type": "string"}},
        P.OBJ: {"type": "object"},
    }
    if check is P.OBJ and named in r.types:
        return r.expr(named)  # a map the simulator does not check field by field: herdr's type
    if check in simple:
        return simple[check]
    variants = check.variants if isinstance(check, P.Enum) else None
    herdr_type = r.types.get(named or "", {})
    plain = herdr_type.get("kind") == "enum" and all(
        v[1] == "unit" for v in herdr_type.get("variants", [])
    )
    if variants is not None and named and plain:
        dropped = herdr_type.get("drop_wire", ())  # variants this release lacks (types_080)
        if named not in r.defs:
            kept = [v for v in variants if v not in dropped]
            r.defs[named] = {"type": "string", "enum": kept, "title": named}
        return {"$ref": "#/schemas/%s/$defs/%s" % (r.root, named)}
    fields = check.fields if isinstance(check, P.Struct) else None
    if fields is not None and named and named in r.types:
        if named not in r.defs:
            r.defs[named] = None
            r.defs[named] = _spec_object(named, fields, r, profile)
        return {"$ref": "#/schemas/%s/$defs/%s" % (r.root, named)}
    inner = check.inner if isinstance(check, P.ListOf) else None
    if inner is not None and named and named.startswith("Vec<"):
        return {
            "type": "array",
            "items": _checker_schema(inner, _split_generic(named)[1][0], r, profile),
        }
    # An opaque checker (a custom function): herdr's own type from the table.
    return r.expr(named) if named else True


def _spec_object(name: str, spec: dict, r: Renderer, profile) -> dict:
    herdr = {f[0]: f for f in r.types.get(name, {}).get("fields", [])}
    gone = r.types.get(name, {}).get("skip_fields", ())
    props: dict[str, Any] = {}
    required: list[str] = []
    for field, f in spec.items():
        if (f.known is not None and not f.known(profile)) or field in gone:
            continue  # a field this herdr version does not know
        expr = herdr.get(field, [None, None, {}])[1]
        schema = _checker_schema(f.check, expr, r, profile)
        if f.opt:
            schema = _nullable(schema)
        elif f.default is not _missing():
            default = f.default() if callable(f.default) else f.default
            if isinstance(schema, dict) and _jsonable(default):
                schema = dict(schema, default=default)
        else:
            required.append(field)
        props[field] = schema
    out: dict[str, Any] = {"type": "object", "properties": props, "title": name}
    if required:
        out["required"] = required
    return out


def _missing():
    from simherdr import params as P

    return P._MISSING


def _jsonable(value) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def simulator_params(version: str, types: dict) -> tuple[dict, set[str]]:
    """herdr params type name -> builder from the simulator's spec; and the modelled methods."""
    from simherdr.facts.versions import resolve
    from simherdr.handlers.registry import load_all

    profile = resolve(version).rows  # what a versioned param's known(rows) reads
    registry = load_all()
    builders: dict = {}
    modelled: set[str] = set()
    for method, params_type in methods(types):
        definition = registry.get(method)
        if definition is None or params_type in builders:
            if definition is not None:
                modelled.add(method)
            continue
        modelled.add(method)
        if not definition.spec and types.get(params_type, {}).get("fields"):
            continue  # CHOICE: a spec-less handler ignoring params: herdr's type stands
        builders[params_type] = lambda r, name=params_type, spec=definition.spec: _spec_object(
            name, spec, r, profile
        )
    return builders, modelled


# --- the document ------------------------------------------------------------------------------


def _request(r: Renderer) -> dict:
    props = {"id": {"type": "string"}}
    options = []
    for method, params_type in methods(r.types):
        options.append(
            {
                "type": "object",
                "properties": {
                    "method": {"type": "string", "const": method},
                    "params": r.expr(params_type),
                },
                "required": ["method", "params"],
            }
        )
    return {
        "type": "object",
        "properties": props,
        "required": ["id"],
        "oneOf": options,
        "title": "Request",
    }


def document(version: str) -> dict:
    from simherdr.facts.versions import resolve

    types = _types(version)
    builders, _ = simulator_params(version, types)
    schemas = {}
    for key, root in ROOTS.items():
        r = Renderer(types, key, builders if key == "request" else {})
        body = _request(r) if key == "request" else r.define(root)
        body = dict(body)
        body["title"] = root if key != "request" else "Request"
        body["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        if r.defs:
            body["$defs"] = r.defs
        schemas[key] = body
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Herdr API",
        "schema_version": 1,
        "protocol": resolve(version).protocol,
        "schemas": schemas,
    }


def path_for(version: str) -> str:
    return os.path.join(DATA_DIR, "api-schema-%s.json" % version)


def published() -> tuple[str, ...]:
    """The releases herdr published a schema of (their ``schema_published``), oldest first."""
    from simherdr.facts.versions import releases

    return tuple(v.name for v in releases() if v.schema_published)


def main(argv: list[str] | None = None) -> int:
    os.makedirs(DATA_DIR, exist_ok=True)
    for version in published():
        text = json.dumps(document(version), indent=2, sort_keys=True) + "\n"
        with open(path_for(version), "w", encoding="utf-8") as handle:
            handle.write(text)
        print(path_for(version))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
