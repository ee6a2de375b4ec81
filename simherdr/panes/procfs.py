"""What herdr reads from /proc about a pane's processes (Linux), and process-group hygiene.

Facts (herdr 0.8.2, ``src/platform/linux.rs``):

* the foreground process group of a pane is the ``tpgid`` field of the *shell's*
  ``/proc/<pid>/stat`` (``:336-345``; the ``(comm)`` field may hold spaces and parentheses, so
  fields are counted after the last ``)``);
* the foreground job's members are the processes of the tree rooted at the shell and at the
  group leader (``/proc/<pid>/task/<tid>/children``, breadth first) whose ``pgrp`` is that
  group, sorted by pid (``:228-315``);
* each member is ``{pid, name: comm, argv0: None, argv, cmdline: argv joined by spaces}``;
  ``argv`` is ``/proc/<pid>/cmdline`` split on NUL with empty parts dropped, absent when empty
  (``:153-177,366-377``); pane.process_info adds ``cwd`` from ``/proc/<pid>/cwd``
  (``src/app/api/panes.rs:217-235``). ``argv0`` is never set on Linux, so it is omitted.
"""

from __future__ import annotations

import os
import signal
from collections import deque
from dataclasses import dataclass, field

__all__ = [
    "ForegroundJob",
    "Process",
    "available",
    "foreground_job",
    "foreground_pgid",
    "kill_tree",
    "live_pids",
    "process_tree",
    "stat",
]


def available() -> bool:
    """Real panes need Linux's /proc (and its per-task ``children`` files)."""
    return os.path.isfile(f"/proc/{os.getpid()}/stat") and os.path.isdir(
        f"/proc/{os.getpid()}/task"
    )


@dataclass
class Stat:
    pid: int
    comm: str
    state: str
    ppid: int
    pgrp: int
    session: int
    tpgid: int


def stat(pid: int) -> Stat | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    close = raw.rfind(")")
    open_ = raw.find("(")
    if close < 0 or open_ < 0:
        return None
    fields = raw[close + 2 :].split()
    try:
        return Stat(
            pid,
            raw[open_ + 1 : close],
            fields[0],
            int(fields[1]),
            int(fields[2]),
            int(fields[3]),
            int(fields[5]),
        )
    except (IndexError, ValueError):
        return None


def argv(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    parts = [p.decode("utf-8", "replace") for p in raw.split(b"\0") if p]
    return parts or None


def cwd(pid: int) -> str | None:
    if pid <= 0:
        return None
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return out


def process_tree(roots) -> list[int]:
    """Breadth-first pids of the trees rooted at ``roots`` (each pid once)."""
    pending: deque[int] = deque()
    seen: set[int] = set()
    for pid in roots:
        if pid and pid > 0 and pid not in seen:
            seen.add(pid)
            pending.append(pid)
    out = []
    while pending:
        pid = pending.popleft()
        out.append(pid)
        for child in children(pid):
            if child > 0 and child not in seen:
                seen.add(child)
                pending.append(child)
    return out


@dataclass
class Process:
    pid: int
    name: str
    argv: list[str] | None = None
    argv0: str | None = None  # never set on Linux (src/platform/linux.rs:159-165)

    @property
    def cmdline(self) -> str | None:
        return " ".join(self.argv) if self.argv else None


@dataclass
class ForegroundJob:
    process_group_id: int
    processes: list[Process] = field(default_factory=list)


def foreground_pgid(shell_pid: int, tty_fd: int | None = None) -> int | None:
    """The pane's foreground process group: ``tpgid`` of the shell (herdr's way); the pty
    master's ``tcgetpgrp`` when the shell's stat cannot be read."""
    st = stat(shell_pid) if shell_pid > 0 else None
    if st is not None:
        return st.tpgid if st.tpgid > 0 else None
    if tty_fd is not None:
        try:
            pgid = os.tcgetpgrp(tty_fd)
        except OSError:
            return None
        return pgid if pgid > 0 else None
    return None


def foreground_job(shell_pid: int, tty_fd: int | None = None) -> ForegroundJob | None:
    pgid = foreground_pgid(shell_pid, tty_fd)
    if pgid is None:
        return None
    members = []
    for pid in process_tree([shell_pid, pgid]):
        st = stat(pid)
        if st is not None and st.pgrp > 0 and st.pgrp == pgid:
            members.append(Process(pid, st.comm, argv(pid)))
    members.sort(key=lambda p: p.pid)
    return ForegroundJob(pgid, members) if members else None


def live_pids(pids) -> list[int]:
    """Those of ``pids`` that still exist and are not zombies."""
    out = []
    for pid in pids:
        st = stat(pid)
        if st is not None and st.state not in ("Z", "X"):
            out.append(pid)
    return out


def session_members(session_id: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        st = stat(int(name))
        if st is not None and st.session == session_id:
            out.append(st.pid)
    return out


def kill_tree(shell_pid: int, sig: int = signal.SIGKILL, extra=()) -> list[int]:
    """Signal every process of a pane: the shell's session, the tree under the shell, and
    ``extra`` pids (and their process groups). Returns the pids signalled."""
    pids = set(process_tree([shell_pid, *extra]))
    if shell_pid > 0:
        pids.update(session_members(shell_pid))
    pids.discard(os.getpid())
    groups = set()
    for pid in pids:
        st = stat(pid)
        if st is not None and st.pgrp > 0 and st.pgrp != os.getpgrp():
            groups.add(st.pgrp)
    for pgrp in groups:
        try:
            os.killpg(pgrp, sig)
        except OSError:
            pass
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass
    return sorted(pids)
