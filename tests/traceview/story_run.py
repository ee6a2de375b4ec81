"""The background job of tests/traceview/test_story.py (tests/background.py): the story
recorded once per run; ``python -m tests.traceview.story_run OUTDIR story``. The story is here,
not in the test module: the job's process imports no pytest (~0.15 s of CPU)."""

from __future__ import annotations

import subprocess
import sys

# 3 s, 2 s and 4 s of simulated idle time between commands, at --time-scale 1 (real time: a
# stand-in call's own wall time, simulated time too, stays small beside them on a loaded
# machine; at 2 the calls' spans of a loaded run took the width the agent's life should have).
# The story runs in the background (tests/background.py): its ~20 s of wall time cost no worker.
TIME_SCALE = "1"
STORY = """#!/bin/sh
herdr workspace create --cwd /tmp >/dev/null
sleep 3
herdr pane split w1:p1 --direction right >/dev/null
sleep 2
herdr agent start a1 --kind pi --pane w1:p1 >/dev/null
sleep 4
herdr agent prompt a1 "fix the bug" --wait --until idle --until done --timeout 60000 >/dev/null
sleep 2
herdr agent list >/dev/null
"""


def record_story(tmp: str) -> str:
    """Run the story under ``simherdr run``; the path of its trace."""
    from pathlib import Path

    d = Path(tmp)
    (d / "story.sh").write_text(STORY)
    (d / "story.sh").chmod(0o755)
    trace = d / "story.jsonl"
    p = subprocess.run(
        [sys.executable, "-m", "simherdr", "run", "--time-scale", TIME_SCALE, "--scenario",
         "agent-vanishes-mid-run", "--trace", str(trace), "--", str(d / "story.sh")],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    return str(trace)


def run(key: str) -> str:
    return record_story(sys.argv[1])


if __name__ == "__main__":
    from tests import background

    sys.exit(background.main(sys.argv[1], sys.argv[2:], run, 1))
