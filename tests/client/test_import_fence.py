"""HARD RULE: the client never imports simherdr (not even for type hints); it talks to a
``herdr`` binary by argv only, and never through a shell."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

CLIENT = pathlib.Path(__file__).resolve().parents[2] / "client"
STDLIB = set(sys.stdlib_module_names)


def _modules():
    files = sorted(CLIENT.glob("*.py"))
    assert {f.name for f in files} >= {"__init__.py", "runner.py", "fresh_call.py", "opener.py"}
    return [(f, ast.parse(f.read_text(), str(f))) for f in files]


def _imported_names(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                yield node, node.module or ""
            else:
                # relative imports must stay inside client/ (one level, a sibling module)
                assert node.level == 1, f"relative import escapes client/: line {node.lineno}"
                yield node, "client." + (node.module or "")


def test_no_module_imports_simherdr_or_anything_outside_stdlib():
    for path, tree in _modules():
        for node, name in _imported_names(tree):
            top = name.split(".")[0]
            assert top != "simherdr", f"{path.name}:{node.lineno} imports {name}"
            assert top in STDLIB or top == "client", (
                f"{path.name}:{node.lineno} imports non-stdlib {name}"
            )


def test_no_dynamic_import_and_no_shell():
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                # its own names (the import name, the commands) are not the simulator
                text = node.value.replace("simherdr's", "").replace("simherdr_client", "")
                text = text.replace("simherdr-open", "").replace("simherdr-fresh-call", "")
                assert "simherdr" not in text, (
                    f"{path.name}:{node.lineno} mentions simherdr in a string literal"
                )
            if isinstance(node, ast.Call):
                fn = node.func
                name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
                assert name not in (
                    "__import__",
                    "import_module",
                    "system",
                    "popen",
                    "create_subprocess_shell",
                ), f"{path.name}:{node.lineno} calls {name}"
                for kw in node.keywords:
                    assert not (
                        kw.arg == "shell"
                        and not (isinstance(kw.value, ast.Constant) and kw.value.value is False)
                    ), f"{path.name}:{node.lineno} passes shell="


def test_importing_the_client_loads_no_simherdr_module():
    code = (
        "import sys, client, client.runner, client.fresh_call, client.opener;"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'simherdr');"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=str(CLIENT.parent), capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_fence_can_fail(tmp_path):
    bad = ast.parse("from simherdr.testing import ThreadServer\n")
    names = [n for _, n in _imported_names(bad)]
    assert names == ["simherdr.testing"]
