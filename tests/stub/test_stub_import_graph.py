"""The stand-in's CLI package has no import cycle, counting every relative import (lazy ones in
function bodies and annotation-only ones under ``TYPE_CHECKING`` too): the command table
(:mod:`simherdr.stub.cli.commands`) is the one thing the core reads to dispatch, the verbs sit
below it, and the per-call context (:mod:`simherdr.stub.cli.ctx`) below them."""

import ast
import functools
from pathlib import Path

import simherdr.stub.cli

PACKAGE = Path(simherdr.stub.cli.__file__).parent


@functools.cache  # the package's files, parsed once for the tests that read the graph
def _graph() -> dict[str, frozenset[str]]:
    modules = {path.stem for path in PACKAGE.glob("*.py")}
    graph = {}
    for name in modules:
        tree = ast.parse((PACKAGE / (name + ".py")).read_text(encoding="utf-8"))
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(alias.name for alias in node.names)
        graph[name] = frozenset(deps & modules - {name})
    return graph


def _cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in sorted(graph[node]):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_in_the_cli_package():
    assert _cycles(_graph()) == []


def test_nothing_imports_the_core_and_the_core_dispatches_through_the_command_table():
    graph = _graph()
    assert [name for name, deps in graph.items() if "core" in deps] == ["__init__"]
    assert "commands" in graph["core"]
    assert not any(name.startswith("rows_") for name in graph["core"])


def test_the_cycle_finder_finds_one():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles({k: frozenset(v) for k, v in graph.items()}) == [["a", "b", "c"]]
