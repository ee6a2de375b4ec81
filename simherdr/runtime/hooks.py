"""The pane hooks: what the backends, the agent layer and the handlers call when a pane is
made, typed into, renamed, exited or closed (the backend seam and the agent layer's inputs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Protocol

    from ..agents import AgentLayer
    from ..facts.versions import HerdrVersion
    from ..model.events import EventSink
    from ..model.geometry import Chrome
    from ..model.panescreen import PaneScreen
    from ..model.seams import PaneBackend
    from ..model.state import Pane, Session, Workspace
    from ..outbox import Outbox

    # typing only (not made at run time: a Protocol class costs ~0.14M instructions)
    class SessionConfig(Protocol):
        cols: int | None
        rows: int | None
        layout_area: tuple[int, int, int, int] | None

    class HookHost(Protocol):
        """What the hooks need of the runtime."""

        session: Session
        outbox: Outbox
        version: HerdrVersion

        @property  # read-only: the runtime's Config is wider than what the hooks read
        def config(self) -> SessionConfig: ...

        @property
        def backend(self) -> PaneBackend: ...

        @property
        def agents(self) -> AgentLayer: ...

        def notify(self) -> None: ...

        def commit(self) -> None: ...

        def terminal_exited(self, pane: Pane) -> None: ...

        def terminal_size_locked(self, pane: Pane) -> bool: ...


def chrome_of(version: HerdrVersion) -> Chrome:
    """The release's view chrome (rows view_* and pane_*)."""
    from ..model.geometry import Chrome

    r = version.rows
    return Chrome(
        sidebar_width=r.view_sidebar_width,
        tab_bar_rows=r.view_tab_bar_rows,
        mobile_width_threshold=r.view_mobile_width_threshold,
        pane_borders=r.pane_borders,
        pane_gaps=r.pane_gaps,
        pane_outer_borders=r.pane_outer_borders,
        scrollbar_gutter=r.pane_scrollbar_gutter,
        gutter_on_alt_screen=r.pane_gutter_on_alt_screen,
    )


class PaneHooks:
    def __init__(self, host: HookHost) -> None:
        self._host = host
        # (backend, whether it is ResizesTerminals): a runtime Protocol check walks the
        # protocol's members on every call (~8 us on 3.11), and every resize asks it; the
        # simulator's backend is made once (Simulator.backend), so it is asked once
        self._resizes: tuple[object, bool] = (None, False)

    # --- the session's factories (imported with the first pane, not at start) -----------------

    def new_session(self, record: EventSink) -> Session:
        from ..model.state import Session

        rows = self._host.version.rows
        s = Session(
            self.make_screen,
            self.label_for_cwd,
            record,
            agent_kinds=self._host.version.tables.agent_kinds,
            close_focus_to_opener=rows.close_focus_returns_to_opener,
        )
        s.scroll_metrics_always = rows.pane_info_scroll_always
        cfg = self._host.config
        if cfg.cols is not None or cfg.rows is not None:  # a fixed size: no view geometry
            s.frame = (cfg.cols or rows.headless_cols, cfg.rows or rows.headless_rows)
            area = (0, 0, s.frame[0], s.frame[1])
        else:
            from ..model.geometry import terminal_area

            s.frame = (rows.headless_cols, rows.headless_rows)
            s.chrome = chrome_of(self._host.version)
            # Pane rects are laid out on the view's terminal area: the headless frame (rows
            # headless_cols/headless_rows) less the sidebar and the tab bar (herdr's
            # view.terminal_area, src/app/api/panes.rs:306,418,1699,1711), unless the host
            # names an area.
            area = terminal_area(s.frame, s.chrome)
        area = cfg.layout_area or area
        s.area = (area[0], area[1], area[2], area[3])
        return s

    def make_screen(self, cols: int, rows: int) -> PaneScreen:
        """A simulated pane's screen: the engine panes/screens.py chooses (libghostty-vt)."""
        from ..panes.screens import new_screen

        return new_screen(cols, rows)

    # --- geometry (model/geometry.py) ----------------------------------------------------------

    def draw(self) -> None:
        """herdr's draw after a batch: the first draw that shows a pane resizes every pane to
        its laid-out size (model/geometry.py draw)."""
        from ..model import geometry as G

        session = self._host.session
        for pane_id, (cols, rows) in G.draw(session).items():
            pane = session.panes.get(pane_id)
            if pane is not None:
                self.pane_size_changed(pane, cols, rows)

    def pane_size_changed(self, pane: Pane, cols: int, rows: int) -> None:
        """SEAM: a pane's terminal is now ``cols`` x ``rows`` (a draw that resizes panes, a
        client's size): a ``ResizesTerminals`` backend resizes the screen and tells a real
        process (TIOCSWINSZ, so SIGWINCH); else only the screen follows. No-op when the size
        is the same."""
        from ..model.seams import ResizesTerminals

        screen = pane.screen
        if cols < 1 or rows < 1 or (screen.cols, screen.rows) == (cols, rows):
            return
        if self._host.terminal_size_locked(pane):
            return  # a terminal-plane owner sizes it (herdr's direct_attach_resize_locks)
        backend = self._host.backend
        known, resizes = self._resizes
        if known is not backend:
            resizes = isinstance(backend, ResizesTerminals)
            self._resizes = (backend, resizes)
        if resizes:
            backend.resize_terminal(pane, cols, rows)  # type: ignore[attr-defined]
        else:
            screen.resize(cols, rows)

    def label_for_cwd(self, cwd: str) -> str:
        """The session's labeler: a cwd's automatic workspace label (git discovery)."""
        from ..handlers.common import auto_label

        return auto_label(self._host, cwd)

    # --- a pane's life --------------------------------------------------------------------------

    def on_pane_created(self, pane: Pane) -> None:
        self._host.backend.attach(pane)
        pane.screen.on_title = lambda: self._title_changed(pane)

    def _title_changed(self, pane: Pane) -> None:
        """herdr's set_terminal_title (src/terminal/state.rs:225-240): a change of the stripped
        title bumps revision and publishes pane_updated (src/app/terminal_titles.rs)."""
        from .. import views as V
        from ..model.titles import stripped_terminal_title

        host = self._host
        stripped = stripped_terminal_title(pane.screen.title)
        if stripped == pane.title_stripped or pane.pane_id not in host.session.panes:
            return
        pane.title_stripped = stripped
        pane.revision += 1
        host.outbox.emit("pane_updated", {"pane": V.pane_info(host.session, pane)})
        host.notify()

    def write_input(self, pane: Pane, data: bytes) -> None:
        self._host.backend.write(pane, data)
        self._host.notify()

    def foreground_agent(self, pane: Pane):
        """The simulated agent process in the pane's foreground, if any (agent layer)."""
        return self._host.agents.foreground(pane)

    def on_command(self, pane: Pane, line: str) -> bool:
        """A command line submitted to a simulated shell. True when something took over."""
        if self._host.agents.on_command(pane, line):
            return True
        if line.strip() == "exit":
            self.pane_exited(pane)
            return True
        return False

    def pane_exited(self, pane: Pane) -> None:
        """The pane's shell exited: pane_exited, and an emptied tab/workspace goes silently."""
        if pane.pane_id not in self._host.session.panes:
            return
        self._host.terminal_exited(pane)  # its terminal-plane streams end first
        self.before_pane_close(pane)
        self._host.session.close_pane(pane, reason="exited")
        self._host.commit()

    def before_pane_close(self, pane: Pane) -> None:
        self._host.agents.on_pane_gone(pane)
        self._host.backend.detach(pane)

    def on_pane_renamed(self, pane: Pane, old_id: str) -> None:
        """A cross-workspace pane.move gave the pane a new public id: what is keyed by the
        old one follows (its terminal, processes and pending agent start stay the same)."""
        self._host.backend.renamed(pane, old_id)
        self._host.agents.pane_renamed(pane, old_id)

    def close_all(self) -> None:
        """The server process ends: every pane's agent and process go."""
        for pane in list(self._host.session.all_panes()):
            self.before_pane_close(pane)

    def resume_plans(self) -> dict[str, tuple[list | None, str | None]]:
        """Before a restart: each pane's reported resume command and cwd."""
        return {p.pane_id: (p.agent.resume_argv, p.cwd) for p in self._host.session.all_panes()}

    def resume(self, plans: dict[str, tuple[list | None, str | None]]) -> None:
        """After a restart: 0.9.2's resume_argv typed into the new shell, in the saved cwd."""
        for pane in list(self._host.session.all_panes()):
            argv, saved_cwd = plans.get(pane.pane_id, (None, None))
            if argv:
                self._host.agents.resume_after_restart(pane, argv, saved_cwd)

    def before_workspace_close(self, w: Workspace) -> None:
        for t in w.tabs:
            for pid in t.pane_ids():
                self.before_pane_close(self._host.session.panes[pid])
