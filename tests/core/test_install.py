"""Installing simherdr into someone else's project: the package list is complete, nothing is
installed as a top-level ``client``, the typed-package marker and the scenario library ship."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import tomllib
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_package_directory_is_listed_and_client_is_namespaced():
    setup = PROJECT["tool"]["setuptools"]
    listed = set(setup["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "simherdr").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert on_disk <= listed, f"not listed in pyproject: {sorted(on_disk - listed)}"
    assert not any(name == "client" or name.startswith("client.") for name in listed)
    assert setup["package-dir"] == {"simherdr_client": "client"}
    scripts = PROJECT["project"]["scripts"]
    assert scripts["simherdr-open"] == "simherdr_client.commands:open_main"
    assert scripts["simherdr-fresh-call"] == "simherdr_client.commands:fresh_call_main"


def _wheel_inputs() -> str:
    """What the wheel is built from: the packaged trees, the project files the build reads,
    the build backend's and the interpreter's versions (a digest of names and bytes)."""
    import hashlib
    from importlib.metadata import version

    # the backend's version from its metadata: importing setuptools for it was ~65 ms of CPU
    h = hashlib.sha256(f"{version('setuptools')}\0{sys.version}\0".encode())
    files = [ROOT / "pyproject.toml", ROOT / "README.md", ROOT / "LICENSE"]
    for tree in ("simherdr", "client"):
        files += sorted(p for p in (ROOT / tree).rglob("*") if "__pycache__" not in p.parts)
    for f in files:
        if f.is_file():
            h.update(f"{f.relative_to(ROOT)}\0".encode() + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _wheel_dir(request, tmp_path: pathlib.Path) -> pathlib.Path:
    """Where the wheel is built: under pytest's cache, named by :func:`_wheel_inputs`, so it
    builds once per content of what it packages (~0.5 s of CPU), not once per
    run; a fresh ``tmp_path`` without the cache (-p no:cacheprovider)."""
    if not request.config.pluginmanager.hasplugin("cacheprovider"):
        return tmp_path
    return pathlib.Path(request.config.cache.mkdir("simherdr-wheel")) / _wheel_inputs()


def test_the_wheel_has_no_top_level_client(request, tmp_path):
    out = _wheel_dir(request, tmp_path)
    if not list(out.glob("simherdr-*.whl")):
        _build_wheel(out, kept=out != tmp_path)
    (wheel,) = out.glob("simherdr-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert {"simherdr", "simherdr_client"} <= tops and "client" not in tops
    assert "simherdr/py.typed" in names and "simherdr_client/py.typed" in names
    assert "simherdr/scenarios/library/busy-shell.toml" in names
    assert "simherdr_client/commands.py" in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry).decode()
    assert "simherdr-open = simherdr_client.commands:open_main" in text


def _build_wheel(out: pathlib.Path, kept: bool) -> None:
    tmp = out.with_name(out.name + f".{os.getpid()}.tmp") if kept else out
    tmp.mkdir(parents=True, exist_ok=True)
    # the build backend's PEP 517 hook in the project's directory, as `pip wheel --no-deps
    # --no-build-isolation` calls it (the test extra's setuptools), without pip's start
    # (~0.8 s of CPU of the ~1.3 s); the same wheel, file for file
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from setuptools import build_meta; build_meta.build_wheel(sys.argv[1])",
            str(tmp),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    if kept:
        shutil.rmtree(out, ignore_errors=True)
        os.replace(tmp, out)  # a kept wheel is a whole one
