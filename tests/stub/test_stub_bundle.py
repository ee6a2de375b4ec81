"""The stand-in's compact form (simherdr/stub/install.py, simherdr/stub/boot.py): what a call
runs is what the project tree holds, and a launcher whose bundle cannot be used still works."""

from __future__ import annotations

import marshal
import os
import shutil
import subprocess

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
    herdr = install.write_stub(str(directory), "0.8.2")
    first = _bundles(directory)
    assert len(first) == 1 and sorted(os.listdir(directory)) == sorted(first + ["herdr"])
    install.write_stub(str(directory), "0.9.3")
    assert len(_bundles(directory)) == 1 and _bundles(directory) != first
    assert _run(herdr, "--version").stdout == b"herdr 0.9.3\n"


def test_a_source_edited_after_install_is_imported_from_its_file(tree, tmp_path):
    herdr = install.write_stub(str(tmp_path / "bin"), "0.9.3")
    assert _run(herdr, "--version").stdout == b"herdr 0.9.3\n"
    core = tree / "simherdr" / "stub" / "cli" / "core.py"
    core.write_text(core.read_text() + "\nprint('edited core')\n")
    out = _run(herdr, "--version").stdout  # (print's text buffer flushes after the CLI's bytes)
    assert sorted(out.splitlines()) == [b"edited core", b"herdr 0.9.3"]


@pytest.mark.parametrize("damage", ["removed", "another interpreter"])
def test_without_a_usable_bundle_the_launcher_runs_the_tree(fake, tmp_path, damage):
    fake.on("pane.get", ok())
    herdr = install.write_stub(str(tmp_path / "bin"), "0.8.2")
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
