"""A message as JSON (the cassette form) and back, driven by the protocol's table.

Everything is serde's externally tagged JSON data model already (see :mod:`.bincode`) except
``Vec<u8>``: a Python ``bytes`` value is written as a base64 string.

CHOICE (issue 31): ``Vec<u8>`` is base64 in the JSON form, not serde_json's array of numbers:
terminal frames are large and a cassette stays readable. The type description decides, so the
form round-trips exactly (``from_json(to_json(v)) == v``).
"""

from __future__ import annotations

from .schema import Enum, Named, Prim, Seq, Struct, Table, Tuple, TypeRef

TYPE_CHECKING = False  # (not typing's: importing typing costs a stand-in call ~7 ms)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["JsonFormError", "from_json", "to_json"]


class JsonFormError(ValueError):
    """A JSON value that does not fit its type."""


def to_json(table: Table, type_name: str, value: Any) -> Any:
    """``value`` (a decoded message of ``type_name``) as JSON-serialisable data."""
    return _walk(table, Named(type_name), value, _bytes_to_json)


def from_json(table: Table, type_name: str, obj: Any) -> Any:
    """The inverse of :func:`to_json`: JSON data back to the codec's value."""
    return _walk(table, Named(type_name), obj, _bytes_from_json)


# (base64 imported where bytes are converted: it imports re, and the stand-in's client socket
# verbs convert none: a Python `terminal attach` ~98M -> ~80M instructions with schema's scanner)


def _bytes_to_json(v: Any) -> Any:
    import base64

    if not isinstance(v, bytes | bytearray):
        raise JsonFormError(f"expected bytes, got {type(v).__name__}")
    return base64.b64encode(bytes(v)).decode("ascii")


def _bytes_from_json(v: Any) -> Any:
    import base64
    import binascii

    if not isinstance(v, str):
        raise JsonFormError(f"expected a base64 string, got {v!r}")
    try:
        return base64.b64decode(v.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise JsonFormError(f"not base64: {v[:40]!r}") from None


def _walk(table: Table, ty: TypeRef, v: Any, on_bytes: Any) -> Any:
    if isinstance(ty, Prim):
        return on_bytes(v) if ty.name in ("bytes", "ByteBuf") else v
    if isinstance(ty, Seq):
        if ty.kind == "option":
            return None if v is None else _walk(table, ty.item, v, on_bytes)
        if not isinstance(v, list | tuple):
            raise JsonFormError(f"expected a list, got {v!r}")
        return [_walk(table, ty.item, x, on_bytes) for x in v]
    if isinstance(ty, Tuple):
        if not isinstance(v, list | tuple) or len(v) != len(ty.items):
            raise JsonFormError(f"expected a list of {len(ty.items)}, got {v!r}")
        return [_walk(table, t, x, on_bytes) for t, x in zip(ty.items, v, strict=True)]
    d = table.types[ty.name]
    if isinstance(d, Struct):
        if not isinstance(v, dict):
            raise JsonFormError(f"{d.name}: expected an object, got {v!r}")
        return {
            f: (_walk(table, t, v[f], on_bytes) if f in v else _missing(d.name, f))
            for f, t in d.fields
        }
    return _variant(table, d, v, on_bytes)


def _missing(owner: str, f: str) -> Any:
    raise JsonFormError(f"{owner}: missing field {f!r}")


def _variant(table: Table, d: Enum, v: Any, on_bytes: Any) -> Any:
    if isinstance(v, str):
        return v
    if not isinstance(v, dict) or len(v) != 1:
        raise JsonFormError(f"{d.name}: expected a variant, got {v!r}")
    ((name, body),) = v.items()
    variant = d.variant(name)
    if variant is None:
        raise JsonFormError(f"{d.name} has no variant {name!r}")
    if variant.shape == "newtype":
        return {name: _walk(table, variant.items[0], body, on_bytes)}
    if variant.shape == "tuple":
        return {name: _walk(table, Tuple(variant.items), body, on_bytes)}
    if variant.shape == "struct":
        if not isinstance(body, dict):
            raise JsonFormError(f"{d.name}::{name}: expected an object, got {body!r}")
        return {
            name: {
                f: (_walk(table, t, body[f], on_bytes) if f in body else _missing(name, f))
                for f, t in variant.fields
            }
        }
    return v
