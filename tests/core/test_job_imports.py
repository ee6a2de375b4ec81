"""The background jobs' processes (tests/background.py JOBS: ``python -m <job module>``) import
no pytest: an ``import pytest`` is ~0.15 s of CPU, once per job per run, for processes that
use nothing of it (their runs live in modules of their own: tests/stub/scenario_drive.py,
tests/traceview/story_run.py). Checked on the sources: what a job module imports anywhere,
then what each of the suite's modules it reaches imports at its top level (an annotation-only
``if TYPE_CHECKING:`` block is not run, nor tests/__init__.py's cuts for a pytest process)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests import background

ROOT = Path(__file__).resolve().parents[2]
NOT_IN_A_JOB = ("pytest", "_pytest", "hypothesis", "xdist")


def _imported(node: ast.AST, package: str) -> set[str]:
    names: set[str] = set()
    if isinstance(node, ast.Import):
        names.update(alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:  # relative: from the importing module's package
            parts = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join(parts + ([base] if base else []))
        names.add(base)
        names.update(f"{base}.{alias.name}" for alias in node.names)  # submodules named
    return names


def _not_run_in_a_job(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` (annotations only), ``if "_pytest..." in sys.modules:`` (only
    where pytest is imported already: tests/__init__.py's cuts)."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Constant)
        and str(test.left.value).split(".")[0] in NOT_IN_A_JOB
        and [type(op) for op in test.ops] == [ast.In]
        and ast.unparse(test.comparators[0]) == "sys.modules"
    )


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """The statements a module runs when imported in a job's process."""
    out: list[ast.stmt] = []
    todo = list(tree.body)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, ast.If):
            todo.extend(stmt.orelse if _not_run_in_a_job(stmt.test) else stmt.body + stmt.orelse)
        elif isinstance(stmt, ast.Try):
            todo.extend(stmt.body + stmt.orelse + stmt.finalbody)
            for handler in stmt.handlers:
                todo.extend(handler.body)
        else:
            out.append(stmt)
    return out


def _outside_functions(node: ast.AST):
    """``node`` and what it holds, but a function's body (run when called, not imported)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        return
    yield node
    for child in ast.iter_child_nodes(node):
        yield from _outside_functions(child)


def _source(module: str) -> Path | None:
    path = ROOT / Path(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def job_imports(module: str) -> set[str]:
    """Every module the job ``module``'s process may import: anything the job module itself
    imports (in its functions too), and the suite's modules' top-level imports from there."""
    path = _source(module)
    assert path is not None, module
    found = set().union(*(_imported(n, module) for n in ast.walk(ast.parse(path.read_text()))))
    seen, todo = {module}, [m for m in found if m.split(".")[0] == "tests"]
    while todo:
        name = todo.pop()
        if name in seen or (path := _source(name)) is None:
            continue
        seen.add(name)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for stmt in _top_level(ast.parse(path.read_text())):
            for node in _outside_functions(stmt):
                for imported in _imported(node, package):
                    found.add(imported)
                    if imported.split(".")[0] == "tests":
                        todo.append(imported)
    return found


def test_no_background_job_imports_pytest():
    assert [job.module for job in background.JOBS] == [
        "tests.stub.scenario_runs",
        "tests.traceview.story_run",
        "tests.process_runs",
        "tests.process_runs",
        "tests.process_runs",
        "tests.process_runs",
    ]
    for job in background.JOBS:
        found = sorted(m for m in job_imports(job.module) if m.split(".")[0] in NOT_IN_A_JOB)
        assert found == [], (job.module, found)


def test_the_check_sees_an_import_of_pytest_where_a_job_would_run_it(tmp_path):
    # the test modules the runs came from import it: a job importing them is caught
    assert "pytest" in job_imports("tests.stub.test_scenarios_through_standin")
    assert "pytest" in job_imports("tests.traceview.test_story")
    # background.py's own is behind TYPE_CHECKING and in the function its tests call
    assert "pytest" not in job_imports("tests.stub.scenario_runs")
