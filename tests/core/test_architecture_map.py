"""Every package under simherdr/ is in ARCHITECTURE.md's picture, and in the layers contract
unless the page names it outside the stack (a new package cannot go unmapped)."""

from __future__ import annotations

import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Named in ARCHITECTURE.md's "Outside the stack", not (yet) a layer of the contract.
OUTSIDE_LAYERS = {"stub", "plugins", "apischema"}


def _layers() -> set[str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = pyproject["tool"]["importlinter"]["contracts"]
    (layers,) = [c for c in contracts if c["type"] == "layers"]
    return {m.strip() for row in layers["layers"] for m in row.split("|")}


def test_every_package_is_in_the_picture_and_the_layers():
    page = (ROOT / "ARCHITECTURE.md").read_text()
    packages = sorted(
        p.parent.name for p in (ROOT / "simherdr").glob("*/__init__.py") if p.parent.is_dir()
    )
    assert "model" in packages and "runtime" in packages  # the scan sees the tree
    unmapped = [name for name in packages if f"simherdr/{name}/" not in page]
    assert unmapped == [], "add them to ARCHITECTURE.md's picture"
    layers = _layers()
    unlayered = [
        name for name in packages if f"simherdr.{name}" not in layers and name not in OUTSIDE_LAYERS
    ]
    assert unlayered == [], "add them to the layers contract in pyproject.toml"
