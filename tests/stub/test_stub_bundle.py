"""The stand-in's compact form (simherdr/stub/install.py, simherdr/stub/boot.py): what a call
runs is what the project tree holds, and a launcher whose bundle cannot be used still works."""

from __future__ import annotations

import marshal
import os
import shutil
import subprocess
import sys

import pytest
from stub_fake import ok

import simherdr
from simherdr.stub import install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(simherdr.__file__)))


def _run(herdr, *argv, socket=None):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    if socket:
        env["HERDR_SOCKET_PATH"] = socket
    return subprocess.run([herdr, *argv], capture_output=True, env=env)


def _bundles(directory):
    return sorted(e for e in os.listdir(directory) if e.endswith(".bundle"))


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A copy of the stand-in's part of the project (the stub, its facts), installed from."""
    root = tmp_path / "root"
    ignore = shutil.ignore_patterns("__pycache__")
    (root / "simherdr").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "simherdr", "__init__.py"), root / "simherdr")
    for part in ("stub", "facts"):
        shutil.copytree(
            os.path.join(ROOT, "simherdr", part), root / "simherdr" / part, ignore=ignore
        )
    monkeypatch.setattr(install, "_project_root", lambda: str(root))
    return root


def test_one_bundle_beside_the_launcher_replaced_on_reinstall(tmp_path):
    directory = tmp_path / "bin"
    herdr = install.write_stub(str(directory), "0.8.2", native=False)
    first = _bundles(directory)
    assert len(first) == 1 and sorted(os.listdir(directory)) == sorted(first + ["herdr"])
    install.write_stub(str(directory), "0.9.3", native=False)
    assert len(_bundles(directory)) == 1 and _bundles(directory) != first
    assert _run(herdr, "--version").stdout == b"herdr 0.9.3\n"


def test_a_source_edited_after_install_is_imported_from_its_file(tree, tmp_path):
    herdr = install.write_stub(str(tmp_path / "bin"), "0.9.3", native=False)
    assert _run(herdr, "--version").stdout == b"herdr 0.9.3\n"
    core = tree / "simherdr" / "stub" / "cli" / "core.py"
    core.write_text(core.read_text() + "\nprint('edited core')\n")
    out = _run(herdr, "--version").stdout  # (print's text buffer flushes after the CLI's bytes)
    assert sorted(out.splitlines()) == [b"edited core", b"herdr 0.9.3"]


@pytest.mark.parametrize("damage", ["removed", "another interpreter"])
def test_without_a_usable_bundle_the_launcher_runs_the_tree(fake, tmp_path, damage):
    fake.on("pane.get", ok())
    herdr = install.write_stub(str(tmp_path / "bin"), "0.8.2", native=False)
    (bundle,) = _bundles(tmp_path / "bin")
    path = tmp_path / "bin" / bundle
    if damage == "removed":
        path.unlink()
    else:  # another interpreter's bytecode (its magic number differs): never unmarshalled
        data = path.read_bytes()
        other = marshal.dumps((compile("raise SystemExit('ran')", "x", "exec"),))
        path.write_bytes(bytes([data[0] ^ 0xFF]) + data[1:4] + other + data[4 + len(other) :])
    assert _run(herdr, "--version").stdout == b"herdr 0.8.2\n"
    res = _run(herdr, "pane", "get", "w1:p1", socket=fake.path)
    assert (res.returncode, res.stdout, res.stderr) == (
        0,
        b'{"id":"cli:pane:get","result":{"type":"ok"}}\n',
        b"",
    )
    assert fake.calls() == [("ping", "api-client:status"), ("pane.get", "cli:pane:get")]


def test_the_bundles_import_statement_keeps_pythons_answers(tmp_path):
    """Bundle.import_ (builtins.__import__ in a stand-in process) answers each form of the
    import statement the way the interpreter's own does; what the bundle does not hold, or
    cannot answer, is the original's."""
    herdr = install.write_stub(str(tmp_path / "bin"), "0.9.3", native=False)
    (bundle,) = _bundles(tmp_path / "bin")
    code = f"""
import builtins, marshal, posix, sys
fd = posix.open({str(tmp_path / "bin" / bundle)!r}, posix.O_RDONLY)
head = marshal.loads(posix.read(fd, 1 << 20)[4:])
scope = {{}}
"""
    # boot.py's Bundle, as the head carries it (its last statement, start(f, b), left out)
    code += """
src = open(sys.argv[1]).read()
exec(compile(src, sys.argv[1], "exec"), scope)
_, root, modules, extensions, _release = head
bundle = scope["Bundle"](fd, root, modules, extensions, builtins.__import__)
original = builtins.__import__
builtins.__import__ = bundle.import_
import simherdr.stub.cli.table
assert simherdr.stub.cli.table.__loader__ is bundle, simherdr.stub.cli.table.__loader__
import simherdr.stub.cli.wire as wire
assert wire is sys.modules["simherdr.stub.cli.wire"] and wire.__loader__ is bundle
from simherdr.stub.cli import scan
assert scan.__loader__ is bundle and simherdr.stub.cli.scan is scan
from simherdr.facts import versions  # not in the bundle: the path finder's
assert type(versions.__loader__).__name__ == "SourceFileLoader"
import _socket
assert _socket.__spec__.loader.__class__.__name__ == "ExtensionFileLoader"
from simherdr.stub.cli import *  # __all__: the original's
assert run is simherdr.stub.cli.core.run
for args in (("x", {"__package__": "simherdr"}, None, ("y",), 3), ("nope", None, None, (), 0)):
    errors = []
    for imp in (bundle.import_, original):
        try:
            imp(*args)
        except ImportError as exc:
            errors.append((type(exc), str(exc)))
    assert len(errors) == 2 and errors[0] == errors[1], errors
print("ok")
"""
    import sys

    boot = os.path.join(ROOT, "simherdr", "stub", "boot.py")
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, boot], capture_output=True, text=True
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "ok\n", "")
    assert _run(herdr, "--version").stdout == b"herdr 0.9.3\n"


def test_an_install_takes_the_code_from_a_valid_pyc_only(tree, tmp_path, monkeypatch):
    """An install reads each module's code from its .pyc when the cache is valid for the
    source (an install compiles nothing twice), never from a .pyc of an older source."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(install, "_CODE_CACHE", {})
    herdr = install.write_stub(
        str(tmp_path / "bin"), "0.9.3", native=False
    )  # compiles, writes the .pyc
    core = tree / "simherdr" / "stub" / "cli" / "core.py"
    pyc = (
        tree
        / "simherdr"
        / "stub"
        / "cli"
        / "__pycache__"
        / f"core.{sys.implementation.cache_tag}.pyc"
    )
    assert pyc.exists()
    first = _module_blobs(tmp_path / "bin")
    monkeypatch.setattr(install, "_CODE_CACHE", {})
    install.write_stub(str(tmp_path / "bin"), "0.9.3", native=False)  # from the .pyc files
    second = _module_blobs(tmp_path / "bin")
    assert first.keys() == second.keys() and len(first) > 40
    assert all(marshal.loads(first[m]) == marshal.loads(second[m]) for m in first)
    # a newer source beside the old .pyc: compiled again, its code in the bundle
    stale = pyc.read_bytes()
    core.write_text(core.read_text() + "\nprint('edited core')\n")
    os.utime(core, ns=(os.stat(core).st_atime_ns, os.stat(core).st_mtime_ns + 2 * 10**9))
    pyc.write_bytes(stale)
    monkeypatch.setattr(install, "_CODE_CACHE", {})
    install.write_stub(str(tmp_path / "bin"), "0.9.3", native=False)
    out = _run(herdr, "--version").stdout
    assert sorted(out.splitlines()) == [b"edited core", b"herdr 0.9.3"]
    assert (
        _module_blobs(tmp_path / "bin")["simherdr.stub.cli.core"] != first["simherdr.stub.cli.core"]
    )


def _module_blobs(directory):
    (bundle,) = _bundles(directory)
    data = (directory / bundle).read_bytes()
    modules = marshal.loads(data[4:])[2]
    return {name: data[entry[0] : entry[0] + entry[1]] for name, entry in modules.items()}
