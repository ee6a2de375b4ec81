"""Simulated agents: processes in panes, behaviour as data, herdr's agent state machine.

- :mod:`.behaviour`: per-kind stage timings (data) and overrides;
- :mod:`.occupant`: one simulated agent process;
- :mod:`.terminal`: herdr's per-terminal arbitration (detection, hooks, names, managed starts);
- :mod:`.layer`: :class:`AgentLayer`, installed as ``sim.agents``;
- scenario helpers for tests (exit, block, late session, takeover, races) live in
  :mod:`simherdr.scenarios.agents`.
"""

from .behaviour import DEFAULT_BLOCK_MARKER, DEFAULTS, KIND_DEFAULTS, Behaviour, default_behaviour
from .layer import AGENT_START_SETTLE_DELAY, AgentLayer

__all__ = [
    "AGENT_START_SETTLE_DELAY",
    "DEFAULTS",
    "DEFAULT_BLOCK_MARKER",
    "KIND_DEFAULTS",
    "AgentLayer",
    "Behaviour",
    "default_behaviour",
]
