"""The model records domain events by id; the runtime's outbox renders them (simherdr/outbox.py)."""

from __future__ import annotations

from simherdr.model import events as ev
from simherdr.model.screen import Screen
from simherdr.model.state import Session
from simherdr.outbox import Outbox


def _session(record=None) -> Session:
    return Session(
        lambda cols, rows: Screen(cols=cols, rows=rows),
        record=record,
        agent_kinds="0.9.3",
        close_focus_to_opener=True,
    )


def test_a_bare_session_records_domain_events_in_order():
    s = _session()
    w, t, p = s.create_workspace("/", "root", None, None, True, 1)
    q = s.split_pane(p, "right", None, "/", None, False, 2)
    s.close_pane(q)
    assert s.recorded == [
        ev.WorkspaceCreated(w.workspace_id),
        ev.TabCreated(w.workspace_id, t.tab_id),
        ev.PaneCreated(p.pane_id),
        ev.LayoutChanged(w.workspace_id, t.tab_id),
        ev.PaneCreated(q.pane_id),
        ev.LayoutChanged(w.workspace_id, t.tab_id),
        ev.PaneClosed(w.workspace_id, q.pane_id),
        ev.LayoutChanged(w.workspace_id, t.tab_id),
    ]


def _runtime() -> tuple[Session, Outbox]:
    box = Outbox()
    s = _session(box.record)
    box.session = s
    return s, box


def test_the_outbox_renders_when_recorded_and_a_closed_workspace_keeps_its_last_state():
    s, box = _runtime()
    w, _t, _p = s.create_workspace("/", "root", None, None, True, 1)
    s.rename_workspace(w, "x")
    s.close_workspace(w)
    kinds = [k for k, _ in box.drain()]
    assert kinds == [
        "workspace_created",
        "tab_created",
        "pane_created",
        "layout_updated",
        "workspace_renamed",
        "workspace_closed",
    ]
    s2, box2 = _runtime()
    w2, _t, _p = s2.create_workspace("/", "root", None, None, True, 1)
    box2.drain()
    s2.rename_workspace(w2, "x")
    s2.close_workspace(w2)
    closed = dict(box2.drain())["workspace_closed"]
    assert closed["workspace"]["label"] == "x" and closed["workspace"]["pane_count"] == 1
    assert box2.drain() == []


def test_suppressed_announces_nothing_and_deferred_renders_the_state_at_its_end():
    s, box = _runtime()
    with box.suppressed():
        w, t, p = s.create_workspace("/", "root", None, None, True, 1)
        box.emit("pane_updated", {})
    assert box.drain() == []
    with box.deferred():
        q = s.split_pane(p, "right", None, "/", None, False, 2)
        q.label = "late"
    batch = box.drain()
    assert [k for k, _ in batch] == ["pane_created", "layout_updated"]
    assert batch[0][1]["pane"]["label"] == "late"
