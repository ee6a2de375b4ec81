"""What every fault shares: which requests it applies to (the matcher) and its bookkeeping.

A fault applies to a request when, in this order:

1. ``method`` (an ``fnmatch`` glob, e.g. ``"agent.*"``) matches the method name;
2. ``params`` matches: a dict of expected values (a string value may be a glob: ``{"pane_id":
   "w1:*"}``; every key must be present in the request's parsed params), or a callable
   ``params(dict) -> bool``;
3. simulated time is inside the toxicity window: from ``start`` seconds after the fault was
   added, for ``duration`` seconds (None: for ever);
4. ``count`` (None: unlimited) still has applications left;
5. a roll of the fault's RNG (``random.Random(seed)``) falls under ``probability``.

Only a request that passes 1-4 rolls the RNG, so a given ``seed`` and request sequence always
pick the same requests. Each application decrements ``count`` and increments ``hits``. Times are
simulated seconds on the simulator's clock (the VirtualClock of a Harness, the scaled clock of
``simherdr serve --time-scale``).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any


@dataclass(kw_only=True)
class Fault:
    type = "fault"  # class attribute: the registry's and the control plane's name

    name: str | None = None
    method: str = "*"
    params: dict | Callable[[dict], bool] | None = None
    count: int | None = None
    probability: float = 1.0
    seed: int | None = 0
    start: float = 0.0
    duration: float | None = None
    hits: int = field(default=0, init=False)
    added_at: float | None = field(default=None, init=False)
    sim: Any = field(default=None, init=False, repr=False)
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.method, str) or not self.method:
            raise ValueError("method must be a non-empty glob")
        if self.params is not None and not (isinstance(self.params, dict) or callable(self.params)):
            raise ValueError("params must be a dict of expected values or a predicate")
        if self.count is not None and (not isinstance(self.count, int) or self.count < 0):
            raise ValueError("count must be a non-negative integer or None")
        if not 0.0 <= float(self.probability) <= 1.0:
            raise ValueError("probability must be between 0 and 1")
        if self.start < 0 or (self.duration is not None and self.duration < 0):
            raise ValueError("start and duration must not be negative")
        self.rng = random.Random(self.seed)

    # --- lifecycle (the registry calls these) -----------------------------------------------

    def attach(self, sim) -> None:
        self.sim = sim
        self.added_at = sim.now()

    def detach(self) -> None:
        """Removed from the registry: a fault that holds requests lets them go."""

    # --- matching ---------------------------------------------------------------------------

    def window(self) -> tuple[float, float | None]:
        base = self.added_at or 0.0
        begin = base + self.start
        return begin, None if self.duration is None else begin + self.duration

    def in_window(self, now: float) -> bool:
        begin, end = self.window()
        return begin <= now and (end is None or now < end)

    def params_match(self, params: dict) -> bool:
        want = self.params
        if want is None:
            return True
        if callable(want):
            return bool(want(params))
        for key, expected in want.items():
            if key not in params:
                return False
            got = params[key]
            if isinstance(expected, str) and isinstance(got, str):
                if not fnmatchcase(got, expected):
                    return False
            elif got != expected:
                return False
        return True

    def applies(self, sim, call) -> bool:
        """Decide (and account for) one request; True when the fault acts on it."""
        if self.added_at is None:
            self.attach(sim)
        if not fnmatchcase(call.method, self.method) or not self.params_match(call.params):
            return False
        if not self.in_window(sim.now()):
            return False
        if self.count is not None and self.count <= 0:
            return False
        if self.probability < 1.0 and self.rng.random() >= self.probability:
            return False
        if self.count is not None:
            self.count -= 1
        self.hits += 1
        return True

    # --- acting -----------------------------------------------------------------------------

    async def intercept(self, call, proceed):
        """Act on one matched request; ``await proceed()`` runs the rest of the chain and the
        method and returns its reply (a dict, or None for no reply)."""
        return await proceed()

    # --- description (fault.list) -----------------------------------------------------------

    def describe(self) -> dict:
        out: dict = {"name": self.name, "type": self.type}
        for f in dataclasses.fields(self):
            if not f.init or f.name == "name":
                continue
            value = getattr(self, f.name)
            if callable(value) and not isinstance(value, (dict, list, tuple)):
                value = "<predicate>"
            out[f.name] = value
        out["hits"] = self.hits
        return out
