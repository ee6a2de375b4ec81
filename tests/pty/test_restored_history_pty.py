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
    # ... and the shell back at its prompt, on the row below. herdr saves each terminal as it
    # is at the stop, its last rows trimmed (src/server/headless.rs:910-914 save_session_now ->
    # src/pane.rs:2788-2791 snapshot_history -> src/ghostty/mod.rs:1224-1238, trim) and seeds
    # it as is (src/pane/terminal.rs:1445-1460): the cursor stays where the text ends and the
    # new shell draws its prompt there. Stopped before the prompt came, the saved text ends on
    # the marker's row, and a readline redraw of the new prompt (SIGWINCH) erases that row.
    client.wait_output(pane, r"^\$$", regex=True, source="recent")
    client.ok("server.stop")
    client.srv.stop()

    again = make_client(version=version, persist=True, pane_history=True)
    restored = again.ok("pane.list")["panes"]
    assert [p["pane_id"] for p in restored] == [pane]
    text = again.ok("pane.read", pane_id=pane, source="recent", lines=200)["read"]["text"]
    assert "HISTORY_MARKER_42" in text, text
    # the restored lines start at column 0 (seeded with CR LF, not a staircase)
    assert any(line.startswith("HISTORY_MARKER_42") for line in text.splitlines()), text
