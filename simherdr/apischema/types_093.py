"""herdr 0.9.3's API type deltas over 0.8.2 (``types_082.json``).

Read from herdr 0.9.3's source as the public fork remziduzagac/herdsman carries it (renames
turned back): ``src/api/schema.rs`` (the ``Method`` list; the fork's own ``pane.stack*``
methods left out), ``src/api/schema/response.rs``, ``panes.rs`` and ``common.rs`` at
feeb0f97; ``close_group`` from VERSIONS.md §1 (#1266). The fork's ``server.rs``,
``commands.rs`` and ``integrations.rs`` are not readable: CHOICE — the params of
``server.ssh_agent.register`` and ``command.invoke`` are open objects, and ``IntegrationInfo``
follows VERSIONS.md §5 row 17 (its ``state`` an unnamed string enum). Read only by
``simherdr.apischema``.
"""

from __future__ import annotations

# (method, params type) in the fork's Method order, herdr's methods only.
METHODS = [
    ("ping", "PingParams"),
    ("server.stop", "EmptyParams"),
    ("server.live_handoff", "ServerLiveHandoffParams"),
    ("server.reload_config", "EmptyParams"),
    ("server.ssh_agent.register", "ServerSshAgentRegisterParams"),
    ("server.agent_manifests", "EmptyParams"),
    ("server.reload_agent_manifests", "EmptyParams"),
    ("notification.show", "NotificationShowParams"),
    ("product_announcement.dismiss", "ProductAnnouncementDismissParams"),
    ("release_notes.dismiss", "ReleaseNotesDismissParams"),
    ("command.invoke", "CommandInvokeParams"),
    ("client.window_title.set", "ClientWindowTitleSetParams"),
    ("client.window_title.clear", "EmptyParams"),
    ("client_shell.surface.set", "ClientShellSurfaceSetParams"),
    ("session.snapshot", "EmptyParams"),
    ("workspace.create", "WorkspaceCreateParams"),
    ("workspace.list", "EmptyParams"),
    ("workspace.get", "WorkspaceTarget"),
    ("workspace.focus", "WorkspaceTarget"),
    ("workspace.rename", "WorkspaceRenameParams"),
    ("workspace.move", "WorkspaceMoveParams"),
    ("workspace.move_block", "WorkspaceMoveBlockParams"),
    ("workspace.report_metadata", "WorkspaceReportMetadataParams"),
    ("workspace.close", "WorkspaceCloseParams"),
    ("worktree.list", "WorktreeListParams"),
    ("worktree.create", "WorktreeCreateParams"),
    ("worktree.open", "WorktreeOpenParams"),
    ("worktree.remove", "WorktreeRemoveParams"),
    ("tab.create", "TabCreateParams"),
    ("tab.list", "TabListParams"),
    ("tab.get", "TabTarget"),
    ("tab.focus", "TabTarget"),
    ("tab.rename", "TabRenameParams"),
    ("tab.move", "TabMoveParams"),
    ("tab.close", "TabTarget"),
    ("agent.list", "EmptyParams"),
    ("agent.get", "AgentTarget"),
    ("agent.read", "AgentReadParams"),
    ("agent.explain", "AgentTarget"),
    ("agent.send_keys", "AgentSendKeysParams"),
    ("agent.rename", "AgentRenameParams"),
    ("agent.view.set", "AgentViewSetParams"),
    ("agent.view.clear", "AgentViewClearParams"),
    ("agent.focus", "AgentTarget"),
    ("agent.start", "AgentStartParams"),
    ("agent.prompt", "AgentPromptParams"),
    ("agent.wait", "AgentWaitParams"),
    ("pane.split", "PaneSplitParams"),
    ("pane.swap", "PaneSwapParams"),
    ("pane.move", "PaneMoveParams"),
    ("pane.zoom", "PaneZoomParams"),
    ("pane.layout", "PaneLayoutParams"),
    ("pane.process_info", "PaneProcessInfoParams"),
    ("layout.export", "LayoutExportParams"),
    ("layout.apply", "LayoutApplyParams"),
    ("layout.set_split_ratio", "LayoutSetSplitRatioParams"),
    ("pane.neighbor", "PaneNeighborParams"),
    ("pane.edges", "PaneEdgesParams"),
    ("pane.focus_direction", "PaneFocusDirectionParams"),
    ("pane.resize", "PaneResizeParams"),
    ("pane.scroll", "PaneScrollParams"),
    ("pane.clear", "PaneTarget"),
    ("pane.edit_scrollback", "PaneTarget"),
    ("pane.selection.read", "PaneSelectionReadParams"),
    ("pane.copy_motion", "PaneCopyMotionParams"),
    ("pane.copy_search", "PaneCopySearchParams"),
    ("pane.list", "PaneListParams"),
    ("pane.current", "PaneCurrentParams"),
    ("pane.get", "PaneTarget"),
    ("pane.focus", "PaneTarget"),
    ("pane.input.set", "PaneInputSetParams"),
    ("pane.link.activate", "PaneLinkActivateParams"),
    ("pane.link.resolve", "PaneLinkActivateParams"),
    ("pane.rename", "PaneRenameParams"),
    ("pane.send_text", "PaneSendTextParams"),
    ("pane.send_keys", "PaneSendKeysParams"),
    ("pane.send_input", "PaneSendInputParams"),
    ("pane.read", "PaneReadParams"),
    ("pane.report_agent", "PaneReportAgentParams"),
    ("pane.report_agent_session", "PaneReportAgentSessionParams"),
    ("pane.report_metadata", "PaneReportMetadataParams"),
    ("pane.clear_agent_authority", "PaneClearAgentAuthorityParams"),
    ("pane.release_agent", "PaneReleaseAgentParams"),
    ("pane.close", "PaneTarget"),
    ("popup.close", "EmptyParams"),
    ("events.subscribe", "EventsSubscribeParams"),
    ("events.wait", "EventsWaitParams"),
    ("pane.wait_for_output", "PaneWaitForOutputParams"),
    ("integration.list", "EmptyParams"),
    ("integration.install", "IntegrationInstallParams"),
    ("integration.uninstall", "IntegrationUninstallParams"),
    ("plugin.link", "PluginLinkParams"),
    ("plugin.list", "PluginListParams"),
    ("plugin.unlink", "PluginUnlinkParams"),
    ("plugin.enable", "PluginSetEnabledParams"),
    ("plugin.disable", "PluginSetEnabledParams"),
    ("plugin.action.list", "PluginActionListParams"),
    ("plugin.action.invoke", "PluginActionInvokeParams"),
    ("plugin.log.list", "PluginLogListParams"),
    ("plugin.pane.open", "PluginPaneOpenParams"),
    ("plugin.pane.focus", "PluginPaneFocusParams"),
    ("plugin.pane.close", "PluginPaneCloseParams"),
]

_D = {"default": True, "skip_serializing_if": "Option::is_none"}


def _struct(*fields) -> dict:
    return {"kind": "struct", "attrs": {}, "fields": [list(f) for f in fields]}


def _unit_enum(*variants: str, rule: str = "snake_case") -> dict:
    return {
        "kind": "enum",
        "attrs": {"rename_all": rule},
        "variants": [[v, "unit", None, {}] for v in variants],
    }


NEW_TYPES = {
    # common.rs
    "ProductAnnouncementDismissParams": _struct(["version", "String", {}], ["id", "String", {}]),
    "ReleaseNotesDismissParams": _struct(["version", "String", {}]),
    "ClientShellSurfaceSetParams": _struct(["active", "bool", {}]),
    # not readable (server.rs, commands.rs): open objects
    "ServerSshAgentRegisterParams": {"kind": "schema", "attrs": {}, "schema": {"type": "object"}},
    "CommandInvokeParams": {"kind": "schema", "attrs": {}, "schema": {"type": "object"}},
    # VERSIONS.md §1 (#1266)
    "WorkspaceCloseParams": _struct(
        ["workspace_id", "String", {}], ["close_group", "bool", {"default": True}]
    ),
    # panes.rs
    "PaneLinkActivateParams": _struct(
        ["pane_id", "String", {}],
        ["viewport_row", "u16", {}],
        ["col", "u16", {}],
        ["content_revision", "Option<u64>", _D],
        ["offset_from_bottom", "Option<u64>", _D],
    ),
    "PaneScrollParams": _struct(["pane_id", "String", {}], ["offset_from_bottom", "u64", {}]),
    "PaneTextPoint": _struct(["row", "u32", {}], ["col", "u16", {}]),
    "PaneSelectionReadParams": _struct(
        ["pane_id", "String", {}],
        ["anchor", "PaneTextPoint", {}],
        ["cursor", "PaneTextPoint", {}],
        ["content_revision", "Option<u64>", _D],
    ),
    "PaneCopyMotion": _unit_enum(
        "LineEnd",
        "FirstNonBlank",
        "NextWordStart",
        "PreviousWordStart",
        "NextWordEnd",
        "NextBigWordStart",
        "PreviousBigWordStart",
        "NextBigWordEnd",
        "PreviousParagraph",
        "NextParagraph",
    ),
    "PaneCopyMotionParams": _struct(
        ["pane_id", "String", {}],
        ["cursor", "PaneTextPoint", {}],
        ["motion", "PaneCopyMotion", {}],
        ["content_revision", "Option<u64>", _D],
    ),
    "PaneCopySearchDirection": _unit_enum("Forward", "Backward"),
    "PaneTextRange": _struct(["start", "PaneTextPoint", {}], ["end", "PaneTextPoint", {}]),
    "PaneCopySearchParams": _struct(
        ["pane_id", "String", {}],
        ["query", "String", {}],
        ["direction", "PaneCopySearchDirection", {}],
        ["cursor", "PaneTextPoint", {}],
        ["content_revision", "u64", {}],
        ["previous", "Option<PaneTextRange>", _D],
    ),
    "PaneLinkRegion": _struct(["row", "u16", {}], ["start_col", "u16", {}], ["end_col", "u16", {}]),
    # VERSIONS.md §5 row 17
    "IntegrationInfo": _struct(
        ["target", "IntegrationTarget", {}],
        ["label", "String", {}],
        ["command", "String", {}],
        ["available", "bool", {}],
        ["state", "IntegrationInfoState", {}],
    ),
    "IntegrationInfoState": {
        "kind": "schema",
        "attrs": {},
        "schema": {"type": "string", "enum": ["not_installed", "current", "outdated"]},
    },
}

_RESUME = ["resume_argv", "Option<Vec<String>>", _D]
# ResponseResult variants 0.9.3 adds, each placed after the named 0.8.2 variant.
NEW_RESULTS = [
    (
        "PaneRead",
        ["PaneSelection", "struct", [["pane_id", "String", {}], ["text", "String", {}]], {}],
    ),
    (
        "PaneSelection",
        [
            "PaneCopyMotion",
            "struct",
            [
                ["pane_id", "String", {}],
                ["cursor", "PaneTextPoint", {}],
                ["content_revision", "u64", {}],
            ],
            {},
        ],
    ),
    (
        "PaneCopyMotion",
        [
            "PaneCopySearch",
            "struct",
            [
                ["pane_id", "String", {}],
                ["content_revision", "u64", {}],
                ["matches", "Vec<PaneTextRange>", {}],
                ["total", "u64", {}],
                ["current", "Option<u32>", _D],
                ["current_global", "Option<u64>", _D],
            ],
            {},
        ],
    ),
    (
        "ClientWindowTitle",
        ["IntegrationList", "struct", [["integrations", "Vec<IntegrationInfo>", {}]], {}],
    ),
    (
        "PluginActionInvoked",
        ["PaneLinkResolved", "struct", [["regions", "Vec<PaneLinkRegion>", {}]], {}],
    ),
    (
        "PaneLinkResolved",
        [
            "PaneLinkActivated",
            "struct",
            [["url", "Option<String>", _D], ["handled", "bool", {}]],
            {},
        ],
    ),
    (
        "ConfigReload",
        [
            "ClientShellSurfaceSet",
            "struct",
            [["active", "bool", {}], ["projection_revision", "u64", {}]],
            {},
        ],
    ),
]
REMOVED_RESULTS = ("PaneGraphicsFrameAck", "PaneGraphicsInfo")


def apply(types: dict) -> None:
    """Turn the 0.8.2 table into 0.9.3's (in place)."""
    types.update(NEW_TYPES)
    method = dict(types["Method"])
    method["variants"] = [
        [
            "".join(p.capitalize() for p in name.replace(".", "_").split("_")),
            "newtype",
            t,
            {"rename": name},
        ]
        for name, t in METHODS
    ]
    types["Method"] = method
    for name in ("PaneReportAgentParams", "PaneReportAgentSessionParams"):
        types[name] = dict(types[name], fields=types[name]["fields"] + [_RESUME])
    info = types["PaneInfo"]
    fields = list(info["fields"])
    at = [f[0] for f in fields].index("foreground_cwd") + 1
    fields.insert(at, ["restore_error", "Option<String>", _D])
    types["PaneInfo"] = dict(info, fields=fields)
    result = dict(types["ResponseResult"])
    variants = [v for v in result["variants"] if v[0] not in REMOVED_RESULTS]
    for after, variant in NEW_RESULTS:
        names = [v[0] for v in variants]
        variants.insert(names.index(after) + 1, variant)
    result["variants"] = variants
    types["ResponseResult"] = result
