"""Terminal attach to a real PTY pane (simherdr.terminalplane): its real output streams as
frames, what is typed over attach reaches the shell, and the owner's size is the PTY's own
(herdr's runtime.resize on attach, src/server/headless.rs:2892-2898: TIOCSWINSZ)."""

from __future__ import annotations

from simherdr.terminalplane import client_socket_path
from tests.terminalplane.wireclient import TermView, WireClient


def test_attach_streams_a_real_shell_and_resizes_its_pty(client):
    pane = client.workspace()
    tid = client.ok("pane.get", pane_id=pane)["pane"]["terminal_id"]
    protocol = client.srv.sim.version.protocol
    with WireClient(client_socket_path(client.path), protocol, timeout=20) as c:
        c.attach(tid, cols=70, rows=18)
        view = TermView(70, 18)
        view.follow(c, "$")
        c.type("stty size; echo hi$((1+1))\r")
        view.follow(c, "hi2")
        assert "18 70" in view.text()  # the shell's PTY has the owner's size
        read = client.ok("pane.read", pane_id=pane, source="visible")["read"]["text"]
        assert "hi2" in read
