"""Terminal titles: herdr's stripped title, revision bump and pane_updated (src/terminal/title.rs,
src/terminal/state.rs:219-240, src/app/terminal_titles.rs tests)."""

from __future__ import annotations

import pytest

from simherdr.model.titles import stripped_terminal_title


@pytest.mark.parametrize(
    "title,expected",
    [
        ("⠋ task", "task"),
        ("✳ task", "task"),
        ("  ⠙   task  ", "task"),
        ("◒ task", "task"),
        ("⠋ ⠙ task", "⠙ task"),
        ("★task", "★task"),
        ("✨ task", "✨ task"),
        ("task ⠋ detail", "task ⠋ detail"),
        (" ⠋ 修复🙂标题 ", "修复🙂标题"),
        ("  ", None),
        ("⠋   ", None),
        ("", None),
    ],
)
def test_stripped_title_matches_herdrs_own_cases(title, expected):
    assert stripped_terminal_title(title) == expected


def _title(h, pane, title):
    # a program in the pane sets its title (OSC 0 / OSC 2), as herdr's own test does
    h.sim.session.panes[pane].screen.feed(title)
    h.sim.commit()


def test_revision_follows_the_stripped_title(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    mark = h.sim.hub.seq
    _title(h, "w1:p1", "\x1b]0;⠋ 修复🙂标题\x07")
    pane = h.ok("pane.get", pane_id="w1:p1")["pane"]
    assert (pane["terminal_title"], pane["terminal_title_stripped"], pane["revision"]) == (
        "⠋ 修复🙂标题",
        "修复🙂标题",
        1,
    )
    _title(h, "w1:p1", "\x1b]2;⠙ 修复🙂标题\x1b\\")  # only the spinner moved
    pane = h.ok("pane.get", pane_id="w1:p1")["pane"]
    assert (pane["terminal_title"], pane["revision"]) == ("⠙ 修复🙂标题", 1)
    _title(h, "w1:p1", "\x1b]0;Done reviewing\x07")
    _title(h, "w1:p1", "\x1b]0;\x07")
    pane = h.ok("pane.get", pane_id="w1:p1")["pane"]
    assert (
        "terminal_title" not in pane
        and "terminal_title_stripped" not in pane
        and pane["revision"] == 3
    )
    updates = [k for _, k, _ in h.sim.hub.after(mark) if k == "pane_updated"]
    assert len(updates) == 3


def test_simulated_claude_sets_its_measured_title(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    h.ok("agent.start", name="c", kind="claude", pane_id="w1:p1")
    h.advance(6)
    agent = h.ok("agent.get", target="c")["agent"]
    assert (
        agent["terminal_title"] == "\u2733 Claude Code"
        and agent["terminal_title_stripped"] == "Claude Code"
    )
    assert agent["revision"] == 1
