"""One message per test on pytest-xdist's wire (tests/xdistcost.py): the controller gets the
events xdist's worker sent, the same reports in the same order."""

from __future__ import annotations

import marshal
import os
from collections import Counter
from types import SimpleNamespace

import execnet
import pytest
from xdist.remote import WorkerInteractor

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
    assert names.count("runtest_protocol_complete") == 9
    assert names.count("testreport") == 3 * 9 - 1  # no call after a setup error
    warned = [kw["nodeid"] for name, kw in stock if name == "warning_recorded" and kw["nodeid"]]
    assert warned == [
        "test_a_workers_events_reach_the_controller_as_xdist_sent_them.py::test_warns"
    ]
    # one message per test, and the events around them (workerready, collection, warnings,
    # workerfinished) as they were; a test's warnings come after its logfinish (pytest's
    # warnings plugin wraps the runtest protocol): that test's end goes on its own
    expected = Counter(n for n in names if n not in ("logstart", "testreport", "logfinish"))
    expected["runtest_protocol_complete"] = 1
    expected[xdistcost.BATCH] = 9
    assert Counter(name for name, _ in channel.sent) == expected

    node = SimpleNamespace(
        workerinput={"workerid": "gw7", "testrunuid": "r1"}, process_from_remote=None
    )
    received: list = []
    node.process_from_remote = received.append
    assert xdistcost.controller_node(node)
    assert node.workerinput[xdistcost.WIRE] == xdistcost.packing()
    for message in channel.sent:
        node.process_from_remote(message)
    assert received == stock
    assert [list(kw["data"]) for name, kw in received if name == "testreport"] == [
        list(kw["data"]) for name, kw in stock if name == "testreport"
    ]  # the same keys in the same order: the same reports rebuilt
    batches = [m for name, m in channel.sent if name == xdistcost.BATCH]
    if same_marshal:  # one marshal string each
        assert all(list(m) == ["m"] for m in batches)
        batches = [marshal.loads(m["m"]) for m in batches]
    assert sum("t" in m for m in batches) >= 6  # the usual tests as tuples, not dicts


def test_an_undecodable_message_is_xdists_unknown_event():
    node = SimpleNamespace(workerinput={"workerid": "gw0", "testrunuid": "r"})
    received: list = []
    node.process_from_remote = received.append
    assert xdistcost.controller_node(node)
    node.process_from_remote((xdistcost.BATCH, {"t": ("too", "short")}))
    node.process_from_remote(("logstart", {"nodeid": "a", "location": ("a", 1, "a")}))
    assert [name for name, _ in received] == ["undecodable " + xdistcost.BATCH, "logstart"]


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
