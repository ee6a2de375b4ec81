"""Issue 31 item 5: attach sessions are lanes in the trace, the HTML timeline and its export:
one lane per client of the client socket, from its hello to its end, titled with what it
attached to, its frames, what it typed and how it ended."""

from __future__ import annotations

import json

import pytest

from simherdr.terminalplane import client_socket_path
from simherdr.testing import SocketClient, ThreadServer
from simherdr.trace import terminal_lanes
from simherdr.traceexport import chrome_trace
from simherdr.traceview import model, render_html
from tests.terminalplane.wireclient import TermView, WireClient


@pytest.fixture(scope="module")
def entries(tmp_path_factory):
    from simherdr.simulator import Config

    home = str(tmp_path_factory.mktemp("home"))
    with ThreadServer("0.8.2", config=Config(home=home, server_cwd=home)) as srv:
        created = SocketClient(srv.path).ok("workspace.create", {"cwd": home})
        tid = created["root_pane"]["terminal_id"]
        path = client_socket_path(srv.path)
        with WireClient(path, 20) as obs, WireClient(path, 20) as ctl:
            obs.handshake()
            obs.send({"ObserveTerminal": {"target": "w1:p1"}})
            ctl.attach(tid)
            ctl.type("echo hi\n")
            TermView().follow(obs, "echo hi")
            ctl.send("Detach")
            assert ctl.rest()[-1] == {"ServerShutdown": {"reason": "detached"}}
            obs.send("Detach")
            obs.rest()
        srv.run(lambda sim: None)  # the server's loop has seen both connections go
        return srv.trace(), tid


def test_each_attach_session_is_a_lane_of_its_own(entries):
    trace, tid = entries
    lanes = {lane: (label, start, end) for label, start, end, _, lane in terminal_lanes(trace)}
    assert set(lanes) == {"terminal plane t1", "terminal plane t2"}
    observer, controller = lanes["terminal plane t1"], lanes["terminal plane t2"]
    assert observer[0].startswith("observe w1:p1 · ") and observer[0].endswith("detached")
    assert controller[0].startswith(f"attach {tid} · ")
    assert "typed 8 bytes" in controller[0] and controller[0].endswith("detached")
    assert all(end is not None and end >= start for _, start, end in lanes.values())
    m = model(trace)
    assert {"terminal plane t1", "terminal plane t2"} <= set(m["clients"])


def test_the_trace_keeps_its_own_sequence_numbers(entries):
    """A frame entry's frame number is ``frame_seq``: ``seq`` stays the trace's own (entries
    are read ``since`` a sequence number)."""
    trace, _ = entries
    seqs = [e["seq"] for e in trace]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    frames = [e for e in trace if e.get("op") == "frame"]
    assert frames and all(isinstance(e["frame_seq"], int) for e in frames)


def test_the_timeline_and_the_export_draw_the_lanes(entries):
    trace, _ = entries
    html = render_html(trace)
    assert html.count('data-method="terminal"') == 2
    assert "terminal plane t1" in html and "observe w1:p1" in html
    events = chrome_trace(trace)["traceEvents"]
    names = {e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    assert {"terminal plane t1", "terminal plane t2"} <= names
    ops = [e["name"] for e in events if e.get("cat") == "terminal" and e["ph"] == "i"]
    assert {"hello", "observe", "attach", "input", "frame", "detach", "shutdown"} <= set(ops)
    json.dumps(events)
