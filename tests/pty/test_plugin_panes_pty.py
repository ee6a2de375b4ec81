"""A plugin pane in a real PTY runs its entrypoint in the plugin root with herdr's plugin env."""

from __future__ import annotations

from tests.plugins.helpers import script, write_plugin


def test_a_plugin_pane_runs_its_entrypoint(make_client, workdir):
    from pathlib import Path

    c = make_client()
    root = write_plugin(
        Path(workdir) / "plug",
        """
        [[panes]]
        id = "board"
        title = "Board"
        placement = "split"
        command = ["./board.sh", "two words"]
        """,
    )
    script(root, "board.sh", 'echo "board:$1:$HERDR_PLUGIN_ID:$HERDR_PLUGIN_ENTRYPOINT_ID:$PWD"\n')
    c.workspace()
    c.ok("plugin.link", path=str(root))
    pane = c.ok("plugin.pane.open", plugin_id="test.plug", entrypoint="board")["plugin_pane"]
    line = c.wait_output(pane["pane"]["pane_id"], "board:two words:")
    assert line.strip() == f"board:two words:test.plug:board:{root.resolve()}"
