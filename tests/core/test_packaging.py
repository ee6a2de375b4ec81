"""The package list in pyproject.toml is explicit (the thin clients install under another
name), so a new package directory must be listed there or it would not be installed."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_directory_is_installed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "simherdr").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    assert config["package-dir"]["simherdr_client"] == "client"


def test_every_data_file_is_installed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = config["package-data"]["simherdr"]
    pkg = ROOT / "simherdr"
    data = [p for p in pkg.rglob("*") if p.suffix in (".toml", ".json")]
    missing = [
        str(p.relative_to(pkg))
        for p in data
        if not any(p.relative_to(pkg).match(pat) for pat in patterns)
    ]
    assert not missing, f"add to [tool.setuptools.package-data] simherdr: {missing}"
