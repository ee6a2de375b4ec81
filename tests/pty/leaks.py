"""What a real-pane test left running (tests/pty/conftest.py ``no_leaks``): the processes it
made that are still alive, i.e. new descendants of this process and any process carrying the
test's environment token (``SIMHERDR_TEST_TOKEN``, inherited by what its panes start).

The run's own processes that this process started and that start others beside its tests are
not the test's: the background jobs (tests/background.py, started as collection ends) and the
shared stand-in fork server (tests/standin_shared.py: the controller's under xdist, this
process's in a serial run), whose children serve every stand-in call of the run (a test's call
ends with its launcher, the test's own process); their trees are left out.

Both kinds were made during the test, so at its end :class:`Since` looks only at the processes
whose pid the kernel allocated after the test began: Linux hands out pids in turn
(``ns_last_pid``, the last one given in this pid namespace, wrapping past ``pid_max``), so those
are the pids in the cyclic range after the one read at the start. Reading
``/proc/<pid>/environ`` of every process on the machine (~120 in a full run) and walking every
thread's children files of this process again cost ~2-3 ms of CPU a test; the new ones are a
few. Where the counter cannot be read, or so much time passed that the pids could have gone
round (:data:`FULL_SCAN_AFTER`), every process is looked at, as before: its descendants are new
when their pid was not in use at the start (the pids listed then; not a walk of the children
of every thread of this process, ~1-2 ms a test).
"""

from __future__ import annotations

import os
import time

from simherdr.panes import procfs

LAST_PID = "/proc/sys/kernel/ns_last_pid"
# CHOICE: past this many seconds since the start, the whole process table is read: pids could
# have gone round pid_max (32,768 by default) only with thousands of process and thread starts
# a second in this namespace for that long
FULL_SCAN_AFTER = 10.0


def last_pid() -> int | None:
    """The last pid the kernel allocated in this pid namespace (None where unreadable)."""
    try:
        with open(LAST_PID, "rb") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def descendants() -> set[int]:
    """Every live descendant of this process (walking each thread's children)."""
    return set(procfs.live_pids(procfs.process_tree([os.getpid()]))) - {os.getpid()}


def carrying(token: str, pids) -> list[int]:
    """Those of ``pids`` whose environment holds ``SIMHERDR_TEST_TOKEN=token``, alive."""
    needle = f"SIMHERDR_TEST_TOKEN={token}".encode()
    found = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(pid)
        except OSError:
            continue
    return procfs.live_pids(found)


def run_processes() -> set[int]:
    """The run's own processes this process started (their trees are not the test's)."""
    from tests import background, standin_shared

    shared = standin_shared.pid()
    return set(background.job_pids()) | ({shared} if shared is not None else set())


def _descends(pid: int, root: int, parents: dict[int, int], apart: set[int]) -> bool:
    """Whether ``root`` is an ancestor of ``pid`` not through any of ``apart`` (``parents``:
    the ppids read so far)."""
    seen = 0
    while pid > 1 and seen < 1000 and pid not in apart:  # (a loop of stale reads cannot last)
        ppid = parents.get(pid)
        if ppid is None:
            st = procfs.stat(pid)
            if st is None:
                return False
            ppid = parents[pid] = st.ppid
        if ppid == root:
            return True
        pid, seen = ppid, seen + 1
    return False


class Since:
    """The processes made from now on (see the module's doc)."""

    def __init__(self) -> None:
        self.last = last_pid()
        self.started = time.monotonic()
        self.existing = set(_pids())  # (for a look at every process)

    def new_pids(self) -> list[int] | None:
        """The pids of the processes that exist now and were made since (None: unknown)."""
        now = last_pid()
        last = self.last
        if last is None or now is None or time.monotonic() - self.started > FULL_SCAN_AFTER:
            return None
        if last <= now:
            return [p for p in _pids() if last < p <= now]
        return [p for p in _pids() if p > last or p <= now]  # went round pid_max

    def leaked(self, token: str) -> tuple[set[int], set[int]]:
        """(new descendants of this process, processes carrying ``token``) alive now."""
        me = os.getpid()
        apart = run_processes()
        new = self.new_pids()
        if new is None:
            children = descendants() - self.existing - set(procfs.process_tree(apart))
            tagged = carrying(token, _pids())
        else:
            parents: dict[int, int] = {}
            children = set(procfs.live_pids(p for p in new if _descends(p, me, parents, apart)))
            tagged = carrying(token, new)
        return children - {me}, set(tagged) - {me}
