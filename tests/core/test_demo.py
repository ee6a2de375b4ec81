"""`make demo` keeps working: it drives a simulator process through the stand-in binary."""

import subprocess
import sys


def test_demo_runs_end_to_end():
    p = subprocess.run(
        [sys.executable, "-m", "simherdr", "demo"], capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "agent status over the session: idle -> working -> done -> idle" in p.stdout
    assert "socket removed: True" in p.stdout
    assert '"code":"pane_not_found"' in p.stdout
