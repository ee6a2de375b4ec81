"""pytest-xdist's wire, one message per test (issue 34: the runner's own cost).

A worker sends six messages for each test it runs: ``logstart``, the setup, call and teardown
reports, ``logfinish`` and ``runtest_protocol_complete``, each serialized by execnet (a report
is ~20 strings: its node id, location and keywords again in each of the three) and each waking
the controller's receiver thread and then its main loop. Here the worker holds a test's events
until its ``runtest_protocol_complete`` and sends them as one message; a report whose keys are
pytest's usual ones goes as a tuple of its own values, the node id, location, keywords and
xdist's worker fields once for the test, the whole as one ``marshal`` string when both ends
have the same marshal. The controller unpacks the message into the same events, the same
report dicts, and hands each to xdist's own ``process_from_remote`` (the reports rebuilt by
pytest's hook); what that queues for the main loop goes there as one item, whose handler
calls xdist's handler of each event in order: every controller hook runs as before, in the
same order, with the same values. 2,000 trivial tests, ``-n 4``: the controller's CPU
0.84-0.90 -> 0.47-0.56 s, the workers' ~15% less.

Every other event (a warning, a collection error, an internal error, the worker's end) first
sends what the worker holds, so the order of events is xdist's. What a crashed worker had not
sent (the setup report of the test it died in) is lost as before; xdist reports the crash of
that test from its schedule, which does not read the reports.

It applies only to pytest-xdist 3.x, where the controller sets it up for each worker
(:func:`controller_node`) and tells the worker through its ``workerinput``; anything else
(an older or newer xdist, ``-p no:xdist``) runs xdist's own wire, with a one-line notice.
"""

from __future__ import annotations

import marshal
import sys
from typing import Any

# the key under which the controller offers this wire in a worker's workerinput, and the event
# name of a test's events sent as one message
WIRE = "simherdr-wire-1"
BATCH = "simherdr_batch"


def packing() -> str:
    """What the controller offers as the value of :data:`WIRE`: a test's message goes as one
    ``marshal`` string (~60 objects less for execnet's serializer, in Python, to walk) when the
    worker's marshal is the controller's."""
    return f"marshal {marshal.version} {sys.implementation.cache_tag}"


# a report's keys as pytest 8-9's pytest_report_to_serializable writes them and xdist's worker
# adds to them (xdist/remote.py: pytest_runtest_logreport), in that order; the ones of the test
# (the same in its three reports) are sent once, the others (_OWN) per report
KEYS = (
    "location",
    "keywords",
    "outcome",
    "longrepr",
    "when",
    "user_properties",
    "sections",
    "duration",
    "start",
    "stop",
    "nodeid",
    "$report_type",
    "item_index",
    "worker_id",
    "testrun_uid",
)
_OF_TEST = (
    "location",
    "keywords",
    "nodeid",
    "$report_type",
    "item_index",
    "worker_id",
    "testrun_uid",
)
_OWN = tuple(k for k in KEYS if k not in _OF_TEST)
_HELD = ("logstart", "testreport", "logfinish")
# the collection's node ids (~4,900 strings: execnet's serializer ~19 ms in each worker, its
# reader ~11 ms per worker in the controller, before the first test is handed out): packed
_PACKED = ("collectionfinish",)

# CHOICE: the xdist releases this was written against (3.x: xdist/remote.py's WorkerInteractor,
# xdist/workermanage.py's WorkerController); any other runs xdist's own wire
XDIST_MAJOR = 3


def supported() -> str | None:
    """Why xdist's own wire runs (None: this one can)."""
    try:
        import xdist
        from xdist.workermanage import WorkerController
    except ImportError:
        return "pytest-xdist not importable"
    version = str(getattr(xdist, "__version__", "?"))
    if version.split(".")[0] != str(XDIST_MAJOR):
        return f"pytest-xdist {version}, not {XDIST_MAJOR}.x"
    if not callable(getattr(WorkerController, "process_from_remote", None)):
        return f"pytest-xdist {version} has no WorkerController.process_from_remote"
    return None


# --- worker ---------------------------------------------------------------------------------


def encode(events: list[tuple[str, dict[str, Any]]], worker_id: str, testrun_uid: str) -> dict:
    """The message of one test's events: ``{"t": ...}`` when they are the usual sequence
    (logstart, reports of pytest's usual keys, logfinish, runtest_protocol_complete, all of
    one item), else ``{"raw": events}``."""
    try:
        (start, start_kw), *middle, (finish, finish_kw), (done, done_kw) = events
        nodeid, location = start_kw["nodeid"], start_kw["location"]
        index = done_kw["item_index"]
        if (start, finish, done) != ("logstart", "logfinish", "runtest_protocol_complete") or (
            finish_kw != start_kw or len(start_kw) != 2 or len(done_kw) != 2
        ):
            return {"raw": events}
        keywords = None
        reports = []
        for name, kw in middle:
            data = kw["data"]
            if name != "testreport" or len(kw) != 1 or tuple(data) != KEYS:
                return {"raw": events}
            if keywords is None:
                keywords = data["keywords"]
            if (
                data["nodeid"] != nodeid
                or data["location"] != location
                or data["keywords"] != keywords
                or data["$report_type"] != "TestReport"
                or data["item_index"] != index
                or data["worker_id"] != worker_id
                or data["testrun_uid"] != testrun_uid
            ):
                return {"raw": events}
            reports.append(tuple([data[k] for k in _OWN]))
        return {"t": (nodeid, location, keywords, index, done_kw["duration"], reports)}
    except (ValueError, KeyError, TypeError):
        return {"raw": events}


class HoldingSender:
    """A worker's ``sendevent``: a test's events held and sent as one message at its end."""

    def __init__(self, send, worker_id: str, testrun_uid: str, packed: bool = True) -> None:
        self.send = send  # xdist's own WorkerInteractor.sendevent
        self.worker_id = worker_id
        self.testrun_uid = testrun_uid
        self.packed = packed
        self.held: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, name: str, **kwargs: Any) -> None:
        if name in _HELD:
            self.held.append((name, kwargs))
            return
        if name == "runtest_protocol_complete" and self.held:
            self.held.append((name, kwargs))
            events, self.held = self.held, []
            self.send(BATCH, **self.pack(encode(events, self.worker_id, self.testrun_uid)))
            return
        self.flush()
        if name in _PACKED and self.packed:
            self.send(BATCH, **self.pack({"raw": [(name, kwargs)]}))
            return
        self.send(name, **kwargs)

    def flush(self) -> None:
        if self.held:
            events, self.held = self.held, []
            self.send(BATCH, **self.pack({"raw": events}))

    def pack(self, message: dict) -> dict:
        if self.packed:
            try:
                return {"m": marshal.dumps(message)}
            except ValueError:  # a value marshal cannot write: execnet's serializer judges it
                pass
        return message


def worker_configure(config) -> bool:
    """In an xdist worker offered this wire: its interactor's ``sendevent`` held per test."""
    offered = getattr(config, "workerinput", {}).get(WIRE)
    if not isinstance(offered, str):
        return False
    for plugin in config.pluginmanager.get_plugins():
        if type(plugin).__name__ == "WorkerInteractor" and callable(
            getattr(plugin, "sendevent", None)
        ):
            plugin.sendevent = HoldingSender(
                plugin.sendevent,
                str(plugin.workerid),
                str(plugin.testrunuid),
                packed=offered == packing(),
            )
            return True
    return False


# --- controller -----------------------------------------------------------------------------


def decode(message: dict, worker_id: str, testrun_uid: str) -> list[tuple[str, dict[str, Any]]]:
    """The events :func:`encode` made ``message`` of."""
    if "m" in message:
        message = marshal.loads(message["m"])
    if "raw" in message:
        return list(message["raw"])
    nodeid, location, keywords, index, duration, reports = message["t"]
    where = {"nodeid": nodeid, "location": location}
    events: list[tuple[str, dict[str, Any]]] = [("logstart", where)]
    for own in reports:
        of_test = {
            "location": location,
            "keywords": dict(keywords),  # each report has its own, as xdist's rebuilt ones
            "nodeid": nodeid,
            "$report_type": "TestReport",
            "item_index": index,
            "worker_id": worker_id,
            "testrun_uid": testrun_uid,
        }
        of_test.update(zip(_OWN, own, strict=True))
        events.append(("testreport", {"data": {k: of_test[k] for k in KEYS}}))
    events.append(("logfinish", where))
    events.append(("runtest_protocol_complete", {"item_index": index, "duration": duration}))
    return events


def deliverer(dsession):
    """The controller's handler of a test's events (its main loop calls ``worker_<event>``
    for each event it takes from its queue): the handlers of the events, in order."""

    def deliver(node, events) -> None:
        for name, kwargs in events:
            getattr(dsession, "worker_" + name)(**kwargs)

    return deliver


def controller_node(node) -> bool:
    """Offer this wire to ``node`` (an xdist WorkerController being set up): what it sends is
    unpacked into xdist's own ``process_from_remote`` (in the receiver thread of the worker's
    channel), and the events it queues for a test go to the controller's main loop together."""
    if supported() is not None:
        return False
    dsession = node.config.pluginmanager.getplugin("dsession")
    if not callable(getattr(dsession, "loop_once", None)):
        return False
    if getattr(dsession, "worker_" + BATCH, None) is None:
        setattr(dsession, "worker_" + BATCH, deliverer(dsession))
    stock = node.process_from_remote
    putevent = node.putevent
    debug = bool(node.config.option.debug)
    worker_id = str(node.workerinput["workerid"])
    testrun_uid = str(node.workerinput["testrunuid"])
    batch: list[list[tuple[str, dict[str, Any]]]] = []  # the test's queued events, while unpacking

    def notify_inproc(eventname: str, **kwargs: Any) -> None:
        if debug:  # xdist's debug line (formatted for every event, printed or not)
            node.log(f"queuing {eventname}(**{kwargs})")
        if batch:
            batch[0].append((eventname, kwargs))
        else:
            putevent((eventname, kwargs))

    def process_from_remote(eventcall) -> None:
        if type(eventcall) is not tuple or eventcall[0] != BATCH:
            return stock(eventcall)
        try:
            events = decode(eventcall[1], worker_id, testrun_uid)
        except Exception:  # xdist's own handling of an unknown event: an error, the node down
            return stock(("undecodable " + BATCH, {}))
        queued: list[tuple[str, dict[str, Any]]] = []
        batch.append(queued)
        try:
            for event in events:
                stock(event)
        finally:
            batch.clear()
        if queued:
            putevent((BATCH, {"node": node, "events": queued}))

    node.notify_inproc = notify_inproc
    node.process_from_remote = process_from_remote
    node.workerinput[WIRE] = packing()
    return True
