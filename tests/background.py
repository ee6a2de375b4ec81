"""End-to-end runs that mostly wait, started once per pytest run in a process of their own.

Some lanes are wall time, not work: a scenario driven through the stand-in sleeps through its
advances and its CLI calls' own waits (tests/stub/test_scenarios_through_standin.py, ~80 s of
a worker's time, ~3 s of CPU), the story of tests/traceview/test_story.py waits through its
script's idle gaps. A test that ran them would hold an xdist worker while it sleeps. Instead
the first worker to finish collecting starts the jobs in the background, in chains (JOBS:
one after another in a chain, the chains side by side; ``python -m <job module> OUTDIR KEY...``
each, for the keys the run selected), the tests come last (tests/conftest.py: _slow_rank) and read
what they wrote. The runs are the same end-to-end runs (real
stand-in processes, real servers), only started earlier; a test still fails on its own
assertions, or with the job's log when its run is missing.

A job module writes ``OUTDIR/<key>.json`` for each key (atomically: a temporary name, then a
rename), and ``OUTDIR/done`` when it exits, whatever happened.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tests.stub.scenario_runs import MODULE as SCENARIOS

if TYPE_CHECKING:  # a job's process (python -m <job module>) imports no pytest (~0.15 s of CPU)
    import pytest

ROOT = Path(__file__).resolve().parents[1]
# how long a test waits for its run before it fails (a hang guard, not a speed check: the
# jobs end in well under a minute on two cores)
HANG_GUARD = 900.0


@dataclass(frozen=True)
class Job:
    name: str
    module: str  # run as `python -m module OUTDIR KEY...` from the repository root
    keys: Callable[[pytest.Item], str | None]  # an item's key, None if not this job's
    chain: int  # jobs of one chain run one after another, the chains side by side
    tests: str  # the node-id prefix of its tests (asked of every item at each collection)

    def key(self, item: pytest.Item) -> str | None:
        """``item``'s key, None if not this job's (its node id first: one check for most)."""
        return self.keys(item) if item.nodeid.startswith(self.tests) else None


def _scenario_key(item: pytest.Item) -> str | None:
    from tests.stub import scenario_runs

    return scenario_runs.key_of(item)


STORY = "tests/traceview/test_story.py::"


def _story_key(item: pytest.Item) -> str | None:
    return "story" if item.nodeid.startswith(STORY) else None


# CHOICE: two chains side by side, the scenarios and the story (each timed by CLI calls against
# a slow clock, both mostly sleeping: ~3 s of CPU in ~20 s each, and they start after the
# workers' collection, which their imports outlast). One chain (the story after the scenarios)
# put ~46 s of wall time after collection on every run; the story's margin is its 2-4 s gaps
# at --time-scale 1 (tests/traceview/test_story.py), not the start. Not here: the recorded
# cassettes' socket and stub replays (tests/contract/test_contract.py), paced to their gaps
# but with margins of a few ms (phren's report -> pane.get: 8 ms, its shell re-check 20 ms at
# 50x): run three at a time in a background process beside the start of the run, phren missed
# its margin 3 runs in 3 on a loaded machine (in the workers: 0 in 7). Since then their gaps
# pass at once on the target's clock (simherdr.contract.targets.SKIP_GAPS): no waiting left to
# move out of the workers.
DEMO = "tests/core/test_demo.py::test_demo_runs_end_to_end"
EMFILE = "tests/hostile/test_socket_lifecycle.py::test_out_of_file_descriptors_is_logged_once"
GAPS = "tests/contract/test_replay_fixes.py::test_the_stub_target_replays_the_recorded_gaps"
CHANGED = "tests/contract/test_record.py::test_a_changed_upstream_is_caught_with_a_clear_miss"


def _changed_key(item: pytest.Item) -> str | None:
    return "changed@" + item.callspec.params["version"]  # type: ignore[attr-defined]


# CHOICE: a third chain for runs that mostly wait (tests/process_runs.py: ~1.2, ~0.7, ~1.4 and
# 2 x ~0.9 s side by side of wall, ~1 s of CPU together), done ~5 s after collection; in a
# worker each held it through its waits, beside the suite's other waiting tests.
JOBS = (
    Job("scenarios", "tests.stub.scenario_runs", _scenario_key, chain=0, tests=SCENARIOS),
    Job("story", "tests.traceview.story_run", _story_key, chain=1, tests=STORY),
    Job("demo", "tests.process_runs", lambda item: "demo", chain=2, tests=DEMO),
    Job("emfile", "tests.process_runs", lambda item: "emfile", chain=2, tests=EMFILE),
    Job("gaps", "tests.process_runs", lambda item: "gaps", chain=2, tests=GAPS),
    Job("changed", "tests.process_runs", _changed_key, chain=2, tests=CHANGED),
)
_started: list[subprocess.Popen] = []


def job_of(item: pytest.Item) -> str | None:
    """The job that runs ``item``'s substance, None for a test that runs its own."""
    for job in JOBS:
        if job.key(item) is not None:
            return job.name
    return None


def run_dir(config: pytest.Config) -> Path:
    """A directory common to this run's processes (the xdist workers' basetemps' parent)."""
    base = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    return base.parent if hasattr(config, "workerinput") else base


def start(session: pytest.Session) -> None:
    """pytest_collection_finish: claim and start the jobs the selected items need, once per
    run (the claim is a file created exclusively): one background process per chain (JOBS),
    a chain's jobs one after another."""
    if not hasattr(session.config, "workerinput") and session.config.pluginmanager.hasplugin(
        "dsession"
    ):
        return  # the xdist controller collects nothing; its workers start the jobs
    if session.config.option.collectonly:
        return  # nothing runs
    todo = []
    for job in JOBS:
        keys = sorted({k for item in session.items if (k := job.key(item)) is not None})
        if keys:
            todo.append((job, keys))
    if not todo:
        return
    base = run_dir(session.config)
    base.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(base / "bg-claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return  # another worker started them
    os.close(fd)
    chains: dict[int, list[str]] = {}
    for job, keys in todo:
        out = base / f"bg-{job.name}"
        out.mkdir(exist_ok=True)
        argv = [sys.executable, "-m", job.module, str(out), *keys]
        log = shlex.quote(str(out / "log"))
        chains.setdefault(job.chain, []).append(f"{shlex.join(argv)} >{log} 2>&1")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    for commands in chains.values():
        _started.append(
            subprocess.Popen(
                ["sh", "-c", "; ".join(commands)], cwd=ROOT, env=env, stdin=subprocess.DEVNULL
            )
        )


def job_pids() -> list[int]:
    """The processes of the jobs this process started (each chain's shell): they and what
    they start run beside this process's tests, none of which made them (tests/pty/leaks.py)."""
    return [proc.pid for proc in _started]


def stop() -> None:
    """pytest_sessionfinish: wait for the jobs this process started (another worker may still
    read them), then stop what is left (an aborted run); reaped, their CPU counts in ours."""
    for proc in _started:
        try:
            proc.wait(HANG_GUARD)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    _started.clear()


def result(config: pytest.Config, job: str, key: str) -> object:
    """The job's result for ``key``, once it is written."""
    import pytest

    out = run_dir(config) / f"bg-{job}"
    path = out / f"{key}.json"
    deadline = time.monotonic() + HANG_GUARD
    while not path.exists():
        if (out / "done").exists() and not path.exists():
            log = (out / "log").read_text(errors="replace") if (out / "log").exists() else ""
            pytest.fail(f"background job {job} ended without {key}:\n{log[-4000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"background job {job}: no {key} after {HANG_GUARD:g} s")
        time.sleep(0.05)
    return json.loads(path.read_text())


def once(config: pytest.Config, name: str, compute: Callable[[], object]) -> object:
    """``compute()`` once per run, whichever of its processes asks first (under a lock; the
    others wait and read its JSON result): for a pure function of the repository's files
    that several tests read and xdist spreads over workers. A failure is not kept (the next
    one to ask computes again)."""
    import fcntl

    out = run_dir(config) / "once"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        path = out / f"{name}.json"
        if path.exists():
            return json.loads(path.read_text())
        value = compute()
        write(str(out), name, value)
        return value


def write(out: str, key: str, value: object) -> None:
    """For job modules: ``value`` as ``OUTDIR/<key>.json``, atomically."""
    tmp = os.path.join(out, f".{key}.tmp")
    with open(tmp, "w") as f:
        json.dump(value, f)
    os.replace(tmp, os.path.join(out, f"{key}.json"))


def main(out: str, keys: Iterable[str], run: Callable[[str], object], at_once: int) -> int:
    """For job modules: ``run(key)`` for each key, ``at_once`` at a time, each in a process of
    its own (forked from this one before any thread exists: as a test ran it in an xdist
    worker, not beside the others' servers in one interpreter); each result is written as it
    arrives, a failure printed (its test fails with this log); ``done`` at the end."""
    import multiprocessing
    import traceback

    status = 0
    keys = list(keys)
    try:
        with multiprocessing.get_context("fork").Pool(min(at_once, len(keys)) or 1) as pool:
            for key, ok, value in pool.imap_unordered(_Call(run), keys):
                if ok:
                    write(out, key, value)
                else:
                    status = 1
                    print(f"--- {key} failed:\n{value}", flush=True)
    except BaseException:
        status = 1
        traceback.print_exc()
        sys.stdout.flush()
    finally:
        Path(out, "done").write_text(str(status))
    return status


class _Call:
    """``run`` in a pool process: (key, True, result) or (key, False, the traceback)."""

    def __init__(self, run: Callable[[str], object]):
        self.run = run

    def __call__(self, key: str) -> tuple[str, bool, object]:
        import traceback

        try:
            return key, True, self.run(key)
        except BaseException:
            return key, False, traceback.format_exc()
