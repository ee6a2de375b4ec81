"""Issue 25 item 1: a stopped and restarted server restores a real pane's history
(herdr: tests/cli/sessions.rs server_stop_then_restart_restores_pane_history;
src/persist/restore.rs -> src/pane.rs spawn_with_initial_history -> seed_history_ansi)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.pty


def test_server_stop_then_restart_restores_pane_history(make_client, workdir, version):
    client = make_client(version=version, persist=True, pane_history=True)
    pane = client.workspace(cwd=workdir, focus=True)
    client.wait_output(pane, r"^\$", regex=True)
    client.run(pane, "echo HISTORY_MARKER_$((6 * 7))")
    client.wait_output(pane, "HISTORY_MARKER_42", source="recent")
    client.ok("server.stop")
    client.srv.stop()

    again = make_client(version=version, persist=True, pane_history=True)
    restored = again.ok("pane.list")["panes"]
    assert [p["pane_id"] for p in restored] == [pane]
    text = again.ok("pane.read", pane_id=pane, source="recent", lines=200)["read"]["text"]
    assert "HISTORY_MARKER_42" in text, text
    # the restored lines start at column 0 (seeded with CR LF, not a staircase)
    assert any(line.startswith("HISTORY_MARKER_42") for line in text.splitlines()), text
