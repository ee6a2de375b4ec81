"""Whole-tree source scans (tests/core/test_module_size.py, tests/facts/test_no_version_literals.py)
computed per file and kept by content, as the interpreter keeps a .pyc.

A file's result is a pure function of its bytes and of the scanning code, so it is kept under
pytest's cache (``.pytest_cache``), named by the hash of both: a file that changed, or a scan
whose module changed, is scanned again; every other file's result is the one its bytes gave
last time. Without the cache plugin (``-p no:cacheprovider``) everything is scanned. A tokenize
of the whole tree costs ~2 s of CPU, an AST walk of it ~1.4 s; reading and hashing it ~20 ms.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest


def per_file(
    config: pytest.Config,
    name: str,
    scanner: str,
    files: Iterable[Path],
    scan: Callable[[str], object],
) -> list[tuple[Path, object]]:
    """``scan(text)`` for each of ``files`` (JSON-able results), those of unchanged files
    (same bytes, same ``scanner`` file) from the cache ``name``."""
    salt = hashlib.sha256(Path(scanner).read_bytes()).digest()
    cache = _dir(config, name)
    seen: dict[str, object] = {}
    if cache is not None:
        try:
            seen = json.loads((cache / "results.json").read_text())
        except (OSError, ValueError):
            seen = {}
    out, now = [], {}
    for path in files:
        data = path.read_bytes()
        key = hashlib.sha256(salt + data).hexdigest()
        # a new result goes through JSON too: the same shape as one read back from the cache
        result = seen[key] if key in seen else json.loads(json.dumps(scan(data.decode("utf-8"))))
        now[key] = result
        out.append((path, result))
    if cache is not None and now.keys() != seen.keys():
        tmp = cache / f".results.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(now))
        os.replace(tmp, cache / "results.json")  # only the current files' results are kept
    return out


def _dir(config: pytest.Config, name: str) -> Path | None:
    if not config.pluginmanager.hasplugin("cacheprovider"):
        return None
    return Path(config.cache.mkdir(f"simherdr-scan-{name}"))
