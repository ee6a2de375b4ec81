"""AttachScroll, herdr's page-key tests (src/server/headless.rs test module, 0.8.2
7239-7372) transcribed over the socket: what the app's own output set decides whether a page
key is typed into the terminal (the trace's ``input`` entries show what was typed) or scrolls
the host's scrollback (nothing typed: simherdr keeps no scrolled viewport, CHOICE
attach-scroll); a wheel goes to an app that tracks the mouse as a wheel report."""

from __future__ import annotations

import pytest

from simherdr.model.seams import ReportsModes

PAGE_UP = {
    "AttachScroll": {
        "source": {"PageKey": {"input": b"\x1b[5~"}},
        "direction": "Up",
        "lines": 3,
        "column": None,
        "row": None,
        "modifiers": 0,
    }
}


def _typed(plane) -> list[str]:
    return [e["text"] for e in plane.srv.trace() if e["kind"] == "terminal" and e["op"] == "input"]


def _owner_after(plane, app_output: str):
    def feed(sim):
        sim.session.panes["w1:p1"].screen.feed(app_output)
        sim.commit()
        return isinstance(sim.session.panes["w1:p1"].screen, ReportsModes)

    if not plane.srv.run(feed) and "1000h" in app_output:
        pytest.skip("the panes run on the fallback screen (no DEC mode reads)")
    c = plane.client()
    c.attach(plane.terminal_id())
    while "Terminal" not in (m := c.recv()):  # 0.9 first tells the owner its host modes
        assert m is not None
    return c


def _page_up_typed(plane, app_output: str) -> bool:
    c = _owner_after(plane, app_output)
    c.send(PAGE_UP)
    c.send("Detach")  # after the scroll: its effect is in the trace once the detach is
    c.rest()
    return _typed(plane) == ["\x1b[5~"]


def test_terminal_attach_page_key_host_scrolls_plain_terminal(plane):
    assert not _page_up_typed(plane, "")


def test_terminal_attach_page_key_forwards_when_mouse_reporting(plane):
    assert _page_up_typed(plane, "\x1b[?1000h")


def test_terminal_attach_page_key_forwards_when_application_cursor(plane):
    assert _page_up_typed(plane, "\x1b[?1h")


def test_terminal_attach_page_key_host_scrolls_shell_like_decckm_with_bracketed_paste(plane):
    assert not _page_up_typed(plane, "\x1b[?1h\x1b[?2004h")


def test_terminal_attach_page_key_forwards_in_alternate_screen_without_mouse_reporting(plane):
    assert _page_up_typed(plane, "\x1b[?1049h")


@pytest.mark.parametrize(
    ("app_output", "report"),
    [("\x1b[?1000h\x1b[?1006h", b"\x1b[<64;5;3M"), ("\x1b[?1000h", b"\x1b[M\x60\x25\x23")],
)
def test_a_wheel_is_a_mouse_report_for_an_app_that_tracks_the_mouse(plane, app_output, report):
    c = _owner_after(plane, app_output)
    wheel = dict(PAGE_UP["AttachScroll"], source="Wheel", column=4, row=2)
    c.send({"AttachScroll": wheel})
    c.send("Detach")
    c.rest()
    assert _typed(plane) == [report.decode()]


@pytest.mark.parametrize(
    ("app_output", "kind", "typed"),
    [
        ("\x1b[?1000h\x1b[?1006h", {"Down": "Left"}, ["\x1b[<0;4;2M"]),
        ("\x1b[?1000h\x1b[?1006h", {"Up": "Right"}, ["\x1b[<2;4;2m"]),
        ("\x1b[?1000h", {"Up": "Left"}, ['\x1b[M#$"']),
        ("\x1b[?1000h\x1b[?1006h", "Moved", []),  # 1000 reports no motion
        ("\x1b[?1003h\x1b[?1006h", "Moved", ["\x1b[<35;4;2M"]),
        ("\x1b[?1002h\x1b[?1006h", {"Drag": "Left"}, ["\x1b[<32;4;2M"]),
        ("", {"Down": "Left"}, []),  # an app that tracks no mouse gets nothing
    ],
)
def test_0_9_attach_mouse_is_the_report_the_app_asked_for(
    config, tmp_path, app_output, kind, typed
):
    from .conftest import make_plane

    srv, p = make_plane("0.9.3", config, tmp_path)
    with srv:
        c = _owner_after(p, app_output or "\x1b[?1000l")
        mouse = {
            "kind": kind,
            "position": {"Cell": {"column": 3, "row": 1}},
            "geometry": None,
            "modifiers": 0,
            "lines": 1,
        }
        c.send({"AttachMouse": mouse})
        c.send("Detach")
        c.rest()
        assert _typed(p) == typed
        p.close()
