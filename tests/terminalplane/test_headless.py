"""herdr's own headless attach / observe / control unit tests (src/server/headless.rs test
module, 0.8.2), transcribed black-box: each drives the real client socket of a simherdr server
with a client written from wire.rs, and reads what herdr's test reads from the server's
structs through what a client sees (ServerShutdown reasons, who may still take control, the
terminal's size)."""

from __future__ import annotations

from simherdr.facts import terminalplane as F

from .wireclient import TermView


def _size(plane, pane_id: str = "w1:p1") -> tuple[int, int]:
    def read(sim):
        screen = sim.session.panes[pane_id].screen
        return screen.cols, screen.rows

    return plane.srv.run(read)


def _pending(plane, cols: int = 100, rows: int = 30):
    """connect_pending_terminal_client (headless.rs:6530-6553): a TerminalAttach handshake."""
    c = plane.client()
    assert c.handshake(cols, rows)["error"] is None
    return c


def _stream(c) -> dict:
    """The first message of a stream: its first frame, a full redraw."""
    m = c.recv()
    assert m is not None and "Terminal" in m, m
    return m["Terminal"]


def test_terminal_attach_rejects_missing_terminal_and_removes_client(plane):
    c = _pending(plane, 80, 24)
    c.send({"AttachTerminal": {"terminal_id": "term_missing", "takeover": False}})
    assert c.rest() == [
        {"ServerShutdown": {"reason": "terminal attach failed: terminal term_missing not found"}}
    ]


def test_terminal_observe_allows_multiple_clients_without_attach_ownership(plane):
    tid = plane.terminal_id()
    before = _size(plane)
    observers = [_pending(plane) for _ in range(2)]
    for c in observers:
        c.send({"ObserveTerminal": {"target": tid}})
        assert _stream(c)["full"] is True
    assert _size(plane) == before  # observing resizes nothing
    # no attach owner: a controller without takeover is accepted
    ctl = _pending(plane)
    ctl.send({"ControlTerminal": {"target": tid, "takeover": False}})
    assert _stream(ctl)["seq"] == 1


def test_terminal_observe_resolves_public_pane_id(plane):
    c = _pending(plane)
    c.send({"ObserveTerminal": {"target": "w1:p1"}})
    frame = _stream(c)
    assert (frame["seq"], frame["width"], frame["height"], frame["full"]) == (1, 100, 30, True)


def test_terminal_control_resolves_public_pane_id_and_takes_ownership(plane):
    tid = plane.terminal_id()
    c = _pending(plane, 100, 30)
    c.send({"ControlTerminal": {"target": "w1:p1", "takeover": False}})
    assert _stream(c)["full"] is True
    assert _size(plane) == (100, 30)  # the owner's size (direct_attach_resize_locks)
    other = _pending(plane)
    other.send({"AttachTerminal": {"terminal_id": tid, "takeover": False}})
    assert other.rest() == [{"ServerShutdown": {"reason": F.attach_owned(tid)}}]


def test_terminal_control_rejects_second_controller_without_takeover(plane):
    tid = plane.terminal_id()
    first = _pending(plane)
    first.send({"ControlTerminal": {"target": tid, "takeover": False}})
    _stream(first)
    second = _pending(plane)
    second.send({"ControlTerminal": {"target": tid, "takeover": False}})
    assert second.rest() == [
        {
            "ServerShutdown": {
                "reason": f"terminal attach failed: terminal {tid} already has an attached "
                "client; retry with --takeover"
            }
        }
    ]
    first.type("still mine")  # the first keeps control
    TermView(100, 30).follow(first, "still mine")


def test_terminal_control_takeover_replaces_existing_controller(plane):
    tid = plane.terminal_id()
    first = _pending(plane)
    first.send({"ControlTerminal": {"target": tid, "takeover": False}})
    _stream(first)
    second = _pending(plane)
    second.send({"ControlTerminal": {"target": tid, "takeover": True}})
    assert _stream(second)["full"] is True
    rest = first.rest()
    assert rest[-1] == {"ServerShutdown": {"reason": "terminal attach taken over"}}
    assert all("Terminal" in m for m in rest[:-1])
    second.type("now theirs")
    TermView(100, 30).follow(second, "now theirs")


def test_terminal_observe_can_coexist_with_terminal_control(plane):
    tid = plane.terminal_id()
    ctl = _pending(plane)
    ctl.send({"ControlTerminal": {"target": tid, "takeover": False}})
    _stream(ctl)
    obs = _pending(plane)
    obs.send({"ObserveTerminal": {"target": tid}})
    view = TermView(100, 30)
    view.draw({"Terminal": _stream(obs)})
    ctl.type("both see it")
    view.follow(obs, "both see it")  # the observer streams what the controller typed
    TermView(100, 30).follow(ctl, "both see it")


def test_terminal_control_detach_sends_shutdown_before_removal(plane):
    tid = plane.terminal_id()
    c = _pending(plane)
    c.send({"ControlTerminal": {"target": tid, "takeover": False}})
    _stream(c)
    c.send("Detach")
    assert c.rest()[-1] == {"ServerShutdown": {"reason": "detached"}}
    again = _pending(plane)  # no owner left
    again.send({"ControlTerminal": {"target": tid, "takeover": False}})
    assert _stream(again)["seq"] == 1


def test_terminal_observe_rejects_later_attach_upgrade(plane):
    tid = plane.terminal_id()
    before = _size(plane)
    c = _pending(plane)
    c.send({"ObserveTerminal": {"target": tid}})
    _stream(c)
    c.send({"AttachTerminal": {"terminal_id": tid, "takeover": True}})
    assert c.rest()[-1] == {"ServerShutdown": {"reason": F.attach_not_pending()}}
    assert _size(plane) == before
    other = _pending(plane)  # no owner was made
    other.send({"AttachTerminal": {"terminal_id": tid, "takeover": False}})
    assert _stream(other)["seq"] == 1


def test_terminal_attach_rejects_later_observe_and_clears_ownership(plane):
    tid = plane.terminal_id()
    before = _size(plane)
    c = _pending(plane, 100, 30)
    c.send({"AttachTerminal": {"terminal_id": tid, "takeover": False}})
    _stream(c)
    assert _size(plane) == (100, 30)
    c.send({"ObserveTerminal": {"target": tid}})
    assert c.rest()[-1] == {"ServerShutdown": {"reason": F.session_not_pending("observe")}}
    assert _size(plane) == before  # the size lock went with the owner
    other = _pending(plane)
    other.send({"AttachTerminal": {"terminal_id": tid, "takeover": False}})
    assert _stream(other)["seq"] == 1


def test_terminal_attach_client_exits_when_attached_pane_dies(plane):
    tid = plane.terminal_id()
    plane.api("workspace.create", cwd="/")  # the pane's death leaves a session behind
    c = _pending(plane)
    c.send({"AttachTerminal": {"terminal_id": tid, "takeover": False}})
    _stream(c)
    c.type("exit\r")  # the simulated shell exits: AppEvent::PaneDied
    assert c.rest()[-1] == {"ServerShutdown": {"reason": f"terminal {tid} exited"}}


def test_terminal_attach_disconnect_restores_app_pane_size(plane):
    before = _size(plane)
    c = _pending(plane, 61, 17)
    c.send({"AttachTerminal": {"terminal_id": plane.terminal_id(), "takeover": False}})
    _stream(c)
    assert _size(plane) == (61, 17)
    c.close()  # a client that just goes away
    plane.api("pane.get", pane_id="w1:p1")  # one request later the server has seen the EOF
    assert plane.srv.run(lambda sim: None) is None
    assert _size(plane) == before


def test_an_owned_terminal_keeps_its_owners_size_through_the_views_draws(plane):
    """direct_attach_resize_locks (headless.rs:2892-2895, removed with the owner 1596-1619)."""

    def draw_resize(sim):
        sim.hooks.pane_size_changed(sim.session.panes["w1:p1"], 33, 11)

    c = _pending(plane, 90, 25)
    c.send({"AttachTerminal": {"terminal_id": plane.terminal_id(), "takeover": False}})
    _stream(c)
    plane.srv.run(draw_resize)
    assert _size(plane) == (90, 25)
    c.send("Detach")
    c.rest()
    plane.srv.run(draw_resize)
    assert _size(plane) == (33, 11)
