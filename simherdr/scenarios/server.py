"""Server-level scenarios."""

from __future__ import annotations

from .steps import step


@step
def server_restart(sim) -> None:
    """herdr restarts and restores its session: the same workspace, tab and pane ids come back
    on NEW terminal ids with fresh shells (CLIENTS.md §1, measured: ``w1:p1/p2/p3`` on new
    ``term_…``), so a ``terminal_id`` proves ownership only within one server generation.
    Agents, names and the event ring are gone. Acts through ``Simulator.restart``."""
    sim.restart()
