"""A simulated agent process: the pane's foreground job while it runs.

It reads what is typed into the pane (``on_input``), draws a little on the pane's screen, and
moves through the stages of its :class:`Behaviour` on the simulator's clock. What herdr
"observes" of it goes through the agent layer's public inputs (``process_detected``,
``detected_state``, ``process_exited``, ``report_session``), never into state directly.

CHOICES: input typed before the agent reached idle is queued and submitted when it does; a
prompt sent while the agent is already working queues one more turn; any input while
blocked unblocks it; text inside a bracketed paste is literal (newlines do not submit).
"""

from __future__ import annotations

import re

from .behaviour import Behaviour

_PASTE = re.compile(r"\x1b\[20([01])~")
_ESCAPE = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|.)", re.S)
_SESSION_NS = "6f1d7a52-5c1e-4c47-9d1e-5b1f0c2a9e11"  # uuid5 namespace of generated sessions


class Occupant:
    def __init__(
        self, layer, pane, behaviour: Behaviour, argv: list[str], pid: int, overrides=None
    ):
        self.layer = layer
        self.sim = layer.sim
        self.pane_id = pane.pane_id
        self.terminal_id = pane.terminal_id
        self.kind = behaviour.kind
        self.behaviour = behaviour
        self.argv = list(argv)
        self.pid = pid
        self.alive = True
        self.detected = False  # herdr has seen this process (set by the layer)
        self.phase = "starting"  # starting | idle | working | blocked | exited
        self.started_at = self.sim.now()
        self.turns = 0  # queued prompts not yet finished
        self.prompts: list[str] = []  # every submitted prompt line, in order
        self._line = ""
        self._in_paste = False
        self._token = 0  # invalidates scheduled work stages
        self._session_seq = 0
        self._session_reported = False
        self.stopped_phase: str | None = None

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        b = self.behaviour
        self._at(b.detect_after, self._detected, stage=False)
        if b.lifetime is not None:
            self._at(b.lifetime, self.exit, stage=False)
        if b.session_at == "start":
            self._at(b.session_after, self.report_session, stage=False)

    def _detected(self) -> None:
        if self.behaviour.alt_screen:
            self._draw("\x1b[?1049h\x1b[H")
        if self.behaviour.terminal_title:
            self._draw(f"\x1b]0;{self.behaviour.terminal_title}\x07")
        self._draw(self.behaviour.banner + "\r\n")
        self.layer.process_detected(self.pane(), self.kind)
        self._at(self.behaviour.startup, self._ready)

    def _ready(self) -> None:
        if self.behaviour.startup_blocked:
            self._set("blocked")
            return
        self._set("idle")
        self._draw("> ")
        if self.turns:
            self._begin_turn()

    def exit(self) -> None:
        """The process ends; the shell comes back to its prompt."""
        if not self.alive:
            return
        self.alive = False
        self.phase = "exited"
        self._token += 1
        pane = self.pane()
        if pane is None:
            return
        if self.behaviour.alt_screen:
            self._draw("\x1b[?1049l")
        self.layer.process_exited(pane, self)
        self.sim.backend.show_prompt(pane)

    def kill(self) -> None:
        """The pane went away: no more stages, nothing observed."""
        self.alive = False
        self.phase = "exited"
        self._token += 1

    def stop(self) -> None:
        """SIGTSTP (a scenario's Ctrl+Z): the process stays, its pending stages do not run."""
        self._token += 1
        self.stopped_phase = self.phase

    def cont(self) -> str:
        """SIGCONT (``fg``): the state its screen shows again (a turn that was under way when
        it stopped is finished later, as if the work resumed)."""
        phase = self.stopped_phase or self.phase
        self.stopped_phase = None
        if phase == "working":
            self._at(self.behaviour.work, self._turn_done)
        return phase if phase in ("idle", "working", "blocked") else "idle"

    # --- input -----------------------------------------------------------------------------

    def on_input(self, data: bytes) -> None:
        if not self.alive:
            return
        text = data.decode("utf-8", "replace")
        pos = 0
        for m in _PASTE.finditer(text):
            self._chars(text[pos : m.start()])
            self._in_paste = m.group(1) == "0"
            pos = m.end()
        self._chars(text[pos:])

    def _chars(self, text: str) -> None:
        if not text:
            return
        if not self._in_paste:
            text = _ESCAPE.sub("", text)
        if self.phase == "blocked" and text:
            self._unblock()
            return
        for ch in text:
            if self._in_paste:
                self._line += ch
            elif ch in "\r\n":
                line, self._line = self._line, ""
                self._submit(line)
            elif ch in "\x7f\b":
                self._line = self._line[:-1]
            elif ch == "\x03":
                self._line = ""
            elif ch >= " " or ch == "\t":
                self._line += ch

    def _submit(self, line: str) -> None:
        b = self.behaviour
        self._draw(line + "\r\n")
        if line.strip() in b.exit_commands:
            self._at(b.exit_after, self.exit, stage=False)
            return
        if not line.strip():
            return
        self.prompts.append(line)
        if b.session_at == "prompt" and len(self.prompts) == 1:
            self._at(b.session_after, self.report_session, stage=False)
        if b.react is None:
            return
        self.turns += 1
        if self.phase == "idle":
            self._begin_turn()

    def _begin_turn(self) -> None:
        b = self.behaviour
        i = len(self.prompts) - self.turns
        line = self.prompts[i] if 0 <= i < len(self.prompts) else ""
        if b.react is None:  # never reacts (turns are only counted when it does)
            return
        self.phase = "working"  # the process is busy from here; herdr sees it after `react`
        self._at(b.react, lambda: self._working(line))

    def _working(self, line: str) -> None:
        b = self.behaviour
        self._set("working")
        if b.block_marker and b.block_marker in line:
            self._at(b.block_after, lambda: self._set("blocked"))
        else:
            self._at(b.work, self._turn_done)

    def _turn_done(self) -> None:
        self.turns = max(self.turns - 1, 0)
        self._draw("● done\r\n")
        if self.turns:
            self._begin_turn()
            return
        self._set("idle")
        self._draw("> ")

    def _unblock(self) -> None:
        b = self.behaviour
        if self.turns == 0:  # blocked at startup: answering the dialog makes it ready
            self._at(b.react or 0.0, self._dialog_answered)
            self.phase = "starting"
            return
        self.phase = "working"

        def resume() -> None:
            self._set("working")
            self._at(b.work, self._turn_done)

        self._at(b.react or 0.0, resume)

    def _dialog_answered(self) -> None:
        self._set("idle")
        self._draw("> ")

    # --- what herdr observes -------------------------------------------------------------

    def force(self, state: str) -> None:
        """Scenario seam: the process's screen now shows ``state`` (working/idle/blocked)."""
        self._token += 1
        if state == "idle":
            self.turns = 0
        self._set(state)

    def report_session(self, value: str | None = None, start_source: str = "startup") -> None:
        """Report this process's agent_session the way its official integration does."""
        b = self.behaviour
        pane = self.pane()
        if not self.alive or pane is None or b.session_source is None:
            return
        self._session_seq += 1
        value = value or b.session_value or self._session_value()
        kw = {"session_path": value} if b.session_kind == "path" else {"session_id": value}
        self._session_reported = True
        self.layer.report_session(
            pane,
            b.session_source,
            self.kind,
            seq=self._session_seq,
            session_start_source=start_source,
            **kw,
        )

    def _argv_session(self) -> str | None:
        """The session named on the command line (``--flag value`` or ``--flag=value``)."""
        flags = self.behaviour.session_flags
        args = self.argv[1:]
        for i, arg in enumerate(args):
            for flag in flags:
                if arg == flag and i + 1 < len(args):
                    return args[i + 1]
                if arg.startswith(flag + "="):
                    return arg[len(flag) + 1 :]
        return None

    def _session_value(self) -> str:
        import uuid  # here, not at import: `simherdr serve` starts without it (and platform)

        sid = self._argv_session()
        if sid and (self.behaviour.session_kind != "path" or "/" in sid):
            return sid  # an id, or a session file path given as is
        sid = sid or str(
            uuid.uuid5(uuid.UUID(_SESSION_NS), f"{self.terminal_id}:{self.pid}:{self.started_at}")
        )
        if self.behaviour.session_kind != "path":
            return sid
        import time

        stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime(self.sim.clock.epoch())) + "-000Z"
        home = self.sim.config.home.rstrip("/") or ""
        return f"{home}/.{self.kind}/agent/sessions/{stamp}_{sid}.jsonl"

    # --- helpers ---------------------------------------------------------------------------

    def pane(self):
        p = self.sim.session.panes.get(self.pane_id)
        return p if p is not None and p.terminal_id == self.terminal_id else None

    def _set(self, state: str) -> None:
        pane = self.pane()
        if not self.alive or pane is None:
            return
        self.phase = state
        self.layer.detected_state(pane, state, blocker=(state == "blocked"))

    def _draw(self, text: str) -> None:
        pane = self.pane()
        if pane is not None and self.alive:
            pane.screen.feed(text)

    def _at(self, delay: float, fn, stage: bool = True) -> None:
        token = self._token

        def fire():
            if self.alive and (not stage or token == self._token):
                fn()

        self.sim.schedule(self.sim.now() + max(delay, 0.0), fire)
