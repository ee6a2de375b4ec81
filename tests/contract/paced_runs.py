"""The background job of tests/contract/test_contract.py (tests/background.py): the recorded
cassettes replayed over the socket and through the stand-in, at their recorded pace;
``python -m tests.contract.paced_runs OUTDIR CASE-ID...``."""

from __future__ import annotations

import sys

PREFIX = "tests/contract/test_contract.py::test_cassette["
# replays at once (each mostly sleeps through its recorded gaps; a stub replay spawns a CLI
# call at a time). Few: a recording's margins can be a few ms of wall time (phren's report
# -> pane.get: 8 ms, its shell re-check 20 ms at 50x), and they share the CPU with each other.
AT_ONCE = 3


def key_of(item) -> str | None:
    if not item.nodeid.startswith(PREFIX):
        return None
    from simherdr.handlers.registry import load_all
    from tests.contract.test_contract import paced

    p = item.callspec.params
    if not paced(p["cassette"], p["target"]):
        return None
    if any(n not in load_all() for n in p["cassette"].needs):
        return None  # the test skips before it reads a result
    return item.callspec.id


def run(key: str) -> dict:
    import os
    import shutil
    import tempfile

    from simherdr.simulator import Config
    from tests.contract import test_contract as T

    (case,) = [c for c in T._cases() if c.id == key]
    cassette, target, version = case.values
    d = tempfile.mkdtemp(prefix="paced-")
    try:
        # as the suite's `config` fixture makes it (tests/conftest.py)
        home, cwd = f"{d}/home", f"{d}/server-cwd"
        for path in (home, cwd):
            os.mkdir(path)
        return T.replay(cassette, target, version, Config(home=home, server_cwd=cwd))
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    from tests import background

    sys.exit(background.main(sys.argv[1], sys.argv[2:], run, AT_ONCE))
