"""Data files must be listed in pyproject's package-data or they would not be installed
(tests/core/test_install.py checks the package list)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_data_file_is_installed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    # every pattern, as a path relative to the repository root
    patterns = [
        Path(*package.split("."), pattern)
        for package, pats in config["package-data"].items()
        for pattern in pats
    ]
    data = [p for p in (ROOT / "simherdr").rglob("*") if p.suffix in (".toml", ".json")]
    missing = [
        str(p.relative_to(ROOT))
        for p in data
        if not any(p.relative_to(ROOT).match(str(pat)) for pat in patterns)
    ]
    assert not missing, f"add to [tool.setuptools.package-data] simherdr: {missing}"
