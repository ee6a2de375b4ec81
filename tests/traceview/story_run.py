"""The background job of tests/traceview/test_story.py (tests/background.py): the story
recorded once per run; ``python -m tests.traceview.story_run OUTDIR story``."""

from __future__ import annotations

import sys


def run(key: str) -> str:
    from tests.traceview.test_story import record_story

    return record_story(sys.argv[1])


if __name__ == "__main__":
    from tests import background

    sys.exit(background.main(sys.argv[1], sys.argv[2:], run, 1))
