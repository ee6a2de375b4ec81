"""Pane geometry and herdr's own read expectations on real panes, over the socket.

herdr's headless server sizes a lone pane to its virtual frame less the view's chrome on the
first draw (simherdr/model/geometry.py): 53x23 at 0.8.0 (80x24 frame), 93x39 at 0.8.2 and 0.9.3
(120x40). The read cases transcribe herdr's tests/api_ping.rs
workspace_list_and_create_round_trip (v0.8.0 :482-560, lines=20; 0.8.2 the same with lines=50),
which pass on herdr only because of that geometry: `recent` is the last N rows of scrollback
plus the whole viewport, blank rows under the prompt included (src/pane/terminal.rs
ghostty_recent_read_range)."""

from __future__ import annotations

import pytest

from tests.releases import lone_pane_size, rows

pytestmark = pytest.mark.pty

RELEASES = ("0.8.0", "0.8.2", "0.9.3")
# the recent read's lines in herdr's test at each release (v0.8.0 tests/api_ping.rs:505: 20;
# 0.8.2 :505: 50, after the frame grew to 120x40)
ROUND_TRIP_LINES = {"0.8.0": 20, "0.8.2": 50, "0.9.3": 50}


@pytest.mark.parametrize("version", RELEASES)
def test_workspace_round_trip_reads_as_herdrs_own_test(make_client, version):
    """herdr tests/api_ping.rs workspace_list_and_create_round_trip, its read part (v0.8.0
    :471-595, 0.8.2 the same lines): visible read, send_text + Enter, recent, the two-line
    limits, wait_for_output substring / regex on recent, send_input, the timeout error."""
    client = make_client(version=version)
    pane = client.workspace()
    read = client.ok("pane.read", pane_id=pane, source="visible")["read"]
    assert isinstance(read["text"], str) and read["pane_id"] == pane
    assert client.ok("pane.send_text", pane_id=pane, text="echo alpha; echo beta; echo gamma")
    client.ok("pane.send_keys", pane_id=pane, keys=["Enter"])
    client.wait_output(pane, r"^gamma$", regex=True)  # herdr's test sleeps 300 ms here
    lines = ROUND_TRIP_LINES[version]
    recent = client.ok("pane.read", pane_id=pane, source="recent", lines=lines)["read"]
    assert "beta" in recent["text"] or "gamma" in recent["text"], recent
    for source in ("visible", "detection"):
        text = client.ok("pane.read", pane_id=pane, source=source, lines=2)["read"]["text"]
        assert len(text.splitlines()) <= 2, f"{source} ignored its two-line limit: {text!r}"
    waited = client.ok(
        "pane.wait_for_output",
        pane_id=pane,
        source="recent",
        lines=40,
        match={"type": "substring", "value": "gamma"},
        timeout_ms=2000,
    )
    assert waited["type"] == "output_matched" and "gamma" in waited["matched_line"]
    assert waited["pane_id"] == pane and waited["read"]["pane_id"] == pane
    assert "gamma" in waited["read"]["text"]
    client.ok("pane.send_input", pane_id=pane, text="echo delta", keys=["Enter"])
    waited = client.ok(
        "pane.wait_for_output",
        pane_id=pane,
        source="recent",
        lines=40,
        match={"type": "substring", "value": "delta"},
        timeout_ms=2000,
    )
    assert waited["type"] == "output_matched" and "delta" in waited["matched_line"]
    waited = client.ok(
        "pane.wait_for_output",
        pane_id=pane,
        source="recent",
        lines=40,
        match={"type": "regex", "value": "alp.*gamma"},
        timeout_ms=2000,
    )
    assert waited["type"] == "output_matched" and "alpha" in waited["matched_line"]
    timeout = client.call(
        "pane.wait_for_output",
        pane_id=pane,
        source="recent",
        lines=10,
        match={"type": "substring", "value": "definitely-not-there"},
        timeout_ms=200,
    )
    assert timeout["error"]["code"] == "timeout"


@pytest.mark.parametrize("version", ["0.8.0", "0.8.2"])
def test_a_short_recent_read_counts_the_blank_rows_under_the_prompt(make_client, version):
    """0.8.x recent ends at the screen's last row (SOCKET.md §4.3): a 20-row read of a fresh
    pane holding five lines reaches them on 0.8.0's 23-row pane, not on 0.8.2's 39-row one
    (only blank rows, trimmed to ""); both are truncated (the screen has more rows than 20)."""
    client = make_client(version=version)
    pane = client.workspace()
    client.run(pane, "echo alpha; echo beta; echo gamma")
    client.wait_output(pane, r"^gamma$", regex=True)
    client.wait_output(pane, r"^\$ ?$", regex=True)  # the next prompt is up
    read = client.ok("pane.read", pane_id=pane, source="recent", lines=20)["read"]
    _cols, height = lone_pane_size(version)
    assert read["truncated"] is True
    if height - 20 < 4:  # rows 0-4: the command, alpha, beta, gamma, the prompt
        assert "gamma" in read["text"]
    else:
        assert read["text"] == ""


@pytest.mark.parametrize("version", RELEASES)
def test_a_lone_pane_is_the_frame_less_the_chrome(make_client, version):
    """The shell sees the pane's size (TIOCSWINSZ), pane.get reports it (scroll viewport
    rows on 0.8.x), and a split spawns at the view's first pane rect (estimate_pane_size)."""
    client = make_client(version=version)
    pane = client.workspace()
    cols, height = lone_pane_size(version)
    assert (cols, height) == {"0.8.0": (53, 23)}.get(version, (93, 39))
    client.run(pane, "stty size")
    assert client.wait_output(pane, r"^\d+ \d+$", regex=True) == f"{height} {cols}"
    scroll = client.pane(pane).get("scroll")
    if rows(version).pane_info_scroll_always:
        assert scroll is not None and scroll["viewport_rows"] == height
    else:
        assert scroll is None
    new = client.ok("pane.split", target_pane_id=pane, direction="right", focus=True)
    second = new["pane"]["pane_id"]
    client.wait_output(second, r"^\$", regex=True)
    client.run(second, "stty size")
    # the view's first pane rect: the terminal area, the gutter column not taken off
    assert client.wait_output(second, r"^\d+ \d+$", regex=True) == f"{height} {cols + 1}"
