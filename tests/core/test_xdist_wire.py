"""One message per test on pytest-xdist's wire (tests/xdistcost.py): the controller gets the
events xdist's worker sent, the same reports in the same order."""

from __future__ import annotations

import marshal
import os
import warnings
from collections import Counter
from types import SimpleNamespace

import execnet
import pytest
from xdist.remote import Producer, WorkerInteractor
from xdist.workermanage import WorkerController

from tests import xdistcost

# tests of every outcome and of what a report carries beyond the usual: captured output and
# logs, a marker added while running, user properties, a warning in the middle of a test
SAMPLE = """
import logging, warnings
import pytest

def test_passes():
    pass

def test_fails_with_output():
    print("shown")
    logging.getLogger("x").warning("logged")
    assert [1] == [2]

@pytest.fixture
def broken():
    raise RuntimeError("setup")

def test_setup_error(broken):
    pass

def test_skipped():
    pytest.skip("why")

@pytest.mark.xfail(reason="known")
def test_xfails():
    assert 0

def test_marked_while_running(request, record_property):
    request.node.add_marker("late")
    record_property("k", "v")

def test_warns():
    warnings.warn(UserWarning("careful"))

@pytest.mark.parametrize("n", [1, 2])
def test_many(n):
    assert n

def test_with_subtests(subtests):
    for n in (1, 2):
        with subtests.test(n=n):
            assert n == 1
"""


class _Channel:
    """What xdist's WorkerInteractor uses of an execnet channel: every test at once, then the
    end; what it sends recorded."""

    def __init__(self) -> None:
        self.gateway = SimpleNamespace(execmodel=execnet.gateway_base.get_execmodel("thread"))
        self.sent: list = []

    def send(self, item) -> None:
        self.sent.append(item)

    def setcallback(self, callback, endmarker) -> None:
        callback(("runtests_all", {}))
        callback(endmarker)


@pytest.mark.parametrize("same_marshal", [True, False])
def test_a_workers_events_reach_the_controller_as_xdist_sent_them(pytester, same_marshal):
    pytester.makepyfile(SAMPLE)
    pytester.makeini("[pytest]\nmarkers =\n    late: added while the test runs\n")
    channel = _Channel()
    stock: list = []  # what xdist's worker would have sent, one message per event

    class Worker:
        @pytest.hookimpl(tryfirst=True)
        def pytest_configure(self, config):
            offer = xdistcost.packing() if same_marshal else "marshal 0 another-python"
            config.workerinput = {"workerid": "gw7", "testrunuid": "r1", xdistcost.WIRE: offer}
            config.workeroutput = {}
            config.option.loadgroup = (
                False  # xdist's worker sets it (xdist/remote.py: setup_config)
            )
            interactor = WorkerInteractor(config, channel)
            stock.extend(channel.sent)  # config-time warnings, replayed at its registration
            assert xdistcost.worker_configure(config)
            held = interactor.sendevent
            assert isinstance(held, xdistcost.HoldingSender)

            def tee(name, **kwargs):
                stock.append((name, kwargs))
                held(name, **kwargs)

            interactor.sendevent = tee

    pytester.runpytest_inprocess("-p", "no:cacheprovider", plugins=[Worker()])
    names = [name for name, _ in stock]
    assert names.count("runtest_protocol_complete") == 10
    # no call after a setup error; a subtests' test: a report per subtest, then its own
    assert names.count("testreport") == 3 * 10 - 1 + 2
    warned = [kw["nodeid"] for name, kw in stock if name == "warning_recorded" and kw["nodeid"]]
    assert warned == [
        "test_a_workers_events_reach_the_controller_as_xdist_sent_them.py::test_warns"
    ]
    # one message per test, and the events around them (workerready, collection, warnings,
    # workerfinished) as they were; a test's warnings come after its logfinish (pytest's
    # warnings plugin wraps the runtest protocol): that test's end goes on its own
    expected = Counter(n for n in names if n not in ("logstart", "testreport", "logfinish"))
    expected["runtest_protocol_complete"] = 1
    expected[xdistcost.BATCH] = 10
    if same_marshal:  # and the collection's node ids, packed
        del expected["collectionfinish"]
        expected[xdistcost.BATCH] += 1
    assert Counter(name for name, _ in channel.sent) == expected

    batches = [m for name, m in channel.sent if name == xdistcost.BATCH]
    if same_marshal:  # one marshal string each
        assert all(list(m) == ["m"] for m in batches)
        batches = [marshal.loads(m["m"]) for m in batches]
    assert sum("t" in m for m in batches) >= 6  # the usual tests as tuples, not dicts

    # the controller: xdist's own WorkerController given xdist's messages, and one given
    # these, queue the same calls of its main loop's handlers, the same reports rebuilt
    config = pytester.parseconfigure()
    main_loop = _MainLoop()
    config.pluginmanager.register(main_loop, "dsession")
    queued: list = []
    node = _controller(config, queued.append)
    for event in stock:
        node.process_from_remote(_carried(event))
    assert node.workeroutput["exitstatus"] == 1  # workerfinished: one failed
    node = _controller(config, main_loop.queue.append)
    assert xdistcost.controller_node(node)
    assert node.workerinput[xdistcost.WIRE] == xdistcost.packing()
    for message in channel.sent:
        node.process_from_remote(_carried(message))
    # one queued event per test (its logstart, reports, logfinish and end)
    held = ("logstart", "testreport", "logfinish")
    expected = Counter(name for name, _ in queued if name not in held)
    expected["runtest_protocol_complete"] = 1  # the warned test's
    expected[xdistcost.BATCH] = 10
    if same_marshal:
        del expected["collectionfinish"]
        expected[xdistcost.BATCH] += 1
    assert Counter(name for name, _ in main_loop.queue) == expected
    assert main_loop.run() == [_plain(event) for event in queued]


def _carried(message):
    """``message`` as the controller's end of the channel reads it."""
    return execnet.loads(execnet.dumps(message))


def _controller(config, putevent):
    """An xdist WorkerController (its state for what its worker sends; none started)."""
    node = WorkerController.__new__(WorkerController)
    node.config = config
    node.putevent = putevent
    node.workerinput = {"workerid": "gw7", "testrunuid": "r1"}
    node.log = Producer("workerctl-gw7", enabled=False)
    node.gateway = SimpleNamespace(id="gw7")
    node._down = node._shutdown_sent = False
    node.shutdown = lambda: None  # xdist's, at an error: it would tell the worker to stop
    return node


def _plain(event):
    """An event as the controller's main loop gets it: a report as its serialized attributes,
    a warning as its own."""
    name, kwargs = event

    def plain(value):
        if isinstance(value, pytest.TestReport):
            return value._to_json()
        if isinstance(value, warnings.WarningMessage):
            return {k: str(getattr(value, k)) for k in value._WARNING_DETAILS}
        return value

    return name, {k: "node" if k == "node" else plain(v) for k, v in kwargs.items()}


class _MainLoop:
    """xdist's DSession as this wire meets it: a queue its loop takes events from, calling
    ``worker_<event>`` for each; the calls recorded."""

    def __init__(self) -> None:
        self.queue: list = []
        self.calls: list = []

    def loop_once(self) -> None:
        name, kwargs = self.queue.pop(0)
        getattr(self, "worker_" + name)(**kwargs)

    def run(self) -> list:
        while self.queue:
            self.loop_once()
        return self.calls

    def __getattr__(self, name: str):
        if not name.startswith("worker_") or name == "worker_" + xdistcost.BATCH:
            raise AttributeError(name)
        return lambda **kwargs: self.calls.append(_plain((name[len("worker_") :], kwargs)))


def test_an_undecodable_message_is_xdists_unknown_event(pytester):
    config = pytester.parseconfigure()
    config.pluginmanager.register(_MainLoop(), "dsession")
    queued: list = []
    node = _controller(config, queued.append)
    assert xdistcost.controller_node(node)
    node.process_from_remote((xdistcost.BATCH, {"t": ("too", "short")}))
    assert [name for name, _ in queued] == ["errordown"]
    assert "unknown event: undecodable " + xdistcost.BATCH in str(queued[0][1]["error"])


def test_this_xdist_is_the_one_the_wire_was_written_for():
    assert xdistcost.supported() is None


def test_this_worker_sends_one_message_per_test(request):
    if "PYTEST_XDIST_WORKER" not in os.environ:
        pytest.skip("not an xdist worker (-p no:xdist or -n 0)")
    interactors = [
        p
        for p in request.config.pluginmanager.get_plugins()
        if type(p).__name__ == "WorkerInteractor"
    ]
    assert len(interactors) == 1
    assert isinstance(interactors[0].sendevent, xdistcost.HoldingSender)
