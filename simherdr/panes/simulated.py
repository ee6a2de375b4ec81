"""Simulated panes: no process, a screen buffer and a tiny line-editing shell.

CHOICES (named here, listed in the README): the simulated shell shows the prompt ``$ ``; it
echoes typed input, runs no commands except ``exit`` (which ends the shell, so herdr's
pane_exited path can be exercised), ``sleep`` (SIMULATED_SLEEP: :func:`sleep_seconds`, it holds
the foreground for its simulated duration) and ``cd`` (SIMULATED_CD: moves the shell's cwd, which
herdr reads from /proc: ``cd``/``cd ~`` go home, ``cd -`` back, a relative path resolves
against the cwd, a missing directory prints bash's error and stays), and hands a typed agent
command line to the agent layer. Process ids are synthetic and stable per pane.

SIMULATED_FOREGROUND_CWD: PaneInfo.foreground_cwd is reported only while a scenario has moved
the foreground process away from the shell's cwd (``set_foreground_cwd``, e.g. an agent that
changed into a worktree; it lasts until the shell's prompt comes back). herdr's source would
report the shell's own cwd for a shell-only pane (src/pane.rs:2989-3010), but the replies
measured on real herdr 0.9.0-0.9.3 (CLIENTS.md §3.7, the tab-create cassette) carry none;
real panes (simherdr.panes.pty) report what /proc says, by herdr's rule.

A scenario can make the shell run a foreground command (``run_foreground`` /
``foreground_done``, used by ``simherdr.scenarios.agents.busy_shell``): the shell is then not
at its prompt (``agent.start`` answers ``agent_pane_busy``). CHOICE: input typed meanwhile is
kept as type-ahead and reaches the shell when the command ends; Ctrl-C ends the command.
"""

from __future__ import annotations

import asyncio
import collections
import os
import re
from typing import Any

from ..model import shellwords

PROMPT = "$ "
#: what of one write is typed per event-loop turn (see _write_now): at most this many
#: characters, and at most this many submitted lines (each may start a command)
INPUT_SLICE = 16 * 1024
INPUT_SLICE_LINES = 64
# Printable characters (what the old per-character editor took as ``ch >= " " or "\t"``,
# but DEL) as runs, every other control character alone.
_INPUT_TOKEN = re.compile(
    r"(?P<printable>[\t\x20-\x7e\x80-\U0010ffff]+)|(?P<control>[\x00-\x08\x0a-\x1f\x7f])"
)
_PASTE_MARKERS = re.compile(rb"\x1b\[20[01]~")
_ESCAPE_SEQ = re.compile(rb"\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|.)", re.S)
PID_BASE = 40000


class SimulatedBackend:
    def __init__(self, sim, prompt: str = PROMPT):
        self.sim = sim
        self.prompt = prompt
        self._lines: dict[str, str] = {}
        self._pids: dict[str, int] = {}
        self._next_pid = PID_BASE
        self._busy: dict[str, list[str]] = {}  # pane_id -> argv of the foreground command
        self._typeahead: dict[str, bytes] = {}
        self._queued: dict[str, collections.deque[bytes]] = {}  # writes behind a large one
        self._fg_cwd: dict[str, str] = {}  # pane_id -> the foreground process's own cwd
        self._oldpwd: dict[str, str] = {}

    def _pid(self) -> int:
        self._next_pid += 2
        return self._next_pid

    # --- lifecycle ---------------------------------------------------------------------------

    def attach(self, pane) -> None:
        self._pids[pane.pane_id] = self._pid()
        self._lines[pane.pane_id] = ""
        self._sync_cwd(pane)
        pane.screen.feed(self.prompt)

    def detach(self, pane) -> None:
        self._fg_cwd.pop(pane.pane_id, None)
        self._oldpwd.pop(pane.pane_id, None)
        self._lines.pop(pane.pane_id, None)
        self._pids.pop(pane.pane_id, None)
        self._busy.pop(pane.pane_id, None)
        self._typeahead.pop(pane.pane_id, None)
        self._queued.pop(pane.pane_id, None)

    def renamed(self, pane, old_id: str) -> None:
        """pane.move across workspaces: the shell's state follows the pane's new id."""
        tables: tuple[dict[str, Any], ...] = (self._lines, self._pids, self._busy, self._typeahead)
        for table in tables:
            if old_id in table:
                table[pane.pane_id] = table.pop(old_id)

    # --- a foreground command (the scenario seam for a busy shell) ---------------------------

    def run_foreground(self, pane, argv: list[str]) -> None:
        """The shell runs ``argv`` in the foreground until :meth:`foreground_done`."""
        self._busy[pane.pane_id] = list(argv)
        self._lines[pane.pane_id] = ""
        pane.screen.feed(" ".join(argv) + "\r\n")

    def _run_timed(self, pane, line: str) -> bool:
        """SIMULATED_SLEEP: a submitted ``sleep`` holds the foreground for its duration."""
        seconds = sleep_seconds(line)
        if seconds is None:
            return False
        argv = shellwords.split(line) or ["sleep"]
        self._busy[pane.pane_id] = argv
        if seconds != float("inf"):
            terminal_id = pane.terminal_id

            def finish() -> None:
                if pane.terminal_id == terminal_id and self._busy.get(pane.pane_id) is argv:
                    self.foreground_done(pane)
                    self.sim.notify()

            self.sim.schedule(self.sim.now() + seconds, finish)
        return True

    def foreground_done(self, pane) -> None:
        """The foreground command ended: the prompt comes back, then any type-ahead."""
        if self._busy.pop(pane.pane_id, None) is None:
            return
        self.show_prompt(pane)
        queued = self._typeahead.pop(pane.pane_id, b"")
        if queued:
            self.write(pane, queued)

    def foreground_command(self, pane) -> list[str] | None:
        argv = self._busy.get(pane.pane_id)
        return list(argv) if argv is not None else None

    # --- input -------------------------------------------------------------------------------

    def write(self, pane, data: bytes) -> None:
        queue = self._queued.get(pane.pane_id)
        if queue is not None:
            queue.append(data)  # a large write is still being typed: keep the order
            return
        self._write_now(pane, data)

    def _write_now(self, pane, data: bytes) -> None:
        occupant = self.sim.hooks.foreground_agent(pane)
        if occupant is not None:
            occupant.on_input(data)
            return
        if pane.pane_id in self._busy:
            if b"\x03" in data:
                self._typeahead.pop(pane.pane_id, None)
                pane.screen.feed("^C\r\n")
                self.foreground_done(pane)
            else:
                self._typeahead[pane.pane_id] = self._typeahead.get(pane.pane_id, b"") + data
            return
        data = _PASTE_MARKERS.sub(b"", data)
        data = _ESCAPE_SEQ.sub(b"", data)
        text = data.decode("utf-8", "replace")
        if _slice_end(text, 0) >= len(text):
            self._type(pane, text)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a direct unit-level call): type it all now
            self._type(pane, text)
            return
        # A large paste is typed a slice per loop turn, so one client's 800 KB send_text does
        # not hold every other client for the whole of it (the reply does not wait for it
        # either: herdr's send_text returns once the bytes are written to the PTY).
        self._queued[pane.pane_id] = collections.deque()
        loop.call_soon(self._type_slice, pane, text, 0)

    def _type_slice(self, pane, text: str, start: int) -> None:
        if pane.pane_id not in self._lines:  # the pane closed meanwhile
            self._queued.pop(pane.pane_id, None)
            return
        end = _slice_end(text, start)
        handed_over = self._type(pane, text[start:end])
        self.sim.commit()
        self.sim.notify()
        if handed_over and pane.pane_id in self._busy and end < len(text):
            rest = text[end:].encode("utf-8", "surrogateescape")  # typed ahead (_run_timed)
            self._typeahead[pane.pane_id] = self._typeahead.get(pane.pane_id, b"") + rest
        if not handed_over and end < len(text):
            asyncio.get_running_loop().call_soon(self._type_slice, pane, text, end)
            return
        queue = self._queued.pop(pane.pane_id, collections.deque())
        while queue:  # what was written meanwhile, in order (it may start slicing again)
            self._write_now(pane, queue.popleft())
            if pane.pane_id in self._queued:
                self._queued[pane.pane_id].extend(queue)
                return

    def _type(self, pane, text: str) -> bool:
        """The line editor over ``text``; True when the shell handed the pane over (an agent
        started, or ``exit``): the rest of the input is then not the shell's. Printable runs
        are handled whole (linear in the input, not a string copy per character)."""
        line = self._lines.get(pane.pane_id, "")
        screen = pane.screen
        for m in _INPUT_TOKEN.finditer(text):
            run = m.group()
            if m.lastgroup == "printable":
                line += run
                screen.feed(run)
                continue
            if run in "\r\n":
                screen.feed("\r\n")
                self._lines[pane.pane_id] = ""
                if self._builtin(pane, line):
                    pass
                elif self.sim.hooks.on_command(pane, line):
                    return True  # the shell ran something (an agent, or exit)
                elif self._run_timed(pane, line):
                    # the rest is typed ahead, for the shell once the command ends
                    rest = text[m.end() :].encode("utf-8", "surrogateescape")
                    if rest:
                        self._typeahead[pane.pane_id] = (
                            self._typeahead.get(pane.pane_id, b"") + rest
                        )
                    return True
                screen.feed(self.prompt)
                line = ""
            elif run == "\x7f" or run == "\b":
                if line:
                    line = line[:-1]
                    screen.feed("\b \b")
            elif run == "\x03":
                screen.feed("^C\r\n" + self.prompt)
                line = ""
            elif run == "\x04" and not line:
                self.sim.hooks.on_command(pane, "exit")
                return True
        self._lines[pane.pane_id] = line
        return False

    def show_prompt(self, pane) -> None:
        self._lines[pane.pane_id] = ""
        if self._fg_cwd.pop(pane.pane_id, None) is not None:
            self._sync_cwd(pane)  # the shell is the foreground job again
        pane.screen.feed(self.prompt)

    # --- the shell's cwd (SIMULATED_CD) and the foreground job's ----------------------------

    def _builtin(self, pane, line: str) -> bool:
        first = shellwords.first_word(line)
        if first is not None and first != "cd":
            return False  # not cd: no full parse
        words = shellwords.split(line)
        if not words or words[0] != "cd" or len(words) > 2:
            return False
        home = self.sim.config.home
        arg = words[1] if len(words) == 2 else "~"
        old = pane.cwd or self.sim.config.server_cwd
        if arg == "-":
            target = self._oldpwd.get(pane.pane_id)
            if target is None:
                pane.screen.feed(f"{pane.shell}: cd: OLDPWD not set\r\n")
                return True
            pane.screen.feed(target + "\r\n")
        elif arg == "~" or arg.startswith("~/"):
            target = home + arg[1:]
        else:
            target = os.path.join(old, arg)
        target = os.path.normpath(target)
        if not os.path.isdir(target):
            pane.screen.feed(f"{pane.shell}: cd: {arg}: No such file or directory\r\n")
            return True
        self._oldpwd[pane.pane_id] = old
        pane.cwd = target
        self._sync_cwd(pane)
        return True

    def set_foreground_cwd(self, pane, path: str | None) -> None:
        """Scenario seam: the foreground process runs in ``path`` (None: back to the shell's)."""
        if path is None:
            self._fg_cwd.pop(pane.pane_id, None)
        else:
            self._fg_cwd[pane.pane_id] = path
        self._sync_cwd(pane)

    def _sync_cwd(self, pane) -> None:
        fg = self._fg_cwd.get(pane.pane_id)
        pane.foreground_cwd = fg if fg and fg != pane.cwd else None  # SIMULATED_FOREGROUND_CWD

    def follow_cwd(self, pane) -> str | None:
        """PaneRuntime::follow_cwd (src/pane.rs:2972-2985): the foreground leader's cwd when it
        is a directory, else the shell's."""
        fg = self._fg_cwd.get(pane.pane_id)
        return fg if fg and os.path.isdir(fg) else pane.cwd

    def refresh_cwds(self) -> None:
        """Nothing to read: simulated cwds change only through the shell and the seam."""

    # --- process inspection (pane.process_info) ----------------------------------------------

    def shell_pid(self, pane) -> int:
        return self._pids.get(pane.pane_id, 0)

    def process_info(self, pane) -> dict:
        shell_pid = self.shell_pid(pane)
        info = {"pane_id": pane.pane_id, "shell_pid": shell_pid}
        occupant = self.sim.hooks.foreground_agent(pane)
        busy = self._busy.get(pane.pane_id)
        if occupant is not None:
            pid = occupant.pid
            argv = list(occupant.argv)
            name = argv[0] if argv else "agent"
        elif busy is not None:
            pid, argv = shell_pid + 1, list(busy)
            name = argv[0].rsplit("/", 1)[-1]
        else:
            pid, name, argv = shell_pid, pane.shell, [pane.shell]
        info["foreground_process_group_id"] = pid
        proc = {"pid": pid, "name": name, "argv0": argv[0], "argv": argv, "cmdline": " ".join(argv)}
        if pane.cwd:
            proc["cwd"] = pane.cwd
        info["foreground_processes"] = [proc]
        return info

    def shell_in_foreground(self, pane) -> bool:
        return (
            self.sim.hooks.foreground_agent(pane) is None
            and pane.pane_id not in self._busy
            and self._lines.get(pane.pane_id, "") == ""
        )


_SLEEP_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_SLEEP_WORD = re.compile(
    r"(?:(?P<inf>inf(?:inity)?)|(?P<n>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?))(?P<u>[smhd]?)"
)


def sleep_seconds(line: str) -> float | None:
    """SIMULATED_SLEEP (CHOICE): the simulated shell runs no programs, so a command line ends
    at once, except a plain ``sleep DURATION...`` (GNU sleep's arguments: numbers with an
    optional s/m/h/d suffix, summed; ``infinity``), which runs in the foreground for that many
    simulated seconds (the pane is busy: no idle shell, ``agent.start`` answers
    ``agent_pane_busy``, process_info shows it; Ctrl-C ends it). None: not such a line."""
    if shellwords.first_word(line) != "sleep":
        return None
    words = shellwords.split(line)
    if words is None or len(words) < 2:
        return None
    total = 0.0
    for word in words[1:]:
        m = _SLEEP_WORD.fullmatch(word)
        if m is None:
            return None
        if m.group("inf"):
            return float("inf")
        total += float(m.group("n")) * _SLEEP_UNITS[m.group("u")]
    return total if total > 0 else None


def _slice_end(text: str, start: int) -> int:
    """Where the slice of ``text`` typed from ``start`` in one loop turn ends."""
    end = min(len(text), start + INPUT_SLICE)
    pos = start
    for _ in range(INPUT_SLICE_LINES):
        pos = text.find("\n", pos, end) + 1
        if pos == 0:
            return end
    return pos
