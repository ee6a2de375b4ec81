"""Version profiles: everything that differs between herdr 0.8.2 and 0.9.x, in one table.

0.8.2 is grounded in herdr's source (SOCKET.md, CLI.md); 0.9.3 applies the deltas of
VERSIONS.md. 0.9.3 is the default because the clients in use today speak protocol 22.
A delta VERSIONS.md marks unknown is a named choice here, never a silent guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .methods import METHODS_0_8_2, METHODS_0_9_3, RETIRED_0_9

# Pong capabilities (ServerCapabilities). 0.8.2: src/api/server.rs:59-80. 0.9.3 [H093]
# src/api/server.rs default_capabilities(): endpoint_protocol_generation is
# ENDPOINT_PROTOCOL_GENERATION (1, src/protocol/endpoint.rs); ssh_agent_registration is true on
# Unix once the server's SSH-agent registry starts (start_server_inner), as it does here.
CAPABILITIES_0_8_2 = {"live_handoff": True, "detached_server_daemon": True}
CAPABILITIES_0_9_3 = {
    **CAPABILITIES_0_8_2,
    "endpoint_protocol_generation": 1,
    "surface_interest": True,
    "health_check": True,
    "ssh_agent_registration": True,
}

# agent.prompt --wait gate that saw no activity (agent_prompt_stalled). 0.8.2: any state change
# (src/api/wait.rs:177-306). 0.9 (#3506, [CL090]:43): observed working/blocked activity only.
# CHOICE (0.9 text): the 0.9 message names the rule it enforces; src/api/wait.rs of 0.9.3 is not
# readable here, so its exact wording is our own reading of the changelog.
PROMPT_STALL_0_8_2 = (
    "agent prompt produced no observed state change within {gate_ms} ms; status is {status} "
    "and state_change_seq remained {baseline}"
)
PROMPT_STALL_0_9 = (
    "agent prompt produced no observed working or blocked state within {gate_ms} ms; status is "
    "{status} and state_change_seq remained {baseline}"
)


@dataclass(frozen=True)
class Profile:
    version: str
    protocol: int
    # ping capabilities: 0.8.2 keys (src/api/server.rs:59-80). New 0.9 keys are unknown
    # (VERSIONS.md §1.1): CHOICE keep the 0.8.2 keys with the headless server's values.
    capabilities: dict = field(default_factory=lambda: dict(CAPABILITIES_0_8_2))
    # The method names that parse (facts/methods.py); a name outside is "unknown variant".
    methods: frozenset = METHODS_0_8_2
    # Names that answer unknown_method "unknown method: <name>" instead (0.9.2, #4561:
    # [H093] src/api/server.rs retired_pane_graphics_method_error).
    retired_methods: frozenset = frozenset()
    # An unparsable request that is a JSON object with one string "id" keeps that id in its
    # invalid_request reply (0.9.2, #4344: [H093] src/api/server.rs handle_connection_with_stop).
    # 0.8.2: always "" (src/api/server.rs:182-196).
    invalid_request_keeps_id: bool = False
    # events.subscribe set-up errors (a probe's pane_not_found, invalid_regex) carry the
    # request id (0.9.2, #4344: [H093] src/api/server.rs stream_subscriptions sets
    # response.id = request_id). 0.8.2: the probe id "<id>:sub:<i>:probe".
    setup_errors_keep_request_id: bool = False
    # A subscriber whose cursor lost an event of its own kind from the ring gets
    # {"code":"events_lost"} and its stream closes (0.9.2, #4178/#4225). 0.8.2: silent skip.
    events_lost_error: bool = False
    # AgentInfo.completion_seq ([H093] AgentInfo in the schema): the idle transition that
    # completed work; omitted when absent.
    agent_completion_seq: bool = False
    # pane.report_agent / report_agent_session take resume_argv (0.9.2, #4687:
    # [H093] PaneReportAgentParams).
    report_resume_argv: bool = False
    # A self-reported agent is cleared when its pane is back at an idle shell (0.9.2, #4687).
    clear_reported_agent_at_idle_shell: bool = False
    # New panes get TERM_PROGRAM=herdr and TERM_PROGRAM_VERSION=<version> (0.9.2, #4104;
    # [H093] src/pane.rs apply_pane_terminal_env), before the caller's env.
    term_program_env: bool = False
    # Server environment keys a new pane does not inherit (0.8.2 src/pane.rs:130: only
    # CODEX_THREAD_ID; [H093] src/pane.rs apply_pane_terminal_env / apply_pane_launch_env).
    pane_env_removed: tuple = ("CODEX_THREAD_ID",)
    prompt_stall_message: str = PROMPT_STALL_0_8_2
    # The agent kinds herdr knows (facts/kinds.py KIND_TABLES): 0.9.x adds letta and muse
    # (muse detection: [CL090]:14 #2489; [H093] src/detect/mod.rs, manifests/muse.toml).
    agent_kinds: str = "0.8.2"
    # A session file the server did not load is copied into session-backups/ before the
    # server first replaces it, and session-snapshots/ keeps a 15-minute layout history
    # ([H093] src/persist/writer.rs SessionWriter protect_unloaded, preserve_snapshot_history).
    session_backups: bool = False
    # New plain subscriptions replay the 512-event ring (0.8.2) or start live (0.9, #1270).
    subscribe_replays_history: bool = True
    # workspace.close on a group root with linked worktree workspaces open: 0.8.2 closes the
    # group silently; 0.9 refuses with workspace_group_close_required unless close_group.
    close_group_required: bool = False
    # A repo parent whose worktree group holds another parent (a duplicate primary) closes by
    # itself, on workspace.close without close_group and on the last tab or pane; 0.8.2
    # closes the whole group from either (src/app/actions.rs:1673-1697). [H093]
    # workspace_close_indices, test duplicate_repo_parents_close_independently_unless_group_
    # is_explicit in src/app/api/workspaces.rs. CHOICE: present since 0.9.0 (VERSIONS.md §1.2
    # leaves its release open).
    duplicate_parents_close_alone: bool = False
    # worktree.* accept trust_repository / --trust-repository (0.9, #3044).
    trust_repository: bool = False
    # agent.prompt --wait gate: any state change (0.8.2) or observed working/blocked (0.9).
    prompt_gate_needs_activity: bool = False
    # recent/recent_unwrapped reads include rows still in the viewport (0.9, #3444).
    recent_includes_viewport: bool = False
    # pane report-agent[-session]: options before the pane id and --opt=value (0.9, #2926).
    report_agent_options_anywhere: bool = False
    # v0.8.2 tag: worktree.remove always focuses the parent; HEAD 1c76079f (and 0.9.0,
    # CHANGELOG :37): only when the removed workspace was active.
    worktree_remove_focus_parent_only_if_active: bool = True
    # workspace.create {source_workspace_id} (0.9.3, VERSIONS.md §5 row 20).
    workspace_create_source: bool = False
    # Which workspace holds a checkout (worktree.open's already_open, WorktreeInfo's
    # open_workspace_id, worktree.create's reuse): 0.8.2 also matches a membership workspace by
    # its shell's git checkout or cwd (src/app/api/worktrees.rs:569-597); 0.9.3 matches a
    # workspace with a membership by that membership only, "explicit checkout provenance must
    # not be overridden by shell navigation" ([H093] src/app/api/worktrees.rs
    # open_workspace_idx_for_checkout). CHOICE: dated 0.9.2 by its release note, "worktree
    # open no longer takes over the repository's own workspace" ([CH093] 0.9.2, #4293).
    checkout_holder_membership_only: bool = False
    # plugin.pane.open of a popup: 0.8.2 refuses with ui_busy "popup panes can only open from
    # the normal workspace view" outside terminal mode, which a headless simulator never
    # leaves (src/app/api/plugins/mod.rs:395-401), and keeps no popup here; 0.9.3 refuses a
    # second popup while one is open, ui_busy "a popup pane is already open", which
    # popup.close closes ([H093] src/app/api/plugins/mod.rs handle_plugin_pane_open; the
    # server runs the UI state since #3487). CHOICE: present since 0.9.0.
    plugin_popup_tracked: bool = False
    # notification.show on the headless server goes to attached client shells only: with none,
    # `off` answers disabled and every other delivery no_foreground_client (no in-app toast, no
    # rate limit; [H093] src/server/headless/notifications.rs handle_notification_show_api).
    # 0.8.2 shows `herdr` delivery as the app's toast and rate-limits terminal/system
    # (src/server/headless.rs:2097-2160). CHOICE: present since 0.9.0.
    notification_needs_client_shell: bool = False
    # Which idle transitions complete work (the pane's seen flag, so `done`, and
    # AgentInfo.completion_seq): 0.8.2 also Unknown -> Idle with an unchanged label
    # (src/app/actions.rs:30-56 is_completion_transition_parts); 0.9.3 only Working/Blocked ->
    # Idle ([H093] src/app/actions.rs is_completion_transition). CHOICE: since 0.9.0.
    completion_from_unknown: bool = True
    # What keeps a started agent's first idle from completing work: 0.8.2 every idle while its
    # start is pending or blocked (src/app/actions.rs:2999-3000); 0.9.3 agent.start begins a
    # process acquisition, so only the first idle counts as the start's ([H093]
    # src/terminal/state.rs begin_managed_agent, src/app/actions.rs
    # update_terminal_state_with_completion_policy). CHOICE: since 0.9.0.
    managed_start_acquires: bool = False
    # An update that changes the pane's session reference or its agent label drops a completion
    # (completion_seq cleared, the pane marked seen: `done` reads `idle`) and publishes that
    # even when nothing else changed ([H093] src/app/actions.rs
    # update_terminal_state_with_completion_policy, completion_reset). 0.8.2 keeps it.
    # CHOICE: since 0.9.0.
    completion_reset_on_identity_change: bool = False
    # Hook-source tables (facts/kinds.py HOOK_SOURCE_TABLES): 0.9.3 herdr:codex state reports
    # are hook authority (no longer reserved native) and herdr:letta is an official,
    # session-identity-only source ([H093] src/agent_resume.rs, src/detect/mod.rs).
    # CHOICE: since 0.9.0.
    hook_sources: str = "0.8.2"
    # A process exit releases the agent (pane_agent_detected released) but 0.9.3 keeps its name
    # until detection, with the exit recorded, sees no agent any more (the shell back in the
    # foreground); 0.8.2 clears the name with the release (src/terminal/state.rs:575-577;
    # [H093] src/terminal/state.rs set_detected_state_with_screen_signals_at). CHOICE: since
    # 0.9.0.
    exit_keeps_name_until_shell: bool = False
    # A detection or hook report of `working` that leaves the pane working ends a process
    # acquisition, so the next idle is a completion (0.9.3 [H093] src/terminal/state.rs
    # set_detected_state_with_screen_signals_at, set_hook_authority_at); 0.8.2 ends it only at
    # the first idle (src/terminal/state.rs:210-217). CHOICE: since 0.9.0.
    working_ends_acquisition: bool = False
    # A session report that changes the pane's current session restarts the process
    # acquisition: "rebinding can expose a cached Working screen; only a fresh report ends
    # acquisition" ([H093] src/terminal/state.rs set_agent_session_ref_for_session_start).
    # 0.8.2 does not (src/terminal/state.rs:1590-1607). CHOICE: since 0.9.0.
    session_rebind_restarts_acquisition: bool = False
    # A codex start completes (interactive_ready) once detection has seen its prompt, even while
    # its state is still unknown ([H093] src/terminal/state.rs observe_codex_prompt_ready,
    # reconcile_managed_agent_at; src/app/actions.rs CodexPromptObserved). 0.8.2 needs idle.
    # CHOICE: since 0.9.0.
    codex_prompt_readiness: bool = False
    # agent.start of codex with the arguments `resume <id>` persists that session at once (the
    # start's AgentInfo carries it); it goes with the start's name unless the agent confirmed it
    # ([H093] src/agent_resume.rs persisted_session_from_launch_args, src/terminal/state.rs
    # set_managed_agent_launch_session). CHOICE: the call site (src/app/agents.rs) is not in the
    # fork's index; 0.9-era herdr copies call it in start_agent. Since 0.9.0.
    start_args_session: bool = False
    # A restored pane whose saved directory is gone: 0.8.2 starts its shell in $HOME, else "/"
    # (src/persist/restore.rs:476-493); 0.9.3 keeps the pane at its saved cwd, without a shell,
    # with PaneInfo.restore_error ([H093] src/persist/restore.rs restore_tab,
    # unavailable_restored_terminal). CHOICE: present since 0.9.0 (restore_error is a 0.9 field).
    restore_keeps_unavailable_panes: bool = False
    # session-history.json carries layout_fingerprint, the SHA-256 of the session snapshot it
    # belongs to, and restore ignores a history without a matching one ([H093]
    # src/persist/snapshot.rs layout_fingerprint, capture_history; src/persist/restore.rs
    # restore_with_imports_and_failures). 0.8.2: no fingerprint, the history always applies
    # (src/persist/snapshot.rs:32-37). CHOICE: present since 0.9.0.
    history_layout_fingerprint: bool = False
    # A saved worktree membership comes back when its checkout still exists and is a checkout
    # of the same repository (0.8.2, src/persist/restore.rs:436-444); 0.9.3 keeps it unless
    # the checkout path is now the root of a checkout of another repository that has an
    # objects directory: a gone or non-git checkout keeps it ([H093] src/persist/restore.rs
    # restored_worktree_space_membership). CHOICE: present since 0.9.0.
    restore_membership_unless_other_repo: bool = False
    # session.json's sidebar fields: 0.8.2 writes the server's sidebar_width (the restored one,
    # else [ui].sidebar_width), sidebar_section_split (restored, else 0.5) and
    # collapsed_space_keys (src/app/session.rs:39-52, src/persist/snapshot.rs:252-277,
    # src/app/mod.rs:453-466); 0.9.3 writes null, null, [] ([H093] snapshot.rs capture,
    # session.rs capture_session_save_job: the sidebar belongs to each client since #3487).
    session_saves_sidebar: bool = True


# [H093] src/pane.rs: the outer terminal's handles and a parent agent's session markers.
PANE_ENV_REMOVED_0_9_3 = (
    "CODEX_THREAD_ID",
    "OMPCODE",
    "CLAUDECODE",
    "CLAUDE_CODE_CHILD_SESSION",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_CODE_MESSAGING_TOKEN",
    "ITERM_SESSION_ID",
    "LC_TERMINAL",
    "LC_TERMINAL_VERSION",
    "WEZTERM_PANE",
    "KITTY_WINDOW_ID",
    "WT_SESSION",
    "TMUX",
    "TMUX_PANE",
    "STY",
    "ZELLIJ",
    "ZELLIJ_SESSION_NAME",
    "ZELLIJ_PANE_ID",
)

PROFILES: dict[str, Profile] = {
    "0.8.2": Profile(version="0.8.2", protocol=20),
    "0.9.3": Profile(
        version="0.9.3",
        protocol=22,
        subscribe_replays_history=False,
        close_group_required=True,
        duplicate_parents_close_alone=True,
        trust_repository=True,
        prompt_gate_needs_activity=True,
        recent_includes_viewport=True,
        report_agent_options_anywhere=True,
        capabilities=dict(CAPABILITIES_0_9_3),
        methods=METHODS_0_9_3,
        retired_methods=RETIRED_0_9,
        invalid_request_keeps_id=True,
        setup_errors_keep_request_id=True,
        events_lost_error=True,
        agent_completion_seq=True,
        report_resume_argv=True,
        clear_reported_agent_at_idle_shell=True,
        term_program_env=True,
        pane_env_removed=PANE_ENV_REMOVED_0_9_3,
        prompt_stall_message=PROMPT_STALL_0_9,
        agent_kinds="0.9.3",
        session_backups=True,
        workspace_create_source=True,
        checkout_holder_membership_only=True,
        plugin_popup_tracked=True,
        notification_needs_client_shell=True,
        completion_from_unknown=False,
        managed_start_acquires=True,
        completion_reset_on_identity_change=True,
        hook_sources="0.9.3",
        exit_keeps_name_until_shell=True,
        working_ends_acquisition=True,
        session_rebind_restarts_acquisition=True,
        codex_prompt_readiness=True,
        start_args_session=True,
        restore_keeps_unavailable_panes=True,
        history_layout_fingerprint=True,
        restore_membership_unless_other_repo=True,
        session_saves_sidebar=False,
    ),
}
# 0.9.0 and 0.9.1 share protocol 22; the rows the changelog dates to 0.9.2 ([CH093]
# `## [0.9.2]`: #4561, #4344, #4178/#4225, #4687, #4104, #4293) are reverted for them. CHOICE: the
# other 0.9.3 rows (the new methods among them) are taken as present since 0.9.0.
_BEFORE_0_9_2: dict[str, Any] = dict(
    methods=METHODS_0_9_3 | RETIRED_0_9,
    retired_methods=frozenset(),
    invalid_request_keeps_id=False,
    setup_errors_keep_request_id=False,
    events_lost_error=False,
    report_resume_argv=False,
    clear_reported_agent_at_idle_shell=False,
    term_program_env=False,
    checkout_holder_membership_only=False,
)
PROFILES["0.9.0"] = replace(PROFILES["0.9.3"], version="0.9.0", **_BEFORE_0_9_2)
PROFILES["0.9.1"] = replace(PROFILES["0.9.3"], version="0.9.1", **_BEFORE_0_9_2)

DEFAULT_VERSION = "0.9.3"


def get_profile(version: str | None = None) -> Profile:
    v = version or DEFAULT_VERSION
    try:
        return PROFILES[v]
    except KeyError:
        raise ValueError(
            f"unknown herdr version {v!r}; known: {', '.join(sorted(PROFILES))}"
        ) from None
