"""The real-pane tests' leak check (tests/pty/leaks.py, the ``no_leaks`` fixture): what a test
made and left running is found, by the new pids and by a look at every process alike; what ran
before it is not."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from simherdr.panes import procfs
from tests.pty import leaks
from tests.pty.leaks import Since


def _stop(*procs: subprocess.Popen) -> None:
    for p in procs:
        p.kill()
        p.wait()


def _gone(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except OSError:
        pass


def _execed(pid: int, argv: list[str], timeout: float = 10.0) -> None:
    """Until ``pid``'s exec has set up its arguments, and with them its environment (the kernel
    sets both together, after the close-on-exec that lets Popen return): /proc shows an empty
    environment before."""
    deadline = time.monotonic() + timeout
    while procfs.argv(pid) != argv:
        assert time.monotonic() < deadline, f"{argv} did not start"
        time.sleep(0.002)


def _whole_table(since: Since) -> Since:
    since.new_pids = lambda: None  # type: ignore[method-assign]
    return since


@pytest.fixture(params=["new pids", "every process"])
def look(request):
    """How the check looks: at the pids made since (the fast way), or at every process."""
    return (lambda since: since) if request.param == "new pids" else _whole_table


@pytest.mark.skipif(leaks.last_pid() is None, reason="no ns_last_pid to read here")
def test_new_pids_are_the_processes_made_since():
    before = subprocess.Popen(["sleep", "30"])
    since = Since()
    after = subprocess.Popen(["sleep", "30"])
    try:
        new = since.new_pids()
        assert new is not None and after.pid in new and before.pid not in new
        assert os.getpid() not in new
        # the counter went round pid_max since: the pids past the start and those up to now
        since.last = max(leaks._pids()) + 1
        assert after.pid in (since.new_pids() or [])
    finally:
        _stop(before, after)


def test_a_child_left_running_is_a_leak_and_carries_the_token(look):
    token = os.environ["SIMHERDR_TEST_TOKEN"]  # no_leaks's, inherited by what the test runs
    older = subprocess.Popen(["sleep", "30"])  # running before: not the test's
    since = look(Since())
    child = subprocess.Popen(["sleep", "30"])
    try:
        _execed(child.pid, ["sleep", "30"])
        children, tagged = since.leaked(token)
        assert child.pid in children and child.pid in tagged
        assert older.pid not in children
        assert os.getpid() not in children | tagged
        other = since.leaked("not-" + token)[1]
        assert child.pid not in other
    finally:
        _stop(older, child)
    assert since.leaked(token) == (set(), set())  # killed and reaped: nothing left


def test_an_orphan_carrying_the_token_is_a_leak(look):
    token = os.environ["SIMHERDR_TEST_TOKEN"]
    since = look(Since())
    # the shell exits at once: its sleep is no descendant any more, only its token tells
    out = subprocess.run(
        ["sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True
    )
    orphan = int(out.stdout)
    try:
        _execed(orphan, ["sleep", "30"])
        children, tagged = since.leaked(token)
        assert orphan in tagged and orphan not in children
    finally:
        _gone(orphan)


def test_a_grandchild_is_a_descendant(look):
    since = look(Since())
    shell = subprocess.Popen(
        ["sh", "-c", "sleep 30 & echo $!; wait"], stdout=subprocess.PIPE, text=True
    )
    assert shell.stdout is not None
    grandchild = int(shell.stdout.readline())
    try:
        children, _ = since.leaked("none")
        assert {shell.pid, grandchild} <= children
    finally:
        _gone(grandchild)
        shell.wait()
        shell.stdout.close()


class _Shared:
    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process


@pytest.mark.parametrize("kind", ["background job", "shared fork server"])
def test_what_the_runs_own_processes_start_meanwhile_is_not_the_tests(look, monkeypatch, kind):
    from tests import background, standin_shared

    # one of the run's processes this process started before the test (tests/background.py's
    # jobs, tests/standin_shared.py's fork server): what it starts while the test runs is not
    # the test's
    job = subprocess.Popen(
        ["sh", "-c", "read go; sleep 30 & echo $!; wait"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    if kind == "background job":
        monkeypatch.setattr(background, "_started", [job])
    else:
        monkeypatch.setattr(standin_shared, "_shared", _Shared(job))
    assert job.stdin is not None and job.stdout is not None
    since = look(Since())
    job.stdin.write("go\n")
    job.stdin.flush()
    by_job = int(job.stdout.readline())
    child = subprocess.Popen(["sleep", "30"])
    try:
        children, _ = since.leaked("none")
        assert child.pid in children and by_job not in children
    finally:
        _gone(by_job)
        _stop(child)
        job.wait()
        job.stdin.close()
        job.stdout.close()
