"""What changed on the client socket's wire between two protocols: computed from the tables
(:func:`diff_tables`) and named (``tables/changes.json``: per protocol, the rows that take the
previous protocol's table to this one, each with its herdr source).

A change is one fact a client written for the older table would trip on:

- ``type added`` / ``type removed``: a message type reachable from the two roots;
- ``type kind``: a struct became an enum or back;
- ``variant added`` / ``variant removed`` / ``variant moved`` (its index, so its wire tag,
  changed: every later variant moves when one is inserted or removed before it);
- ``variant shape``: unit, newtype, tuple or struct changed;
- ``field added`` / ``field removed`` / ``field type`` / ``field moved`` (its position among
  the fields both sides have) of a struct (``variant`` empty) or a variant (a newtype's or a
  tuple's items are fields ``0``, ``1``..).

The named rows are checked against the tables by the suite (each protocol's table differs from
the previous one by exactly its rows), so a table edit without its row fails.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from typing import Any

from .schema import PROTOCOLS, Enum, Named, Prim, Struct, Table, Tuple, TypeRef, table

__all__ = [
    "Change",
    "NamedRow",
    "PlaneDiff",
    "diff_tables",
    "named_rows",
    "plane_diff",
    "type_text",
]

_INVERSE = {
    "type added": "type removed",
    "type removed": "type added",
    "variant added": "variant removed",
    "variant removed": "variant added",
    "field added": "field removed",
    "field removed": "field added",
}


@dataclass(frozen=True, order=True)
class Change:
    kind: str
    type: str
    variant: str = ""
    field: str = ""
    detail: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.kind, self.type, self.variant, self.field)

    def inverse(self) -> Change:
        detail = (
            " -> ".join(reversed(self.detail.split(" -> ")))
            if " -> " in self.detail
            else self.detail
        )
        return Change(
            _INVERSE.get(self.kind, self.kind), self.type, self.variant, self.field, detail
        )

    def __str__(self) -> str:
        where = self.type + (f"::{self.variant}" if self.variant else "")
        where += f".{self.field}" if self.field else ""
        return f"{self.kind}: {where}" + (f" ({self.detail})" if self.detail else "")


def type_text(ty: TypeRef) -> str:
    """A type as the tables write it (``Option<Vec<u8>>``)."""
    if isinstance(ty, Prim):
        return "Vec<u8>" if ty.name == "bytes" else ty.name
    if isinstance(ty, Named):
        return ty.name
    if isinstance(ty, Tuple):
        return "(" + ", ".join(type_text(t) for t in ty.items) + ")"
    inner = type_text(ty.item)
    return f"Option<{inner}>" if ty.kind == "option" else f"Vec<{inner}>"


def _fields(shape: str, items: tuple, fields: tuple) -> list[tuple[str, str]]:
    if shape == "struct":
        return [(f, type_text(t)) for f, t in fields]
    return [(str(i), type_text(t)) for i, t in enumerate(items)]


def _diff_fields(
    tname: str, vname: str, a: list[tuple[str, str]], b: list[tuple[str, str]]
) -> list[Change]:
    out = []
    da, db = dict(a), dict(b)
    for f, t in b:
        if f not in da:
            out.append(Change("field added", tname, vname, f, t))
        elif da[f] != t:
            out.append(Change("field type", tname, vname, f, f"{da[f]} -> {t}"))
    out += [Change("field removed", tname, vname, f, t) for f, t in a if f not in db]
    common_a = [f for f, _ in a if f in db]
    common_b = [f for f, _ in b if f in da]
    if common_a != common_b:
        for f in common_b:
            i, j = common_a.index(f), common_b.index(f)
            if i != j:
                out.append(Change("field moved", tname, vname, f, f"{i} -> {j}"))
    return out


def _diff_enum(a: Enum, b: Enum) -> list[Change]:
    out = []
    va = {v.name: v for v in a.variants}
    vb = {v.name: v for v in b.variants}
    for v in b.variants:
        old = va.get(v.name)
        if old is None:
            out.append(Change("variant added", b.name, v.name, "", f"index {v.index}"))
            continue
        if old.index != v.index:
            out.append(
                Change("variant moved", b.name, v.name, "", f"index {old.index} -> {v.index}")
            )
        if old.shape != v.shape:
            out.append(Change("variant shape", b.name, v.name, "", f"{old.shape} -> {v.shape}"))
            continue
        out += _diff_fields(
            b.name,
            v.name,
            _fields(old.shape, old.items, old.fields),
            _fields(v.shape, v.items, v.fields),
        )
    out += [
        Change("variant removed", a.name, v.name, "", f"index {v.index}")
        for v in a.variants
        if v.name not in vb
    ]
    return out


def diff_tables(a: Table, b: Table) -> list[Change]:
    """Every change from table ``a`` to table ``b``, sorted."""
    out = []
    for name, db in b.types.items():
        da = a.types.get(name)
        if da is None:
            out.append(Change("type added", name))
        elif type(da) is not type(db):
            kinds = {Enum: "enum", Struct: "struct"}
            out.append(Change("type kind", name, "", "", f"{kinds[type(da)]} -> {kinds[type(db)]}"))
        elif isinstance(da, Struct) and isinstance(db, Struct):
            out += _diff_fields(
                name,
                "",
                [(f, type_text(t)) for f, t in da.fields],
                [(f, type_text(t)) for f, t in db.fields],
            )
        elif isinstance(da, Enum) and isinstance(db, Enum):
            out += _diff_enum(da, db)
    out += [Change("type removed", name) for name in a.types if name not in b.types]
    return sorted(out)


@dataclass(frozen=True)
class NamedRow:
    """One named difference of ``protocol`` from the protocol before it."""

    protocol: int
    name: str
    summary: str
    source: str
    changes: tuple[Change, ...]


@cache
def _rows_data() -> dict[str, Any]:
    path = os.path.join(os.path.dirname(__file__), "tables", "changes.json")
    with open(path, "rb") as f:
        data: dict[str, Any] = json.load(f)
    return data


def named_rows(protocol: int) -> tuple[NamedRow, ...]:
    """The rows that take the previous protocol's table to ``protocol``'s (none for the first)."""
    raw = _rows_data().get(str(protocol), {"rows": []})
    return tuple(
        NamedRow(
            protocol,
            r["name"],
            r["summary"],
            r["source"],
            tuple(sorted(Change(*c) for c in r["changes"])),
        )
        for r in raw["rows"]
    )


def previous(protocol: int) -> int | None:
    i = PROTOCOLS.index(protocol)
    return PROTOCOLS[i - 1] if i else None


@dataclass(frozen=True)
class PlaneDiff:
    """The client socket between two protocols: each change with the named row it belongs to."""

    protocol_a: int
    protocol_b: int
    changes: tuple[tuple[Change, str | None], ...]  # (change, row name or None)

    def as_json(self) -> dict[str, Any]:
        return {
            "protocol": {"a": self.protocol_a, "b": self.protocol_b},
            "changes": [
                {
                    "kind": c.kind,
                    "type": c.type,
                    "variant": c.variant,
                    "field": c.field,
                    "detail": c.detail,
                    "row": row,
                }
                for c, row in self.changes
            ],
        }


def plane_diff(protocol_a: int, protocol_b: int) -> PlaneDiff:
    """The client socket's changes from ``protocol_a`` to ``protocol_b`` (either order), each
    named by the row of a protocol between them that makes it (several steps: the row of the
    newest step that touches the same member)."""
    changes = diff_tables(table(protocol_a), table(protocol_b))
    lo, hi = sorted((protocol_a, protocol_b))
    steps = [p for p in PROTOCOLS if lo < p <= hi]
    backwards = protocol_a > protocol_b
    by_key: dict[tuple[str, str, str, str], str] = {}
    by_member: dict[tuple[str, str], str] = {}
    for p in steps:  # oldest first: a newer row overrides
        for row in named_rows(p):
            for c in row.changes:
                c = c.inverse() if backwards else c
                by_key[c.key] = row.name
                by_member[(c.type, c.variant)] = row.name
                by_member[(c.type, "")] = by_member.get((c.type, ""), row.name)
    named = tuple(
        (c, by_key.get(c.key) or by_member.get((c.type, c.variant)) or by_member.get((c.type, "")))
        for c in changes
    )
    return PlaneDiff(protocol_a, protocol_b, named)
