"""Suite-wide fixtures: every reply the suite sees is checked against herdr's own schema."""

from __future__ import annotations

import gc
import os

import pytest

from simherdr.simulator import Config
from simherdr.testing import Harness, ThreadServer
from tests import collectcost, pytestcost, standin_shared, tmpleaks, xdistcost
from tests import herdr_reference as ref
from tests.releases import VERSIONS  # the suite's one version list

pytest_plugins = ["pytester"]

collectcost.reorder_scoped_only()  # before collection (tests/collectcost.py)
collectcost.lazy_default_arg_names()
collectcost.fixturedefs_by_node()
collectcost.autousenames_by_node()


def _schema_line() -> str:
    out = []
    for v in ref.SCHEMAS:
        p = ref.schema_path(v)
        out.append(
            f"herdr {v} schema: {p}"
            if p
            else f"herdr {v} schema: NOT FOUND, its checks skipped — {ref.skip_reason(v)}"
        )
    return "\n".join(out)


def pytest_report_header(config):
    return _schema_line()


def pytest_configure(config):
    tmpleaks.install()  # what the run makes in TMPDIR, checked at its end (tests/tmpleaks.py)
    # the suite's stand-ins: one shared fork server, else the Python stand-in (standin_shared.py)
    standin_shared.start(hasattr(config, "workerinput"))
    xdistcost.worker_configure(config)  # one message per test, if the controller offers it
    # pytest-xdist's --maxschedchunk (absent with -p no:xdist): see SLOW_FIRST below
    if getattr(config.option, "maxschedchunk", 0) is None:
        config.option.maxschedchunk = 2


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    xdistcost.controller_node(node)  # pytest-xdist's controller, for each worker it starts


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    tmpleaks.worker_done(node)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodeready(node):
    # the controller, as a worker is ready: the workers collect now, the controller idles
    pytestcost.import_summary_modules()  # what its end-of-run summary would import then


def pytest_sessionfinish(session):
    from tests import background, forkserve

    forkserve.stop()
    background.stop()
    pytestcost.sweep_done()
    tmpleaks.session_finish(session)


def pytest_terminal_summary(terminalreporter, exitstatus):
    tmpleaks.terminal_summary(terminalreporter, exitstatus)


def pytest_unconfigure(config):
    standin_shared.stop()


def pytest_collection_finish(session):
    # the runs that mostly wait start now, in a process of their own (tests/background.py);
    # their tests come last (_slow_rank below)
    from tests import background

    background.start(session)
    # CHOICE (issue 26): what collection built (modules, ~4,000 items, Hypothesis' strategies)
    # lives to the end: frozen out of every collection pass, and the young generation
    # collected less often (from the start: tests/__init__.py); ~5% of a worker's CPU (a serial
    # run of 1,300 tests: 10.3 -> 9.7 s)
    gc.freeze()
    gc.set_threshold(*pytestcost.GC_THRESHOLDS)
    if hasattr(session.config, "workerinput"):
        # CHOICE: the xdist workers (the CPU-bound bulk) yield to the background runs, whose
        # outcomes are timed against a clock (a stand-in call's latency is simulated time):
        # the job started above keeps the priority it was started with
        os.nice(WORKER_NICENESS)


WORKER_NICENESS = 5


def pytest_sessionstart(session):
    pytestcost.sweep_old_runs_early(session.config)  # pytest's end-of-run sweep, from the start
    pytestcost.quiet_discarded_terminal(session.config)  # a worker's per-test output: /dev/null
    # Shown even with -q (the header is not), so a CI log says whether replies were checked.
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    if tr is not None and not hasattr(session.config, "workerinput"):
        tr.write_line(_schema_line())
        tr.write_line(standin_shared.line())
        if getattr(session.config.option, "numprocesses", None) and xdistcost.supported():
            tr.write_line(f"xdist wire: its own, one message per event ({xdistcost.supported()})")


@pytest.fixture(params=VERSIONS)
def version(request):
    return request.param


@pytest.fixture
def tmp_path(request, tmp_path_factory):
    """pytest's ``tmp_path``, numbered without listing the base directory (tests/pytestcost.py)."""
    path = pytestcost.numbered_tmp_path(request, tmp_path_factory)
    yield path
    pytestcost.retain(request, tmp_path_factory, path)


@pytest.fixture
def home(tmp_path):
    d = tmp_path / "home"
    d.mkdir()
    return str(d)


@pytest.fixture
def config(tmp_path, home):
    cwd = tmp_path / "server-cwd"
    cwd.mkdir()
    return Config(home=home, server_cwd=str(cwd))


@pytest.fixture
def h(version, config):
    """An in-process simulator on a virtual clock; replies validated against herdr's schema."""
    harness = Harness(version, config=config, validator=ref.validator(version))
    yield harness
    harness.close()


@pytest.fixture
def ws(h, tmp_path):
    """``h`` with one focused workspace w1 (pane w1:p1) in ``tmp_path``."""
    h.ok("workspace.create", cwd=str(tmp_path))
    return h


@pytest.fixture
def server(version, config):
    """The real socket transport on a private per-test socket; always stopped and removed."""
    with ThreadServer(version, config=config) as srv:
        ref.bind_socket(srv.path, version)
        yield srv


# The slowest tests first (measured with --durations; the note of issue 26), so a 15-second test
# never starts when the other workers are done. xdist's load scheduling would hand each worker a
# contiguous quarter of its share at the start (all of these to the first worker), so the chunk
# it sends at a time is capped at two (pytest_configure): the head of the collection is dealt
# out across the workers as they finish tests. Each entry is a node-id prefix; the earlier it is
# listed, the earlier it runs (collection order otherwise).
SLOW_FIRST = (
    "tests/contract/test_property.py",
    "tests/contract/test_suites.py",
    "tests/contract/test_cli_record.py",
    "tests/hostile/test_socket_lifecycle.py",
    "tests/stub/test_native_standin.py::test_every_verb",
    "tests/contract/test_record.py",
    "tests/contract/test_replay_fixes.py",
    "tests/contract/test_contract.py::test_cassette[entwurf",
    "tests/hostile/test_fuzz_requests.py",
    "tests/run/",
    "tests/traceview/test_timeline.py",
    "tests/hostile/test_deep_layout.py",
    "tests/core/test_wire_decode.py",  # 1.5 s of CPU: its differential property (issue 34)
    "tests/core/test_module_size.py",  # a fresh clone counts the whole tree (~1.4 s of CPU)
    "tests/model/test_layout.py::test_trees_deeper_than_the_recursion_limit",
    "tests/core/test_install.py",
    "tests/contract/test_contract.py",
    "tests/client/test_commands.py",
    "tests/facts/test_no_version_literals.py",
    "tests/stub/test_cli_sessions.py",
    "tests/core/test_user_errors.py",
    "tests/pytest_plugin/",
    "tests/stub/test_cli_local_e2e.py",
    "tests/client/test_fresh_call_sim.py",
    "tests/pty/test_real_agents.py",
    "tests/hostile/",
)


# Tests that read what a background job ran (tests/background.py: job_of) come last, so the
# jobs (started when collection ends, ~20 s of mostly sleeping each) are done when they come.
# Except the ones with work of their own after the job (the story rendered in a headless
# chromium: ~0.7-1 s of both cores): among the last tests it ran alone on one worker for the
# run's final second while the other three were done (a quiet run, 11:45: three workers ended
# at 45.55 s, it at 46.54 s; first among the readers, still the same: a `make test` at 12:42
# started it at 82.98 s, the others ended at 83.02 s). They go READERS_AHEAD tests before the
# end (~2 s of a quiet run's four workers; the job ended ~20 s before that), beside other tests.
READERS_FIRST = ("tests/traceview/test_story.py::test_the_story_in_headless_chromium",)
READERS_AHEAD = 200


def _slow_rank(item, job_tests: tuple[str, ...] = ()) -> int:
    """``item``'s rank; ``job_tests``: the background jobs' node-id prefixes (JOBS' ``tests``),
    so that the ~99% of items no job runs are told by one check."""
    from tests import background

    nodeid = item.nodeid
    if (not job_tests or nodeid.startswith(job_tests)) and background.job_of(item) is not None:
        return len(SLOW_FIRST) + (1 if nodeid.startswith(READERS_FIRST) else 2)
    if nodeid.startswith(SLOW_FIRST):  # one check for the ~80% that match no prefix
        for i, prefix in enumerate(SLOW_FIRST):
            if nodeid.startswith(prefix):
                return i
    return len(SLOW_FIRST)


# Tests that mostly wait (paced to recorded gaps, on real processes' starts, on a CLI's
# timeout): a few hundred ms of CPU in seconds of wall each, ~150 of them. Ranked first they ran
# side by side on every worker for the run's first ~25 s, both cores all but idle while ~95 s of
# CPU work waited behind them, then the workers contended for the cores. They are dealt out
# instead (interleave_waits): one in every few tests of the first WAITS_SPREAD of the others,
# longest first, so that at any moment some workers wait while the others keep the cores busy.
WAITS = (
    "tests/contract/test_property.py",
    "tests/contract/test_suites.py",
    "tests/contract/test_cli_record.py",
    "tests/contract/test_record.py",
    "tests/contract/test_replay_fixes.py",
    "tests/contract/test_launched.py",
    "tests/hostile/test_socket_lifecycle.py",
    # a server's real-time limits, waited out (ranked with hostile/ they ran at the run's start)
    "tests/hostile/test_first_read.py::test_a_reply_never_taken",
    "tests/hostile/test_connections.py::test_slow_reader",
    "tests/hostile/test_connections.py::test_a_request_line_not_complete",
    "tests/hostile/test_connections.py::test_subscriber_that_never_reads",
    "tests/hostile/test_connections.py::test_client_that_never_reads",
    "tests/core/test_paced_clock.py::test_a_stall_inside_a_timer_holds_time_at_the_next_timer[wall]",
    "tests/core/test_paced_clock.py::test_agent_prompt_stall_window_survives_a_stalled_server[wall]",
    "tests/run/",
    "tests/stub/test_cli_sessions.py",
    "tests/stub/test_cli_local_e2e.py",
    "tests/pty/",
)
WAITS_SPREAD = 0.8


def _waits(item) -> bool:
    nodeid = item.nodeid
    if nodeid.startswith("tests/contract/test_contract.py::test_cassette["):
        # socket and stub replays: their recorded gaps pass at once on the target's clock
        # (contract.targets.SKIP_GAPS), but they still wait on the stand-in's processes and
        # the server's thread; dealt out as waits they measured faster (46.4 vs 47.8, 49.1 s)
        return "-socket-" in nodeid or "-stub-" in nodeid
    if not nodeid.startswith(WAITS):
        return False
    from tests import background

    return background.job_of(item) is None  # a background job's reader waits for nothing


def interleave_waits(items: list) -> list:
    """``items`` (in rank order) with the waiting ones spread evenly over the first
    WAITS_SPREAD of the others, in their own order; the last of the others (the background
    jobs' readers among them) stay last."""
    waits: list = []
    work: list = []
    for i in items:
        (waits if _waits(i) else work).append(i)
    if not waits:
        return items
    span = int(len(work) * WAITS_SPREAD)
    out: list = []
    w = 0
    for n, item in enumerate(work):
        while w < len(waits) and w * span <= n * len(waits):
            out.append(waits[w])
            w += 1
        out.append(item)
    out.extend(waits[w:])
    return out


def readers_ahead(items: list) -> list:
    """``items`` with the READERS_FIRST tests moved READERS_AHEAD tests before the end (or to
    the start of a shorter list), in their order."""
    ahead = [i for i in items if i.nodeid.startswith(READERS_FIRST)]
    if not ahead:
        return items
    rest = [i for i in items if not i.nodeid.startswith(READERS_FIRST)]
    at = max(0, len(rest) - READERS_AHEAD)
    return rest[:at] + ahead + rest[at:]


def pytest_collection_modifyitems(session, config, items):
    from tests import background

    job_tests = tuple(job.tests for job in background.JOBS)
    items.sort(key=lambda item: _slow_rank(item, job_tests))  # stable: the same on every worker
    items[:] = readers_ahead(interleave_waits(items))
