"""The agent layer: simulated agent processes in panes, and herdr's agent state machine.

Installed as ``sim.agents``. Every change to a pane's agent state goes through one function,
:meth:`AgentLayer._update` (herdr's ``update_terminal_state``, src/app/actions.rs:2955-3036,
plus ``emit_pane_state_update``, src/app/api.rs:612-661): it applies one input (detection,
hook report, release, clear, session report), recomputes the effective state, reconciles the
managed start, applies the ``seen`` rule, bumps the global ``state_change_seq`` and emits
``pane_updated`` / ``pane_agent_detected`` / ``pane_agent_status_changed`` (SOCKET.md §6.2,
§8.3). Timer-driven managed-start reconciles (herdr's runtime loop) emit ``pane_updated``.

CHOICES:
- SHELL_REDETECT_DELAY: after an agent process exits, detection publishes "no agent, unknown"
  this long later (herdr's detection loop notices the shell in the foreground again).
- OCCUPANT_PID_OFFSET: a simulated agent's pid is its shell's pid plus this.
- A command line starts a simulated agent when its first word's basename names a known kind
  (canonical name, executable or alias, herdr's process-name detection); nothing else runs.
"""

from __future__ import annotations

import os

from .. import views as V
from ..facts import kinds as K
from ..model import metadata as M
from ..model import shellwords
from ..model import status as ST
from ..model import terminal as T
from ..model import terminal_detection as TD
from ..model import terminal_reports as TR
from ..model.seams import ForegroundJob, RealForeground
from .behaviour import Behaviour, BehaviourTable
from .occupant import Occupant

AGENT_START_SETTLE_DELAY = 3.0  # src/app/agents.rs:10
SHELL_REDETECT_DELAY = 0.5  # CHOICE (see module doc)
SELF_REPORTED_SHELL_RECHECK = 1.0  # src/pane.rs SELF_REPORTED_AGENT_SHELL_RECHECK
# src/app/agent_resume.rs start_pending_agent_resume
RESTORE_ERROR_NO_DIRECTORY = (
    "Saved directory is unavailable. Restore the directory and restart this session."
)
_RESUME_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=")


def _resume_quote(value: str) -> str:
    """agent_resume.rs shell_quote: safe ASCII words bare, else single-quoted."""
    if not value:
        return "''"
    if all(c in _RESUME_SAFE for c in value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


OCCUPANT_PID_OFFSET = 1  # CHOICE


def command_kind(line: str, kinds: str) -> tuple[str, list[str]] | None:
    """(kind, argv) when ``line`` runs an agent of the ``kinds`` table, else None."""
    first = shellwords.first_word(line)
    if first is not None and not (first and _program_kind(first, kinds)):
        return None  # not an agent: no full parse
    argv = shellwords.split(line)
    if not argv:
        return None
    kind = _program_kind(argv[0], kinds)
    if kind == "letta" and not K.letta_interactive(argv[1:]):
        return None  # a headless letta run is no agent (0.9.3; letta is no 0.8.2 kind)
    return (kind, argv) if kind else None


def _program_kind(program: str, kinds: str) -> str | None:
    """The agent kind a command's program names (its last path component), if any."""
    name = program.rsplit("/", 1)[-1]
    kind = K.parse_kind_in(kinds, name)
    executables = K.executables_in(kinds)
    if kind is None and name in executables.values():
        kind = next(k for k, exe in executables.items() if exe == name)
    return kind


class AgentLayer:
    """Public API (all methods take a Pane object; look it up with ``sim.session.panes[id]``):

    configuration  set_behaviour(kind, **values), configure_pane(pane_id, **values),
                   behaviour_for(kind, **extra)
    processes      spawn(pane, kind, argv=None, **overrides) -> Occupant, occupant(pane),
                   foreground(pane)
    observations   process_detected(pane, kind), detected_state(pane, state, blocker=False),
                   detection_update(pane, agent, state, blocker, exited) (real panes),
                   process_exited(pane), shell_returned(pane),
                   codex_prompt_observed(pane, ready)
    hooks          report_agent(...), report_session(...), release_agent(...),
                   clear_authority(...)
    managed starts begin_managed(pane, name, kind, timeout), reconcile_target(pane),
                   reconcile_due(), rename(pane, name)
    simulator      on_command(pane, line), on_input(pane, data), on_pane_gone(pane)
    """

    def __init__(self, sim):
        self.sim = sim
        self.behaviours = BehaviourTable()
        self._occupants: dict[str, Occupant] = {}  # terminal_id -> process
        self._pane_overrides: dict[str, dict] = {}  # pane_id -> overrides for the next start
        self.listeners: list = []  # fn(pane, change dict) after each update
        self._shell_watch: set[str] = set()  # pane ids whose self-reported agent is watched
        # (backend, whether it is RealForeground), asked once per backend: a runtime Protocol
        # check costs ~8 us on 3.11, and every agent read of a pane without one asks it
        self._real_fg: tuple[object, bool] = (None, False)

    # --- configuration ---------------------------------------------------------------------

    def set_behaviour(self, kind: str, **values) -> Behaviour:
        """Override behaviour values for every later agent of ``kind``."""
        return self.behaviours.set(kind, **values)

    def configure_pane(self, pane_id: str, **values) -> None:
        """Behaviour overrides for the next agent started in ``pane_id`` (e.g. by agent.start)."""
        self._pane_overrides.setdefault(pane_id, {}).update(values)

    def behaviour_for(self, kind: str, **extra) -> Behaviour:
        return self.behaviours.get(kind, **extra)

    # --- processes -------------------------------------------------------------------------

    def occupant(self, pane) -> Occupant | None:
        occ = self._occupants.get(pane.terminal_id)
        return occ if occ is not None and occ.alive else None

    def foreground(self, pane) -> Occupant | ForegroundJob | None:
        occ = self.occupant(pane)
        if occ is not None:
            return occ
        backend = self.sim.backend
        known, real = self._real_fg
        if known is not backend:
            real = isinstance(backend, RealForeground)
            self._real_fg = (backend, real)
        if real:
            return backend.foreground_process(pane)  # a real (PTY) pane's real foreground job
        return None

    def spawn(self, pane, kind: str, argv: list[str] | None = None, **overrides) -> Occupant:
        """Run a simulated agent of ``kind`` as the pane's foreground job (as if its command
        line had just been submitted to the shell)."""
        label = K.parse_kind_in(self.sim.version.tables.agent_kinds, kind)
        if label is None:
            raise ValueError(K.UNSUPPORTED_KIND_MESSAGE.format(kind=kind))
        extra = {**self._pane_overrides.pop(pane.pane_id, {}), **overrides}
        behaviour = self.behaviour_for(label, **extra)
        pid = self.sim.backend.shell_pid(pane) + OCCUPANT_PID_OFFSET
        occ = Occupant(self, pane, behaviour, argv or [K.EXECUTABLES_0_9_3[label]], pid)
        old = self._occupants.get(pane.terminal_id)
        if old is not None:
            old.kill()
        self._occupants[pane.terminal_id] = occ
        occ.start()
        self.sim.notify()
        return occ

    # --- simulator hooks ---------------------------------------------------------------------

    def on_command(self, pane, line: str) -> bool:
        found = command_kind(line, self.sim.version.tables.agent_kinds)
        if found is None:
            return False
        self.spawn(pane, found[0], found[1])
        return True

    def on_input(self, pane, data: bytes) -> bool:
        occ = self.occupant(pane)
        if occ is None:
            return False
        occ.on_input(data)
        return True

    def on_pane_gone(self, pane) -> None:
        occ = self._occupants.pop(pane.terminal_id, None)
        if occ is not None:
            occ.kill()
        self._pane_overrides.pop(pane.pane_id, None)

    def pane_renamed(self, pane, old_id: str) -> None:
        """pane.move across workspaces: the process and its overrides follow the terminal."""
        occ = self._occupants.get(pane.terminal_id)
        if occ is not None:
            occ.pane_id = pane.pane_id
        if old_id in self._pane_overrides:
            self._pane_overrides[pane.pane_id] = self._pane_overrides.pop(old_id)

    # --- observations of the process (herdr's detection) ------------------------------------

    def _blocked_phase(self) -> bool:
        return self.sim.version.rows.managed_start_blocked_phase

    def process_detected(self, pane, kind: str) -> bool:
        now = self.sim.now()
        occ = self.occupant(pane)
        if occ is not None and occ.kind == kind:
            occ.detected = True
        acquires = self.sim.version.rows.process_detection_acquires
        hooks = self.sim.version.tables.hook_sources
        return self._update(pane, lambda a: TD.process_detected(a, kind, now, hooks, acquires))

    def detected_state(self, pane, state: str, blocker: bool = False) -> bool:
        """Detection's state for the current detected process (screen manifests, §6.3)."""
        now, hooks, keep = self._detection_rules()
        agent = pane.agent.detected
        return self._update(
            pane, lambda a: TD.detection(a, agent, state, blocker, False, now, hooks, keep)
        )

    def detection_update(
        self, pane, agent: str | None, state: str, blocker: bool = False, exited: bool = False
    ) -> bool:
        """One publish of herdr's detection loop for a real (PTY) pane (StateChanged,
        src/pane.rs:252-288): the detected agent kind (None: none any more), its screen
        state, a visible blocker, and whether this reports the process's exit."""
        now, hooks, keep = self._detection_rules()
        return self._update(
            pane, lambda a: TD.detection(a, agent, state, blocker, exited, now, hooks, keep)
        )

    def process_exited(self, pane, occupant: Occupant | None = None) -> bool:
        occ = occupant or self.occupant(pane)
        if occ is not None and not occ.detected:
            return False  # herdr never saw this process
        agent = pane.agent.detected or (occ.kind if occ else None)
        now, hooks, keep = self._detection_rules()
        changed = self._update(
            pane, lambda a: TD.detection(a, agent, "idle", False, True, now, hooks, keep)
        )
        terminal_id = pane.terminal_id

        def redetect():
            p = self.sim.session.live_pane(pane.pane_id, terminal_id)
            if p is not None:
                self.shell_returned(p)

        self.sim.schedule(now + SHELL_REDETECT_DELAY, redetect)
        return changed

    def shell_returned(self, pane) -> bool:
        """Detection sees the pane's shell in the foreground again: no agent, unknown (done by
        itself SHELL_REDETECT_DELAY after an exit; 0.9.3 frees the exited agent's name here).
        False when an agent process holds the pane."""
        if self.occupant(pane) is not None:
            return False
        t, hooks, keep = self._detection_rules()
        return self._update(
            pane, lambda a: TD.detection(a, None, "unknown", False, False, t, hooks, keep)
        )

    def codex_prompt_observed(self, pane, ready: bool = True) -> bool:
        """0.9.3 CodexPromptObserved (profile row codex_prompt_readiness): detection sees (or
        no longer sees) a starting codex's prompt; a codex start may then complete while its
        state is `unknown` (interactive_ready). False on 0.8.2 and when nothing changed.
        CHOICE: simulated codex processes reach `idle`, so nothing calls this by itself; it is
        the seam scenarios use for a codex whose screen stays unknown."""
        if not self.sim.version.rows.codex_prompt_readiness:
            return False
        return self._update(pane, lambda a: T.observe_codex_prompt(a, ready))

    def _detection_rules(self) -> tuple[float, str, bool]:
        """(now, hook-source table, exit_keeps_name_until_shell) for TD.detection."""
        v = self.sim.version
        return self.sim.now(), v.tables.hook_sources, v.rows.exit_keeps_name_until_shell

    def watch_self_reported(self, pane) -> None:
        """0.9.2 (#4687, profile row clear_reported_agent_at_idle_shell): herdr cannot see a
        self-reported agent's process, so while one holds the pane its shell is checked every
        SELF_REPORTED_SHELL_RECHECK; back at an idle shell, the agent is cleared (src/pane.rs
        report_self_reported_agent_shell_return, terminal state clear_self_reported_agent).
        CHOICE: the first check is one interval after the report."""
        if not self.sim.version.rows.clear_reported_agent_at_idle_shell:
            return
        if (
            not TR.self_reported_active(pane.agent, self.sim.version.tables.agent_kinds)
            or pane.pane_id in self._shell_watch
        ):
            return
        terminal_id = pane.terminal_id
        self._shell_watch.add(pane.pane_id)

        def check():
            p = self.sim.session.panes.get(pane.pane_id)
            if (
                p is None
                or p.terminal_id != terminal_id
                or not TR.self_reported_active(p.agent, self.sim.version.tables.agent_kinds)
            ):
                self._shell_watch.discard(pane.pane_id)
                return
            if self.shell_idle(p):
                self._shell_watch.discard(pane.pane_id)
                now = self.sim.now()
                kinds = self.sim.version.tables.agent_kinds
                self._update(p, lambda a: TR.clear_self_reported(a, now, kinds))
                return
            self.sim.schedule(self.sim.now() + SELF_REPORTED_SHELL_RECHECK, check)

        self.sim.schedule(self.sim.now() + SELF_REPORTED_SHELL_RECHECK, check)

    def shell_idle(self, pane) -> bool:
        """pane_shell_is_idle (0.9.3 src/platform/mod.rs: ``available_pane_shell(child_pid)
        .is_some()``): the pane's foreground job is its own shell process alone, whatever else
        would run there (any command, not only an agent: ``sleep 300`` holds the pane). The
        backend's ``shell_in_foreground`` is that rule (a real pane's /proc; a simulated
        shell's occupant or foreground command)."""
        return self.occupant(pane) is None and self.sim.backend.shell_in_foreground(pane)

    def resume_after_restart(self, pane, argv: list[str], saved_cwd: str | None = None) -> None:
        """A reported resume command after a server restart (src/app/agent_resume.rs
        start_pending_agent_resume): typed into the new shell with a carriage return, shell
        quoted; a saved directory that is gone sets PaneInfo.restore_error instead."""
        cwd = saved_cwd if saved_cwd is not None else pane.cwd  # before restore's fallback
        if not cwd or not os.path.isdir(cwd):
            pane.restore_error = RESTORE_ERROR_NO_DIRECTORY
            pane.revision += 1
            return
        line = " ".join(_resume_quote(part) for part in argv)
        self.sim.write_input(pane, (line + "\r").encode())

    # --- hook inputs (pane.report_agent & co., SOCKET.md §6.4, §6.6) ---------------------------

    def report_agent(
        self,
        pane,
        source: str,
        agent: str,
        state: str,
        message: str | None = None,
        seq: int | None = None,
        session_id: str | None = None,
        session_path: str | None = None,
    ) -> bool:
        label = K.canonical_label(agent)
        if not label:
            raise ValueError("agent label must not be empty")
        hooks = self.sim.version.tables.hook_sources
        session = T.session_ref(source, label, session_id, session_path, hooks)
        if (source, label) in K.reserved_native_in(hooks):
            rebind = self.sim.version.rows.session_rebind_restarts_acquisition
            return self._update(
                pane,
                lambda a: TR.session_report(a, source, label, session, seq, None, hooks, rebind),
            )
        now = self.sim.now()
        changed = self._update(
            pane,
            lambda a: TR.hook_report(a, source, label, state, message, session, seq, now, hooks),
        )
        self.watch_self_reported(pane)
        return changed

    def report_session(
        self,
        pane,
        source: str,
        agent: str,
        seq: int | None = None,
        session_id: str | None = None,
        session_path: str | None = None,
        session_start_source: str | None = None,
    ) -> bool:
        label = K.canonical_label(agent)
        if not label:
            raise ValueError("agent label must not be empty")
        hooks = self.sim.version.tables.hook_sources
        session = T.session_ref(source, label, session_id, session_path, hooks)
        start = session_start_source.strip() if session_start_source else None
        start = start if start in TR.RECOGNIZED_START_SOURCES + ("branch",) else None
        rebind = self.sim.version.rows.session_rebind_restarts_acquisition
        return self._update(
            pane, lambda a: TR.session_report(a, source, label, session, seq, start, hooks, rebind)
        )

    def release_agent(self, pane, source: str, agent: str, seq: int | None = None) -> bool:
        label = K.canonical_label(agent)
        if not label:
            raise ValueError("agent label must not be empty")
        if T.is_official(source, label, self.sim.version.tables.hook_sources):
            return False  # official herdr:* sources are ignored (src/app/actions.rs:2898-2914)
        return self._update(pane, lambda a: TR.release(a, source, label, seq))

    def clear_authority(self, pane, source: str | None = None, seq: int | None = None) -> bool:
        return self._update(pane, lambda a: TR.clear_authority(a, source, seq))

    # --- reported metadata (src/terminal/metadata.rs): the presentation overlay ----------

    def report_metadata(self, pane, report: M.Report) -> bool:
        """HookMetadataReported: the overlay is stored, then the effective presentation is
        recomputed by the one update function (pane_agent_status_changed when it changed)."""
        now = self.sim.now()

        def mutate(a):
            M.set_overlay(pane.meta, report, now)
            return T.Mutation()

        return self._update(pane, mutate)

    def expire_metadata(self, pane) -> bool:
        """The runtime's expiry deadline (src/app/runtime.rs:421-447): overlays past their TTL
        go; an event only when what was visible changes."""
        now = self.sim.now()
        return self._update(
            pane, lambda a: T.Mutation() if M.expire_overlays(pane.meta, now) else None
        )

    # --- managed starts ----------------------------------------------------------------------

    def begin_managed(
        self, pane, name: str, kind: str, timeout: float, session: dict | None = None
    ) -> None:
        now = self.sim.now()
        pane.agent.kinds = self.sim.version.tables.agent_kinds
        T.begin_managed(pane.agent, name, kind, now, AGENT_START_SETTLE_DELAY, timeout, session)
        if self.sim.version.rows.managed_start_acquires:
            pane.agent.acquisition_pending = True  # [H093] begin_managed_agent
        self.sim.schedule(now + AGENT_START_SETTLE_DELAY, self.reconcile_due)
        self.sim.schedule(now + timeout, self.reconcile_due)

    def reconcile_target(self, pane) -> bool:
        """agent.get's reconcile (src/app/agents.rs:39-62): pane_updated when it changed."""
        pane.agent.kinds = self.sim.version.tables.agent_kinds
        if T.reconcile_managed(pane.agent, self.sim.now(), self._blocked_phase()):
            self._emit_pane_updated(pane)
            return True
        return False

    def reconcile_due(self) -> None:
        """The runtime's deadline reconcile (src/app/runtime.rs:330-343)."""
        now = self.sim.now()
        for pane in list(self.sim.session.all_panes()):
            pane.agent.kinds = self.sim.version.tables.agent_kinds
            d = T.next_managed_deadline(pane.agent)
            if (
                d is not None
                and now >= d
                and T.reconcile_managed(pane.agent, now, self._blocked_phase())
            ):
                self._emit_pane_updated(pane)

    def rename(self, pane, name: str | None) -> None:
        T.set_name(pane.agent, name)
        self._emit_pane_updated(pane)

    # --- the one update function ---------------------------------------------------------------

    def _update(self, pane, mutate) -> bool:
        """Apply one input to the pane's terminal and publish what changed. False when herdr
        would have dropped the input."""
        s = self.sim.session
        if pane.pane_id not in s.panes:
            return False
        a = pane.agent
        a.kinds = self.sim.version.tables.agent_kinds
        now = self.sim.now()
        prev_label, prev_state, prev_pres = a.label, a.internal, T.presentation(a)
        prev_seen = pane.seen
        prev_name = a.name
        prev_session = T.current_session(a)
        had_completion = a.completion_seq is not None or not prev_seen
        profile = self.sim.version.rows
        # 0.8.2 suppresses every idle while the start is pending; 0.9.3 makes the start an
        # acquisition instead (profile row managed_start_acquires).
        # 0.8.0 (row process_detection_acquires false) suppresses no startup idle at all.
        launch_pending = (
            a.launch_pending
            and not profile.managed_start_acquires
            and self.sim.version.rows.process_detection_acquires
        )
        mutation = mutate(a)
        T.reconcile_resume(a)  # herdr runs it whether or not the input applied
        if mutation is None:
            return False
        refresh_presentation(pane, now)  # the overlay's guards follow label and authority
        label, state, pres = a.label, T.computed_state(a), T.presentation(a)
        effective = (prev_label, prev_state, prev_pres) != (label, state, pres)
        if effective:
            a.internal = state
        if profile.working_ends_acquisition and mutation.working and state == "working":
            a.acquisition_pending = False  # the agent worked: its next idle is a completion
        # completion_reset (profile row completion_reset_on_identity_change): a new session
        # reference or agent label is not the work that completed.
        reset = profile.completion_reset_on_identity_change and (
            T.current_session(a) != prev_session or (effective and prev_label != label)
        )
        if reset:
            a.completion_seq = None
            pane.seen = True
        T.reconcile_managed(a, now, self._blocked_phase())
        suppress_acquisition = T.finish_acquisition(a)
        name_changed = a.name != prev_name
        if not effective:
            if not (mutation.released or name_changed or (reset and had_completion)):
                return True
            prev_label, prev_state, prev_pres = a.label, a.internal, T.presentation(a)
            label, state, pres = prev_label, prev_state, prev_pres
        suppress = state == "idle" and (launch_pending or suppress_acquisition)
        from_unknown = profile.completion_from_unknown
        if prev_state != state:
            a.state_change_seq = s.bump_state_seq()
            if state != "idle":
                a.completion_seq = None
            elif not suppress and ST.is_completion_change(
                prev_state, state, prev_label, label, from_unknown
            ):
                a.completion_seq = a.state_change_seq
        pane.seen = ST.seen_after_change(
            pane.seen,
            prev_state,
            state,
            prev_label,
            label,
            suppress,
            s.in_active_tab(pane),
            from_unknown,
        )
        released = mutation.released
        shown_label = prev_label if released else label
        if name_changed:
            self._emit_pane_updated(pane)
        if prev_label != label or released:
            ev = {"pane_id": pane.pane_id, "workspace_id": pane.workspace_id}
            if shown_label is not None:
                ev["agent"] = shown_label
            if released:
                ev["released"] = True
                ev["final_status"] = ST.wire_status(state, pane.seen)
            self.sim.outbox.emit("pane_agent_detected", ev)
        before = ST.wire_status(prev_state, prev_seen)
        after = ST.wire_status(state, pane.seen)
        if before != after or prev_pres != pres:
            ev = V.status_payload(pane, after, shown_label)
            if shown_label is None:
                ev.pop("agent", None)
            self.sim.outbox.emit("pane_agent_status_changed", ev)
        change = {
            "t": now,
            "before": before,
            "after": after,
            "label": shown_label,
            "released": released,
            "seq": a.state_change_seq,
        }
        for fn in list(self.listeners):
            fn(pane, change)
        self.sim.notify()
        return True

    def _emit_pane_updated(self, pane) -> None:
        self.sim.outbox.emit("pane_updated", {"pane": V.pane_info(self.sim.session, pane)})
        self.sim.notify()


def refresh_presentation(pane, now: float) -> None:
    """The effective title / display_agent / state_labels the views render."""
    a = pane.agent
    hook_source = a.hook["source"] if a.hook else None
    a.title, a.display_agent, a.state_labels = M.effective(
        pane.meta, now, T.effective_label(a), hook_source
    )
