"""The client socket's types as data: each protocol's table of every type reachable from
``ClientMessage`` and ``ServerMessage`` (herdr's ``src/protocol/wire.rs``), read from
``tables/p<protocol>.json`` (package data, read once on first use).

A table file::

    {"protocol": 20, "source": "herdr v0.8.2 (1c76079f) src/protocol/wire.rs",
     "types": {
       "RenderEncoding": {"src": "src/protocol/wire.rs:39",
                          "enum": [["SemanticFrame"], ["TerminalAnsi"]]},
       "TerminalFrame": {"src": "src/protocol/wire.rs:635",
                         "struct": {"seq": "u64", "width": "u16", ...}},
       ...}}

Variants in declaration order (their bincode index), fields in order (JSON objects keep their
order). A variant is ``[name]`` (unit), ``[name, "T"]`` (newtype), ``[name, ["A", "B"]]``
(tuple) or ``[name, {"field": "T", ...}]`` (struct). A type is written as in Rust: ``u8`` ..
``u128``, ``i8`` .. ``i128``, ``usize``, ``bool``, ``char``, ``String``, ``f32``, ``f64``,
``Vec<T>``, ``Option<T>``, ``Box<T>`` (the same wire as ``T``), ``(A, B)``, a named type, and
``ByteBuf`` for a ``Vec<u8>`` herdr serializes with ``serialize_bytes`` (the same bytes; only a
truncated one reports differently). An enum with ``"other": "Name"`` decodes an unknown index as
that variant (serde's ``#[serde(other)]``).
"""

from __future__ import annotations

import os
from functools import cache

from ..facts.jsonscan import raw_decode
from ..facts.record import field, record

__all__ = [
    "PROTOCOLS",
    "Enum",
    "Named",
    "Prim",
    "Seq",
    "Struct",
    "Table",
    "TableError",
    "Tuple",
    "TypeRef",
    "Variant",
    "table",
]

#: The protocols with a table: 19 = herdr 0.8.0, 20 = 0.8.1/0.8.2, 22 = 0.9.x.
PROTOCOLS: tuple[int, ...] = (19, 20, 22)

#: Every primitive a table may name.
PRIMITIVES = frozenset(
    [
        "u8",
        "u16",
        "u32",
        "u64",
        "u128",
        "i8",
        "i16",
        "i32",
        "i64",
        "i128",
        "usize",
        "isize",
        "bool",
        "char",
        "String",
        "f32",
        "f64",
        "bytes",
        "ByteBuf",
        "()",
    ]
)


class TableError(ValueError):
    """A table file that does not describe a type correctly (a bug in the data, not input)."""


@record(frozen=True)
class Prim:
    """A primitive: an integer, ``bool``, ``char``, ``String``, a float, ``bytes`` (``Vec<u8>``,
    serde's sequence of u8) or ``ByteBuf`` (``Vec<u8>`` through ``serialize_bytes``)."""

    name: str


@record(frozen=True)
class Seq:
    """``Vec<T>`` (``kind`` "vec") or ``Option<T>`` (``kind`` "option")."""

    kind: str
    item: TypeRef


@record(frozen=True)
class Tuple:
    """``(A, B, ...)``: its items in order, no length."""

    items: tuple[TypeRef, ...]


@record(frozen=True)
class Named:
    """A type of the table, by name."""

    name: str


TypeRef = Prim | Seq | Tuple | Named


@record(frozen=True)
class Variant:
    """One enum variant: ``shape`` is "unit", "newtype", "tuple" or "struct"."""

    name: str
    index: int
    shape: str
    items: tuple[TypeRef, ...] = ()  # newtype (one) and tuple variants
    fields: tuple[tuple[str, TypeRef], ...] = ()  # struct variants


@record(frozen=True)
class Enum:
    name: str
    src: str
    variants: tuple[Variant, ...]
    other: str | None = None  # serde(other): the variant an unknown index decodes as

    def variant(self, name: str) -> Variant | None:
        for v in self.variants:
            if v.name == name:
                return v
        return None


@record(frozen=True)
class Struct:
    name: str
    src: str
    fields: tuple[tuple[str, TypeRef], ...]


Definition = Enum | Struct


@record(frozen=True)
class Table:
    """One protocol's types: ``types[name]`` is an :class:`Enum` or a :class:`Struct`."""

    protocol: int
    source: str
    types: dict[str, Definition] = field(repr=False)

    def enum(self, name: str) -> Enum:
        d = self.types[name]
        if not isinstance(d, Enum):
            raise TableError(f"{name} is not an enum")
        return d


def parse_type(text: str) -> TypeRef:
    """A Rust type as written in a table (``Option<Vec<(u8, Color)>>``) as a :data:`TypeRef`."""
    ty, rest = _parse(text.replace(" ", ""))
    if rest:
        raise TableError(f"unexpected {rest!r} after a type in {text!r}")
    return ty


def _split_args(text: str) -> tuple[list[str], str]:
    """``A,B<C,D>>rest`` -> (["A", "B<C,D>"], "rest"): the arguments up to the closing bracket."""
    depth, start, args = 0, 0, []
    for i, ch in enumerate(text):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            if depth == 0:
                args.append(text[start:i])
                return [a for a in args if a], text[i + 1 :]
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(text[start:i])
            start = i + 1
    raise TableError(f"unclosed type {text!r}")


def _parse(text: str) -> tuple[TypeRef, str]:
    if text.startswith("()"):
        return Prim("()"), text[2:]
    if text.startswith("("):
        args, rest = _split_args(text[1:])
        return Tuple(tuple(parse_type(a) for a in args)), rest
    i = 0
    while i < len(text) and (text[i].isalnum() or text[i] in "_:"):
        i += 1
    name, rest = text[:i], text[i:]
    if not name:
        raise TableError(f"no type in {text!r}")
    name = name.rsplit("::", 1)[-1]
    if rest.startswith("<"):
        args, rest = _split_args(rest[1:])
        if len(args) != 1:
            raise TableError(f"{name} takes one type argument, got {args}")
        inner = parse_type(args[0])
        if name == "Vec":
            return (Prim("bytes") if inner == Prim("u8") else Seq("vec", inner)), rest
        if name == "Option":
            return Seq("option", inner), rest
        if name == "Box":
            return inner, rest
        raise TableError(f"unknown generic {name}")
    if name in PRIMITIVES:
        return Prim(name), rest
    return Named(name), rest


def _definition(name: str, raw: dict) -> Definition:
    src = raw.get("src", "")
    if "struct" in raw:
        return Struct(name, src, tuple((f, parse_type(t)) for f, t in raw["struct"].items()))
    if "enum" not in raw:
        raise TableError(f"{name}: neither struct nor enum")
    variants = []
    for index, row in enumerate(raw["enum"]):
        vname = row[0]
        if len(row) == 1:
            variants.append(Variant(vname, index, "unit"))
        elif isinstance(row[1], str):
            variants.append(Variant(vname, index, "newtype", items=(parse_type(row[1]),)))
        elif isinstance(row[1], list):
            variants.append(Variant(vname, index, "tuple", tuple(parse_type(t) for t in row[1])))
        elif isinstance(row[1], dict):
            fields = tuple((f, parse_type(t)) for f, t in row[1].items())
            variants.append(Variant(vname, index, "struct", fields=fields))
        else:
            raise TableError(f"{name}::{vname}: bad variant {row!r}")
    return Enum(name, src, tuple(variants), raw.get("other"))


def _refs(ty: TypeRef) -> list[str]:
    if isinstance(ty, Named):
        return [ty.name]
    if isinstance(ty, Seq):
        return _refs(ty.item)
    if isinstance(ty, Tuple):
        return [n for t in ty.items for n in _refs(t)]
    return []


def _check(t: Table) -> None:
    """Every named type resolves; both roots are enums."""
    for root in ("ClientMessage", "ServerMessage"):
        t.enum(root)
    for d in t.types.values():
        types: list[TypeRef] = []
        if isinstance(d, Struct):
            types = [ty for _, ty in d.fields]
        else:
            for v in d.variants:
                types += [*v.items, *(ty for _, ty in v.fields)]
        for ty in types:
            for ref in _refs(ty):
                if ref not in t.types:
                    raise TableError(f"protocol {t.protocol}: {d.name} names unknown type {ref}")


def load(raw: dict) -> Table:
    """A table from its JSON form (checked)."""
    types = {name: _definition(name, d) for name, d in raw["types"].items()}
    t = Table(int(raw["protocol"]), raw.get("source", ""), types)
    _check(t)
    return t


@cache
def table(protocol: int) -> Table:
    """The table of ``protocol`` (one of :data:`PROTOCOLS`), read once."""
    if protocol not in PROTOCOLS:
        raise KeyError(protocol)
    path = os.path.join(os.path.dirname(__file__), "tables", f"p{protocol}.json")
    with open(path, encoding="utf-8") as f:
        # json's C scanner without the json module (its re, enum: ~25M instructions of a
        # terminal verb's Python start); the file is one document
        return load(raw_decode(f.read())[0])
