"""Faults, toxiproxy-style, one per module: each a small dataclass with a matcher
(:mod:`.base`) and an async ``intercept(call, proceed)``.

=============  ====================================================================================
``latency``    :class:`Latency` — delay the reply (or the request) by ``ms`` (+ seeded jitter)
``hang``       :class:`Hang` — never reply while active; ends on removal or client disconnect
``drop``       :class:`Drop` — close the connection with no reply (before or after handling)
``wrong_pane`` :class:`WrongPane` — rewrite ``pane_id``/``terminal_id`` in the result
``error``      :class:`ErrorReply` — a herdr error envelope (herdr's codes only)
``unlisted``   :class:`Unlisted` — the registry hides panes, or lists them ``unknown`` (#3215, handoff)
=============  ====================================================================================

Install them through the registry on the simulator, ``sim.faults`` (:class:`Faults`)::

    sim.faults.add(Latency(method="agent.get", ms=250, jitter_ms=50, seed=7))
    sim.faults.add(Hang(name="stuck", method="agent.wait", params={"target": "rev"}))
    sim.faults.remove("stuck")          # the held wait proceeds

or from a plain spec (the control plane's ``fault.add``): :func:`fault_from_spec`.
"""

from __future__ import annotations

from .base import Fault
from .drop import Drop
from .error import ErrorReply
from .hang import Hang
from .latency import Latency
from .registry import Faults
from .unlisted import Unlisted
from .wrong_pane import WrongPane

FAULT_TYPES: dict[str, type[Fault]] = {
    cls.type: cls for cls in (Latency, Hang, Drop, WrongPane, ErrorReply, Unlisted)
}


def fault_from_spec(spec: dict) -> Fault:
    """``{"type": "latency", "ms": 200, "method": "agent.*", ...}`` -> a fault (ValueError when
    the type, a field or a value is wrong)."""
    if not isinstance(spec, dict):
        raise ValueError("a fault spec must be an object")
    spec = dict(spec)
    kind = spec.pop("type", None)
    cls = FAULT_TYPES.get(kind)
    if cls is None:
        raise ValueError(f"unknown fault type {kind!r} (one of: {', '.join(FAULT_TYPES)})")
    import dataclasses

    known = {f.name for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(spec) - known)
    if unknown:
        raise ValueError(f"unknown field(s) for {kind}: {', '.join(unknown)}")
    if "params" in spec and spec["params"] is not None and not isinstance(spec["params"], dict):
        raise ValueError("params must be an object of expected values")
    try:
        return cls(**spec)
    except TypeError as e:
        raise ValueError(str(e)) from None


__all__ = [
    "FAULT_TYPES",
    "Drop",
    "ErrorReply",
    "Fault",
    "Faults",
    "Hang",
    "Latency",
    "Unlisted",
    "WrongPane",
    "fault_from_spec",
]
