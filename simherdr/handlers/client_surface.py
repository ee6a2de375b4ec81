"""0.9.x methods for client shells and product notices, answered as a headless herdr with no
client attached ([H093] src/api/server.rs handle_request, src/app/api.rs
handle_api_request_after_internal_events_drained, src/app/custom_commands.rs)."""

from __future__ import annotations

from .. import params as P
from ..facts import errors as E
from .registry import method
from .selection import POINT

# CommandInvokeParams.selection: a PaneSelectionReadParams (client-owned coordinates).
SELECTION = P.struct(
    pane_id=P.req(P.STR),
    anchor=P.req(POINT),
    cursor=P.req(POINT),
    content_revision=P.opt(P.U64),
)


@method("client_shell.surface.set", active=P.req(P.BOOL))
def surface_set(sim, p):
    # Answered on the API connection before anything else (even while the server stops).
    raise E.connection_local_only()


@method("release_notes.dismiss", version=P.req(P.STR))
def release_notes_dismiss(sim, p):
    # CHOICE: a simulator has no release notes loaded (latest_release_notes is None), so any
    # version is stale.
    raise E.stale_release_notes()


@method("product_announcement.dismiss", version=P.req(P.STR), id=P.req(P.STR))
def announcement_dismiss(sim, p):
    # CHOICE: no product announcement is current on a simulator.
    raise E.stale_announcement()


@method(
    "command.invoke",
    command_id=P.req(P.STR),
    pane_id=P.opt(P.STR),
    tab_id=P.opt(P.STR),
    workspace_id=P.opt(P.STR),
    selection=P.opt(SELECTION),
)
def command_invoke(sim, p):
    # Command ids come from a client shell's manifest of configured custom commands; the
    # simulator configures none, so every id is unknown (custom_commands.rs).
    raise E.command_manifest_stale()
