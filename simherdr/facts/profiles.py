"""Version profiles: everything that differs between herdr 0.8.2 and 0.9.x, in one table.

0.8.2 is grounded in herdr's source (SOCKET.md, CLI.md); 0.9.3 applies the deltas of
VERSIONS.md. 0.9.3 is the default because the clients in use today speak protocol 22.
A delta VERSIONS.md marks unknown is a named choice here, never a silent guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Profile:
    version: str
    protocol: int
    # ping capabilities: 0.8.2 keys (src/api/server.rs:59-80). New 0.9 keys are unknown
    # (VERSIONS.md §1.1): CHOICE keep the 0.8.2 keys with the headless server's values.
    capabilities: dict = field(
        default_factory=lambda: {"live_handoff": True, "detached_server_daemon": True}
    )
    # New plain subscriptions replay the 512-event ring (0.8.2) or start live (0.9, #1270).
    subscribe_replays_history: bool = True
    # workspace.close on a group root with linked worktree workspaces open: 0.8.2 closes the
    # group silently; 0.9 refuses with workspace_group_close_required unless close_group.
    close_group_required: bool = False
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


PROFILES: dict[str, Profile] = {
    "0.8.2": Profile(version="0.8.2", protocol=20),
    "0.9.3": Profile(
        version="0.9.3",
        protocol=22,
        subscribe_replays_history=False,
        close_group_required=True,
        trust_repository=True,
        prompt_gate_needs_activity=True,
        recent_includes_viewport=True,
        report_agent_options_anywhere=True,
        workspace_create_source=True,
    ),
}
# 0.9.0 and 0.9.1 share protocol 22 and, as far as any source shows, the same surface.
PROFILES["0.9.0"] = replace(PROFILES["0.9.3"], version="0.9.0")
PROFILES["0.9.1"] = replace(PROFILES["0.9.3"], version="0.9.1")

DEFAULT_VERSION = "0.9.3"


def get_profile(version: str | None = None) -> Profile:
    v = version or DEFAULT_VERSION
    try:
        return PROFILES[v]
    except KeyError:
        raise ValueError(
            f"unknown herdr version {v!r}; known: {', '.join(sorted(PROFILES))}"
        ) from None
