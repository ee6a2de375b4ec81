"""Per-protocol stability: each protocol's table differs from the previous one by exactly its
named rows (protocol/tables/changes.json), and a message no row touches encodes to the same
bytes under both protocols. ``contract diff`` names this plane's changes between releases."""

from __future__ import annotations

import json
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simherdr.protocol import PROTOCOLS, wire_for
from simherdr.protocol.changes import Change, diff_tables, named_rows, plane_diff, previous
from simherdr.protocol.schema import Named, Seq, Struct, Table, Tuple, TypeRef, table
from tests.budget import examples
from tests.inproc import simherdr_main
from tests.protocol import strategies

STEPS = [(previous(p), p) for p in PROTOCOLS if previous(p) is not None]


@pytest.mark.parametrize(("old", "new"), STEPS)
def test_each_table_differs_from_the_previous_by_exactly_its_named_rows(old, new):
    rows = named_rows(new)
    named = sorted(c for r in rows for c in r.changes)
    assert named == diff_tables(table(old), table(new)), "a table edit needs its named row"
    assert len(named) == len(set(named)), "a change belongs to one row"
    assert len({r.name for r in rows}) == len(rows)
    for r in rows:
        assert r.changes and r.summary and r.source, r.name


def test_the_rows_pin_what_the_brief_names():
    rows = {r.name: r for r in named_rows(20)}
    added = [
        (c.type, c.variant) for r in rows.values() for c in r.changes if c.kind == "variant added"
    ]
    assert sorted(v for t, v in added if t == "ClientMessage") == [
        "GraphicsTransmissionResult",
        "GraphicsTransmissionStarted",
        "InputPixels",
    ]
    assert sorted(v for t, v in added if t == "ServerMessage") == [
        "GraphicsFile",
        "GraphicsTransmissionRetired",
        "TerminalBell",
    ]
    assert Change("field added", "ServerMessage", "MouseCapture", "sgr_pixels", "bool") in (
        rows["mouse_capture_sgr_pixels"].changes
    )
    # the one a terminal-attach client trips on: its Hello's launch_mode tag
    assert Change("variant moved", "ClientLaunchMode", "TerminalAttach", "", "index 1 -> 2") in (
        rows["launch_mode_app_direct_graphics"].changes
    )


def _shape(t: Table, d) -> tuple:
    if isinstance(d, Struct):
        return ("struct", d.fields)
    return ("enum", tuple((v.name, v.shape, v.items, v.fields) for v in d.variants), d.other)


def _closure(t: Table, ty: TypeRef, seen: dict) -> dict:
    if isinstance(ty, Named) and ty.name not in seen:
        d = t.types[ty.name]
        seen[ty.name] = _shape(t, d)
        if isinstance(d, Struct):
            for _, f in d.fields:
                _closure(t, f, seen)
        else:
            for v in d.variants:
                for f in (*v.items, *(ft for _, ft in v.fields)):
                    _closure(t, f, seen)
    elif isinstance(ty, Seq):
        _closure(t, ty.item, seen)
    elif isinstance(ty, Tuple):
        for i in ty.items:
            _closure(t, i, seen)
    return seen


def _untouched(old: Table, new: Table) -> list[tuple[str, str]]:
    """(root, variant) whose index, fields and every type they reach are the same in both."""
    out = []
    for root in ("ClientMessage", "ServerMessage"):
        a, b = old.enum(root), new.enum(root)
        for v in a.variants:
            w = b.variant(v.name)
            if w is None or (v.index, v.shape, v.items, v.fields) != (
                w.index,
                w.shape,
                w.items,
                w.fields,
            ):
                continue
            refs = [*v.items, *(ft for _, ft in v.fields)]
            if all(_closure(old, r, {}) == _closure(new, r, {}) for r in refs):
                out.append((root, v.name))
    return out


UNTOUCHED = [
    pytest.param(old, new, root, name, id=f"{old}-{new}-{root.removesuffix('Message')}-{name}")
    for old, new in STEPS
    for root, name in _untouched(table(old), table(new))
]


def test_the_untouched_variants_are_the_terminal_attach_core():
    by_step = {
        (o, n): {name for oo, nn, _, name in (p.values for p in UNTOUCHED) if (oo, nn) == (o, n)}
        for o, n in STEPS
    }
    assert {
        "Input",
        "AttachTerminal",
        "Detach",
        "ObserveTerminal",
        "Welcome",
        "Terminal",
    } <= by_step[(19, 20)]
    assert "Hello" not in by_step[(19, 20)]  # its launch_mode's tags moved
    # 0.9.x keeps Input, Detach, AttachTerminal, AttachScroll and Welcome at their tags
    assert {"Input", "Detach", "AttachTerminal", "AttachScroll", "Welcome"} <= by_step[(20, 22)]
    assert "Terminal" not in by_step[(20, 22)]  # its tag moved 2 -> 1


@pytest.mark.parametrize(("old", "new", "root", "name"), UNTOUCHED)
@settings(max_examples=examples(5), deadline=None)
@given(data=st.data())
def test_an_untouched_variant_is_byte_identical_across_protocols(old, new, root, name, data):
    wa, wb = wire_for(old), wire_for(new)
    value = data.draw(strategies.variant(wa.table, wa.table.enum(root), name))
    payload = wa.encode(root, value)
    assert wb.encode(root, value) == payload
    assert wb.decode(root, payload) == value


def test_plane_diff_across_two_steps_names_every_change_both_ways():
    forward = plane_diff(19, 22)
    assert forward.changes and all(row for _, row in forward.changes)
    backward = plane_diff(22, 19)
    assert all(row for _, row in backward.changes)
    kinds = {c.kind for c, _ in backward.changes}
    assert "variant removed" in kinds and "type removed" in kinds
    # 0.9.3 -> 0.8.0 removes what 0.8.0 -> 0.9.3 added, under the same row
    fwd = {(c.type, c.variant): row for c, row in forward.changes if c.kind == "variant added"}
    back = {(c.type, c.variant): row for c, row in backward.changes if c.kind == "variant removed"}
    assert fwd == back


def _cli(*args: str) -> subprocess.CompletedProcess:
    """``simherdr contract diff ARGS`` in process (tests/inproc.py; the command as a process:
    tests/contract/test_diff.py's markdown report)."""
    return simherdr_main("contract", "diff", *args)


def test_contract_diff_between_releases_names_the_client_socket_changes(tmp_path):
    r = _cli("0.8.2", "0.9.3", "--format", "json")
    assert r.returncode == 0, r.stderr
    plane = json.loads(r.stdout)["client_socket"]
    assert plane["protocol"] == {"a": 20, "b": 22}
    assert plane["compatible"] is False
    hello = [c for c in plane["changes"] if c["variant"] in ("Hello", "TerminalHello")]
    assert {(c["kind"], c["variant"], c["row"]) for c in hello} == {
        ("variant removed", "Hello", "terminal_hello"),
        ("variant added", "TerminalHello", "terminal_hello"),
    }
    assert {"terminal_hello", "client_message_tags_shifted", "pane_surface"} <= {
        row["name"] for row in plane["rows"]
    }
    md = _cli("0.8.1", "0.8.2")
    assert md.returncode == 0
    assert "protocol 20 on both sides: the same wire." in md.stdout


def test_contract_diff_of_two_corpora_carries_the_plane(tmp_path):
    from simherdr.contract import diff as D
    from simherdr.contract.cassette import from_json

    def corpus(version):
        return [
            from_json(
                {"name": "x", "provenance": {"herdr_version": version}, "steps": []}, "x.json"
            )
        ]

    report = D.diff_corpora(corpus("0.8.0"), corpus("0.8.2"))
    assert report["client_socket"]["protocol"] == {"a": 19, "b": 20}
    assert "## client socket (`<stem>-client.sock`)" in D.to_markdown(report)
    assert (
        "| variant added | ServerMessage | TerminalBell |  | index 12 | terminal_bell |"
        in D.to_markdown(report)
    )
