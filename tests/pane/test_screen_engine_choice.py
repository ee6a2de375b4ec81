"""The one place the screen engine is chosen (simherdr/panes/screens.py): libghostty-vt where
it loads; otherwise the pure-Python screens with one notice per process; on request, the
fallback without a notice."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
from simherdr.panes import screens
a = screens.new_screen(10, 2)
b = screens.new_screen(10, 2)
print(screens.ENGINE, type(a).__name__, type(b).__name__)
"""


def probe(**env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("SIMHERDR_")}
    full.update(env)
    return subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=full, timeout=60
    )


def test_a_missing_library_falls_back_with_one_notice():
    out = probe(SIMHERDR_LIBGHOSTTY_VT="/nonexistent/libghostty-vt.so")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["python", "Screen", "Screen"]
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("simherdr: libghostty-vt is not available (")
    assert "pure-Python" in lines[0]


def test_the_fallback_on_request_says_nothing():
    out = probe(SIMHERDR_SCREEN_ENGINE="python")
    assert (out.returncode, out.stdout.split(), out.stderr) == (
        0,
        ["python", "Screen", "Screen"],
        "",
    )


def test_the_engine_where_it_loads():
    from simherdr.panes import ghostty

    if not ghostty.AVAILABLE:
        return  # nothing to compare: the fallback case above covers this machine
    out = probe()
    assert (out.returncode, out.stdout.split(), out.stderr) == (
        0,
        ["ghostty", "GhosttyScreen", "GhosttyScreen"],
        "",
    )
