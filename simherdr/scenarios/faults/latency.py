"""latency: slow replies (toxiproxy's ``latency`` toxic).

A matching request is delayed by ``ms`` milliseconds of simulated time (the simulator's clock),
plus a uniform jitter in ``[-jitter_ms, +jitter_ms]`` drawn from the fault's seeded RNG (never
below zero). ``stage="reply"`` (default): herdr answers at once and the reply reaches the client
late, so by then the state it describes may have moved on; ``stage="request"``: the request
reaches herdr late (what it changes, it changes late).

CHOICE: a delayed plain call is answered even if the client half-closed meanwhile (herdr answers
a half-closed client too); a wait whose client goes away during the delay ends with no reply.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import Fault
from .wait import sleep_or_gone

STAGES = ("reply", "request")


@dataclass(kw_only=True)
class Latency(Fault):
    type = "latency"

    ms: float = 0.0
    jitter_ms: float = 0.0
    stage: str = "reply"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.ms < 0 or self.jitter_ms < 0:
            raise ValueError("ms and jitter_ms must not be negative")
        if self.stage not in STAGES:
            raise ValueError(f"stage must be one of {STAGES}")

    def delay(self) -> float:
        """The next delay, in simulated seconds."""
        ms = self.ms
        if self.jitter_ms:
            ms += self.rng.uniform(-self.jitter_ms, self.jitter_ms)
        return max(ms, 0.0) / 1000.0

    async def intercept(self, call, proceed):
        sim = self.sim
        delay = self.delay()
        if self.stage == "request":
            if not await sleep_or_gone(sim, call, sim.now() + delay):
                return None
            return await proceed()
        reply = await proceed()
        if reply is not None and not await sleep_or_gone(sim, call, sim.now() + delay):
            return None
        return reply
