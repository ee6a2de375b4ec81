"""Issue 14 §1: a deep split chain must not take the server down, and a failing handler answers.

herdr has no limit on nested `pane.split`s (src/layout.rs split_pane; src/app/api/panes.rs
handle_pane_split), so the simulator's layout code must handle any depth.
"""

from __future__ import annotations

import gc
import json
import sys

from simherdr.handlers.registry import MethodDef
from simherdr.testing import ThreadServer
from tests.core.socketclient import raw, request

# Deeper than any recursive walk could go: the test lowers Python's recursion limit to LIMIT
# (the chain costs O(n^2): every split publishes the whole layout, as herdr's does). A test
# runs ~40 frames deep (an xdist worker's), the server's handlers fewer: 150 leaves room for
# both, and a walk that recursed once per level would fail ~110 levels down, far short of
# DEPTH (a recursive depth probe in layout.snapshot: RecursionError at the first splits).
# (LIMIT 400, DEPTH 600 until s7: the same check at ~2.4x the CPU, 0.8-1.0 -> 0.34-0.40 s.)
LIMIT = 150
DEPTH = LIMIT + 200
# splits per ThreadServer.run call (each call has 10 s: the deepest 100 took longer on a loaded
# two-core machine)
BATCH = 25


def test_deep_split_chain_keeps_every_reader_answering(config):
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(LIMIT)
    # The chain keeps ~400k dicts alive (the hub's 512 events, each a layout of up to 600
    # panes): the collector's passes over them while it grows are no part of what this test
    # checks, so they wait until it is done, and one pass then frees the stopped server's
    # cycles (a serial run of tests/hostile: 0.65 -> 0.37 s in the collector)
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        _deep_split_chain(config)
    finally:
        sys.setrecursionlimit(old)
        if collecting:
            gc.enable()


def _deep_split_chain(config):
    # One profile: the layout code is version-independent and the chain costs seconds.
    with ThreadServer("0.8.2", config=config) as srv:
        request(srv.path, "workspace.create", {"cwd": "/"})
        target = "w1:p1"

        def batch(start: int):
            async def go(sim):
                nonlocal target
                for i in range(start, min(start + BATCH, DEPTH)):
                    direction = "right" if i % 2 else "down"
                    r = await sim.invoke(
                        "pane.split", {"target_pane_id": target, "direction": direction}
                    )
                    assert "result" in r, r  # every split answers
                    target = r["result"]["pane"]["pane_id"]

            return go

        for start in range(0, DEPTH, BATCH):
            srv.run(batch(start))
        snap = request(srv.path, "session.snapshot", timeout=30)["result"]["snapshot"]
        assert len(snap["panes"]) == DEPTH + 1
        (layout,) = snap["layouts"]
        assert len(layout["splits"]) == DEPTH and layout["splits"][-1]["id"].startswith(
            f"split_{DEPTH - 1}_"
        )
        assert request(srv.path, "workspace.list")["result"]["workspaces"][0]["pane_count"] == (
            DEPTH + 1
        )
        assert len(request(srv.path, "tab.list")["result"]["tabs"]) == 1
        # the deepest pane is still addressable, closable, and its tree exportable
        request(srv.path, "pane.close", {"pane_id": target})
        out = raw(
            srv.path,
            json.dumps({"id": "x", "method": "layout.export", "params": {}}).encode() + b"\n",
            timeout=30,
        )
        # (too deep for Python's own json.loads: check the envelope's start and its end)
        assert out.startswith(b'{"id":"x","result":{"type":"layout_export","layout":{')
        assert out.endswith(b"}" * 3 + b"\n") and out.count(b'"type":"split"') == DEPTH - 1
        assert len(request(srv.path, "pane.list")["result"]["panes"]) == DEPTH


def test_a_failing_handler_answers_internal_error_and_publishes_nothing(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    before = h.ok("session.snapshot")
    published = len(list(h.sim.hub.after(0)))

    def broken(sim, p):
        sim.outbox.emit("pane_closed", {"pane_id": "w1:p1", "workspace_id": "w1"})
        raise RecursionError("maximum recursion depth exceeded")

    reply = h.loop.run_until_complete(
        h.sim.dispatcher.dispatch("r1", MethodDef("pane.list", {}, broken), {})
    )
    assert reply == {
        "id": "r1",
        "error": {"code": "internal_error", "message": "internal error: RecursionError"},
    }
    h.validator(reply)
    assert h.ok("session.snapshot") == before
    assert len(list(h.sim.hub.after(0))) == published  # the failed change's event was dropped


def test_a_failing_stream_answers_internal_error_with_its_id(config, monkeypatch):
    """A subscription whose handler fails unexpectedly writes one internal_error line with the
    request id and ends, instead of dropping the connection silently."""
    from simherdr.handlers import registry

    async def broken(sim, p, rid, conn):
        raise KeyError("a simulator bug")

    with ThreadServer("0.9.3", config=config) as srv:
        real = srv.sim.methods["events.subscribe"]
        monkeypatch.setitem(
            registry.REGISTRY, "events.subscribe", MethodDef(real.name, real.spec, broken, "stream")
        )
        line = json.dumps(
            {
                "id": "sub",
                "method": "events.subscribe",
                "params": {"subscriptions": [{"type": "pane.created"}]},
            }
        ).encode()
        out = raw(srv.path, line + b"\n", timeout=10)
    reply = json.loads(out)
    assert reply == {
        "id": "sub",
        "error": {"code": "internal_error", "message": "internal error: KeyError"},
    }
