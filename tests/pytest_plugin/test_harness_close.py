"""Issue 25 item 9: a Harness left unclosed at interpreter exit closes quietly (one
ResourceWarning when warnings are shown, saying what to do); it is a context manager."""

from __future__ import annotations

import subprocess
import sys

import pytest

from simherdr.testing import Harness

UNCLOSED = """
from simherdr.testing import Harness
hs = [Harness({version!r}) for _ in range(2)]
for h in hs:
    h.ok("workspace.create", cwd="/tmp")
    h.spawn("pane.wait_for_output", pane_id="w1:p1",
            match={{"type": "substring", "value": "never"}}, timeout_ms=100000)
hs[0].load_scenario("pane-reused-after-restart")
print("done")
"""


@pytest.mark.parametrize("warnings", [[], ["-W", "always"]])
def test_an_unclosed_harness_closes_quietly_at_exit(version, warnings):
    proc = subprocess.run(
        [sys.executable, *warnings, "-c", UNCLOSED.format(version=version)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout == "done\n", proc
    assert "Task was destroyed" not in proc.stderr and "Event loop is closed" not in proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    if not warnings:
        assert proc.stderr == ""
    else:  # once for both, with what to do
        assert proc.stderr.count("ResourceWarning") == 1, proc.stderr
        assert "use `with Harness(...) as h:`" in proc.stderr


def test_harness_is_a_context_manager_and_close_is_idempotent(version):
    with Harness(version) as h:
        h.ok("workspace.create", cwd="/tmp")
        loop = h.loop
    assert loop.is_closed()
    h.close()  # again: nothing to do
