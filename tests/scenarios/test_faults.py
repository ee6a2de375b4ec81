"""Each fault in-process, on a virtual clock, under both herdr profiles (the `h` fixture
validates every reply against herdr's schema)."""

from __future__ import annotations

import pytest

from simherdr.runtime.dispatch import Call
from simherdr.scenarios.faults import (
    Drop,
    ErrorReply,
    Fault,
    Hang,
    Latency,
    WrongPane,
    fault_from_spec,
)
from tests.scenarios.conftest import start_ready


def workspaces(h):
    return [w["workspace_id"] for w in h.ok("workspace.list")["workspaces"]]


# --- latency ------------------------------------------------------------------------------------


def test_latency_delays_matching_replies_by_simulated_ms(ws):
    ws.sim.faults.add(Latency(method="pane.*", ms=250))
    task = ws.spawn("pane.get", pane_id="w1:p1")
    ws.advance(0.249)
    assert not task.done()
    ws.advance(0.002)
    assert ws.result(task)["result"]["pane"]["pane_id"] == "w1:p1"
    # another method is not delayed at all
    task = ws.spawn("workspace.list")
    assert task.done() and ws.result(task)["result"]["type"] == "workspace_list"


def test_latency_reply_stage_describes_the_state_when_it_was_asked(ws):
    start_ready(ws)
    ws.sim.faults.add(Latency(method="agent.get", ms=2000))
    task = ws.spawn("agent.get", target="rev")
    ws.ok("agent.prompt", target="rev", text="go")
    ws.advance(2.01)  # the agent went working meanwhile; the late reply still says idle
    assert ws.result(task)["result"]["agent"]["agent_status"] == "idle"
    ws.sim.faults.clear()
    assert ws.ok("agent.get", target="rev")["agent"]["agent_status"] == "working"


def test_latency_request_stage_makes_the_effect_late(ws):
    ws.sim.faults.add(Latency(method="workspace.create", ms=1000, stage="request"))
    task = ws.spawn("workspace.create", cwd="/")
    ws.advance(0.5)
    assert workspaces(ws) == ["w1"]
    ws.advance(0.51)
    assert ws.result(task)["result"]["workspace"]["workspace_id"] == "w2"
    assert workspaces(ws) == ["w1", "w2"]


def _delays(seed):
    f = Latency(ms=100, jitter_ms=40, seed=seed)
    return [f.delay() for _ in range(20)]


def test_latency_jitter_is_seeded_and_bounded():
    a, b, c = _delays(7), _delays(7), _delays(8)
    assert a == b and a != c
    assert all(0.06 <= d <= 0.14 for d in a) and len(set(a)) > 10


def test_latency_jitter_applies_to_requests(ws):
    ws.sim.faults.add(Latency(method="pane.get", ms=100, jitter_ms=50, seed=3))
    expected = _delays_of(Latency(ms=100, jitter_ms=50, seed=3), 2)
    assert abs(expected[0] - 0.1) > 0.002  # the jitter is visible
    task = ws.spawn("pane.get", pane_id="w1:p1")
    ws.advance(expected[0] - 0.001)
    assert not task.done()
    ws.advance(0.002)
    assert task.done()


def _delays_of(f, n):
    return [f.delay() for _ in range(n)]


# --- the matcher (shared by every fault) -------------------------------------------------------


def test_count_limits_applications(ws):
    f = ws.sim.faults.add(ErrorReply(method="pane.get", code="internal_error", count=2))
    got = [("error" in ws.call("pane.get", pane_id="w1:p1")) for _ in range(4)]
    assert got == [True, True, False, False]
    assert f.hits == 2 and f.count == 0


def test_params_predicate_and_glob(ws):
    ws.ok("pane.split", pane_id="w1:p1", direction="right")
    ws.sim.faults.add(
        ErrorReply(method="pane.get", code="pane_not_found", params={"pane_id": "*:p2"})
    )
    assert "result" in ws.call("pane.get", pane_id="w1:p1")
    assert ws.err("pane.get", pane_id="w1:p2") == {
        "code": "pane_not_found",
        "message": "pane w1:p2 not found",
    }
    ws.sim.faults.clear()
    ws.sim.faults.add(
        ErrorReply(
            method="pane.get", code="internal_error", params=lambda p: p["pane_id"].endswith("p1")
        )
    )
    assert "error" in ws.call("pane.get", pane_id="w1:p1")
    assert "result" in ws.call("pane.get", pane_id="w1:p2")


def test_probability_is_seeded(ws):
    def pattern(seed):
        ws.sim.faults.clear()
        ws.sim.faults.add(
            ErrorReply(method="pane.get", code="internal_error", probability=0.5, seed=seed)
        )
        return ["error" in ws.call("pane.get", pane_id="w1:p1") for _ in range(24)]

    first = pattern(11)
    assert first == pattern(11)
    assert first != pattern(12)
    assert 4 < sum(first) < 20


def test_toxicity_window_in_simulated_time(ws):
    ws.sim.faults.add(ErrorReply(method="pane.get", code="internal_error", start=10, duration=5))
    assert "result" in ws.call("pane.get", pane_id="w1:p1")
    ws.advance(10)
    assert "error" in ws.call("pane.get", pane_id="w1:p1")
    ws.advance(4.9)
    assert "error" in ws.call("pane.get", pane_id="w1:p1")
    ws.advance(0.2)
    assert "result" in ws.call("pane.get", pane_id="w1:p1")


# --- hang -------------------------------------------------------------------------------------------


def test_hang_holds_until_the_fault_is_removed_then_proceeds(ws):
    ws.sim.faults.add(Hang(name="stuck", method="workspace.create"))
    task = ws.spawn("workspace.create", cwd="/")
    ws.advance(4 * 3600)
    assert not task.done() and workspaces(ws) == ["w1"]  # never reached herdr
    ws.sim.faults.remove("stuck")
    ws.settle()
    assert ws.result(task)["result"]["workspace"]["workspace_id"] == "w2"


def test_hang_ends_without_reply_when_the_client_goes_away(ws, conn):
    start_ready(ws)
    ws.sim.faults.add(Hang(method="agent.wait"))
    task = ws.spawn("agent.wait", conn=conn, target="rev")
    ws.advance(60)
    assert not task.done()
    conn.disconnect()
    ws.settle()
    assert task.done() and task.result() is None


def test_hang_on_a_plain_call_with_a_watched_connection(ws, conn):
    ws.sim.faults.add(Hang(name="h", method="workspace.create"))
    task = ws.spawn("workspace.create", conn=conn, cwd="/")
    conn.disconnect()
    ws.settle()
    assert task.done() and task.result() is None
    ws.sim.faults.remove("h")
    ws.settle()
    assert workspaces(ws) == ["w1"]  # the abandoned request never ran


def test_hang_ends_with_its_toxicity_window(ws):
    ws.sim.faults.add(Hang(method="pane.get", duration=30))
    task = ws.spawn("pane.get", pane_id="w1:p1")
    ws.advance(29.9)
    assert not task.done()
    ws.advance(0.2)
    assert ws.result(task)["result"]["pane"]["pane_id"] == "w1:p1"
    assert "result" in ws.call("pane.get", pane_id="w1:p1")  # the window is over


def test_clear_releases_every_held_request(ws):
    ws.sim.faults.add(Hang(method="pane.get"))
    tasks = [ws.spawn("pane.get", pane_id="w1:p1") for _ in range(3)]
    assert not any(t.done() for t in tasks)
    assert [f.name for f in ws.sim.faults.clear()] == ["hang-1"]
    ws.settle()
    assert all(ws.result(t)["result"]["type"] == "pane_info" for t in tasks)


# --- drop ----------------------------------------------------------------------------------------------


def test_drop_request_has_no_reply_and_no_effect(ws):
    ws.sim.faults.add(Drop(method="workspace.create"))
    assert ws.call("workspace.create", cwd="/") is None
    assert workspaces(ws) == ["w1"]


def test_drop_reply_loses_the_answer_but_the_effect_happened(ws):
    ws.sim.faults.add(Drop(method="workspace.create", stage="reply", count=1))
    assert ws.call("workspace.create", cwd="/") is None
    assert workspaces(ws) == ["w1", "w2"]
    assert ws.ok("workspace.create", cwd="/")["workspace"]["workspace_id"] == "w3"


def test_drop_a_wait(ws):
    start_ready(ws)
    ws.ok("agent.prompt", target="rev", text="go")
    ws.advance(1)  # working
    ws.sim.faults.add(Drop(method="agent.wait", stage="reply"))
    task = ws.spawn("agent.wait", target="rev")
    ws.advance(1)
    assert not task.done()  # the wait itself runs...
    ws.advance(4)
    assert task.done() and task.result() is None  # ...and its answer is lost


# --- wrong_pane -------------------------------------------------------------------------------------


def test_wrong_pane_rewrites_pane_and_terminal_ids(ws):
    ws.ok("pane.split", pane_id="w1:p1", direction="right")
    other = ws.ok("pane.get", pane_id="w1:p2")["pane"]
    mine = ws.ok("pane.get", pane_id="w1:p1")["pane"]
    ws.sim.faults.add(WrongPane(method="pane.get", params={"pane_id": "w1:p1"}, to_pane="w1:p2"))
    got = ws.ok("pane.get", pane_id="w1:p1")["pane"]
    assert (got["pane_id"], got["terminal_id"]) == ("w1:p2", other["terminal_id"])
    assert got["terminal_id"] != mine["terminal_id"]
    assert ws.ok("pane.get", pane_id="w1:p2")["pane"] == other  # not matched: untouched


def test_wrong_pane_rewrites_nested_fields_everywhere(ws, tmp_path):
    ws.ok("workspace.create", cwd=str(tmp_path), focus=False)
    ws.sim.faults.add(WrongPane(method="agent.start", to_pane="w2:p1"))
    r = ws.ok("agent.start", name="rev", kind="pi", pane_id="w1:p1")
    w2 = ws.ok("pane.get", pane_id="w2:p1")["pane"]
    assert r["agent"]["pane_id"] == "w2:p1" and r["agent"]["terminal_id"] == w2["terminal_id"]
    assert r["agent"]["workspace_id"] == "w1"  # only pane_id/terminal_id by default
    ws.sim.faults.clear()
    ws.sim.faults.add(
        WrongPane(method="session.snapshot", to_pane="w2:p1", to_terminal="term_stale0")
    )
    snap = ws.ok("session.snapshot")["snapshot"]
    assert {p["pane_id"] for p in snap["panes"]} == {"w2:p1"}
    assert {p["terminal_id"] for p in snap["panes"]} == {"term_stale0"}
    assert [a["terminal_id"] for a in snap["agents"]] == ["term_stale0"]


def test_wrong_pane_optional_fields_and_errors_pass_through(ws, tmp_path):
    ws.ok("workspace.create", cwd=str(tmp_path), focus=False)
    ws.sim.faults.add(
        WrongPane(
            method="pane.get",
            to_pane="w2:p1",
            fields=("pane_id", "terminal_id", "tab_id", "workspace_id"),
        )
    )
    got = ws.ok("pane.get", pane_id="w1:p1")["pane"]
    assert (got["pane_id"], got["tab_id"], got["workspace_id"]) == ("w2:p1", "w2:t1", "w2")
    assert ws.err("pane.get", pane_id="w9:p9")["code"] == "pane_not_found"
    with pytest.raises(ValueError):
        WrongPane(to_pane="w1:p1", fields=("label",))
    with pytest.raises(ValueError):
        WrongPane()


# --- error ----------------------------------------------------------------------------------------------


def test_error_answers_a_herdr_envelope_with_the_request_id(ws):
    ws.sim.faults.add(ErrorReply(method="agent.start", code="agent_pane_busy"))
    reply = ws.call("agent.start", name="rev", kind="pi", pane_id="w1:p1")
    assert reply["id"].startswith("req-")
    assert reply["error"] == {
        "code": "agent_pane_busy",
        "message": "agent target pane w1:p1 is not an available shell",
    }
    assert ws.ok("agent.list")["agents"] == []  # stage=request: nothing was started


def test_error_messages(ws):
    ws.sim.faults.add(ErrorReply(method="ping", code="server_unavailable", count=1))
    ws.sim.faults.add(ErrorReply(method="ping", code="invalid_regex", message="bad", count=1))
    ws.sim.faults.add(ErrorReply(method="ping", code="internal_error", count=1))
    assert ws.err("ping") == {"code": "server_unavailable", "message": "server is shutting down"}
    assert ws.err("ping") == {"code": "invalid_regex", "message": "bad"}
    assert ws.err("ping") == {
        "code": "internal_error",
        "message": "internal_error (simherdr fault)",
    }
    assert ws.ok("ping")["type"] == "pong"


def test_error_reply_stage_keeps_the_effect(ws):
    ws.sim.faults.add(ErrorReply(method="workspace.create", code="timeout", stage="reply"))
    assert ws.err("workspace.create", cwd="/")["code"] == "timeout"
    assert workspaces(ws) == ["w1", "w2"]


@pytest.mark.parametrize("code", ["nope", "herdr-tab-create-failed", "agent_start_failed", ""])
def test_error_refuses_codes_herdr_never_sends(code):
    with pytest.raises(ValueError, match="not a herdr error code"):
        ErrorReply(code=code)


# --- the registry and the interceptor seam ---------------------------------------------------------


def test_registry_add_remove_list_clear(h):
    sim = h.sim
    assert sim.interceptors == []
    a = sim.faults.add(Latency(ms=5))
    b = sim.faults.add(Drop(name="d", method="ping"))
    assert a.name == "latency-1" and sim.interceptors == [sim.faults]
    assert [(f["name"], f["type"]) for f in sim.faults.list()] == [
        ("latency-1", "latency"),
        ("d", "drop"),
    ]
    with pytest.raises(ValueError, match="already exists"):
        sim.faults.add(Drop(name="d"))
    assert sim.faults.remove("d") is b
    with pytest.raises(KeyError):
        sim.faults.remove("d")
    sim.faults.clear()
    assert sim.faults.list() == [] and sim.interceptors == []


def test_faults_compose_in_order(ws):
    ws.sim.faults.add(Latency(method="pane.get", ms=100))
    ws.sim.faults.add(ErrorReply(method="pane.get", code="internal_error"))
    task = ws.spawn("pane.get", pane_id="w1:p1")
    ws.advance(0.099)
    assert not task.done()
    ws.advance(0.002)
    assert ws.result(task)["error"]["code"] == "internal_error"


def test_interceptor_seam_sees_calls_and_waits(ws):
    seen = []

    class Recorder:
        async def intercept(self, sim, call, proceed):
            assert isinstance(call, Call)
            seen.append((call.method, call.kind, call.params.get("target")))
            return await proceed()

    start_ready(ws)
    ws.sim.interceptors.append(Recorder())
    ws.ok("agent.get", target="rev")
    assert (
        ws.result(ws.spawn("agent.wait", target="rev"))["result"]["agent"]["agent_status"] == "idle"
    )
    ws.call("nope.method")  # a parse error never reaches the chain
    assert seen == [("agent.get", "call", "rev"), ("agent.wait", "wait", "rev")]


def test_fault_specs():
    f = fault_from_spec(
        {"type": "latency", "ms": 20, "method": "agent.*", "params": {"target": "x"}}
    )
    assert isinstance(f, Latency) and f.ms == 20 and f.params == {"target": "x"}
    assert isinstance(fault_from_spec({"type": "wrong_pane", "to_pane": "w1:p2"}), WrongPane)
    for bad, msg in [
        ({"type": "boom"}, "unknown fault type"),
        ({"type": "latency", "bogus": 1}, "unknown field"),
        ({"type": "error", "code": "nope"}, "not a herdr error code"),
        ({"type": "latency", "ms": -1}, "must not be negative"),
        ({"type": "drop", "probability": 2}, "between 0 and 1"),
        ({"type": "hang", "params": [1]}, "params must be"),
        ({"type": "drop", "stage": "later"}, "stage must be"),
    ]:
        with pytest.raises(ValueError, match=msg):
            fault_from_spec(bad)
    assert issubclass(Hang, Fault)
