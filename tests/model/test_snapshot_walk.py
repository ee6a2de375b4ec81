"""session.snapshot is built in one walk of the tree (views.session_snapshot, issue 26); it must
equal the snapshot composed item by item from workspace_info / tab_info / pane_info /
layout_snapshot / agent_info, over sessions with several workspaces and tabs, focus moved
around, zoomed tabs, renamed tabs and agents in every status (the rollups). pane.list, which
reads each pane's focus from one lookup, must equal pane_info of each pane in turn."""

from __future__ import annotations

import random

import pytest

from simherdr import views as V
from simherdr.model.layout import Leaf, Split
from simherdr.model.state import Pane
from simherdr.model.terminal import AgentSlot
from simherdr.testing import Harness

STATES = ("idle", "working", "blocked", "unknown")


def composed(s, version: str, protocol: int, completion_seq: bool) -> dict:
    """The snapshot's definition, item by item (what the one walk must reproduce)."""
    snap: dict = {"version": version, "protocol": protocol}
    w = s.active_ws()
    if w is not None:
        snap["focused_workspace_id"] = w.workspace_id
        t = w.active()
        if t is not None:
            snap["focused_tab_id"] = t.tab_id
            snap["focused_pane_id"] = t.focused_pane
    snap["workspaces"] = [V.workspace_info(s, x) for x in s.workspaces]
    snap["tabs"] = [V.tab_info(s, t) for x in s.workspaces for t in x.tabs]
    snap["panes"] = [V.pane_info(s, p) for p in s.all_panes()]
    snap["layouts"] = [V.layout_snapshot(s, x, t) for x in s.workspaces for t in x.tabs]
    snap["agents"] = [
        V.agent_info(s, p, completion_seq) for p in s.all_panes() if p.agent.is_agent_terminal()
    ]
    return snap


def check(h: Harness) -> dict:
    sim = h.sim
    s = sim.session
    args = (sim.version.name, sim.version.protocol, sim.version.rows.agent_completion_seq)
    got = V.session_snapshot(s, *args)
    assert got == composed(s, *args)
    # the reply is the same snapshot
    assert h.ok("session.snapshot")["snapshot"] == got
    assert h.ok("pane.list")["panes"] == [V.pane_info(s, p) for p in s.all_panes()]
    for w in s.workspaces:
        listed = h.ok("pane.list", workspace_id=w.workspace_id)["panes"]
        assert listed == [V.pane_info(s, s.panes[i]) for t in w.tabs for i in t.pane_ids()]
    # focus_ids: a pane is focused exactly when its own ids are these
    focus = s.focus_ids()
    for p in s.all_panes():
        assert ((p.workspace_id, p.tab_id, p.pane_id) == focus) == s.is_focused(p)
    return got


def _random_session(h: Harness, rng: random.Random, cwd: str) -> None:
    for _ in range(rng.randint(1, 4)):
        h.ok("workspace.create", cwd=cwd, focus=rng.random() < 0.5)
    for _ in range(rng.randint(2, 12)):
        s = h.sim.session
        ws = rng.choice(list(s.workspaces))
        op = rng.choice(("tab", "split", "split", "focus", "tabfocus", "zoom", "rename", "agent"))
        panes = [p.pane_id for t in ws.tabs for p in (s.panes[i] for i in t.pane_ids())]
        if op == "tab":
            h.ok("tab.create", workspace_id=ws.workspace_id, cwd=cwd, focus=rng.random() < 0.5)
        elif op == "split":
            h.ok(
                "pane.split",
                target_pane_id=rng.choice(panes),
                direction=rng.choice(("right", "down")),
                focus=rng.random() < 0.5,
            )
        elif op == "focus":
            h.ok("pane.focus", pane_id=rng.choice(panes))
        elif op == "tabfocus":
            h.ok("tab.focus", tab_id=rng.choice(ws.tabs).tab_id)
        elif op == "zoom":
            h.call("pane.zoom", pane_id=rng.choice(panes))
        elif op == "rename":
            h.ok("tab.rename", tab_id=rng.choice(ws.tabs).tab_id, label=f"t{rng.randint(0, 9)}")
        elif op == "agent":
            h.ok(
                "pane.report_agent",
                pane_id=rng.choice(panes),
                source="test",
                agent=rng.choice(("pi", "claude")),
                state=rng.choice(STATES),
            )


@pytest.mark.parametrize("seed", range(12))
def test_the_one_walk_is_the_item_by_item_snapshot(version, config, tmp_path, seed):
    with Harness(version, config=config) as h:
        check(h)  # empty session: no focus at all
        _random_session(h, random.Random(seed), str(tmp_path))
        check(h)


def test_rollups_and_focus_across_workspaces(config, tmp_path):
    """Tab and workspace statuses roll up over different tabs; the focus is in the second
    workspace's second tab."""
    with Harness("0.9.3", config=config) as h:
        cwd = str(tmp_path)
        h.ok("workspace.create", cwd=cwd)
        h.ok("pane.split", target_pane_id="w1:p1", direction="right")
        h.ok("tab.create", workspace_id="w1", cwd=cwd)
        h.ok("workspace.create", cwd=cwd)
        second = h.ok("tab.create", workspace_id="w2", cwd=cwd, focus=True)["tab"]["tab_id"]
        h.ok("workspace.focus", workspace_id="w2")
        h.ok("pane.report_agent", pane_id="w1:p1", source="test", agent="pi", state="working")
        h.ok("pane.report_agent", pane_id="w1:p2", source="test", agent="pi", state="blocked")
        h.ok("pane.report_agent", pane_id="w1:p3", source="test", agent="pi", state="idle")
        snap = check(h)
        by_tab = {t["tab_id"]: t["agent_status"] for t in snap["tabs"]}
        by_ws = {w["workspace_id"]: w["agent_status"] for w in snap["workspaces"]}
        assert by_tab["w1:t1"] == "blocked"
        assert by_ws["w1"] == "blocked"
        assert [p["pane_id"] for p in snap["panes"] if p["focused"]] == [snap["focused_pane_id"]]
        assert (snap["focused_workspace_id"], snap["focused_tab_id"]) == ("w2", second)


@pytest.mark.parametrize("cls", [Pane, AgentSlot, Leaf, Split])
def test_the_walked_objects_keep_their_fields_in_slots(cls):
    """Every read of many panes walks these (issue 26): no per-instance __dict__."""
    assert "__dict__" not in dir(cls) and "__slots__" in vars(cls)
