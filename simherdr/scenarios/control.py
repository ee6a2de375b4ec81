"""The control plane: a second Unix socket that drives scenarios and faults in a running
simulator (moto-style), so herdr's own method namespace stays untouched.

``simherdr serve --control PATH`` opens it (``0600``, in a private directory, like the herdr
socket). The protocol is our own: one JSON object per line, any number of lines per
connection, one reply line each::

    {"op": "fault.add", "args": {"type": "latency", "method": "agent.get", "ms": 200}}
    -> {"ok": true, "result": {...}}            or  {"ok": false, "error": "..."}

``simherdr ctl --control PATH OP [JSON-ARGS]`` sends one op and prints its result. The ops run
on the simulator's own loop, between herdr requests; see :data:`OPS` for the list. The socket
itself is :mod:`simherdr.controlsocket` (it imports this module at its first request).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..facts import errors as E
from . import agents as A
from .faults import fault_from_spec
from .opspec import check_args

# --- the ops ------------------------------------------------------------------------------------


def _occupant_info(occ) -> dict:
    return {
        "pane_id": occ.pane_id,
        "terminal_id": occ.terminal_id,
        "kind": occ.kind,
        "pid": occ.pid,
    }


def _fault_add(sim, **spec):
    return sim.faults.add(fault_from_spec(spec)).describe()


def _fault_remove(sim, name: str):
    return sim.faults.remove(name).describe()


def _fault_list(sim):
    return sim.faults.list()


def _fault_clear(sim):
    return {"removed": [f.name for f in sim.faults.clear()]}


def _agent_exit(sim, pane_id: str):
    A.agent_exits(sim, pane_id)


def _agent_block(sim, pane_id: str):
    A.agent_blocks(sim, pane_id)


def _agent_state(sim, pane_id: str, state: str):
    A.agent_state(sim, pane_id, state)


def _session_report(sim, pane_id: str, value: str | None = None, start_source: str = "startup"):
    A.session_reported(sim, pane_id, value, start_source)


def _pane_reuse(
    sim, pane_id: str, kind: str, exit_seen: bool = False, overrides: dict | None = None
):
    return _occupant_info(
        A.pane_reused(sim, pane_id, kind, exit_seen=exit_seen, **(overrides or {}))
    )


def _agent_vanish(sim, pane_id: str, close: str | None = None):
    A.agent_vanishes(sim, pane_id, close=close)


def _detection_misread(sim, pane_id: str, state: str, agent: str | None = None):
    A.detection_misreads(sim, pane_id, state, agent)


def _agent_suspend(sim, pane_id: str):
    A.agent_suspended(sim, pane_id)


def _agent_fg(sim, pane_id: str):
    A.agent_resumed(sim, pane_id)


def _shell_busy(sim, pane_id: str, command="sleep 30", duration: float | None = None):
    A.busy_shell(sim, pane_id, command, duration)


def _shell_idle(sim, pane_id: str):
    A.shell_idle(sim, pane_id)


def _shell_cd(sim, pane_id: str, path: str):
    from .cwd import shell_cd

    shell_cd(sim, pane_id, path)


def _foreground_cwd(sim, pane_id: str, path: str | None = None):
    from .cwd import foreground_cwd

    foreground_cwd(sim, pane_id, path)


def _behaviour_set(
    sim, kind: str | None = None, pane_id: str | None = None, values: dict | None = None
):
    """For a kind: every later agent of that kind; for a pane: the next agent started there."""
    values = dict(values or {})
    if (kind is None) == (pane_id is None):
        raise ValueError("give exactly one of kind or pane_id")
    if kind is not None:
        return dataclasses.asdict(sim.agents.set_behaviour(kind, **values))
    sim.agents.behaviour_for("pi").with_(**values)  # validates the field names
    if sim.session.canonical_pane(pane_id) is None:
        raise KeyError(f"no pane {pane_id}")
    sim.agents.configure_pane(pane_id, **values)
    return {"pane_id": pane_id, "overrides": values}


def _server_restart(sim):
    from .server import server_restart

    server_restart(sim)


def _server_reset(sim):
    sim.reset()


def _server_info(sim):
    """What a recorder needs to know of this simulator: the herdr version it answers as and
    how much faster than wall time its clock runs (simherdr record writes both), and how a
    scaled clock is paced (simherdr.clock.PACINGS; the wall clock is "wall")."""
    return {
        "herdr_version": sim.version.name,
        "time_scale": 1.0 / sim.clock.wall_seconds(1.0),
        "time_pacing": getattr(sim.clock, "pacing", "wall"),
        "home": sim.config.home,
        "server_cwd": sim.config.server_cwd,
    }


def _trace_get(sim, since: int = 0):
    return {"entries": sim.trace.entries(since), "dropped": sim.trace.dropped}


def _trace_clear(sim):
    return {"cleared": sim.trace.clear()}


OPS: dict[str, Callable[..., Any]] = {
    "fault.add": _fault_add,  # args: a fault spec {"type", ...} (simherdr.scenarios.faults)
    "fault.remove": _fault_remove,  # {"name"}
    "fault.list": _fault_list,
    "fault.clear": _fault_clear,
    "agent.exit": _agent_exit,  # {"pane_id"}
    "agent.block": _agent_block,  # {"pane_id"}
    "agent.state": _agent_state,  # {"pane_id", "state"}
    "session.report": _session_report,  # {"pane_id", "value"?, "start_source"?}
    "pane.reuse": _pane_reuse,  # {"pane_id", "kind", "exit_seen"?, "overrides"?}
    "agent.vanish": _agent_vanish,  # {"pane_id", "close"?: null | "exited" | "closed"}
    "detection.misread": _detection_misread,  # {"pane_id", "state", "agent"?}
    "agent.suspend": _agent_suspend,  # {"pane_id"}: Ctrl+Z, the shell is the foreground
    "agent.fg": _agent_fg,  # {"pane_id"}: fg, the same process is detected again
    "shell.busy": _shell_busy,  # {"pane_id", "command"?, "duration"?}
    "shell.idle": _shell_idle,  # {"pane_id"}
    "shell.cd": _shell_cd,  # {"pane_id", "path"}: the shell runs `cd PATH`
    "foreground.cwd": _foreground_cwd,  # {"pane_id", "path"?}: the foreground job runs there
    "behaviour.set": _behaviour_set,  # {"kind" | "pane_id", "values"}
    "server.restart": _server_restart,  # {}: same ids on new terminals; connections dropped
    "server.reset": _server_reset,  # {}: a newly started server's state (ids from 1 again)
    "server.info": _server_info,  # {}: {"herdr_version", "time_scale", "home", "server_cwd"}
    "trace.get": _trace_get,  # {"since"?}: the trace entries with seq > since (simherdr.trace)
    "trace.clear": _trace_clear,  # {}
}
# "scenario.load" ({"scenario": name or TOML file, "seed"?}) is registered by
# simherdr.scenarios.data (loaded with the package), which runs its steps through handle().


def handle(sim, obj) -> dict:
    """One control request -> its reply object. Never raises."""
    if not isinstance(obj, dict):
        return {"ok": False, "error": 'a request is a JSON object {"op", "args"}'}
    op = obj.get("op")
    if not isinstance(op, str):
        return {"ok": False, "error": f'"op" must be a string naming an op (see "ops"), not {op!r}'}
    if op == "ops":
        return {"ok": True, "result": sorted(OPS)}
    fn = OPS.get(op)
    if fn is None:
        return {"ok": False, "error": f"unknown op {op!r} (one of: {', '.join(sorted(OPS))})"}
    args = obj.get("args", {})
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return {"ok": False, "error": "args must be a JSON object"}
    problem = check_args(op, args)  # the op's own argument table (opspec.OP_ARGS)
    if problem:
        return {"ok": False, "error": problem}
    try:
        result = fn(sim, **args)
    except KeyError as e:
        return {"ok": False, "error": str(e.args[0]) if e.args else "not found"}
    except TypeError as e:
        return {"ok": False, "error": f"bad args for {op}: {e}"}
    except (LookupError, ValueError, NotImplementedError, E.HerdrError) as e:
        return {"ok": False, "error": str(e)}
    except Exception as e:  # a control plane must not take the server down
        return {"ok": False, "error": f"internal error in {op}: {e!r}"}
    return {"ok": True, "result": result}
