"""Issue 31 item 5: the recorder relays the client socket (``<stem>-client.sock``) and writes its
messages decoded into the cassette; verify replays them on inprocess, socket and stub targets
and compares frames by the screen they produce, control messages by value."""

from __future__ import annotations

import base64
import copy
import json
import os
import subprocess

import pytest

from simherdr.contract.recorder import ThreadRecorder, summary
from simherdr.contract.termrecord import ScreenView, message_json, wire_of
from simherdr.contract.verify import verify
from simherdr.simulator import Config
from simherdr.stub.install import write_stub
from simherdr.testing import SocketClient, ThreadServer

TARGETS = ("inprocess", "socket", "stub")


def _frames_until(stdout, needle: str, view: ScreenView | None = None) -> list[dict]:
    """``terminal.frame`` envelopes from a stand-in's stdout until the screen they draw shows
    ``needle`` (herdr's cell diff writes only the cells that changed)."""
    seen, view = [], view or ScreenView()
    while True:
        line = stdout.readline()
        assert line, f"the run ended before {needle!r} showed: {seen}"
        envelope = json.loads(line)
        seen.append(envelope)
        view.feed(envelope)
        if any(needle in row for row in view.state()["lines"]):
            return seen


def _record(tmp_path, version: str, run, home=None) -> object:
    """``run(rec, stub)`` recorded against a fresh simherdr ``version`` (``home``: its HOME and
    cwd, default a temporary one)."""
    if home is None:
        home = tmp_path / "home"
        home.mkdir()
    cfg = Config(home=str(home), server_cwd=str(home))
    with ThreadServer(version, config=cfg) as srv:
        stub = write_stub(str(tmp_path / "bin"), herdr_version=version)
        rec = ThreadRecorder(
            srv.path,
            str(tmp_path / "proxy.sock"),
            tmp_path / "corpus",
            "term",
            herdr_bin=stub,
            cwd=str(home),
            home=str(home),
        )
        try:
            SocketClient(rec.listen).ok("workspace.create", {"cwd": str(home)})
            run(rec, stub)
        finally:
            cassette = rec.stop()
    return cassette


def _control(rec, stub) -> None:
    """The stand-in's ``terminal session control`` run straight through the proxy (the client
    finds the client socket beside HERDR_SOCKET_PATH): type, see it, end the input."""
    env = dict(os.environ, HERDR_SOCKET_PATH=rec.listen)
    argv = [stub, "terminal", "session", "control", "w1:p1", "--cols", "40", "--rows", "8"]
    p = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        p.stdin.write(b'{"type":"terminal.input","text":"echo hi\\n"}\n')
        p.stdin.flush()
        _frames_until(p.stdout, "echo hi")
        p.stdin.close()  # the control sends Detach at the end of its input
        assert json.loads(p.stdout.readline()) == {"reason": "detached", "type": "terminal.closed"}
        assert p.wait(10) == 0
    finally:
        p.kill()
        p.wait()


@pytest.fixture(scope="module")
def control_cassette(tmp_path_factory):
    return _record(tmp_path_factory.mktemp("control"), "0.8.2", _control)


def _client_steps(cassette) -> list[dict]:
    return [s for s in cassette.steps if "client_conn" in s]


def _frame_steps(cassette) -> list[dict]:
    return [s for s in _client_steps(cassette) if "Terminal" in (s.get("recv") or {})]


def test_the_client_socket_is_recorded_decoded_in_order_with_the_json_plane(control_cassette):
    steps = control_cassette.steps
    created = next(i for i, s in enumerate(steps) if "recv" in s and "conn" in s)
    client = _client_steps(control_cassette)
    assert client and steps.index(client[0]) > created  # after the workspace it attached to
    sent = [s["send"] for s in client if "send" in s]
    names = [next(iter(m)) if isinstance(m, dict) else m for m in sent]
    assert names[:2] == ["Hello", "ControlTerminal"] and names[-1] == "Detach"
    assert sent[0]["Hello"]["version"] == 20 and sent[0]["Hello"]["launch_mode"] == "TerminalAttach"
    # the pane target is a reference shared with the JSON plane's reply
    assert sent[1] == {"ControlTerminal": {"target": "<pane:1>", "takeover": False}}
    typed = b"".join(base64.b64decode(m["Input"]["data"]) for m in sent if "Input" in m)
    assert typed == b"echo hi\n"
    got = [s["recv"] for s in client if "recv" in s]
    assert got[0] == {"Welcome": {"version": 20, "encoding": "TerminalAnsi", "error": None}}
    assert got[-1] == {"ServerShutdown": {"reason": "detached"}}
    frames = [m["Terminal"] for m in got if "Terminal" in m]
    assert frames[0]["full"] is True and frames[0]["seq"] == 1
    assert (frames[0]["width"], frames[0]["height"]) == (40, 8)
    assert len({s["client_conn"] for s in client}) == 1
    # each frame's step shows the screen drawn so far, for the reader
    last = _frame_steps(control_cassette)[-1]["screen"]
    assert last["lines"][0] == "$ echo hi" and (last["width"], last["height"]) == (40, 8)
    assert "1 client-socket connections" in summary("c.json", control_cassette)
    # the cassette's text is JSON, its frames' bytes exact (base64 untouched by normalization)
    assert json.loads(json.dumps(control_cassette.to_json())) == control_cassette.to_json()


@pytest.mark.parametrize("kind", TARGETS)
def test_a_recorded_control_session_verifies(control_cassette, kind):
    (r,) = verify([control_cassette], kind, timeout=5)
    assert r.status == "pass", r.report()
    assert r.steps_run >= len(_client_steps(control_cassette))


def _tamper_last_frame(cassette, edit) -> object:
    bad = copy.deepcopy(cassette)
    frame = _frame_steps(bad)[-1]["recv"]["Terminal"]
    frame["bytes"] = base64.b64encode(edit(base64.b64decode(frame["bytes"]))).decode()
    return bad


@pytest.mark.parametrize("kind", ("inprocess", "socket"))
def test_a_changed_frame_is_a_miss_by_screen(control_cassette, kind):
    bad = _tamper_last_frame(control_cassette, lambda b: b.replace(b"echo", b"ECHO"))
    (r,) = verify([bad], kind, timeout=0.5)
    assert r.status == "fail"
    assert len(r.misses) == 1, r.report()  # the rest of the conversation still matches
    (miss,) = r.misses
    assert miss.path.startswith("screen.lines[")
    assert "ECHO hi" in miss.expected and "echo hi" in miss.actual
    assert "client socket conn" in r.report() and "screen.lines" in r.report()


def test_a_changed_frame_merged_with_an_earlier_one_is_its_own_miss_only(control_cassette):
    """The replay draws two recorded frames in one and the later one was changed: one miss,
    the changed frame's (the earlier frame was shown on the way; under load the socket
    target merged the first frame with the echo and charged both)."""
    bad = copy.deepcopy(control_cassette)
    step = _frame_steps(bad)[-1]
    data = base64.b64decode(step["recv"]["Terminal"]["bytes"])
    cut = data.index(b"echo") + len(b"echo")  # the first part draws "$ echo", the rest " hi"
    first = copy.deepcopy(step)
    first["recv"]["Terminal"]["bytes"] = base64.b64encode(data[:cut]).decode()
    rest = data[cut:].replace(b"hi", b"HI")
    step["recv"]["Terminal"]["bytes"] = base64.b64encode(rest).decode()
    bad.steps.insert(bad.steps.index(step), first)
    (r,) = verify([bad], "inprocess", timeout=0.5)
    assert r.status == "fail"
    assert len(r.misses) == 1, r.report()
    (miss,) = r.misses
    assert miss.step == bad.steps.index(step) + 1 and miss.path.startswith("screen.lines[")
    assert "echo HI" in miss.expected and "echo hi" in miss.actual


def test_a_frame_recorded_after_the_detach_may_be_raced_by_the_shutdown(control_cassette):
    """A frame the server drew before it read the client's Detach: a target that reads it
    sooner shuts down before that frame (the launched-server recording's first frame, on a
    loaded socket target), which is no miss; a screen the recording never showed is one."""
    raced = copy.deepcopy(control_cassette)
    detach = next(s for s in _client_steps(raced) if s.get("send") == "Detach")
    extra = _tamper_last_frame(raced, lambda b: b.replace(b"echo", b"ECHO"))
    late = copy.deepcopy(_frame_steps(extra)[-1])  # drawn by no target, ever
    raced.steps.insert(raced.steps.index(detach) + 1, late)
    (r,) = verify([raced], "inprocess", timeout=0.5)
    assert r.status == "pass", r.report()
    n = raced.steps.index(late) + 1
    assert r.skipped_steps == [f"step {n}: a frame recorded after the client's Detach: the target shut down before it"]  # fmt: skip

    drawn = copy.deepcopy(control_cassette)  # the last frame read after the Detach, changed
    detach = next(s for s in _client_steps(drawn) if s.get("send") == "Detach")
    drawn.steps.remove(detach)
    drawn.steps.insert(drawn.steps.index(_frame_steps(drawn)[-1]), detach)
    (r,) = verify([_tamper_last_frame(drawn, lambda b: b.replace(b"echo", b"ECHO"))], "inprocess", timeout=0.5)  # fmt: skip
    assert r.status == "fail" and not r.skipped_steps
    assert [m.path for m in r.misses] == ["screen.lines[0]"], r.report()


def test_frames_are_compared_by_screen_not_by_bytes(control_cassette):
    """Other bytes drawing the same screen (a redundant reset, the frame split in two) pass."""

    def split(cassette):
        bad = copy.deepcopy(cassette)
        step = _frame_steps(bad)[-1]
        data = base64.b64decode(step["recv"]["Terminal"]["bytes"])
        half = len(data) // 2
        first = copy.deepcopy(step)
        first["recv"]["Terminal"]["bytes"] = base64.b64encode(data[:half]).decode()
        step["recv"]["Terminal"]["bytes"] = base64.b64encode(data[half:]).decode()
        bad.steps.insert(bad.steps.index(step), first)
        return bad

    padded = _tamper_last_frame(control_cassette, lambda b: b"\x1b[0m\x1b[0m" + b)
    for c in (padded, split(control_cassette)):
        (r,) = verify([c], "inprocess", timeout=0.5)
        assert r.status == "pass", r.report()


def test_a_control_message_is_compared_by_value(control_cassette):
    bad = copy.deepcopy(control_cassette)
    last = [s for s in _client_steps(bad) if "ServerShutdown" in (s.get("recv") or {})][-1]
    last["recv"]["ServerShutdown"]["reason"] = "terminal attach taken over"
    (r,) = verify([bad], "inprocess", timeout=0.5)
    assert [(m.path, m.expected, m.actual) for m in r.misses] == [
        ("$.ServerShutdown.reason", "terminal attach taken over", "detached")
    ]
    assert "closest recorded reply" in r.report()


def _observe(rec, stub) -> None:
    """``herdr terminal session observe`` through the recording ``herdr`` (its output streams
    through the CLI recorder), the JSON plane typing; the client stops it."""
    argv = ["herdr", "terminal", "session", "observe", "w1:p1", "--cols", "120", "--rows", "6"]
    p = subprocess.Popen(argv, env=rec.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        first = json.loads(p.stdout.readline())
        assert first["type"] == "terminal.frame" and first["full"] is True
        view = ScreenView()
        view.feed(first)
        # the screen shows the recording's HOME: a reference each target binds to its own
        home = rec.journal_meta["context"]["home"]
        text = f"ls {home}\n"
        SocketClient(rec.listen).ok("pane.send_text", {"pane_id": "w1:p1", "text": text})
        _frames_until(p.stdout, f"$ ls {home}", view)
        p.terminate()
        p.wait(10)
    finally:
        p.kill()
        p.wait()


def test_an_observe_run_through_the_cli_recorder_verifies_everywhere(tmp_path, real_home):
    cassette = _record(tmp_path, "0.9.3", _observe, home=real_home)
    (run,) = [s for s in cassette.steps if "cli_run" in s]
    assert run["cli_run"]["argv"][:3] == ["terminal", "session", "observe"]
    client = _client_steps(cassette)
    assert {s.get("via") for s in client} == {f"cli:{run['k']}"}
    assert "TerminalHello" in client[0]["send"]  # protocol 22's handshake
    typed = next(i for i, s in enumerate(cassette.steps) if "pane.send_text" in json.dumps(s))
    assert any(cassette.steps.index(s) > typed for s in _frame_steps(cassette))
    assert _frame_steps(cassette)[-1]["screen"]["lines"][0] == "$ ls <home>"
    for kind in TARGETS:
        (r,) = verify([cassette], kind, timeout=5)
        assert r.status == "pass", r.report()
        # stub: the run is replayed at the socket level (CHOICE in contract/termreplay.py)
        assert any("CLI run" in s for s in r.skipped_steps), (kind, r.skipped_steps)


def test_a_payload_the_table_cannot_read_is_kept_undecoded():
    assert wire_of(21) is None and wire_of("20") is None
    raw = message_json(None, "send", b"\x00\x01")
    assert raw == {"undecoded": base64.b64encode(b"\x00\x01").decode()}
    bad = message_json(wire_of(20), "recv", b"\xff")
    assert bad["undecoded"] == "/w==" and bad["error"].startswith("bincode error: ")


def test_a_frame_that_cannot_be_drawn_is_a_miss_not_a_crash(control_cassette):
    bad = copy.deepcopy(control_cassette)
    _frame_steps(bad)[-1]["recv"]["Terminal"]["bytes"] = "not base64!"
    (r,) = verify([bad], "inprocess", timeout=0.5)
    assert r.status == "fail"
    assert any(m.path == "screen.undrawable" and "base64" in m.expected for m in r.misses)


def test_diff_names_what_the_client_socket_traffic_met_on_another_release(
    control_cassette, tmp_path
):
    from simherdr.contract.diff import diff_corpora, to_markdown

    newer = _record(tmp_path, "0.9.3", _control)
    r = diff_corpora([control_cassette], [newer])
    got = {(d["what"], d["path"], d["a"], d["b"], d["explained_by"]) for d in r["client_traffic"]}
    assert {
        ("message", "send[0]", "Hello", "TerminalHello", "terminal_hello"),
        ("field", "recv[0].Welcome.version", 20, 22, "protocol"),
    } <= got
    # messages aligned by variant: one 0.9 adds is only in B, named by its row where the table
    # added it (DirectTerminalKeyboardProtocol: keyboard_protocol); nothing else is paired off
    for what, path, a, b, why in got - {
        ("message", "send[0]", "Hello", "TerminalHello", "terminal_hello")
    }:
        assert what != "screen"  # the same screens: the frames' bytes are not compared
        if what == "message":
            assert a == "<none>", (path, a, b)
            if b == "DirectTerminalKeyboardProtocol":
                assert why == "keyboard_protocol"
    assert "## client socket traffic" in to_markdown(r)
    drawn = _tamper_last_frame(newer, lambda b: b.replace(b"echo", b"ECHO"))
    for s in _frame_steps(drawn)[-1:]:
        s["screen"]["lines"][0] = "$ ECHO hi"
    (screen,) = [d for d in diff_corpora([control_cassette], [drawn])["client_traffic"]
                 if d["what"] == "screen"]  # fmt: skip
    assert screen["explained_by"] is None and screen["b"]["lines"][0] == "$ ECHO hi"


# A client that launches a server of its own (test_launched.py's shape) and controls its pane
# through that session's client socket: the launched server's client socket is relayed too.
LAUNCH_AND_CONTROL = r"""
set -e
N=lab-$$
herdr --session "$N" server >/dev/null 2>&1 &
i=0
until herdr --session "$N" status server | grep -q '^status: running'; do
  i=$((i+1)); [ "$i" -lt 150 ] || exit 9; sleep 0.1
done
herdr --session "$N" workspace create --no-focus >/dev/null
printf '%s\n' '{"type":"terminal.input","text":""}' \
  | herdr --session "$N" terminal session control w1:p1 --cols 30 --rows 5 >/dev/null
herdr --session "$N" server stop >/dev/null
wait
herdr session delete "$N" >/dev/null
"""


def test_a_launched_servers_client_socket_is_relayed_and_replays_everywhere(tmp_path, real_home):
    from tests.contract.conftest import record_script, verify_everywhere

    with ThreadServer("0.8.2") as srv:
        c, _ = record_script(srv.path, tmp_path, LAUNCH_AND_CONTROL, "0.8.2", home=real_home)
    control = next(s for s in c.steps if "cli_run" in s and "control" in s["cli_run"]["argv"])
    client = [s for s in _client_steps(c) if "send" in s or "recv" in s]
    assert client and {s.get("via") for s in client} == {f"cli:{control['k']}"}  # by its pid
    sent = [s["send"] for s in client if "send" in s]
    assert [next(iter(m)) if isinstance(m, dict) else m for m in sent] == [
        "Hello",
        "ControlTerminal",
        # the piped line (printf: dash's echo turned its \n into a newline, nothing was sent);
        # an Input with nothing to draw: the session detaches at its stdin's end, not after an
        # echo, so a typed line's echo frame raced the Detach (recorded, then not replayed on a
        # target that read the Detach first; herdr too sends no frame after it). Typing and its
        # echo: test_an_interactive_attach_through_the_cli_recorder_keeps_its_terminal
        "Input",
        "Detach",
    ]
    for kind, r in verify_everywhere(c, "0.8.2").items():
        assert r.status == "pass", f"{kind}:\n{r.report()}"


def test_a_proxy_named_like_the_upstream_records_without_the_client_socket(tmp_path):
    """``h.sock`` and ``h.proxy`` share ``h-client.sock``: the upstream's own client socket is
    never taken over; the recording goes on without the plane and says so."""
    from simherdr.terminalplane import client_socket_path

    with ThreadServer("0.8.2") as srv:
        stem = os.path.splitext(srv.path)[0]
        rec = ThreadRecorder(srv.path, stem + ".proxy", tmp_path / "corpus", "same")
        try:
            (warning,) = rec.warnings
            assert client_socket_path(srv.path) in warning and "upstream's own" in warning
            SocketClient(rec.listen).ok("workspace.create", {"cwd": str(tmp_path)})
        finally:
            cassette = rec.stop()
        assert os.path.exists(client_socket_path(srv.path))  # still the upstream's
    assert any("recv" in s for s in cassette.steps) and not _client_steps(cassette)


def test_an_interactive_attach_through_the_cli_recorder_keeps_its_terminal(tmp_path):
    """``herdr terminal attach`` needs the caller's terminal (raw mode): the recording ``herdr``
    runs it on that terminal (its output is a screen: not kept) and the recorder has its
    frames; typed keys are the recorded Input, and the session verifies everywhere."""
    pexpect = pytest.importorskip("pexpect")

    def attach(rec, stub):
        tid = SocketClient(rec.listen).ok("pane.get", {"pane_id": "w1:p1"})["pane"]["terminal_id"]
        child = pexpect.spawn(
            "herdr", ["terminal", "attach", tid], env=rec.env(), dimensions=(10, 40), timeout=20
        )
        try:
            child.expect_exact("$")
            child.send(b"echo hi\r")
            child.expect_exact("echo")
            child.send(b"\x02q")  # herdr's detach escape
            child.expect(pexpect.EOF)
            child.close()
            assert child.exitstatus == 0
        finally:
            child.terminate(force=True)

    cassette = _record(tmp_path, "0.8.2", attach)
    (run,) = [s for s in cassette.steps if "cli_run" in s]
    assert run["cli_run"]["terminal"] is True and run["cli_run"]["exit"] == 0
    sent = [s["send"] for s in _client_steps(cassette) if "send" in s]
    assert "AttachTerminal" in sent[1] and sent[-1] == "Detach"
    assert (sent[0]["Hello"]["cols"], sent[0]["Hello"]["rows"]) == (40, 10)  # the terminal's
    typed = b"".join(base64.b64decode(m["Input"]["data"]) for m in sent if "Input" in m)
    assert typed == b"echo hi\r"
    for kind in TARGETS:
        (r,) = verify([cassette], kind, timeout=5)
        assert r.status == "pass", r.report()


def test_what_the_server_sent_after_the_clients_close_is_not_awaited(control_cassette):
    """Frames and messages the upstream sent while the client was closing raced the close: a
    target that notices the close sooner never sends them (as the JSON plane's CHOICE). Here
    the client closes right after asking for control: the recorded echo never comes."""
    c = copy.deepcopy(control_cassette)
    ask = next(s for s in _client_steps(c) if "ControlTerminal" in (s.get("send") or {}))
    at, cid = c.steps.index(ask) + 1, ask["client_conn"]
    later = [s for s in c.steps[at:] if s.get("client_conn") == cid and "send" in s]
    c.steps = [s for s in c.steps if not any(s is x for x in later)]
    c.steps.insert(at, {"client_conn": cid, "close": "client", "t": ask["t"]})
    assert any(c.steps.index(s) > at for s in _frame_steps(c))
    (r,) = verify([c], "inprocess", timeout=0.5)
    assert r.status == "pass", r.report()
