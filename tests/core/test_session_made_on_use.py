"""A server generation's session, outbox, event ring, client surface and worktree operations
are made the first time they are read (simherdr.simulator._MadeOnUse, issue 26): a ping reads none of them, so `simherdr
serve` answers its first ping without the session model. What a client sees is the same."""

from __future__ import annotations

import asyncio

from simherdr.simulator import Simulator


def _run(coro):
    return asyncio.run(coro)


def test_a_ping_makes_no_session_and_publishes_nothing():
    sim = Simulator("0.9.3")
    reply = _run(sim.invoke("ping"))
    assert reply["result"]["type"] == "pong"
    assert not {"session", "outbox", "hub", "surface", "worktree_ops"} & set(vars(sim))
    assert sim.hub.seq == 0  # no event, no focus trio


def test_the_first_read_makes_the_session_and_its_outbox_together():
    sim = Simulator("0.9.3")
    session = sim.session
    assert sim.outbox.session is session
    assert sim.session is session  # made once, then a plain attribute
    assert vars(sim)["session"] is session


def test_a_call_after_a_ping_sees_a_new_servers_state():
    sim = Simulator("0.9.3")
    _run(sim.invoke("ping"))
    listed = _run(sim.invoke("workspace.list"))
    assert listed["result"]["workspaces"] == []
    made = _run(sim.invoke("workspace.create", {}))
    assert made["result"]["workspace"]["workspace_id"] == "w1"


def test_reset_drops_the_generation_and_the_next_read_makes_a_fresh_one():
    sim = Simulator("0.9.3")
    _run(sim.invoke("workspace.create", {}))
    old_session, old_ops = sim.session, sim.worktree_ops
    old_ops.creates.add("/somewhere")
    sim.reset()
    assert sim.session is not old_session
    assert list(sim.session.workspaces) == []
    assert sim.worktree_ops is not old_ops and sim.worktree_ops.creates == set()
    made = _run(sim.invoke("workspace.create", {}))
    assert made["result"]["workspace"]["workspace_id"] == "w1"


def _kinds(sim) -> list[str]:
    return [kind for _, kind, _ in sim.hub.after(0)]


def test_events_and_focus_of_the_first_create_are_published_as_without_a_ping_first():
    pinged, fresh = Simulator("0.9.3"), Simulator("0.9.3")
    _run(pinged.invoke("ping"))
    for sim in (pinged, fresh):
        _run(sim.invoke("workspace.create", {}))
    assert _kinds(pinged) == _kinds(fresh)
    assert "workspace_created" in _kinds(pinged) and "workspace_focused" in _kinds(pinged)


def test_reset_keeps_the_config_diagnostics_whether_the_surface_was_made_or_not():
    sim = Simulator("0.9.3")
    sim.reset()  # no surface made yet: the start's diagnostics carry over
    assert sim.surface.config_diagnostics == []
    sim.surface.config_diagnostics = ["reloaded"]  # as server.reload_config sets them
    old = sim.surface
    sim.reset()
    assert sim.surface is not old and sim.surface.config_diagnostics == ["reloaded"]


def test_a_restart_starts_a_new_event_ring():
    sim = Simulator("0.9.3")
    _run(sim.invoke("workspace.create", {}))
    old = sim.hub
    assert old.seq > 0
    sim.restart()
    assert sim.hub is not old
    assert "workspace_created" not in _kinds(sim)  # the old process's events are gone


def test_a_missing_config_file_applies_what_hostconfig_would(tmp_path):
    """runtime.config's no-file shortcut (no hostconfig import) equals hostconfig's own
    answer for a missing file."""
    from simherdr import hostconfig
    from simherdr.runtime.config import (
        HOST_CONFIG_FIELDS,
        Config,
        load_host_config,
        no_config_file,
    )

    assert set(HOST_CONFIG_FIELDS) == set(hostconfig.SECTION_OF)
    assert no_config_file() == hostconfig.DEFAULTS
    ours, theirs = Config(), Config()
    for config in (ours, theirs):
        config.config_path = str(tmp_path / "missing" / "config.toml")
        config.new_cwd, config.confirm_close, config.worktrees_dir = "cwd", False, "/w"
    assert load_host_config(ours, "0.9.3") == []
    loaded = hostconfig.load_at_start(theirs.config_path, "0.9.3")
    hostconfig.apply(theirs, loaded)
    assert loaded.diagnostics == [] and vars(ours) == vars(theirs)
    assert ours.new_cwd == "follow" and ours.worktrees_dir is None
