"""Simulated panes: no process, a screen buffer and a tiny line-editing shell.

CHOICES (named here, listed in the README): the simulated shell shows the prompt ``$ ``; it
echoes typed input, runs no commands except ``exit`` (which ends the shell, so herdr's
pane_exited path can be exercised), and hands a typed agent command line to the agent layer.
Process ids are synthetic and stable per pane.

A scenario can make the shell run a foreground command (``run_foreground`` /
``foreground_done``, used by ``simherdr.scenarios.agents.busy_shell``): the shell is then not
at its prompt (``agent.start`` answers ``agent_pane_busy``). CHOICE: input typed meanwhile is
kept as type-ahead and reaches the shell when the command ends; Ctrl-C ends the command.
"""

from __future__ import annotations

import asyncio
import collections
import re

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

    def _pid(self) -> int:
        self._next_pid += 2
        return self._next_pid

    # --- lifecycle ---------------------------------------------------------------------------

    def attach(self, pane) -> None:
        self._pids[pane.pane_id] = self._pid()
        self._lines[pane.pane_id] = ""
        pane.screen.feed(self.prompt)

    def detach(self, pane) -> None:
        self._lines.pop(pane.pane_id, None)
        self._pids.pop(pane.pane_id, None)
        self._busy.pop(pane.pane_id, None)
        self._typeahead.pop(pane.pane_id, None)
        self._queued.pop(pane.pane_id, None)

    # --- a foreground command (the scenario seam for a busy shell) ---------------------------

    def run_foreground(self, pane, argv: list[str]) -> None:
        """The shell runs ``argv`` in the foreground until :meth:`foreground_done`."""
        self._busy[pane.pane_id] = list(argv)
        self._lines[pane.pane_id] = ""
        pane.screen.feed(" ".join(argv) + "\r\n")

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
        occupant = self.sim.foreground_agent(pane)
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
                if self.sim.on_command(pane, line):
                    return True  # the shell ran something (an agent, or exit)
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
                self.sim.on_command(pane, "exit")
                return True
        self._lines[pane.pane_id] = line
        return False

    def show_prompt(self, pane) -> None:
        self._lines[pane.pane_id] = ""
        pane.screen.feed(self.prompt)

    # --- process inspection (pane.process_info) ----------------------------------------------

    def shell_pid(self, pane) -> int:
        return self._pids.get(pane.pane_id, 0)

    def process_info(self, pane) -> dict:
        shell_pid = self.shell_pid(pane)
        info = {"pane_id": pane.pane_id, "shell_pid": shell_pid}
        occupant = self.sim.foreground_agent(pane)
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
            self.sim.foreground_agent(pane) is None
            and pane.pane_id not in self._busy
            and self._lines.get(pane.pane_id, "") == ""
        )


def _slice_end(text: str, start: int) -> int:
    """Where the slice of ``text`` typed from ``start`` in one loop turn ends."""
    end = min(len(text), start + INPUT_SLICE)
    pos = start
    for _ in range(INPUT_SLICE_LINES):
        pos = text.find("\n", pos, end) + 1
        if pos == 0:
            return end
    return pos
