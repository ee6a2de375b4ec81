"""Issue 33 item 7: a pane lane shows its agent and terminal changes. A pi replaced by a claude
after a server restart was titled ``w1:p1 · claude`` (the last agent only), with no mark where
the restart replaced the terminal."""

from __future__ import annotations

import re

from simherdr.traceexport import chrome_trace
from simherdr.traceview import lane_label, model, render_html
from tests.traceview.test_timeline import scripted_race


def _lane():
    m = model(scripted_race())
    (pid, p), *_ = m["panes"]
    return pid, p


def test_the_lane_is_titled_with_every_agent_it_had_in_order():
    pid, p = _lane()
    assert lane_label(pid, p) == "pane w1:p1 · pi → claude"
    assert [a for _, a in p["agents"]] == ["pi", "claude"] and p["agent"] == "claude"


def test_agent_changes_and_the_restarts_new_terminal_are_marks_on_the_lane():
    _, p = _lane()
    agents = [(mk["t"], mk["agent"]) for mk in p["marks"] if mk["class"] == "agent"]
    assert [a for _, a in agents] == ["pi", "claude"]
    restart = next(e["t"] for e in scripted_race() if e.get("name") == "server_restart")
    origin = min(e["t"] for e in scripted_race())
    (term,) = [mk for mk in p["marks"] if mk["class"] == "terminal"]
    assert term["t"] == restart - origin  # at the restart, not when the new id was first seen
    assert agents[0][0] < term["t"] < agents[1][0]
    old, new = re.findall(r"term_[0-9a-f]+", term["title"])
    assert old != new and term["terminal"] == new and "server restart" in term["title"]


def test_the_picture_draws_them_and_the_export_names_them():
    entries = scripted_race()
    page = render_html(entries)
    assert re.search(r'class="mark agent" data-agent="pi"', page)
    assert re.search(r'class="mark agent" data-agent="claude"', page)
    assert page.count('class="mark terminal"') == 1
    assert "pane w1:p1 · pi → claude" in page
    names = {e["name"] for e in chrome_trace(entries)["traceEvents"] if e.get("ph") == "i"}
    assert {"agent pi", "agent claude", "new terminal"} <= names


def _event(t: float, typ: str, **data) -> dict:
    return {"t": t, "kind": "event", "type": typ, "data": {"type": typ, **data}}


def test_a_terminal_replaced_without_a_restart_is_marked_where_its_id_first_shows():
    pane = {"pane_id": "w1:p1", "workspace_id": "w1"}
    entries = [
        _event(0.0, "pane_created", pane={**pane, "terminal_id": "term_aa"}),
        _event(1.0, "pane_agent_detected", pane_id="w1:p1", agent="pi"),
        _event(2.0, "pane_updated", pane={**pane, "terminal_id": "term_aa"}),
        _event(3.0, "pane_updated", pane={**pane, "terminal_id": "term_bb"}),
        {"t": 4.0, "kind": "reply", "conn": "c1", "id": "x", "ok": True,
         "result": {"type": "pane_info", "pane": {**pane, "terminal_id": "term_bb"}}},
    ]  # fmt: skip
    (pid, p), *_ = model(entries)["panes"]
    terms = [mk for mk in p["marks"] if mk["class"] == "terminal"]
    assert [(mk["t"], mk["terminal"]) for mk in terms] == [(3.0, "term_bb")]
    assert "term_aa → term_bb" in terms[0]["title"]
    assert lane_label(pid, p) == "pane w1:p1 · pi"
