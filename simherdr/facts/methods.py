"""Every method name herdr knows, per version.

0.8.2: SOCKET.md §4, src/api/schema.rs:45-243. 0.9.3: the ``Method`` enum of the 0.9.3 source
([H093] src/api/schema.rs, listed by ``api_method_name`` in src/api/server.rs): 0.8.2's set plus
the methods below, minus ``pane.graphics.*`` (retired in 0.9.2, #4561: they answer
``unknown_method``, src/api/server.rs ``retired_pane_graphics_method_error``).

A name outside a version's set fails to parse ("unknown variant", invalid_request). A known name
the simulator does not model answers ``not_implemented`` — CHOICE: herdr's own catch-all code
(src/app/api.rs:1204-1210), so a client sees an honest refusal, never a fake success.
"""

METHODS_0_8_2 = frozenset(
    [
        "ping",
        "server.stop",
        "server.live_handoff",
        "server.reload_config",
        "server.agent_manifests",
        "server.reload_agent_manifests",
        "notification.show",
        "client.window_title.set",
        "client.window_title.clear",
        "session.snapshot",
        "workspace.create",
        "workspace.list",
        "workspace.get",
        "workspace.focus",
        "workspace.rename",
        "workspace.move",
        "workspace.move_block",
        "workspace.report_metadata",
        "workspace.close",
        "worktree.list",
        "worktree.create",
        "worktree.open",
        "worktree.remove",
        "tab.create",
        "tab.list",
        "tab.get",
        "tab.focus",
        "tab.rename",
        "tab.move",
        "tab.close",
        "agent.list",
        "agent.get",
        "agent.read",
        "agent.explain",
        "agent.send_keys",
        "agent.rename",
        "agent.view.set",
        "agent.view.clear",
        "agent.focus",
        "agent.start",
        "agent.prompt",
        "agent.wait",
        "pane.split",
        "pane.swap",
        "pane.move",
        "pane.zoom",
        "pane.layout",
        "pane.process_info",
        "layout.export",
        "layout.apply",
        "layout.set_split_ratio",
        "pane.neighbor",
        "pane.edges",
        "pane.focus_direction",
        "pane.resize",
        "pane.list",
        "pane.current",
        "pane.get",
        "pane.focus",
        "pane.input.set",
        "pane.rename",
        "pane.send_text",
        "pane.send_keys",
        "pane.send_input",
        "pane.read",
        "pane.graphics.set",
        "pane.graphics.clear",
        "pane.graphics.info",
        "pane.graphics.stream",
        "pane.report_agent",
        "pane.report_agent_session",
        "pane.report_metadata",
        "pane.clear_agent_authority",
        "pane.release_agent",
        "pane.close",
        "popup.close",
        "events.subscribe",
        "events.wait",
        "pane.wait_for_output",
        "integration.install",
        "integration.uninstall",
        "plugin.link",
        "plugin.list",
        "plugin.unlink",
        "plugin.enable",
        "plugin.disable",
        "plugin.action.list",
        "plugin.action.invoke",
        "plugin.log.list",
        "plugin.pane.open",
        "plugin.pane.focus",
        "plugin.pane.close",
    ]
)
# Kept for importers written before the per-version sets.
ALL_METHODS = METHODS_0_8_2

# 0.9.2 (#4561): retired; any line naming one answers unknown_method (src/api/server.rs).
RETIRED_0_9 = frozenset(
    ["pane.graphics.info", "pane.graphics.set", "pane.graphics.clear", "pane.graphics.stream"]
)

# New in 0.9.x ([H093] src/api/server.rs api_method_name; VERSIONS.md §5 row 16).
NEW_0_9 = frozenset(
    [
        "server.ssh_agent.register",
        "product_announcement.dismiss",
        "release_notes.dismiss",
        "command.invoke",
        "client_shell.surface.set",
        "pane.scroll",
        "pane.clear",
        "pane.edit_scrollback",
        "pane.selection.read",
        "pane.copy_motion",
        "pane.copy_search",
        "pane.link.activate",
        "pane.link.resolve",
        "integration.list",
    ]
)

METHODS_0_9_3 = (METHODS_0_8_2 - RETIRED_0_9) | NEW_0_9
