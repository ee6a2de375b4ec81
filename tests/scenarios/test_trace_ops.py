"""The control plane's trace ops and argument table; the trace ring itself."""

from __future__ import annotations

import inspect

from simherdr.scenarios.control import OPS, handle
from simherdr.scenarios.faults import FAULT_TYPES
from simherdr.scenarios.opspec import FAULT_FIELDS, OP_ARGS, check_args
from simherdr.testing import Harness
from simherdr.trace import Trace


def test_trace_get_and_clear_over_the_control_plane():
    with Harness() as h:
        h.ok("workspace.create")
        h.err("pane.get", pane_id="w9:p9")
        r = handle(h.sim, {"op": "trace.get"})
        assert r["ok"] and r["result"]["dropped"] == 0
        entries = r["result"]["entries"]
        methods = [(e["kind"], e.get("method")) for e in entries if e["kind"] != "event"]
        assert methods == [
            ("request", "workspace.create"),
            ("reply", "workspace.create"),
            ("request", "pane.get"),
            ("reply", "pane.get"),
        ]
        assert entries[-1]["code"] == "pane_not_found" and entries[-1]["conn"] == "local"
        last = entries[-1]["seq"]
        h.ok("ping")
        since = handle(h.sim, {"op": "trace.get", "args": {"since": last}})["result"]["entries"]
        assert [e["method"] for e in since] == ["ping", "ping"]
        assert handle(h.sim, {"op": "trace.clear"})["result"]["cleared"] == len(entries) + 2
        assert handle(h.sim, {"op": "trace.get"})["result"]["entries"] == []
        h.ok("ping")
        assert h.trace()[0]["seq"] == last + 3  # sequence numbers keep counting


def test_the_ring_is_bounded_and_counts_what_it_dropped():
    t = [0.0]
    trace = Trace(lambda: t[0], size=3, wall=lambda: 1.0)
    for i in range(5):
        t[0] = i
        trace.record("note", None, n=i)
    assert [e["n"] for e in trace.entries()] == [2, 3, 4]
    assert trace.dropped == 2 and trace.entries()[0]["t"] == 2.0


def test_every_op_has_an_argument_table_matching_its_function():
    for name, fn in OPS.items():
        if name == "fault.add":
            continue
        params = [p for p in inspect.signature(fn).parameters.values() if p.name != "sim"]
        assert name in OP_ARGS, name
        spec = OP_ARGS[name]
        assert [p.name for p in params] == list(spec), name
        for p in params:
            assert spec[p.name][1] == (p.default is inspect.Parameter.empty), (name, p.name)
    assert set(FAULT_FIELDS) == set(FAULT_TYPES)


def test_argument_messages_name_the_op_not_python():
    assert check_args("shell.busy", {"pane_id": "w1:p1", "duration": "2"}) == (
        "shell.busy: duration must be number or null, not a string"
    )
    assert check_args("fault.add", {"type": "error"}) == (
        "fault.add (error): missing argument code (string)"
    )
    assert check_args("fault.add", {"type": "nope"}).startswith("fault.add: type must be one of")
    assert check_args("agent.exit", {"pane_id": "w1:p1"}) is None
