"""The scenario and fault layer: make a simulator misbehave the way real herdr deployments do,
through explicit seams only.

- :mod:`.agents`: scenario helpers (an agent exits, blocks, reports its session late; races:
  a pane reused by a new agent, an agent that vanishes, a busy shell; a detection that misreads
  the screen, an agent suspended with Ctrl+Z and brought back with fg);
- :mod:`.cwd`: a shell that changes directory, a foreground process that runs elsewhere;
- :mod:`.server`: a server restart that restores the session on new terminals;
- :mod:`.faults`: toxiproxy-style faults (latency, hang, drop, wrong_pane, error), installed in
  the simulator's interceptor chain through the registry ``sim.faults``;
- :mod:`.control`: the control plane (``simherdr serve --control PATH``, ``simherdr ctl``).
"""

from . import data  # noqa: F401 - registers the control plane's scenario.load op
from .agents import (
    agent_blocks,
    agent_exits,
    agent_resumed,
    agent_state,
    agent_suspended,
    agent_vanishes,
    busy_shell,
    detection_misreads,
    pane_reused,
    quiet_next_start,
    session_reported,
    shell_idle,
    takeover,
)
from .cwd import foreground_cwd, shell_cd
from .faults import (
    FAULT_TYPES,
    Drop,
    ErrorReply,
    Fault,
    Faults,
    Hang,
    Latency,
    WrongPane,
    fault_from_spec,
)
from .server import server_restart

__all__ = [
    "FAULT_TYPES",
    "Drop",
    "ErrorReply",
    "Fault",
    "Faults",
    "Hang",
    "Latency",
    "WrongPane",
    "agent_blocks",
    "agent_exits",
    "agent_resumed",
    "agent_state",
    "agent_suspended",
    "agent_vanishes",
    "busy_shell",
    "detection_misreads",
    "fault_from_spec",
    "foreground_cwd",
    "pane_reused",
    "quiet_next_start",
    "server_restart",
    "session_reported",
    "shell_cd",
    "shell_idle",
    "takeover",
]
