"""The session's pure state: workspaces, tabs and panes (SOCKET.md §2-§4).

No I/O and no clock reads: callers pass in everything that comes from outside (``now_us``
for terminal ids, resolved cwds and labels). Mutations record domain events
(:mod:`simherdr.model.events`) through the sink the runtime passes in; rendering them to
herdr's wire is the runtime's (``simherdr/outbox.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..facts import errors as E
from ..facts import ids
from ..facts.record import field, record
from . import events as ev
from . import geometry as G
from . import layout as L
from .membership import Membership
from .status import wire_status

if TYPE_CHECKING:  # annotations only
    from . import metadata as M
    from .panescreen import PaneScreen
    from .terminal import AgentSlot


# A pane's agent slot and metadata, a workspace's metadata: their modules are imported with the
# first pane or workspace, not with this one (`simherdr serve` starts without them).
def _agent_slot(kinds: str) -> AgentSlot:
    from .terminal import AgentSlot

    return AgentSlot(kinds=kinds)


def _pane_metadata() -> M.PaneMetadata:
    from .metadata import PaneMetadata

    return PaneMetadata()


def _workspace_metadata() -> M.WorkspaceMetadata:
    from .metadata import WorkspaceMetadata

    return WorkspaceMetadata()


# slots (here, AgentSlot, layout's Leaf and Split): the objects every read of many panes walks
# (pane.list, session.snapshot) hold their fields in the object itself instead of a separate
# values array: fewer cache lines and pages per pane once the session outgrows the CPU
# caches (issue 26; benchmarks/scale.py), and less memory. No attributes beyond the fields.
@record(slots=True)
class Pane:
    pane_id: str
    number: int
    terminal_id: str
    workspace_id: str
    tab_id: str
    cwd: str | None  # the shell's live cwd (PaneInfo.cwd)
    env: dict
    screen: PaneScreen
    label: str | None = None
    revision: int = 0
    seen: bool = True
    agent: AgentSlot = field(kw_only=True)  # Session.new_agent_slot()
    shell: str = "bash"  # the simulated shell's process name
    tokens: dict = field(default_factory=dict)
    exited: bool = False
    title_stripped: str | None = None  # last stripped terminal title seen (revision rule)
    # Rows scrolled up from the bottom (0.9 pane.scroll); None (never scrolled) reads as 0:
    # PaneInfo.scroll is always there (views.scroll_info).
    scroll_offset: int | None = None
    restore_error: str | None = None  # 0.9 PaneInfo.restore_error (a resume that failed)
    # restored history (ANSI) a backend that brings its own screen seeds into it before the
    # shell's first output (src/pane.rs spawn_with_initial_history -> seed_history_ansi)
    replay: str | None = None
    meta: M.PaneMetadata = field(default_factory=_pane_metadata)  # tokens (TTL), overlays, seqs
    foreground_cwd: str | None = None  # the foreground job's cwd (src/pane.rs:2994-3010)
    launch_argv: list | None = None  # a layout pane's command (layout.export reports it)
    # (source, agent) of a reported resume command restored from the session file, which the
    # file keeps writing while the resume command stands (AgentSlot.resume_argv)
    resume_owner: tuple[str, str] | None = None

    @property
    def status(self) -> str:
        return wire_status(self.agent.internal, self.seen)


@record
class Tab:
    tab_id: str
    number: int
    workspace_id: str
    root: L.Node
    focused_pane: str
    root_pane: str
    custom_label: str | None = None
    prev_focused: str | None = None
    zoomed: bool = False  # reset by any split, close or move in the tab (src/workspace/tab.rs)

    def pane_ids(self) -> list[str]:
        return L.panes_in_order(self.root)


@record
class Workspace:
    workspace_id: str
    cwd: str
    auto_label: str
    custom_label: str | None = None
    tabs: list[Tab] = field(default_factory=list)
    active_tab: str | None = None
    next_tab_number: int = 1
    next_pane_number: int = 1
    worktree: Membership | None = None  # its worktree group membership (model/membership.py)
    tokens: dict = field(default_factory=dict)
    meta: M.WorkspaceMetadata = field(default_factory=_workspace_metadata)  # tokens (TTL), seqs
    # (cwd, automatic label) once the identity cwd moved away from ``cwd`` (Session.label_of)
    moved_label: tuple[str, str] | None = None

    @property
    def label(self) -> str:
        """The label of the cwd the workspace was made in (Session.label_of follows its root
        pane)."""
        return self.custom_label if self.custom_label is not None else self.auto_label

    def tab(self, tab_id: str) -> Tab | None:
        for t in self.tabs:
            if t.tab_id == tab_id:
                return t
        return None

    def active(self) -> Tab | None:
        return self.tab(self.active_tab) if self.active_tab else None


class WorkspaceList(list):
    """The session's workspaces in sidebar order: a plain list, plus an index by id rebuilt
    lazily after any change. Performance only (benchmarks/): without it every lookup by id,
    position or membership was a linear scan (``index``/``in`` even compared dataclasses
    field by field), which made snapshots and pane lookups quadratic in the workspace count.
    Same results as the list's own methods (no two workspaces share an id)."""

    __slots__ = ("_by_id",)

    def __init__(self, *args):
        super().__init__(*args)
        self._by_id = None

    def by_id(self) -> dict:
        """workspace_id -> (position, workspace), first occurrence."""
        idx = self._by_id
        if idx is None:
            idx = {}
            for i, w in enumerate(self):
                idx.setdefault(getattr(w, "workspace_id", None), (i, w))
            self._by_id = idx
        return idx

    def _hit(self, w):
        if not isinstance(w, Workspace):
            return None
        hit = self.by_id().get(w.workspace_id)
        # dataclass equality compares workspace_id first: no entry with that id, no match
        return hit if hit is not None and (hit[1] is w or hit[1] == w) else False

    def __contains__(self, w) -> bool:
        hit = self._hit(w)
        return list.__contains__(self, w) if hit is None else bool(hit)

    def index(self, w, *args):
        hit = self._hit(w)
        if hit is None or args:
            return list.index(self, w, *args)
        if not hit:
            raise ValueError(f"{w!r} is not in list")
        return hit[0]


def _invalidates(name):
    base = getattr(list, name)

    def method(self, *args, **kwargs):
        self._by_id = None
        return base(self, *args, **kwargs)

    method.__name__ = name
    return method


for _name in (
    "append",
    "extend",
    "insert",
    "remove",
    "pop",
    "clear",
    "sort",
    "reverse",
    "__setitem__",
    "__delitem__",
    "__iadd__",
    "__imul__",
):
    setattr(WorkspaceList, _name, _invalidates(_name))


class Session:
    """All server state of one herdr server generation."""

    def __init__(
        self,
        screen_factory,
        labeler: Callable[[str], str] | None = None,
        record: ev.EventSink | None = None,
        *,
        agent_kinds: str,
        close_focus_to_opener: bool,
    ):
        self.workspaces: list[Workspace] = []
        self.active: str | None = None
        self.next_workspace_number = 1
        self.terminal_counter = 0
        self.state_change_seq = 0
        self.panes: dict[str, Pane] = {}
        self.aliases: dict[str, str] = {}
        # Where mutations record their domain events (None: a bare session keeps them in
        # ``recorded``, for pure use and tests).
        self.recorded: list[ev.Event] = []
        self.record: ev.EventSink = record if record is not None else self.recorded.append
        self.area: tuple[int, int, int, int] = L.DEFAULT_AREA  # the view area rects use
        # Pane geometry (model/geometry.py): the frame the view is drawn in (cols, rows), the
        # release's chrome (None: every pane is the frame's size), whether the last draw found
        # no pane to show, and the spawn size a request's new panes take (cleared per draw).
        self.frame: tuple[int, int] = (L.DEFAULT_AREA[2], L.DEFAULT_AREA[3])
        self.chrome: G.Chrome | None = None
        self.view_empty = True
        self.spawn_estimate: tuple[int, int] | None = None
        # Row pane_info_scroll_always: every PaneInfo carries scroll metrics (views.scroll_info).
        self.scroll_metrics_always = False
        self._screen_factory = screen_factory
        # A cwd's automatic workspace label (git discovery, so I/O: injected like the screens).
        # None: a workspace keeps the label of the cwd it was created in.
        self._labeler = labeler
        # The release's agent kinds table key (tables.agent_kinds): every pane's agent slot
        # reads its labels with it.
        self.agent_kinds = agent_kinds
        # The sidebar fields a restored session file gave (0.8.2 saves them back).
        self.sidebar: dict = {}
        # Row close_focus_returns_to_opener: closing the focused pane refocuses the pane it was
        # opened from (0.8.2, #2266) or just the next one in layout order (0.8.0).
        self.close_focus_to_opener = close_focus_to_opener

    def new_agent_slot(self) -> AgentSlot:
        return _agent_slot(self.agent_kinds)

    @property
    def workspaces(self) -> WorkspaceList:
        return self._workspaces

    @workspaces.setter
    def workspaces(self, value) -> None:
        self._workspaces = value if isinstance(value, WorkspaceList) else WorkspaceList(value)

    # --- lookups ---------------------------------------------------------------------------

    def ws(self, workspace_id: str) -> Workspace | None:
        hit = self.workspaces.by_id().get(workspace_id)
        return hit[1] if hit is not None else None

    def ws_index(self, ws: Workspace) -> int:
        return self.workspaces.index(ws)

    def active_ws(self) -> Workspace | None:
        return self.ws(self.active) if self.active else None

    def ws_of(self, obj: Pane | Tab) -> Workspace:
        """The workspace holding a live pane or tab (it exists while they do)."""
        w = self.ws(obj.workspace_id)
        if w is None:
            raise LookupError(f"no workspace {obj.workspace_id} for {obj}")
        return w

    def tab_of(self, pane: Pane) -> Tab:
        """The tab holding a live pane."""
        t = self.ws_of(pane).tab(pane.tab_id)
        if t is None:
            raise LookupError(f"no tab {pane.tab_id} for {pane.pane_id}")
        return t

    def focused_pane(self) -> Pane | None:
        w = self.active_ws()
        t = w.active() if w else None
        return self.panes.get(t.focused_pane) if t else None

    def is_focused(self, pane: Pane) -> bool:
        w = self.ws_of(pane)
        return (
            self.active == w.workspace_id
            and w.active_tab == pane.tab_id
            and self.tab_of(pane).focused_pane == pane.pane_id
        )

    def focus_ids(self) -> tuple[str, str, str] | None:
        """(workspace_id, tab_id, pane_id) of the focused pane: a live pane is_focused exactly
        when its own three ids are these (one lookup for a walk of many panes)."""
        w = self.active_ws()
        t = w.active() if w is not None else None
        if w is None or t is None:
            return None
        return (w.workspace_id, t.tab_id, t.focused_pane)

    def in_active_tab(self, pane: Pane) -> bool:
        w = self.ws_of(pane)
        return self.active == w.workspace_id and w.active_tab == pane.tab_id

    def identity_cwd(self, w: Workspace) -> str:
        """resolved_identity_cwd_from (src/workspace.rs:1101-1110): the first tab's root pane's
        cwd, else the workspace's own."""
        root = self.panes.get(w.tabs[0].root_pane) if w.tabs else None
        return (root.cwd if root is not None else None) or w.cwd

    def label_of(self, w: Workspace) -> str:
        """WorkspaceInfo.label, display_name_from (src/workspace.rs:1139-1159; [H093] the same):
        the custom name, else the automatic label of the identity cwd, which follows the root
        pane. herdr re-derives its cached label once a terminal reports a new cwd
        (request_git_identity_refresh, src/app/api.rs:328-330, src/app/git_refresh.rs).
        CHOICE: that refresh is immediate here (herdr shows the cwd's basename until its
        background git refresh lands); each new cwd is derived once."""
        if w.custom_label is not None:
            return w.custom_label
        cwd = self.identity_cwd(w)
        if cwd == w.cwd or self._labeler is None:
            return w.auto_label
        if w.moved_label is None or w.moved_label[0] != cwd:
            w.moved_label = (cwd, self._labeler(cwd))
        return w.moved_label[1]

    def all_panes(self):
        """Workspace -> tab -> layout order."""
        for w in self.workspaces:
            for t in w.tabs:
                for pid in t.pane_ids():
                    yield self.panes[pid]

    # --- lenient resolvers (SOCKET.md §2.2) --------------------------------------------------

    def find_workspace(self, ref: str) -> Workspace | None:
        kind = ids.parse_workspace_ref(ref)
        if kind is None:
            return None
        k = kind[1]
        if isinstance(k, str):  # ("id", "w3")
            return self.ws(k)
        assert isinstance(k, int)  # ("pos", k)
        return self.workspaces[k - 1] if 1 <= k <= len(self.workspaces) else None

    def require_workspace(self, ref: str) -> Workspace:
        w = self.find_workspace(ref)
        if w is None:
            raise E.workspace_not_found(ref)
        return w

    def find_tab(self, ref: str) -> Tab | None:
        if ref.startswith("t_"):  # legacy t_<ws>_<k>, by position
            ws_ref, _, k = ref[2:].rpartition("_")
            w = self.find_workspace(ws_ref) if ws_ref else None
            return _nth(w.tabs, k) if w else None
        ws_ref, sep, rest = ref.rpartition(":")
        if not sep:
            return None
        w = self.find_workspace(ws_ref)
        if w is None:
            return None
        if rest.startswith("t"):
            n = ids.decode(rest[1:])
            for t in w.tabs:
                if t.number == n:
                    return t
            return None
        return _nth(w.tabs, rest)

    def require_tab(self, ref: str) -> Tab:
        t = self.find_tab(ref)
        if t is None:
            raise E.tab_not_found(ref)
        return t

    def find_pane(self, ref: str) -> Pane | None:
        """Lenient: aliases of moved panes, ``<ws>:p<N>``, legacy ``<ws>-<k>``."""
        if ref in self.aliases:
            return self.panes.get(self.aliases[ref])
        ws_ref, sep, rest = ref.rpartition(":")
        if sep and rest.startswith("p"):
            w = self.find_workspace(ws_ref)
            n = ids.decode(rest[1:])
            if w is None or n is None:
                return None
            return self.panes.get(ids.pane_id(w.workspace_id, n))
        ws_ref, sep, rest = ref.rpartition("-")
        k = ids.parse_index(rest) if sep else None
        if k is not None:
            w = self.find_workspace(ws_ref)
            if w is None or k < 1:
                return None
            return self.panes.get(ids.pane_id(w.workspace_id, k))
        return None

    def require_pane(self, ref: str) -> Pane:
        p = self.find_pane(ref)
        if p is None:
            raise E.pane_not_found(ref)
        return p

    def live_pane(self, pane_id: str, terminal_id: str) -> Pane | None:
        """The pane that was ``pane_id`` when work was scheduled, if it still holds the same
        terminal: a cross-workspace pane.move renames it (its old id becomes an alias)."""
        p = self.panes.get(pane_id)
        if p is None or p.terminal_id != terminal_id:
            p = self.panes.get(self.aliases.get(pane_id, ""))
        return p if p is not None and p.terminal_id == terminal_id else None

    def canonical_pane(self, ref: str) -> Pane | None:
        """Only the current canonical ``wX:pY`` (src/app/ids.rs:145-151)."""
        return self.panes.get(ref)

    # --- creation ---------------------------------------------------------------------------

    def _new_pane(self, w: Workspace, tab_id: str, cwd, env, now_us: int) -> Pane:
        n = w.next_pane_number
        w.next_pane_number += 1
        self.terminal_counter += 1
        p = Pane(
            pane_id=ids.pane_id(w.workspace_id, n),
            number=n,
            terminal_id=ids.terminal_id(now_us, self.terminal_counter),
            workspace_id=w.workspace_id,
            tab_id=tab_id,
            cwd=cwd,
            env=dict(env or {}),
            screen=self._screen_factory(*G.spawn_size(self)),
            agent=self.new_agent_slot(),
        )
        self.panes[p.pane_id] = p
        return p

    def _new_tab(self, w: Workspace, cwd, env, label, now_us: int) -> tuple[Tab, Pane]:
        n = w.next_tab_number
        w.next_tab_number += 1
        tid = ids.tab_id(w.workspace_id, n)
        p = self._new_pane(w, tid, cwd, env, now_us)
        t = Tab(
            tab_id=tid,
            number=n,
            workspace_id=w.workspace_id,
            root=L.Leaf(p.pane_id),
            focused_pane=p.pane_id,
            root_pane=p.pane_id,
            custom_label=label,
        )
        w.tabs.append(t)
        return t, p

    def create_workspace(self, cwd: str, auto_label: str, label, env, focus: bool, now_us: int):
        wid = ids.workspace_id(self.next_workspace_number)
        self.next_workspace_number += 1
        w = Workspace(workspace_id=wid, cwd=cwd, auto_label=auto_label, custom_label=label)
        self.workspaces.append(w)
        t, p = self._new_tab(w, cwd, env, None, now_us)
        w.active_tab = t.tab_id
        # The first workspace is always focused (src/app/creation.rs:269-272).
        if focus or self.active is None:
            self.switch_workspace(w)
        self.record(ev.WorkspaceCreated(w.workspace_id))
        self._record_tab_open(w, t, p)
        return w, t, p

    def create_tab(self, w: Workspace, cwd, label, env, focus: bool, now_us: int):
        t, p = self._new_tab(w, cwd, env, label, now_us)
        if focus:
            self.switch_tab(w, t)
        self._record_tab_open(w, t, p)
        return t, p

    def _record_tab_open(self, w: Workspace, t: Tab, p: Pane) -> None:
        self.record(ev.TabCreated(w.workspace_id, t.tab_id))
        self.record(ev.PaneCreated(p.pane_id))
        self.record_layout(w, t)

    def split_pane(
        self, target: Pane, direction: str, ratio, cwd, env, focus: bool, now_us: int
    ) -> Pane:
        w = self.ws_of(target)
        t = self.tab_of(target)
        ratio = L.valid_split_ratio(ratio)
        path = L.path_to(t.root, target.pane_id)  # one walk: found here, split there
        if path is None:
            raise E.pane_not_found()
        p = self._new_pane(w, t.tab_id, cwd, env, now_us)
        t.root = L.split_leaf(t.root, target.pane_id, p.pane_id, direction, ratio, path)
        t.zoomed = False
        if focus:
            self.switch_tab(w, t)
            self._focus_in_tab(t, p.pane_id)
            self.mark_tab_seen(t)
        self.record(ev.PaneCreated(p.pane_id))
        self.record_layout(w, t)
        return p

    # --- focus (SOCKET.md §4.1-4.3, §6.2 seen) ------------------------------------------------

    def switch_workspace(self, w: Workspace) -> None:
        if self.active != w.workspace_id:
            self.active = w.workspace_id
        t = w.active()
        if t:
            self.mark_tab_seen(t)

    def switch_tab(self, w: Workspace, t: Tab) -> None:
        self.switch_workspace(w)
        w.active_tab = t.tab_id
        self.mark_tab_seen(t)

    def focus_pane(self, p: Pane) -> None:
        w = self.ws_of(p)
        t = self.tab_of(p)
        self.switch_tab(w, t)
        self._focus_in_tab(t, p.pane_id)

    def _focus_in_tab(self, t: Tab, pane_id: str) -> None:
        if t.focused_pane != pane_id:
            t.prev_focused = t.focused_pane
            t.focused_pane = pane_id

    def focus_in_tab(self, t: Tab, pane_id: str) -> None:
        """The tab's focused pane, remembering the one focused before (no workspace switch)."""
        self._focus_in_tab(t, pane_id)

    # --- building blocks without events (layout.apply emits its own) -------------------------

    def add_tab(self, w: Workspace, cwd, env, label, now_us: int) -> tuple[Tab, Pane]:
        return self._new_tab(w, cwd, env, label, now_us)

    def add_split_pane(
        self, t: Tab, target: str, direction: str, ratio, cwd, env, now_us: int
    ) -> Pane:
        """A new pane as the second child of a split around ``target`` (no focus change)."""
        w = self.ws_of(t)
        p = self._new_pane(w, t.tab_id, cwd, env, now_us)
        t.root = L.split_leaf(t.root, target, p.pane_id, direction, L.valid_split_ratio(ratio))
        t.zoomed = False
        return p

    def remove_tab(self, w: Workspace, t: Tab) -> None:
        """Drop a tab and its panes (the workspace keeps other tabs); no event."""
        self._remove_tab(w, t)

    def mark_tab_seen(self, t: Tab) -> None:
        # done -> idle with no hub event (seen changes bypass the state-update path).
        for pid in t.pane_ids():
            self.panes[pid].seen = True

    def focus_pair(self):
        """(index of the active workspace, its focused pane): herdr compares this after each
        batch to emit the focus trio (SOCKET.md §8.4); it stores the index, not the id."""
        w = self.active_ws()
        if w is None:
            return None
        t = w.active()
        return (self.ws_index(w), t.focused_pane if t else None)

    # --- renames ----------------------------------------------------------------------------

    def rename_workspace(self, w: Workspace, label: str) -> None:
        w.custom_label = label
        self.record(ev.WorkspaceRenamed(w.workspace_id, label))

    def rename_tab(self, t: Tab, label: str) -> None:
        t.custom_label = label
        self.record(ev.TabRenamed(t.workspace_id, t.tab_id, label))

    # --- closing (SOCKET.md §4.1-4.3, §8.3) ---------------------------------------------------

    def close_workspace(self, w: Workspace, emit: bool = True) -> None:
        if emit:
            self.record(ev.WorkspaceClosed(w.workspace_id))  # before it goes (its final state)
        idx = self.ws_index(w)
        was_active = self.active == w.workspace_id
        self._drop_workspace(w)
        if was_active:
            # close_selected_workspace (src/app/actions.rs:1707-1733): the workspace active
            # before the close stays active if it survived — only possible when it was not the
            # one closed; otherwise the workspace now at the closed index (clamped).
            self.active = (
                self.workspaces[min(idx, len(self.workspaces) - 1)].workspace_id
                if self.workspaces
                else None
            )

    def _drop_workspace(self, w: Workspace) -> None:
        for t in w.tabs:
            for pid in t.pane_ids():
                self._drop_pane(pid)
        self.workspaces.remove(w)

    def _drop_pane(self, pid: str) -> None:
        self.panes.pop(pid, None)
        for alias in [a for a, target in self.aliases.items() if target == pid]:
            del self.aliases[alias]

    def close_tab(self, t: Tab) -> None:
        w = self.ws_of(t)
        if len(w.tabs) == 1:
            self.record(ev.TabClosed(w.workspace_id, t.tab_id))
            self.close_workspace(w)
            return
        self._remove_tab(w, t)
        self.record(ev.TabClosed(w.workspace_id, t.tab_id))

    def _remove_tab(self, w: Workspace, t: Tab) -> None:
        """Active tab rule (src/workspace.rs:628-642): closing the active tab activates its left
        neighbour (the new first tab if it was first); the new active tab is not marked seen."""
        idx = w.tabs.index(t)
        for pid in t.pane_ids():
            self._drop_pane(pid)
        w.tabs.remove(t)
        if w.active_tab == t.tab_id:
            w.active_tab = w.tabs[max(idx - 1, 0)].tab_id

    def close_pane(self, p: Pane, reason: str = "closed") -> None:
        """reason "closed" (pane.close) or "exited" (the shell exited: pane_exited, and the
        emptied tab or workspace disappears with no closed events, SOCKET.md §8.3)."""
        w = self.ws_of(p)
        t = self.tab_of(p)
        event = ev.PaneClosed(w.workspace_id, p.pane_id, exited=reason != "closed")
        if len(t.pane_ids()) > 1:
            self.detach_from_tab(t, p.pane_id)
            self._drop_pane(p.pane_id)
            self.record(event)
            self.record_layout(w, t)
        elif len(w.tabs) > 1:
            self._remove_tab(w, t)
            self.record(event)
        else:
            self.record(event)
            if reason == "closed":
                self.close_workspace(w)
            else:
                self._close_workspace_silently(w)

    def detach_from_tab(self, t: Tab, pane_id: str) -> None:
        """Take a pane out of a tab that keeps other panes (src/workspace/tab.rs:531-554)."""
        order = t.pane_ids()
        i = order.index(pane_id)
        root = L.remove_leaf(t.root, pane_id)
        assert root is not None  # the tab keeps its other panes
        t.root = root
        remaining = order[:i] + order[i + 1 :]
        if t.focused_pane == pane_id:
            # src/layout.rs:203-229: back to the previously focused pane if still open,
            # else the next pane in layout order (the previous one when it was last).
            if (
                self.close_focus_to_opener
                and t.prev_focused in remaining
                and t.prev_focused != pane_id
            ):
                t.focused_pane = t.prev_focused
            else:
                t.focused_pane = remaining[min(i, len(remaining) - 1)]
            t.prev_focused = None
        elif t.prev_focused == pane_id:
            t.prev_focused = None  # src/layout.rs close_pane drops a closed remembered pane
        if t.root_pane == pane_id:
            t.root_pane = remaining[0]
        t.zoomed = False

    def _close_workspace_silently(self, w: Workspace) -> None:
        self.close_workspace(w, emit=False)

    # --- events -----------------------------------------------------------------------------

    def record_layout(self, w: Workspace, t: Tab) -> None:
        self.record(ev.LayoutChanged(w.workspace_id, t.tab_id))

    def bump_state_seq(self) -> int:
        self.state_change_seq += 1
        return self.state_change_seq


def _nth(items: list, k: str):
    i = ids.parse_index(k)
    if i is None:
        return None
    return items[i - 1] if 1 <= i <= len(items) else None
