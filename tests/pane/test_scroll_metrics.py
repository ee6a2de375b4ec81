"""PaneInfo.scroll over the socket (schema-checked): herdr's pane_info reads the terminal's
scroll metrics on every pane (src/app/creation.rs:430-438; test api_pane_get_exposes_scroll_metrics,
src/app/api/panes.rs:2053: offset_from_bottom, max >= offset, viewport_rows = the pane's rows).
0.9 was measured without them until pane.scroll (CLIENTS.md §3.7; row pane_info_scroll_always)."""

from __future__ import annotations

from tests.core.socketclient import request
from tests.releases import lone_pane_size, rows


def ok(server, method, **params):
    reply = request(server.path, method, params, rid="s")
    assert "result" in reply, reply
    return reply["result"]


def test_pane_get_exposes_scroll_metrics(server, version, tmp_path):
    created = ok(server, "workspace.create", cwd=str(tmp_path))
    pane = created["root_pane"]["pane_id"]
    for i in range(60):  # past the viewport: history to scroll through
        ok(server, "pane.send_input", pane_id=pane, text=f"line {i}", keys=["Enter"])
    scroll = ok(server, "pane.get", pane_id=pane)["pane"].get("scroll")
    if version.startswith("0.8."):
        assert rows(version).pane_info_scroll_always  # the 0.8.x source, not a choice
    if not rows(version).pane_info_scroll_always:
        assert scroll is None
        return
    assert scroll is not None
    assert scroll["offset_from_bottom"] == 0
    assert scroll["max_offset_from_bottom"] > 0
    assert scroll["viewport_rows"] == lone_pane_size(version)[1]
    # the creation reply was built before the first draw: the spawn size (the headless rows)
    assert created["root_pane"]["scroll"]["viewport_rows"] == rows(version).headless_rows
