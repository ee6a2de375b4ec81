"""The terminal plane and the JSON API on one server: closing the pane ends the attach, input
from both lands in one terminal, structured input, oversized pastes, observers type nothing,
resizes repaint, slow consumers lose frames and never a control message, the trace's lanes."""

from __future__ import annotations

import pytest

from simherdr.facts import terminalplane as F
from simherdr.terminalplane import connection

from .wireclient import TermView


def _attached(plane, cols=80, rows=24):
    c = plane.client()
    c.attach(plane.terminal_id(), cols=cols, rows=rows)
    view = TermView(cols, rows)
    view.follow(c, "$")
    return c, view


def test_closing_the_pane_ends_the_attach(plane):
    tid = plane.terminal_id()
    plane.api("pane.split", target="w1:p1", direction="right")
    c, _ = _attached(plane)
    obs = plane.client()
    obs.handshake()
    obs.send({"ObserveTerminal": {"target": tid}})
    plane.api("pane.close", pane_id="w1:p1")
    assert c.rest()[-1] == {"ServerShutdown": {"reason": F.terminal_gone(tid)}}
    assert obs.rest()[-1] == {"ServerShutdown": {"reason": F.terminal_gone(tid)}}


def test_an_observer_types_nothing(plane):
    obs = plane.client()
    obs.handshake()
    obs.send({"ObserveTerminal": {"target": "w1:p1"}})
    obs.type("not typed")
    ctl, view = _attached(plane)
    ctl.type("typed")
    view.follow(ctl, "typed")
    text = plane.api("pane.read", pane_id="w1:p1", source="visible")["read"]["text"]
    assert "typed" in text and "not typed" not in text


def test_input_events_type_text_keys_and_pastes(plane):
    c, view = _attached(plane)
    key = {
        "Key": {
            "code": {"Char": "k"},
            "modifiers": 0,
            "kind": "Press",
            "repeat_count": 2,
            "generated_text": None,
            "source": "Synthesized",
        }
    }
    release = {"Key": {**key["Key"], "kind": "Release"}}
    events = [{"TextCommit": "commit "}, key, release, {"Paste": {"text": " pasted"}}, "FocusLost"]
    c.send({"InputEvents": {"events": events}})
    view.follow(c, "commit kk pasted")


def test_an_oversized_bracketed_paste_is_rejected_with_a_notify(plane):
    c, _ = _attached(plane)
    data = b"\x1b[200~" + b"x" * F.MAX_INPUT_PAYLOAD + b"\x1b[201~"
    c.type(data)
    m = c.recv()
    while "Terminal" in m:
        m = c.recv()
    assert m == {
        "Notify": {
            "kind": "Toast",
            "message": "Paste rejected",
            "body": f"Input message is {len(data)} bytes; Herdr's limit is 1048576 bytes",
        }
    }


def test_an_oversized_raw_input_drops_the_client(plane):
    c, _ = _attached(plane)
    c.type(b"y" * (F.MAX_INPUT_PAYLOAD + 1))
    assert all("Terminal" in m for m in c.rest())


def test_a_resize_repaints_at_the_new_size_and_resizes_the_owned_terminal(plane):
    c, view = _attached(plane)
    c.send({"Resize": {"cols": 50, "rows": 10, "cell_width_px": 0, "cell_height_px": 0}})
    m = c.recv()
    while "Terminal" not in m:
        m = c.recv()
    frame = m["Terminal"]
    assert (frame["width"], frame["height"], frame["full"]) == (50, 10, True)
    screen = plane.srv.run(lambda sim: sim.session.panes["w1:p1"].screen)
    assert (screen.cols, screen.rows) == (50, 10)


def test_a_pending_client_that_detaches_is_closed_without_a_shutdown(plane):
    c = plane.client()
    c.handshake()
    c.send("Detach")
    assert c.rest() == []  # send_terminal_stream_detach_shutdown: attach/observe only


@pytest.fixture
def small_writer(monkeypatch):
    monkeypatch.setattr(connection, "WRITE_HIGH_WATER", 1)


def test_a_slow_consumer_loses_frames_never_control_messages(plane, small_writer):
    """herdr's writer queue (client_transport.rs:180-301): one render slot, control in order.
    A client that reads nothing while 60 full repaints of a 300x100 screen are due gets fewer
    frames, consecutive seq, and still the last size once it reads; then its ServerShutdown."""
    c, view = _attached(plane, 300, 100)
    plane.api("pane.send_input", pane_id="w1:p1", text="z" * 25_000)
    while view.text().count("z") < 25_000:  # the shell types a long paste a slice per turn
        m = c.recv()
        assert m is not None
        if "Terminal" in m:
            view.draw(m)
    first_seq = view.frames[-1]["seq"] + 1
    sizes = [(300 - i % 2, 100) for i in range(59)] + [(280, 90)]  # the last size is unique
    for cols, rows in sizes:
        c.send({"Resize": {"cols": cols, "rows": rows, "cell_width_px": 0, "cell_height_px": 0}})
    frames = []
    while not frames or (frames[-1]["width"], frames[-1]["height"]) != sizes[-1]:
        m = c.recv()  # a deferred render follows once the writer took the slot
        assert m is not None and "Terminal" in m, m
        frames.append(m["Terminal"])
    assert [f["seq"] for f in frames] == list(range(first_seq, first_seq + len(frames)))
    assert len(frames) < len(sizes)  # frames were dropped (deferred, not queued)
    c.send("Detach")
    assert c.rest() == [{"ServerShutdown": {"reason": "detached"}}]


def test_attach_sessions_are_lanes_in_the_trace(plane):
    c, view = _attached(plane)
    c.type("x")
    view.follow(c, "x")
    c.send("Detach")
    c.rest()
    ops = [(e["conn"], e["op"]) for e in plane.srv.trace() if e["kind"] == "terminal"]
    assert ops[:3] == [("t1", "hello"), ("t1", "attach"), ("t1", "frame")]
    assert ("t1", "input") in ops and ("t1", "detach") in ops and ("t1", "shutdown") in ops


def test_sizes_are_clamped_from_below_as_herdr_and_from_above_by_choice(plane):
    """clamp_terminal_size (client_transport.rs:401-405); CHOICE(max-client-size) in plane.py."""
    c = plane.client()
    c.attach(plane.terminal_id(), cols=0, rows=0)
    first = c.recv()["Terminal"]
    assert (first["width"], first["height"]) == (1, 1)
    c.send({"Resize": {"cols": 65535, "rows": 65535, "cell_width_px": 0, "cell_height_px": 0}})
    frame = c.recv()["Terminal"]
    assert (frame["width"], frame["height"]) == (1000, 1000)


def test_a_simulated_restart_ends_every_stream_as_a_shutdown_does(plane):
    c, _ = _attached(plane)
    plane.srv.run(lambda sim: sim.restart())
    assert c.rest()[-1] == {"ServerShutdown": {"reason": "server is shutting down"}}
    again = plane.client()  # the new process serves new clients
    again.attach(plane.terminal_id())
    assert again.recv()["Terminal"]["seq"] == 1


def test_0_9_tells_an_owner_its_terminals_mouse_and_keyboard_modes(config, tmp_path):
    """Row terminal_attach_host_modes ([H093] src/server/headless/render.rs): the first sync
    always, then on each change, before the frame; observers get none."""
    from simherdr.model.panescreen import EncodesKeys
    from simherdr.model.seams import ReportsModes

    from .conftest import make_plane

    def engine(sim):
        screen = sim.session.panes["w1:p1"].screen
        return isinstance(screen, ReportsModes) and isinstance(screen, EncodesKeys)

    srv, p = make_plane("0.9.3", config, tmp_path)
    with srv:
        if not srv.run(engine):
            pytest.skip("the panes run on the fallback screen (no Kitty keyboard flags)")
        c = p.client()
        c.attach(p.terminal_id())
        assert [c.recv(), c.recv()] == [
            {"MouseCapture": {"enabled": False, "sgr_pixels": False}},
            {"DirectTerminalKeyboardProtocol": {"flags": 0, "modify_other_keys_level": 0}},
        ]
        assert "Terminal" in c.recv()

        def app_sets_modes(sim):
            sim.session.panes["w1:p1"].screen.feed("\x1b[?1002h\x1b[>5u")
            sim.commit()

        srv.run(app_sets_modes)
        got = [c.recv(), c.recv()]
        assert got == [
            {"MouseCapture": {"enabled": True, "sgr_pixels": False}},
            {"DirectTerminalKeyboardProtocol": {"flags": 5, "modify_other_keys_level": 0}},
        ]
        p.close()


def test_0_8_sends_an_owner_no_host_modes(plane):
    """Row terminal_attach_host_modes: 0.8's go to full app clients only (headless.rs:3973)."""
    c = plane.client()
    c.attach(plane.terminal_id())
    assert "Terminal" in c.recv()


def test_garbage_after_the_handshake_drops_only_that_client(plane):
    """client_read_loop (client_transport.rs:713-745): a frame that does not decode ends its
    connection; the server and its other clients go on."""
    import random

    from simherdr.protocol import encode_frame

    owner, view = _attached(plane)
    rng = random.Random(31)
    for n in range(20):
        bad = plane.client()
        bad.handshake()
        payload = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        bad.send_raw(encode_frame(b"\xff" + payload))  # no variant has index 255
        assert all("Terminal" in m for m in bad.rest()), n
    owner.type("still served")
    view.follow(owner, "still served")
    assert plane.api("ping")["type"] == "pong"


def test_input_events_limits_are_herdrs(plane):
    """input_event_limit (client_transport.rs:431-485): an oversized paste-only batch gets the
    Notify; too many typed bytes, or too many events counting repeats, drop the client."""
    c, _ = _attached(plane)
    big = "p" * F.MAX_INPUT_PAYLOAD
    c.send({"InputEvents": {"events": [{"Paste": {"text": big}}, {"Paste": {"text": "q"}}]}})
    m = c.recv()
    while "Terminal" in m:
        m = c.recv()
    assert m["Notify"]["body"] == (
        f"Input message is {len(big) + 1} bytes; Herdr's limit is 1048576 bytes"
    )
    typed = plane.client()
    typed.attach(plane.terminal_id(), takeover=True)
    typed.send({"InputEvents": {"events": [{"TextCommit": big}, {"Paste": {"text": "q"}}]}})
    assert all("Terminal" in m for m in typed.rest())
    many = plane.client()
    many.handshake()
    key = {
        "Key": {
            "code": "Enter",
            "modifiers": 0,
            "kind": "Press",
            "repeat_count": F.MAX_INPUT_EVENT_BATCH + 1,
            "generated_text": None,
            "source": "Synthesized",
        }
    }
    many.send({"InputEvents": {"events": [key]}})
    assert many.rest() == []
