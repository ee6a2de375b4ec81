"""herdr's render cadence as an option (CHOICE(render-cadence) in plane.py): with
``Config.render_interval`` an attach owner's keystroke is a render attempt whether or not a
picture changed (headless.rs:3125-3146 ClientInput returns true; record_render_attempt,
headless.rs:783), so the echo and the output it causes reach the client one interval later, in
one frame (IvoryHeart/herdr-web's live smoke reads printf's line and stty's in one frame)."""

from __future__ import annotations

import pytest

from .conftest import make_plane


@pytest.mark.parametrize("interval", [0.0, 0.016])
def test_a_keystroke_is_a_render_attempt_only_with_a_cadence(config, tmp_path, interval):
    config.render_interval = interval
    srv, plane = make_plane("0.8.2", config, tmp_path)
    with srv:
        c = plane.client()
        c.attach(plane.terminal_id())
        assert c.recv()["Terminal"]["seq"] == 1

        def keystroke(sim):
            tp = sim.terminal_listeners[-1]
            tp._last_render = None
            tp._input_render_attempt()  # what Input / InputEvents of the owner do
            tp.render()  # the pass: the client's picture is current, no frame goes out
            return tp._last_render

        stamped = srv.run(keystroke)
        assert (stamped is not None) == (interval > 0)
        plane.close()
