"""Reads and keys of real (PTY) panes over the socket, from libghostty-vt (the engine every
pane renders through; simherdr/panes/engine.py). Black-box transcriptions of herdr's own
tests, each cited; programs print the bytes herdr's unit tests write into a terminal."""

from __future__ import annotations

import pytest

from simherdr.panes import screens
from tests.releases import BASE, distinguishing, lone_pane_size, rows

pytestmark = [
    pytest.mark.pty,
    pytest.mark.skipif(
        screens.ENGINE != "ghostty", reason="the panes do not run on libghostty-vt here"
    ),
]


def read(client, pane: str, source: str, lines: int | None = None, fmt: str = "text") -> dict:
    params = {"pane_id": pane, "source": source, "format": fmt}
    if lines is not None:
        params["lines"] = lines
    return client.ok("pane.read", **params)["read"]


@pytest.mark.parametrize(
    "version", distinguishing("recent_includes_viewport", among=("0.8.0", "0.8.2", "0.9.3"))
)
def test_workspace_round_trip_reads_the_typed_commands(make_client, version):
    # herdr 0.8.2 tests/api_ping.rs workspace_list_and_create_round_trip (pane.send_text,
    # send_keys Enter, then recent lines=50 holds beta or gamma; visible/detection honour a
    # two-line limit; wait_for_output on recent finds gamma and the regex alp.*gamma); on the
    # 0.8.x recent range and 0.9's. (v0.8.0's copy asks recent lines=20: that one holds beta or
    # gamma only at herdr 0.8.0's pane geometry, 53x23, engineer `geometry`'s part.)
    client = make_client(version=version)
    pane = client.workspace()
    client.ok("pane.send_text", pane_id=pane, text="echo alpha; echo beta; echo gamma")
    client.ok("pane.send_keys", pane_id=pane, keys=["Enter"])
    client.wait_output(pane, r"^gamma$", regex=True)
    # and the shell's next prompt (a line that is the prompt alone: the first one holds the
    # typed command), which the short read below ends with: a read between the two missed it
    client.wait_output(pane, r"^\$\s*$", regex=True)
    text = read(client, pane, "recent", 50)["text"]
    assert "beta" in text or "gamma" in text
    for source in ("visible", "detection"):
        assert len(read(client, pane, source, 2)["text"].splitlines()) <= 2
    # a short recent read: 0.9 ends it at the cursor / last text (#3444), 0.8.x at the bottom
    # row of the grid, here blank (model/paneread.py notes)
    short = read(client, pane, "recent", 3)
    want = "beta\ngamma\n$\n" if rows(version).recent_includes_viewport else ""
    assert (short["text"], short["truncated"]) == (want, True)
    assert "gamma" in client.wait_output(pane, "gamma", source="recent")
    assert "alpha" in client.wait_output(pane, "alp.*gamma", source="recent", regex=True)


def test_soft_wraps_wide_characters_styles_and_graphemes(client):
    pane = client.workspace()
    # terminal.rs:5189 recent_unwrapped_text_ignores_soft_wraps (at this pane's width: the
    # release's lone-pane size, model/geometry.py)
    cols = lone_pane_size(BASE)[0]
    client.run(pane, f"printf 'w%.0s' $(seq 1 {cols + 20}); echo; echo wrapped-end")
    client.wait_output(pane, "^wrapped-end$", source="recent", regex=True)
    recent = read(client, pane, "recent", 100)["text"]
    assert ("w" * cols + "\n" + "w" * 20 + "\n") in recent
    unwrapped = read(client, pane, "recent_unwrapped", 100)["text"]
    assert ("w" * (cols + 20) + "\n") in unwrapped
    # terminal.rs:5214 plain_text_reads_skip_wide_character_spacer_cells
    client.run(pane, "printf '\\346\\227\\245\\346\\234\\254\\350\\252\\236 ABC 123\\n'")
    client.wait_output(pane, "日本語 ABC 123")
    # terminal.rs:4980/4995 grapheme clusters in one cell (mode 2027 by default); issue 32:
    # e + U+0301 stays as written
    client.run(pane, "printf 'e\\314\\201 \\360\\237\\207\\247\\360\\237\\207\\267 done\\n'")
    line = client.wait_output(pane, "^e.* done$", regex=True)
    assert line == "e\u0301 🇧🇷 done"
    # terminal.rs:5227 visible_ansi_preserves_cell_style_sequences
    client.run(pane, "printf '\\033[31;1mred\\033[0m plain\\n'")
    client.wait_output(pane, "red plain")
    ansi = read(client, pane, "visible", fmt="ansi")["text"]
    assert "\x1b[" in ansi and "red" in ansi and "plain" in ansi


def test_alternate_screen_title_and_keys_follow_the_program(client):
    pane = client.workspace()
    # OSC 0 title (herdr's terminal title) and the alternate screen's own rows
    client.run(
        pane,
        "printf '\\033]0;engine-title\\007\\033[?1049h\\033[Hfull screen\\n'; cat; printf '\\033[?1049l'",
    )
    client.wait_output(pane, "^full screen$", regex=True)
    assert client.srv.run(lambda sim: sim.session.panes[pane].screen.alternate_screen)
    assert read(client, pane, "recent", 100)["text"].startswith("full screen\n")
    assert client.srv.run(lambda sim: sim.session.panes[pane].screen.title) == "engine-title"
    # keys against the live keyboard state: after the program pushes kitty flags, shift+enter
    # is CSI 13;2u (terminal.rs ghostty_kitty_pane_encodes_shift_enter_as_csi_u)
    screen_keys = client.srv.run(lambda sim: sim.session.panes[pane].screen.encode_key)
    from simherdr.facts.keys import parse_key

    assert screen_keys(parse_key("shift+enter"), True) == b"\x1b[27;2;13~"
    client.srv.run(lambda sim: sim.session.panes[pane].screen.feed(b"\x1b[>1u"))
    assert screen_keys(parse_key("shift+enter"), True) == b"\x1b[13;2u"
    # ... and ctrl+d is CSI u too (herdr's own encoder under Kitty flags); pop them for `cat`
    assert client.srv.run(lambda sim: sim.session.panes[pane].screen.kitty_keyboard_flags) == 1
    client.srv.run(lambda sim: sim.session.panes[pane].screen.feed(b"\x1b[<u"))
    client.ok("pane.send_keys", pane_id=pane, keys=["ctrl+d"])  # cat ends, 1049l follows
    client.until(
        lambda: not client.srv.run(lambda sim: sim.session.panes[pane].screen.alternate_screen),
        "the primary screen back",
    )


@pytest.mark.parametrize(
    "version", distinguishing("backtab_keeps_shift", among=("0.8.0", "0.8.2", "0.9.3"))
)
def test_keys_reach_the_program_as_herdr_encodes_them(make_client, version):
    # pane.send_keys against the program's keyboard state, read back through `cat -vT`
    # (src/app/api_helpers.rs:36-45 encode_api_keys -> encode_terminal_key): legacy, then
    # after the program pushed Kitty flags 1 (terminal.rs ghostty_kitty_pane_encodes_shift_enter
    # _as_csi_u; encode.rs kitty_plain_ctrl_c_uses_csi_u); shift+tab per the release row
    # backtab_keeps_shift (0.8.0: Tab without shift; api/panes.rs:2035 shift_tab_as_backtab)
    client = make_client(version=version)
    pane = client.workspace()
    client.run(pane, "stty -echo; printf 'ready\\n'; cat -vT; stty echo")
    client.wait_output(pane, "^ready$", regex=True)
    client.ok("pane.send_keys", pane_id=pane, keys=["shift+tab", "up", "x", "Enter"])
    backtab = "^[[Z" if rows(version).backtab_keeps_shift else "^I"
    assert client.wait_output(pane, "x$", regex=True) == f"{backtab}^[[Ax"
    client.srv.run(lambda sim: sim.session.panes[pane].screen.feed(b"\x1b[>1u"))
    client.ok("pane.send_keys", pane_id=pane, keys=["shift+Enter", "ctrl+c", "z", "Enter"])
    assert client.wait_output(pane, "z$", regex=True) == "^[[13;2u^[[99;5uz"
    client.srv.run(lambda sim: sim.session.panes[pane].screen.feed(b"\x1b[<u"))
    client.ok("pane.send_keys", pane_id=pane, keys=["ctrl+d"])
    client.wait_output(pane, r"^\$$", regex=True)  # cat ended: the prompt is back
