"""How many examples the suite's property tests generate (one place for the budget).

CHOICE (issue 26): `make test` runs every property test at a budget that keeps the whole
suite inside its 45 s on two cores; `make fuzz` runs the property tests deeper, every one by
the same factor (``SIMHERDR_FUZZ_DEPTH``, default 1; `make fuzz` sets 10). A failing example
is printed by Hypothesis with its reproduction, whatever the depth."""

from __future__ import annotations

import os

DEPTH = float(os.environ.get("SIMHERDR_FUZZ_DEPTH", "1") or 1)


def examples(n: int) -> int:
    """``n`` examples at the suite's depth, ``n x SIMHERDR_FUZZ_DEPTH`` under `make fuzz`."""
    return max(1, round(n * DEPTH))
