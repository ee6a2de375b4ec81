"""Method registry: each handler module declares its methods with a params spec.

kinds (SOCKET.md §1.2 dispatch):
- ``call``: answered at once from the state (herdr's app thread);
- ``wait``: an async handler that may block, then writes exactly one reply;
- ``stream``: an async handler that acks, then pushes lines (events.subscribe).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .. import params as P


@dataclass(frozen=True)
class MethodDef:
    name: str
    spec: dict
    fn: Callable
    kind: str = "call"


REGISTRY: dict[str, MethodDef] = {}


def method(name: str, kind: str = "call", **fields: P.F):
    def deco(fn):
        if name in REGISTRY:
            raise RuntimeError(f"method {name} registered twice")
        REGISTRY[name] = MethodDef(name, fields, fn, kind)
        return fn

    return deco


def load_all() -> dict[str, MethodDef]:
    # Importing the modules registers their methods.
    from . import server, workspace, tab, pane, events  # noqa: F401
    from . import scrollback, selection, links, integrations, client_surface, ssh_agent  # noqa: F401  (0.9.x)

    for optional in ("agent", "worktree"):
        try:
            __import__(f"{__package__}.{optional}")
        except ModuleNotFoundError as e:  # a handler area not built yet
            if e.name != f"{__package__}.{optional}":
                raise
    return REGISTRY
