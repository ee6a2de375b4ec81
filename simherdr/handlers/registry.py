"""Method registry: each handler module declares its methods with a params spec.

The areas are imported lazily: :data:`INDEX` names every method, its area module and its kind
up front (parsing and dispatch need no more), and :class:`Methods` imports an area on the
first use of one of its methods, so ``simherdr serve`` does not pay for every area at start.
``tests/core/test_method_index.py`` checks INDEX against the real registrations.

kinds (SOCKET.md §1.2 dispatch):
- ``call``: answered at once from the state (herdr's app thread);
- ``wait``: an async handler that may block, then writes exactly one reply;
- ``stream``: an async handler that acks, then pushes lines (events.subscribe).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from importlib import import_module
from typing import TYPE_CHECKING

from .. import params as P
from ..facts.record import record

if TYPE_CHECKING:
    from .context import Handler


@record(frozen=True)
class MethodDef:
    name: str
    spec: dict
    fn: Handler  # fn(sim: HandlerContext, p) or, for waits and streams, fn(sim, p, rid, conn)
    kind: str = "call"


REGISTRY: dict[str, MethodDef] = {}


def method(name: str, kind: str = "call", **fields: P.F) -> Callable[[Handler], Handler]:
    """Register ``fn`` as herdr's method ``name``; ``fields``: its params spec."""
    return method_with(name, fields, kind)


def method_with(
    name: str, fields: Mapping[str, P.F], kind: str = "call"
) -> Callable[[Handler], Handler]:
    """:func:`method` with the params spec as a mapping: for params named ``name`` or ``kind``
    (agent.start, agent.rename)."""

    def deco(fn: Handler) -> Handler:
        # Two modules claiming one name is a bug. The same module imported again (it was
        # dropped from sys.modules, as pytester's in-process runs do) replaces its own rows.
        known = REGISTRY.get(name)
        if known is not None and known.fn.__module__ != fn.__module__:
            raise RuntimeError(f"method {name} registered twice")
        REGISTRY[name] = MethodDef(name, dict(fields), fn, kind)
        return fn

    return deco


#: method -> (its area: a module of this package, kind). Only the registrations are the truth;
#: this index is checked against them (tests/core/test_method_index.py) so it cannot drift.
INDEX: dict[str, tuple[str, str]] = {
    "agent.explain": ("agent", "call"),
    "agent.focus": ("agent", "call"),
    "agent.get": ("agent", "call"),
    "agent.list": ("agent", "call"),
    "agent.prompt": ("agent", "wait"),
    "agent.read": ("agent", "call"),
    "agent.rename": ("agent", "call"),
    "agent.send_keys": ("agent", "call"),
    "agent.start": ("agent", "call"),
    "agent.view.clear": ("client", "call"),
    "agent.view.set": ("client", "call"),
    "agent.wait": ("agent", "wait"),
    "client.window_title.clear": ("client", "call"),
    "client.window_title.set": ("client", "call"),
    "client_shell.surface.set": ("client_surface", "call"),
    "command.invoke": ("client_surface", "call"),
    "events.subscribe": ("events", "stream"),
    "events.wait": ("events", "wait"),
    "integration.install": ("integrations", "call"),
    "integration.list": ("integrations", "call"),
    "integration.uninstall": ("integrations", "call"),
    "layout.apply": ("layout", "call"),
    "layout.export": ("layout", "call"),
    "layout.set_split_ratio": ("layout", "call"),
    "notification.show": ("client", "call"),
    "pane.clear": ("scrollback", "call"),
    "pane.clear_agent_authority": ("agent", "call"),
    "pane.close": ("pane", "call"),
    "pane.copy_motion": ("selection", "call"),
    "pane.copy_search": ("selection", "call"),
    "pane.current": ("pane", "call"),
    "pane.edges": ("layout", "call"),
    "pane.edit_scrollback": ("scrollback", "call"),
    "pane.focus": ("pane", "call"),
    "pane.focus_direction": ("layout", "call"),
    "pane.get": ("pane", "call"),
    "pane.graphics.clear": ("graphics", "call"),
    "pane.graphics.info": ("graphics", "call"),
    "pane.graphics.set": ("graphics", "call"),
    "pane.graphics.stream": ("graphics", "call"),
    "pane.input.set": ("client", "call"),
    "pane.layout": ("pane", "call"),
    "pane.link.activate": ("links", "call"),
    "pane.link.resolve": ("links", "call"),
    "pane.list": ("pane", "call"),
    "pane.move": ("moves", "call"),
    "pane.neighbor": ("layout", "call"),
    "pane.process_info": ("pane", "call"),
    "pane.read": ("pane", "call"),
    "pane.release_agent": ("agent", "call"),
    "pane.rename": ("pane", "call"),
    "pane.report_agent": ("agent", "call"),
    "pane.report_agent_session": ("agent", "call"),
    "pane.report_metadata": ("metadata", "call"),
    "pane.resize": ("layout", "call"),
    "pane.scroll": ("scrollback", "call"),
    "pane.selection.read": ("selection", "call"),
    "pane.send_input": ("pane", "call"),
    "pane.send_keys": ("pane", "call"),
    "pane.send_text": ("pane", "call"),
    "pane.split": ("pane", "call"),
    "pane.swap": ("layout", "call"),
    "pane.wait_for_output": ("pane", "wait"),
    "pane.zoom": ("layout", "call"),
    "ping": ("server", "call"),
    "plugin.action.invoke": ("plugin", "wait"),
    "plugin.action.list": ("plugin", "call"),
    "plugin.disable": ("plugin", "call"),
    "plugin.enable": ("plugin", "call"),
    "plugin.link": ("plugin", "call"),
    "plugin.list": ("plugin", "call"),
    "plugin.log.list": ("plugin", "call"),
    "plugin.pane.close": ("plugin", "call"),
    "plugin.pane.focus": ("plugin", "call"),
    "plugin.pane.open": ("plugin", "call"),
    "plugin.unlink": ("plugin", "call"),
    "popup.close": ("client", "call"),
    "product_announcement.dismiss": ("client_surface", "call"),
    "release_notes.dismiss": ("client_surface", "call"),
    "server.agent_manifests": ("config", "call"),
    "server.live_handoff": ("server", "call"),
    "server.reload_agent_manifests": ("config", "call"),
    "server.reload_config": ("config", "call"),
    "server.ssh_agent.register": ("ssh_agent", "stream"),
    "server.stop": ("server", "call"),
    "session.snapshot": ("server", "call"),
    "tab.close": ("tab", "call"),
    "tab.create": ("tab", "call"),
    "tab.focus": ("tab", "call"),
    "tab.get": ("tab", "call"),
    "tab.list": ("tab", "call"),
    "tab.move": ("moves", "call"),
    "tab.rename": ("tab", "call"),
    "workspace.close": ("workspace", "call"),
    "workspace.create": ("workspace", "call"),
    "workspace.focus": ("workspace", "call"),
    "workspace.get": ("workspace", "call"),
    "workspace.list": ("workspace", "call"),
    "workspace.move": ("moves", "call"),
    "workspace.move_block": ("moves", "call"),
    "workspace.rename": ("workspace", "call"),
    "workspace.report_metadata": ("metadata", "call"),
    "worktree.create": ("worktree", "wait"),
    "worktree.list": ("worktree", "call"),
    "worktree.open": ("worktree", "call"),
    "worktree.remove": ("worktree", "wait"),
}
AREAS = tuple(sorted({area for area, _ in INDEX.values()}))


def _import_area(area: str) -> None:
    import_module(f"{__package__}.{area}")


def load_all() -> dict[str, MethodDef]:
    """Every registered method, every area imported (the full table: schema generation,
    tests). The simulator uses :class:`Methods`, which imports an area when first needed."""
    for area in AREAS:
        _import_area(area)
    return REGISTRY


class Methods(Mapping[str, MethodDef]):
    """The method table as the simulator sees it: every name known up front (:data:`INDEX`);
    a method's :class:`MethodDef` imports its area on first use."""

    def __getitem__(self, name: str) -> MethodDef:
        mdef = REGISTRY.get(name)
        if mdef is None:
            area, _ = INDEX[name]  # KeyError: no such method
            _import_area(area)
            mdef = REGISTRY.get(name)
            if mdef is None:
                raise RuntimeError(f"handlers.{area} did not register {name} (see INDEX)")
        return mdef

    def __contains__(self, name: object) -> bool:
        return name in INDEX

    def __iter__(self) -> Iterator[str]:
        return iter(INDEX)

    def __len__(self) -> int:
        return len(INDEX)

    def kind(self, name: str) -> str | None:
        """The method's kind (call, wait, stream) without importing its area; None: unknown."""
        entry = INDEX.get(name)
        return None if entry is None else entry[1]
