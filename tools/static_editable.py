"""Make the development environment's editable install a static path (``make env`` runs it).

``pip install -e .`` maps ``simherdr_client`` to ``client/`` (pyproject's package-dir), so
setuptools installs an import hook: a ``.pth`` line that imports its finder module on every
interpreter start in the environment, and that module imports pathlib, re, fnmatch,
urllib.parse and importlib.util (~15 ms of CPU of a ~26 ms bare ``python -c pass``, measured
quiet). The suite starts a few hundred Python processes in this environment (servers,
``simherdr run``, the CLI, snippets): seconds of CPU per run, which no user's install pays
(a wheel install has no hook).

Here the hook is replaced by what it resolves, as plain path lines: the project root (its
``simherdr`` package, as setuptools' own ``compat`` mode does) and a directory holding one
symlink, ``simherdr_client`` -> ``client/``. Both stay editable: a new module appears without
a reinstall. Run again after any ``pip install -e .`` (it rewrites the hook).
"""

from __future__ import annotations

import glob
import os
import sys
import sysconfig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTH = "simherdr-dev.pth"
LINKS = "simherdr-dev-links"


def main() -> int:
    site = sysconfig.get_paths()["purelib"]
    hooks = glob.glob(os.path.join(site, "__editable__.simherdr-*.pth"))
    links = os.path.join(sys.prefix, LINKS)
    os.makedirs(links, exist_ok=True)
    client = os.path.join(links, "simherdr_client")
    if os.path.lexists(client):
        os.unlink(client)
    os.symlink(os.path.join(ROOT, "client"), client)
    with open(os.path.join(site, PTH), "w", encoding="utf-8") as f:
        f.write(f"{ROOT}\n{links}\n")
    for hook in hooks:  # its finder module stays (pip's record of the install), unimported
        os.unlink(hook)
    print(f"static_editable: {os.path.join(site, PTH)} (no import hook at start)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
