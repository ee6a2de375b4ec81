"""The static method index (simherdr.handlers.registry.INDEX) against the real registrations:
it names every registered method, with the area whose import registers it and its kind, and
nothing else; the simulator's table imports an area only when one of its methods is used."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from simherdr.handlers.registry import INDEX, Methods, load_all

# In a fresh interpreter: for each area alone (the handler modules dropped between areas),
# which methods its import registers, with their kinds.
_PROBE = """
import importlib, json, sys
from simherdr.handlers import registry
out = {}
for area in registry.AREAS:
    for name in [m for m in sys.modules if m.startswith("simherdr.handlers.")]:
        if name not in ("simherdr.handlers.registry", "simherdr.handlers.context"):
            del sys.modules[name]
    registry.REGISTRY.clear()
    importlib.import_module("simherdr.handlers." + area)
    out[area] = {n: d.kind for n, d in registry.REGISTRY.items()}
print(json.dumps(out))
"""


def test_index_matches_the_registrations():
    registry = load_all()
    assert {n: d.kind for n, d in registry.items()} == {n: k for n, (_, k) in INDEX.items()}
    probe = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True
    )
    by_area = json.loads(probe.stdout)
    for name, (area, kind) in INDEX.items():
        assert by_area[area].get(name) == kind, f"importing handlers.{area} registers no {name}"


def test_table_knows_every_method_and_imports_areas_lazily():
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from simherdr.handlers.registry import Methods\n"
            "m = Methods()\n"
            "before = sorted(n for n in sys.modules if n.startswith('simherdr.handlers.'))\n"
            "kind = m.kind('events.subscribe')\n"
            "m['ping']\n"
            "after = sorted(n for n in sys.modules if n.startswith('simherdr.handlers.'))\n"
            "print(before, kind, after, len(m), 'pane.list' in m)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.split() == [
        "['simherdr.handlers.registry']",
        "stream",
        "['simherdr.handlers.registry',",
        "'simherdr.handlers.server']",
        str(len(INDEX)),
        "True",
    ]


def test_unknown_method_is_a_key_error():
    table = Methods()
    assert table.get("no.such.method") is None
    assert "no.such.method" not in table
    assert table.kind("no.such.method") is None


def test_a_name_two_modules_claim_is_refused_and_a_reimport_replaces_its_own():
    from simherdr.handlers import registry

    def handler(sim, p):
        return {}

    def other(sim, p):
        return {}

    other.__module__ = "somewhere.else"
    name = "test.registry_probe"
    try:
        registry.method_with(name, {})(handler)
        again = registry.method_with(name, {})(handler)  # the same module, imported again
        assert again is handler and registry.REGISTRY[name].fn is handler
        with pytest.raises(RuntimeError, match="registered twice"):
            registry.method_with(name, {})(other)
    finally:
        registry.REGISTRY.pop(name, None)
