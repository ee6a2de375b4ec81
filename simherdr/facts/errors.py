"""Every herdr error code the simulator can send, and the message texts that go with them.

One place for each code (SOCKET.md §5). Messages are herdr's exact texts where the source
gives them; clients should match only on ``code``. Nothing here is invented: a code that is
not listed below must not be sent.
"""

from __future__ import annotations

# Codes a herdr server sends (SOCKET.md §5.1-5.5). CLI-only codes live in the stand-in binary.
SERVER_CODES = frozenset(
    [
        "invalid_request",
        "server_unavailable",
        "internal_error",
        "not_implemented",
        "timeout",
        "invalid_params",
        "workspace_not_found",
        "workspace_create_failed",
        "workspace_move_failed",
        "workspace_move_block_failed",
        "tab_not_found",
        "tab_create_failed",
        "tab_close_failed",
        "tab_move_failed",
        "pane_not_found",
        "pane_split_failed",
        "pane_send_failed",
        "invalid_key",
        "invalid_env",
        "confirmation_required",
        "pane_layout_unavailable",
        "invalid_pane_swap",
        "pane_move_failed",
        "target_pane_not_found",
        "layout_not_found",
        "invalid_layout",
        "layout_apply_failed",
        "invalid_target",
        "invalid_ratio",
        "split_not_found",
        "invalid_agent",
        "invalid_metadata_source",
        "invalid_metadata_ttl",
        "invalid_metadata_token",
        "invalid_metadata_request",
        "invalid_state_label",
        "metadata_token_limit",
        "metadata_sequence_source_limit",
        "invalid_regex",
        "agent_not_found",
        "agent_target_ambiguous",
        "agent_not_ready",
        "agent_blocked",
        "agent_not_running",
        "agent_prompt_stalled",
        "agent_prompt_failed",
        "agent_send_keys_failed",
        "empty_agent_prompt",
        "agent_explain_unavailable",
        "agent_not_idle",
        "invalid_agent_name",
        "agent_name_taken",
        "agent_launch_pending",
        "unsupported_agent_kind",
        "invalid_agent_argument",
        "invalid_agent_timeout",
        "agent_pane_not_found",
        "agent_pane_busy",
        "agent_pane_unavailable",
        "agent_start_input_failed",
        "unsupported_event_wait_match",
        "not_git_worktree",
        "linked_worktree_source",
        "worktree_list_failed",
        "worktree_not_found",
        "ambiguous_worktree_branch",
        "worktree_open_failed",
        "worktree_create_failed",
        "worktree_operation_in_progress",
        "stale_worktree_operation",
        "not_linked_worktree",
        "dirty_worktree_requires_force",
        "worktree_remove_failed",
        "workspace_group_close_required",
        # the client-facing surface (src/app/api.rs:1157-1163, src/app/api/agent_view.rs)
        "invalid_agent_view",
        "popup_not_open",
        "plugin_not_found",
    ]
) | frozenset(
    # 0.9.x only ([H093] src/api/server.rs, src/app/api.rs, src/app/api/panes.rs,
    # src/app/api/panes/link.rs, src/app/custom_commands.rs, src/platform/ssh_agent.rs;
    # events_lost: upstream #4178, see handlers/events.py).
    [
        "unknown_method",
        "events_lost",
        "connection_local_only",
        "invalid_ssh_agent",
        "ssh_agent_unavailable",
        "stale_release_notes",
        "stale_announcement",
        "pane_clear_failed",
        "stale_pane_target",
        "scrollback_editor_failed",
        "stale_content",
        "selection_unavailable",
        "copy_motion_unavailable",
        "query_too_large",
        "stale_target",
        "command_not_found",
        # pane.report_agent[_session] resume_argv ([H093] src/app/api/panes.rs
        # handle_pane_report_agent, report_agent_resume; src/agent_resume.rs).
        "invalid_resume_argv",
        "resume_not_accepted",
    ]
)

# Plugin codes (src/app/api/plugins/, SOCKET.md §5 "Plugins: plugin_*, invalid_plugin_*, ...").
SERVER_CODES |= frozenset(
    [
        "plugin_manifest_not_found",
        "invalid_plugin_manifest_path",
        "plugin_manifest_read_failed",
        "plugin_manifest_parse_failed",
        "invalid_plugin_id",
        "invalid_plugin_name",
        "invalid_plugin_version",
        "invalid_plugin_min_herdr_version",
        "plugin_requires_newer_herdr",
        "invalid_plugin_platform",
        "invalid_plugin_command",
        "duplicate_plugin_action_id",
        "duplicate_plugin_pane_id",
        "duplicate_plugin_link_handler_id",
        "invalid_plugin_link_handler_id",
        "invalid_plugin_link_handler_title",
        "invalid_plugin_link_handler_pattern",
        "invalid_plugin_link_handler_action",
        "invalid_plugin_action_id",
        "invalid_plugin_action_title",
        "invalid_plugin_pane_id",
        "invalid_plugin_pane_title",
        "invalid_plugin_pane_size",
        "invalid_plugin_event",
        "invalid_plugin_source",
        "plugin_user_dir_create_failed",
        "plugin_registry_save_failed",
        "plugin_registry_load_failed",
        "plugin_not_found",
        "plugin_disabled",
        "plugin_manifest_unavailable",
        "plugin_action_not_found",
        "ambiguous_plugin_action",
        "platform_unsupported",
        "invalid_plugin_context",
        "plugin_command_limit_reached",
        "invalid_plugin_entrypoint",
        "plugin_pane_not_found",
        "plugin_pane_open_failed",
        "ui_busy",
        "no_active_pane",
        "no_active_workspace",
    ]
)
# Integration install/uninstall (src/app/api/integrations.rs:15,35) and live handoff
# (src/server/headless.rs:3644), both versions.
SERVER_CODES |= frozenset(
    ["integration_install_failed", "integration_uninstall_failed", "handoff_failed"]
)
# Graphics codes of a headless 0.8.2 server (src/app/api/panes/graphics*.rs; SOCKET.md §5).
SERVER_CODES |= frozenset(
    [
        "feature_disabled",
        "cell_size_unavailable",
        "invalid_image",
        "image_too_large",
        "invalid_layer_id",
        "layer_limit",
        "graphics_budget_exceeded",
        "stream_conflict",
        "stream_closed",
        "invalid_stream",
        "invalid_frame",
        "invalid_frame_file",
        "stream_transport_required",
    ]
)


class HerdrError(Exception):
    """An error reply: ``{"id": ..., "error": {"code": ..., "message": ...}}``."""

    def __init__(self, code: str, message: str, reply_id: str | None = None):
        if code not in SERVER_CODES:
            raise ValueError(f"not a herdr error code: {code}")
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        # Some errors carry an id other than the request's (probe ids, SOCKET.md §1.4).
        self.reply_id = reply_id

    def body(self) -> dict:
        return {"code": self.code, "message": self.message}


# --- builders for the messages herdr writes (source refs in SOCKET.md) ----------------------


def invalid_request(detail: str) -> HerdrError:
    return HerdrError("invalid_request", f"invalid request: {detail}")


def workspace_not_found(ref: str | None = None) -> HerdrError:
    # A positional id out of range prints the bare message (SOCKET.md §9.1).
    return HerdrError(
        "workspace_not_found", f"workspace {ref} not found" if ref else "workspace not found"
    )


def no_active_workspace() -> HerdrError:
    return HerdrError("workspace_not_found", "no active workspace")


def tab_not_found(ref: str) -> HerdrError:
    return HerdrError("tab_not_found", f"tab {ref} not found")


def pane_not_found(ref: str | None = None) -> HerdrError:
    # Methods with an explicit id say "pane <id> not found"; split/current/layout/process_info
    # say "pane not found" (src/app/api/panes.rs:1671-1685).
    return HerdrError("pane_not_found", f"pane {ref} not found" if ref else "pane not found")


def internal_error(what: str) -> HerdrError:
    # CHOICE: herdr's own code for a reply it cannot produce (src/api/server.rs:357,886); the
    # message names the failure. herdr's handlers have no such path; a simulator bug must
    # still answer instead of leaving the client waiting.
    return HerdrError("internal_error", f"internal error: {what}")


def server_shutting_down() -> HerdrError:
    return HerdrError("server_unavailable", "server is shutting down")


def unknown_method(name: str, reply_id: str) -> HerdrError:
    """A retired method (0.9.2 #4561, [H093] src/api/server.rs retired_pane_graphics_method_error)."""
    return HerdrError("unknown_method", f"unknown method: {name}", reply_id=reply_id)


def not_implemented() -> HerdrError:
    return HerdrError("not_implemented", "method not implemented yet")


def timeout(what: str) -> HerdrError:
    # what: "agent status" | "event match" | "output match"
    return HerdrError("timeout", f"timed out waiting for {what}")


def invalid_key(key: str) -> HerdrError:
    return HerdrError("invalid_key", f"unsupported key {key}")


def invalid_agent_label() -> HerdrError:
    return HerdrError("invalid_agent", "agent label must not be empty")


def confirmation_required(what: str) -> HerdrError:
    return HerdrError("confirmation_required", f"closing this {what} would close a worktree group")


def workspace_group_close_required() -> HerdrError:
    return HerdrError(
        "workspace_group_close_required",
        "workspace has linked worktree workspaces; use --group (close_group=true in the API) to close the group",
    )


# env validation (src/app/api/env.rs:3-33), in check order per key.
def invalid_env(message: str) -> HerdrError:
    return HerdrError("invalid_env", message)


def validate_env(env: dict[str, str] | None) -> None:
    for key, value in (env or {}).items():
        if key == "":
            raise invalid_env("env key must not be empty")
        if "=" in key:
            raise invalid_env(f"env key {key} must not contain '='")
        if "\0" in key:
            raise invalid_env("env key must not contain NUL bytes")
        if "\0" in value:
            raise invalid_env(f"env value for {key} must not contain NUL bytes")


# --- worktree.* (src/app/api/worktrees.rs, src/app/api/worktrees/deferred.rs at 1c76079f):
# herdr's worktree handlers write their own messages, without serde's "invalid request:".


def worktree_source_conflict() -> HerdrError:
    return HerdrError("invalid_request", "only one of workspace_id or cwd may be supplied")


def worktree_source_required() -> HerdrError:
    return HerdrError(
        "invalid_request", "workspace_id or cwd is required when no workspace is active"
    )


def worktree_workspace_not_found(ref: str | None) -> HerdrError:
    """``ref``: the workspace_id that did not parse (named, even when empty); None: a positional
    id that parsed and names no workspace."""
    if ref is None:
        return HerdrError("workspace_not_found", "workspace not found")
    return HerdrError("workspace_not_found", f"workspace {ref} not found")


def worktree_path_not_absolute(message: str) -> HerdrError:
    """``message``: the git layer's (simherdr/git PATH_MUST_BE_ABSOLUTE)."""
    return HerdrError("invalid_request", message)


def not_git_worktree_path() -> HerdrError:
    return HerdrError(
        "not_git_worktree", "Herdr worktree actions require a path inside a Git work tree"
    )


def not_git_worktree_workspace() -> HerdrError:
    return HerdrError(
        "not_git_worktree", "Herdr worktree actions require a workspace inside a Git work tree"
    )


def linked_worktree_source() -> HerdrError:
    return HerdrError(
        "linked_worktree_source",
        "New and open worktree actions start from the repo parent workspace.",
    )


def worktree_path_or_branch() -> HerdrError:
    return HerdrError("invalid_request", "exactly one of path or branch is required")


def worktree_branch_required() -> HerdrError:
    return HerdrError("invalid_request", "branch is required")


def worktree_path_not_found() -> HerdrError:
    return HerdrError("worktree_not_found", "worktree path not found")


def worktree_branch_not_found() -> HerdrError:
    return HerdrError("worktree_not_found", "worktree branch not found")


def worktree_not_openable() -> HerdrError:
    return HerdrError("worktree_not_found", "worktree cannot be opened")


def ambiguous_worktree_branch() -> HerdrError:
    return HerdrError("ambiguous_worktree_branch", "multiple worktrees matched branch")


def worktree_in_progress() -> HerdrError:
    return HerdrError(
        "worktree_operation_in_progress",
        "worktree operation is already in progress for this checkout",
    )


def not_managed_worktree() -> HerdrError:
    return HerdrError("not_linked_worktree", "workspace is not a Herdr-managed worktree checkout")


def not_linked_worktree() -> HerdrError:
    return HerdrError("not_linked_worktree", "workspace is not a linked worktree checkout")


def worktree_git_failed(code: str, message: str) -> HerdrError:
    """git's own message under the operation's code (worktree_list_failed,
    worktree_create_failed, the remove codes of git.remove_error_code)."""
    return HerdrError(code, message)


# --- agent.* (src/app/api/agents.rs, src/app/terminal_targets.rs, src/api/wait.rs,
# src/server/headless.rs; 0.9.2 resume_argv: [H093] src/app/api/panes.rs) ----------------------

INVALID_AGENT_NAME = (
    "agent name must start with a lowercase letter and contain only lowercase "
    "letters, digits, '-' or '_' (1-32 characters)"
)


def agent_not_found(target: str) -> HerdrError:
    return HerdrError("agent_not_found", f"agent target {target} not found")


def agent_not_hosted() -> HerdrError:
    return HerdrError("agent_not_found", "agent target does not currently host an agent")


def agent_target_ambiguous(target: str, candidates: str) -> HerdrError:
    return HerdrError(
        "agent_target_ambiguous", f"agent target {target} is ambiguous; candidates: {candidates}"
    )


def invalid_agent_name() -> HerdrError:
    return HerdrError("invalid_agent_name", INVALID_AGENT_NAME)


def agent_name_taken(name: str, candidates: str) -> HerdrError:
    return HerdrError(
        "agent_name_taken", f"agent name {name} is already used; candidates: {candidates}"
    )


def agent_launch_pending() -> HerdrError:
    return HerdrError("agent_launch_pending", "agent name cannot change while startup is pending")


def agent_not_idle(lines: int, target: str, state: str) -> HerdrError:
    """agent.read of alternate-screen history (src/server/headless.rs:3353-3398)."""
    return HerdrError(
        "agent_not_idle",
        f"cannot read {lines} lines while {target} is {state}: its alternate-screen history "
        "can only be captured by scrolling while idle. Wait and retry, or use --source visible",
    )


def agent_explain_unavailable(target: str) -> HerdrError:
    return HerdrError(
        "agent_explain_unavailable", f"agent target {target} does not have a detected agent label"
    )


def agent_not_ready(target: str) -> HerdrError:
    return HerdrError("agent_not_ready", f"agent {target} is not an active named agent")


def agent_not_foreground(target: str) -> HerdrError:
    return HerdrError("agent_not_ready", f"agent {target} is no longer the pane foreground process")


def unsupported_agent_kind(message: str) -> HerdrError:
    """``message``: facts/kinds.py UNSUPPORTED_KIND_MESSAGE, formatted with the kind."""
    return HerdrError("unsupported_agent_kind", message)


def invalid_agent_argument() -> HerdrError:
    return HerdrError(
        "invalid_agent_argument", "agent arguments cannot be encoded safely for the target shell"
    )


def agent_pane_not_found(pane_id: str) -> HerdrError:
    return HerdrError("agent_pane_not_found", f"agent target pane {pane_id} not found")


def agent_pane_busy(pane_id: str) -> HerdrError:
    return HerdrError("agent_pane_busy", f"agent target pane {pane_id} is not an available shell")


def invalid_agent_timeout() -> HerdrError:
    return HerdrError(
        "invalid_agent_timeout",
        "agent start timeout must be greater than 3000ms and at most 300000ms",
    )


def empty_agent_prompt() -> HerdrError:
    return HerdrError("empty_agent_prompt", "agent prompt must not be empty")


def agent_blocked(target: str) -> HerdrError:
    return HerdrError("agent_blocked", f"agent {target} is blocked and requires interactive input")


def agent_not_running() -> HerdrError:
    return HerdrError("agent_not_running", "agent is no longer running in the target pane")


def agent_prompt_stalled(message: str) -> HerdrError:
    """``message``: the release's row prompt_stall_message, formatted."""
    return HerdrError("agent_prompt_stalled", message)


def invalid_resume_argv(problem: str) -> HerdrError:
    """``problem``: the rule the argv breaks (handlers/agent.py resume_argv_problem)."""
    return HerdrError("invalid_resume_argv", problem)


def resume_not_accepted() -> HerdrError:
    return HerdrError(
        "resume_not_accepted",
        "resume_argv requires the reporter to hold the pane; report its state with "
        "pane.report_agent first",
    )


# --- tab.*, server.* (src/app/api/tabs.rs, src/server/headless.rs) ----------------------------


def tab_create_workspace_gone() -> HerdrError:
    """tab.create on a positional workspace id out of range (SOCKET.md §9.1)."""
    return HerdrError("tab_create_failed", "workspace disappeared")


# simherdr's own text: it cannot hand its panes to another process (the CHOICE in
# handlers/server.py).
HANDOFF_UNSUPPORTED = (
    "live handoff is not supported by simherdr: its panes cannot be handed to another "
    "server process; restart herdr normally"
)


def handoff_too_many_panes(limit: int) -> HerdrError:
    return HerdrError(
        "handoff_failed",
        "live handoff supports at most %d panes in one update; close panes or restart "
        "herdr normally" % limit,
    )


def handoff_unsupported() -> HerdrError:
    return HerdrError("handoff_failed", HANDOFF_UNSUPPORTED)


# --- pane.clear, pane.edit_scrollback (0.9.x; handlers/scrollback.py) ---------------------------

# simherdr's texts for the two CHOICEs in handlers/scrollback.py.
ALTERNATE_SCREEN_ACTIVE = "cannot clear the pane while the alternate screen is active"
EDITOR_UNAVAILABLE = "no client is attached to open the scrollback in an editor"


def pane_clear_alternate_screen() -> HerdrError:
    return HerdrError("pane_clear_failed", ALTERNATE_SCREEN_ACTIVE)


def pane_not_focused() -> HerdrError:
    return HerdrError("stale_pane_target", "pane is no longer focused")


def scrollback_editor_unavailable() -> HerdrError:
    return HerdrError("scrollback_editor_failed", EDITOR_UNAVAILABLE)


# --- matching, graphics -----------------------------------------------------------------------


def invalid_regex(detail: str) -> HerdrError:
    return HerdrError("invalid_regex", f"regex parse error: {detail}")


def graphics_disabled() -> HerdrError:
    return HerdrError("feature_disabled", "pane graphics require experimental.kitty_graphics")


# --- the client-facing surface (src/app/api.rs:1157-1163, src/app/api/agent_view.rs) ----------


def notification_title_empty() -> HerdrError:
    return HerdrError("invalid_params", "notification title is empty")


def window_title_empty() -> HerdrError:
    return HerdrError("invalid_params", "window title is empty")


def popup_not_open() -> HerdrError:
    return HerdrError("popup_not_open", "no popup is open")


def invalid_agent_view(message: str) -> HerdrError:
    """``message``: the agent view check's own (handlers/client.py)."""
    return HerdrError("invalid_agent_view", message)


def plugin_not_found() -> HerdrError:
    return HerdrError("plugin_not_found", "plugin not found")


def connection_local_only() -> HerdrError:
    return HerdrError(
        "connection_local_only",
        "client_shell.surface.set is only available through a client shell endpoint",
    )


def stale_release_notes() -> HerdrError:
    return HerdrError("stale_release_notes", "the release notes are no longer current")


def stale_announcement() -> HerdrError:
    return HerdrError("stale_announcement", "the product announcement is no longer current")


def command_manifest_stale() -> HerdrError:
    return HerdrError("command_not_found", "custom command manifest is stale; reload configuration")


# --- pane.link.*, pane.selection.*, copy mode (0.9.x; handlers/links.py, selection.py) ----------


def stale_target_not_visible() -> HerdrError:
    return HerdrError("stale_target", "pane is no longer visible")


def link_viewport_changed(operation: str) -> HerdrError:
    return HerdrError("stale_content", f"pane viewport changed before link {operation}")


def link_content_changed(operation: str) -> HerdrError:
    return HerdrError("stale_content", f"pane content changed before link {operation}")


def stale_content() -> HerdrError:
    return HerdrError("stale_content", "pane content changed")


def pane_not_found_colon(ref: str) -> HerdrError:
    """The message form some 0.9 pane methods use: ``pane not found: <id>``."""
    return HerdrError("pane_not_found", f"pane not found: {ref}")


def selection_unavailable() -> HerdrError:
    return HerdrError("selection_unavailable", "selection text is unavailable")


def copy_row_unavailable() -> HerdrError:
    return HerdrError("copy_motion_unavailable", "terminal row is unavailable")


def copy_query_too_large() -> HerdrError:
    return HerdrError("query_too_large", "copy search query is too large")


# --- moves (src/app/api/panes.rs move, tabs.rs / workspaces.rs move) --------------------------


def source_pane_not_found() -> HerdrError:
    return HerdrError("pane_not_found", "source pane not found")


def target_pane_not_found(ref: str) -> HerdrError:
    return HerdrError("target_pane_not_found", f"target pane {ref} not found")


def target_pane_not_in_tab(ref: str, tab_id: str) -> HerdrError:
    return HerdrError("target_pane_not_found", f"target pane {ref} is not in tab {tab_id}")


def tab_move_out_of_bounds(n: int) -> HerdrError:
    return HerdrError("tab_move_failed", f"insert_index {n} is out of bounds")


def workspace_move_out_of_bounds(n: int) -> HerdrError:
    return HerdrError("workspace_move_failed", f"insert_index {n} is out of bounds")


def workspace_block_empty() -> HerdrError:
    return HerdrError("workspace_move_block_failed", "workspace_ids must not be empty")


def workspace_block_repeated(ref: str) -> HerdrError:
    return HerdrError("workspace_move_block_failed", f"workspace {ref} appears more than once")


def workspace_block_anchor_inside() -> HerdrError:
    return HerdrError(
        "workspace_move_block_failed", "before_workspace_id must not be part of workspace_ids"
    )


# --- events.* (src/api/subscriptions.rs; events_lost: upstream #4178) --------------------------

EVENTS_LOST_MESSAGE = (
    "event subscription fell behind retained history; resubscribe and resync with session.snapshot"
)


def events_lost() -> HerdrError:
    return HerdrError("events_lost", EVENTS_LOST_MESSAGE)


def probe_pane_not_found(ref: str, probe_id: str) -> HerdrError:
    """A subscription's or a wait's pane that is gone, answered under its probe id (§1.4)."""
    return HerdrError("pane_not_found", f"pane {ref} not found", reply_id=probe_id)


def unsupported_event_wait_match() -> HerdrError:
    return HerdrError(
        "unsupported_event_wait_match", "events.wait currently supports pane agent status matches"
    )


# --- metadata (src/app/api/metadata.rs) --------------------------------------------------------


def metadata_set_and_clear() -> HerdrError:
    return HerdrError("invalid_metadata_request", "cannot set and clear the same metadata field")


def metadata_nothing_to_do() -> HerdrError:
    return HerdrError("invalid_metadata_request", "missing metadata field to set or clear")


def metadata_token_limit(resource: str, limit: int) -> HerdrError:
    """``resource``: "pane" | "workspace"."""
    return HerdrError(
        "metadata_token_limit", f"{resource} metadata may contain at most {limit} tokens"
    )


def metadata_sequence_source_limit(limit: int) -> HerdrError:
    return HerdrError(
        "metadata_sequence_source_limit",
        f"workspace metadata may track at most {limit} sequenced sources",
    )


# --- layout.*, pane.swap (src/app/api/layouts.rs, src/app/api/panes.rs swap) ------------------

SWAP_USAGE = "provide either direction with optional pane_id, or source_pane_id and target_pane_id"


def swap_usage() -> HerdrError:
    return HerdrError("invalid_pane_swap", SWAP_USAGE)


def swap_missing(field: str) -> HerdrError:
    """``field``: "source_pane_id" | "target_pane_id"."""
    return HerdrError("invalid_pane_swap", f"missing {field}")


def pane_layout_unavailable() -> HerdrError:
    return HerdrError("pane_layout_unavailable", "pane layout unavailable")


def layout_target_not_found() -> HerdrError:
    return HerdrError("layout_not_found", "layout target not found")


def ratio_not_finite() -> HerdrError:
    return HerdrError("invalid_ratio", "ratio must be finite")


def split_not_found() -> HerdrError:
    return HerdrError("split_not_found", "split path not found")


def layout_too_deep(depth: int, limit: int) -> HerdrError:
    return HerdrError("invalid_layout", f"layout depth is {depth}; maximum is {limit}")


def layout_too_many_panes(limit: int) -> HerdrError:
    return HerdrError("invalid_layout", f"layout has more than {limit} panes")


def layout_empty_command() -> HerdrError:
    return HerdrError("invalid_layout", "pane command must not be empty")


def invalid_layout(message: str) -> HerdrError:
    """Another check's message (a pane's env: :func:`validate_env`) under invalid_layout."""
    return HerdrError("invalid_layout", message)


def layout_split_ratio_not_finite() -> HerdrError:
    return HerdrError("invalid_layout", "split ratio must be finite")


def layout_target_conflict() -> HerdrError:
    return HerdrError("invalid_target", "use either tab_id or workspace_id, not both")


# --- plugin.* (src/app/api/plugins/); the manifest's own checks are simherdr/plugins/'s ----------


def plugin_registry_failed(code: str, message: str) -> HerdrError:
    """plugins.json I/O: plugin_registry_load_failed / plugin_registry_save_failed, the OS's text."""
    return HerdrError(code, message)


def invalid_plugin_source(message: str) -> HerdrError:
    """normalize_plugin_source (manifest.rs:255-289): ``message`` names the failed check."""
    return HerdrError("invalid_plugin_source", message)


GITHUB_SOURCE_NEEDS_MANAGED_PATH = "GitHub plugin source requires managed_path"
GITHUB_MANAGED_PATH_MISMATCH = "GitHub plugin managed_path does not match the plugin id"
MANIFEST_OUTSIDE_CHECKOUT = "plugin manifest is not inside the managed checkout"


def no_such_file(path: str) -> str:
    """std::io's NotFound text, as herdr's canonicalize reports it."""
    return f"No such file or directory: {path}"


def invalid_plugin_id() -> HerdrError:
    return HerdrError("invalid_plugin_id", "invalid plugin id")


def invalid_plugin_action_id() -> HerdrError:
    return HerdrError("invalid_plugin_action_id", "invalid action id")


def plugin_manifest_unavailable(plugin_id: str) -> HerdrError:
    return HerdrError("plugin_manifest_unavailable", f"plugin {plugin_id} manifest is unavailable")


def plugin_action_not_found() -> HerdrError:
    return HerdrError("plugin_action_not_found", "plugin action not found")


def ambiguous_plugin_action() -> HerdrError:
    return HerdrError(
        "ambiguous_plugin_action",
        "plugin action id matches more than one action; include plugin_id",
    )


def plugin_disabled(plugin_id: str) -> HerdrError:
    return HerdrError("plugin_disabled", f"plugin {plugin_id} is disabled")


def invalid_plugin_entrypoint() -> HerdrError:
    return HerdrError("invalid_plugin_entrypoint", "invalid entrypoint id")


def plugin_entrypoint_not_found(entrypoint: str) -> HerdrError:
    return HerdrError("plugin_pane_not_found", f"plugin pane entrypoint '{entrypoint}' not found")


def plugin_pane_not_found() -> HerdrError:
    return HerdrError("plugin_pane_not_found", "plugin pane not found")


def plugin_pane_size_needs_popup() -> HerdrError:
    return HerdrError(
        "invalid_params", "width and height are only supported when placement is popup"
    )


def plugin_pane_targets_active() -> HerdrError:
    return HerdrError("invalid_params", "overlay and popup plugin panes target the active pane")


def plugin_pane_needs_target_pane() -> HerdrError:
    return HerdrError(
        "invalid_params",
        "split and zoomed plugin panes target an existing pane; use target_pane_id",
    )


def plugin_tab_pane_targets_workspace() -> HerdrError:
    return HerdrError(
        "invalid_params",
        "tab plugin panes support workspace_id but not target_pane_id or direction",
    )


def popup_already_open() -> HerdrError:
    return HerdrError("ui_busy", "a popup pane is already open")


def plugin_no_active_workspace() -> HerdrError:
    return HerdrError("no_active_workspace", "no active workspace")


def no_active_pane() -> HerdrError:
    return HerdrError("no_active_pane", "no active pane")


def pane_not_found_named(ref: str) -> HerdrError:
    """``pane <ref> not found`` even for an empty ref (E.pane_not_found drops an empty one)."""
    return HerdrError("pane_not_found", f"pane {ref} not found")
