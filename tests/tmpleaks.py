"""The suite leaves nothing of its own in TMPDIR outside pytest's basetemp (which pytest rotates).

`make test` puts TMPDIR on tmpfs (RAM): a directory a test forgets (a contract target never
closed: its ``simherdr-verify-*`` workdir, ~1.4 MB; a ThreadServer never stopped: its
``simherdr-*`` socket directory) would stay there run after run. So each pytest process (each
xdist worker, or a serial run) records every ``tempfile.mkdtemp`` / ``mkstemp`` it makes directly
in TMPDIR, and at its session's end the ones still there are the run's leftovers: the run fails
with their list (xdist: the workers hand theirs to the controller), and they are removed.

CHOICE: only what the pytest processes make themselves, by name: a listing of TMPDIR before and
after would also see the directories of other suites sharing it (`make test` uses /dev/shm, as
every other run on the machine does) and of the run's own workers, so it would not be
reliable. Not seen here: what a child process makes (a failed ``simherdr run`` process keeps its
default trace, ``simherdr-run-trace-*``: tests/run/__init__.py drop_kept_trace removes it).
The check costs a set insertion per mkdtemp and one lstat per recorded path at the end.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

_made: set[str] = set()
_mkdtemp = tempfile.mkdtemp
_mkstemp = tempfile.mkstemp
_register = atexit.register
KEY = "simherdr_tmp_leftovers"
# multiprocessing's own directory, removed as the process exits (multiprocessing.util)
AT_EXIT_PREFIXES = ("pymp-",)


def _note(path) -> None:
    path = os.fsdecode(path)
    if os.path.dirname(path) == tempfile.gettempdir():
        if not os.path.basename(path).startswith(AT_EXIT_PREFIXES):
            _made.add(path)


def _recording_register(func, *args, **kwargs):
    """A per-process cache removed at exit (``atexit.register(shutil.rmtree, path)``: the
    contract fixtures' and tests/gitrepos.py's) is not a leftover."""
    if func is shutil.rmtree and args:
        _made.discard(os.fsdecode(args[0]))
    return _register(func, *args, **kwargs)


def _recording_mkdtemp(suffix=None, prefix=None, dir=None):
    path = _mkdtemp(suffix, prefix, dir)
    _note(path)
    return path


def _recording_mkstemp(suffix=None, prefix=None, dir=None, text=False):
    fd, path = _mkstemp(suffix, prefix, dir, text)
    _note(path)
    return fd, path


def install() -> None:
    """From the start of each pytest process (tests/conftest.py pytest_configure)."""
    tempfile.mkdtemp = _recording_mkdtemp  # type: ignore[assignment]
    tempfile.mkstemp = _recording_mkstemp  # type: ignore[assignment]
    atexit.register = _recording_register  # type: ignore[assignment]


def leftovers() -> list[str]:
    """What this process made in TMPDIR that is still there (a fork's own are not seen)."""
    return sorted(p for p in _made if os.path.lexists(p))


def _remove(paths: list[str]) -> None:
    for p in paths:
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            try:
                os.unlink(p)
            except OSError:
                pass


_collected: list[str] = []


def worker_done(node) -> None:
    """The controller, as an xdist worker finishes: its leftovers (pytest_testnodedown)."""
    _collected.extend(getattr(node, "workeroutput", {}).get(KEY, ()))


def session_finish(session: pytest.Session) -> None:
    """At each process's session end, after its fixtures and servers have stopped."""
    found = leftovers()
    _remove(found)
    config = session.config
    if hasattr(config, "workerinput"):
        config.workeroutput[KEY] = found  # type: ignore[attr-defined]
        return
    _collected.extend(found)
    # a run cut short (-x, a failure, Ctrl-C) leaves what its unfinished tests held: not counted
    if _collected and session.exitstatus == 0 and not session.shouldstop:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def terminal_summary(terminalreporter, exitstatus) -> None:
    if _collected:
        tr = terminalreporter
        tr.section("left in TMPDIR", sep="=", red=True)
        tr.write_line(
            f"the run left {len(_collected)} of its temporary files outside pytest's basetemp"
            " (a target not closed, a server not stopped?); removed now:"
        )
        for p in sorted(_collected):
            tr.write_line(f"  {p}")
