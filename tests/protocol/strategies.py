"""Hypothesis strategies for any type of a protocol's table, built from the table itself (so
a variant added to a table is generated without a test change)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from simherdr.protocol.schema import Enum, Prim, Seq, Struct, Table, Tuple, TypeRef

_INT_BITS = {"u16": 16, "u32": 32, "u64": 64, "u128": 128, "usize": 64}
_SIGNED_BITS = {"i16": 16, "i32": 32, "i64": 64, "i128": 128, "isize": 64}


def _ints(bits: int, signed: bool) -> st.SearchStrategy[int]:
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    # the varint boundaries (250/251, 2^16, 2^32, 2^64) come up often, not by luck
    edges = [
        x for x in (0, 1, 250, 251, 252, 0xFFFF, 0x10000, 0xFFFF_FFFF, 1 << 32) if lo <= x <= hi
    ]
    edges += [x for x in (-1, -126, -125, -(1 << 15), lo, hi) if lo <= x <= hi]
    return st.one_of(st.sampled_from(edges), st.integers(lo, hi))


def prim(name: str) -> st.SearchStrategy[Any]:
    if name == "u8":
        return st.integers(0, 255)
    if name == "i8":
        return st.integers(-128, 127)
    if name in _INT_BITS:
        return _ints(_INT_BITS[name], False)
    if name in _SIGNED_BITS:
        return _ints(_SIGNED_BITS[name], True)
    if name == "bool":
        return st.booleans()
    if name == "char":
        return st.characters(codec="utf-8")
    if name == "String":
        return st.text(st.characters(codec="utf-8"), max_size=20)
    if name in ("bytes", "ByteBuf"):
        return st.one_of(st.binary(max_size=16), st.binary(min_size=251, max_size=300))
    if name == "f64":
        return st.floats(allow_nan=False)
    if name == "f32":
        return st.floats(allow_nan=False, width=32)
    if name == "()":
        return st.none()
    raise AssertionError(f"no strategy for {name}")


def of(table: Table, ty: TypeRef) -> st.SearchStrategy[Any]:
    if isinstance(ty, Prim):
        return prim(ty.name)
    if isinstance(ty, Seq):
        inner = of(table, ty.item)
        return st.none() | inner if ty.kind == "option" else st.lists(inner, max_size=2)
    if isinstance(ty, Tuple):
        return st.tuples(*(of(table, t) for t in ty.items)).map(list)
    return named(table, ty.name)


#: named types' strategies by (table, name), the table kept to check the id is its own
_NAMED: dict[tuple[int, str], tuple[Table, st.SearchStrategy[Any]]] = {}


def named(table: Table, name: str) -> st.SearchStrategy[Any]:
    """A named type's values, built once per (table, name): the message variants share their
    structs and enums, each validated once."""
    hit = _NAMED.get((id(table), name))
    if hit is not None and hit[0] is table:
        return hit[1]
    strategy = _named(table, name)
    _NAMED[(id(table), name)] = (table, strategy)
    return strategy


def _named(table: Table, name: str) -> st.SearchStrategy[Any]:
    d = table.types[name]
    if isinstance(d, Struct):
        return st.fixed_dictionaries(
            {f: st.deferred(lambda t=t: of(table, t)) for f, t in d.fields}
        )
    return st.one_of(*(variant(table, d, v.name) for v in d.variants))


#: variant strategies by (table, enum, variant), the table kept to check the id is its own
_VARIANTS: dict[tuple[int, str, str], tuple[Table, st.SearchStrategy[Any]]] = {}


def variant(table: Table, d: Enum, name: str) -> st.SearchStrategy[Any]:
    """One variant's values, built once per (table, enum, variant): the tests draw it on every
    example, and Hypothesis validates a strategy built anew by walking all of it again (what
    it draws is the same either way)."""
    key = (id(table), d.name, name)
    hit = _VARIANTS.get(key)
    if hit is not None and hit[0] is table:
        return hit[1]
    strategy = _variant(table, d, name)
    _VARIANTS[key] = (table, strategy)
    return strategy


def _variant(table: Table, d: Enum, name: str) -> st.SearchStrategy[Any]:
    v = d.variant(name)
    assert v is not None
    if v.shape == "unit":
        return st.just(name)
    if v.shape == "newtype":
        return of(table, v.items[0]).map(lambda x: {name: x})
    if v.shape == "tuple":
        return of(table, Tuple(v.items)).map(lambda x: {name: x})
    return st.fixed_dictionaries({f: of(table, t) for f, t in v.fields}).map(lambda x: {name: x})


def message_variants(table: Table) -> list[tuple[str, str]]:
    """(root enum, variant name) for every variant of both message enums."""
    return [
        (root, v.name)
        for root in ("ClientMessage", "ServerMessage")
        for v in table.enum(root).variants
    ]
