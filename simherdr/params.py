"""A small declarative checker for method params, with serde-like failures.

herdr deserialises every request with serde (SOCKET.md §1.3-1.4): unknown fields are ignored,
a missing required field or a wrong type fails the whole request as ``invalid_request`` with
id "" and serde's text. We mimic the text's gist; clients must not match on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .facts.record import record

_MISSING = object()


class ParamError(Exception):
    pass


class JsonObject(dict):
    """A JSON object as the request decoder (:mod:`simherdr.wire`) read it, remembering its
    duplicated keys: serde's derived structs refuse a duplicated field."""

    def __init__(self) -> None:
        super().__init__()
        self.duplicates: set[str] = set()
        self.duplicate: str | None = None  # the first one, for the top-level check


def _json_kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"boolean `{str(v).lower()}`"
    if isinstance(v, int):
        return f"integer `{v}`"
    if isinstance(v, float):
        return f"floating point `{v}`"
    if isinstance(v, str):
        return f"string {v!r}"
    if isinstance(v, list):
        return "sequence"
    return "map"


def _type_error(v: Any, expected: str) -> ParamError:
    return ParamError(f"invalid type: {_json_kind(v)}, expected {expected}")


# --- value types: callables value -> checked value --------------------------------------------


def STR(v):
    if not isinstance(v, str):
        raise _type_error(v, "a string")
    return v


def BOOL(v):
    if not isinstance(v, bool):
        raise _type_error(v, "a boolean")
    return v


def U64(v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise _type_error(v, "u64")
    if v < 0 or v > 2**64 - 1:
        raise ParamError(f"invalid value: integer `{v}`, expected u64")
    return v


def U32(v):
    v = U64(v)
    if v > 2**32 - 1:
        raise ParamError(f"invalid value: integer `{v}`, expected u32")
    return v


def FLOAT(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _type_error(v, "f32")
    return float(v)


def LIST_STR(v):
    if not isinstance(v, list):
        raise _type_error(v, "a sequence")
    return [STR(x) for x in v]


def MAP_STR(v):
    if not isinstance(v, dict):
        raise _type_error(v, "a map")
    return {k: STR(x) for k, x in v.items()}


def OBJ(v):
    if not isinstance(v, dict):
        raise _type_error(v, "a map")
    return v


# The composite checkers are small callable classes, so what they check can be read back
# (the API schema generator: simherdr.apischema) by type, not by probing attributes.


class Enum:
    """A unit-variant enum: one of ``variants`` (serde's text for anything else)."""

    __slots__ = ("variants",)

    def __init__(self, variants: tuple[str, ...]):
        self.variants = variants

    def __call__(self, v):
        if not isinstance(v, str):
            raise _type_error(v, "a string")
        if v not in self.variants:
            names = ", ".join(f"`{x}`" for x in self.variants)
            raise ParamError(f"unknown variant `{v}`, expected one of {names}")
        return v


class ListOf:
    """A sequence whose items ``inner`` checks."""

    __slots__ = ("inner",)

    def __init__(self, inner: Callable):
        self.inner = inner

    def __call__(self, v):
        if not isinstance(v, list):
            raise _type_error(v, "a sequence")
        inner = self.inner
        return [inner(x) for x in v]


def enum(*variants: str) -> Enum:
    return Enum(variants)


def list_of(inner: Callable) -> ListOf:
    return ListOf(inner)


@record(frozen=True)
class F:
    """A field: ``required`` (no default), optional (``opt=True``: absent or null -> None), or
    defaulted (``default=...``: absent -> default; null is a type error like serde)."""

    check: Callable
    opt: bool = False
    default: Any = _MISSING
    # A field only some herdr versions know: ``known(rows)`` (a release's Rows). On a version without it the
    # key is an unknown key, which serde ignores whatever its value: the field reads as absent.
    known: Callable | None = None


def opt(check: Callable) -> F:
    return F(check, opt=True)


def req(check: Callable) -> F:
    return F(check)


def dflt(check: Callable, default: Any) -> F:
    return F(check, default=default)


def versioned(f: F, known: Callable) -> F:
    """``f``, known only on the releases where ``known(rows)`` is true (see :func:`parse`)."""
    return F(f.check, f.opt, f.default, known)


class Struct:
    """A nested struct checker (e.g. ``wait``, ``match``): ``fields`` like a method's spec."""

    __slots__ = ("fields",)

    def __init__(self, fields: dict[str, F]):
        self.fields = fields

    def __call__(self, v):
        if not isinstance(v, dict):
            raise _type_error(v, "a map")
        return parse(self.fields, v)


class Tagged:
    """serde's internally tagged enum (``#[serde(tag = "type")]``): the ``type`` field picks
    the variant, whose fields are checked like a struct; the result keeps ``type``."""

    __slots__ = ("_names", "name", "tagged_variants")

    def __init__(self, name: str, variants: dict[str, dict[str, F]]):
        self.name = name
        self.tagged_variants = variants  # tag -> fields (an Enum's ``variants`` are plain names)
        self._names = ", ".join(f"`{v}`" for v in variants)

    def __call__(self, v):
        if not isinstance(v, dict):
            raise _type_error(v, f"internally tagged enum {self.name}")
        tag = v.get("type", _MISSING)
        if tag is _MISSING:
            raise ParamError("missing field `type`")
        if not isinstance(tag, str):
            raise _type_error(tag, "variant identifier")
        if tag not in self.tagged_variants:
            raise ParamError(f"unknown variant `{tag}`, expected one of {self._names}")
        return {"type": tag, **parse(self.tagged_variants[tag], v)}


def struct(**fields: F) -> Struct:
    return Struct(fields)


def tagged(name: str, **variants: dict[str, F]) -> Tagged:
    return Tagged(name, variants)


def parse(spec: dict[str, F], raw: Any, profile: Any = None) -> dict:
    """Check ``raw`` against ``spec``. With a ``profile``, a versioned field the profile does
    not know is read as absent (given values are ignored, not checked)."""
    if not isinstance(raw, dict):
        raise _type_error(raw, "a map")
    out: dict = {}
    dups = raw.duplicates if isinstance(raw, JsonObject) else ()
    for name, f in spec.items():
        v = raw.get(name, _MISSING)
        if f.known is not None and profile is not None and not f.known(profile):
            v = _MISSING
        elif name in dups:
            raise ParamError(f"duplicate field `{name}`")
        if v is _MISSING or (v is None and f.opt):
            if f.opt:
                out[name] = None
            elif f.default is not _MISSING:
                out[name] = f.default() if callable(f.default) else f.default
            else:
                raise ParamError(f"missing field `{name}`")
            continue
        out[name] = f.check(v)
    return out
