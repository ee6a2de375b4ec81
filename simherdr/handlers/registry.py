"""Method registry: each handler module declares its methods with a params spec.

kinds (SOCKET.md §1.2 dispatch):
- ``call``: answered at once from the state (herdr's app thread);
- ``wait``: an async handler that may block, then writes exactly one reply;
- ``stream``: an async handler that acks, then pushes lines (events.subscribe).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import params as P
from .context import Handler


@dataclass(frozen=True)
class MethodDef:
    name: str
    spec: dict
    fn: Handler  # fn(sim: HandlerContext, p) or, for waits and streams, fn(sim, p, rid, conn)
    kind: str = "call"


REGISTRY: dict[str, MethodDef] = {}


def method(name: str, kind: str = "call", **fields: P.F) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        if name in REGISTRY:
            raise RuntimeError(f"method {name} registered twice")
        REGISTRY[name] = MethodDef(name, fields, fn, kind)
        return fn

    return deco


def load_all() -> dict[str, MethodDef]:
    """Every registered method. The areas register themselves when the ``handlers`` package
    is imported (its ``__init__`` lists them), which importing this module already did."""
    return REGISTRY
