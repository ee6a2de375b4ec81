"""The pieces of real panes without processes: the pyte screen's read contract, herdr's
screen-state rules and process identification."""

from __future__ import annotations

import pytest

from simherdr.model.screen import Screen
from simherdr.panes import detection as D
from simherdr.panes import procfs
from simherdr.panes.vt import PtyScreen

pytestmark = pytest.mark.pty

FEEDS = [
    "hello\r\nworld\r\n",
    "ABCDEFGHIJKLMNOPQRSTUVWXY\r\n",  # wraps at 10 columns
    "".join(f"line {i}\r\n" for i in range(30)),  # scrolls into history
    "one\r\n\r\n\r\nfour   \r\n",  # inner blank rows, trailing spaces
    "\x1b[31mred\x1b[0m plain\r\n\x1b[1mbold\x1b[0m\r\n",
    "abc\rX\r\n",
    "x" * 10 + "\r\n" + "y" * 25,
    "wide \u4e2d\u6587 text\r\n",
]


@pytest.mark.parametrize("feed", FEEDS)
@pytest.mark.parametrize("viewport", [False, True])
def test_pyte_screen_reads_like_the_simulated_screen(feed, viewport):
    sim, real = Screen(cols=10, rows=6), PtyScreen(cols=10, rows=6)
    sim.feed(feed)
    real.feed(feed.encode())
    for source in ("visible", "recent", "recent_unwrapped", "detection"):
        for lines in (None, 0, 2, 5, 100):
            got = real.read(source, lines, "text", recent_includes_viewport=viewport)
            want = sim.read(source, lines, "text", recent_includes_viewport=viewport)
            assert got == want, (source, lines)
    assert real.read("recent", 3, "ansi", viewport)[1] == sim.read("recent", 3, "ansi", viewport)[1]


def test_pyte_screen_modes_title_and_osc():
    s = PtyScreen(cols=20, rows=4)
    s.feed(b"\x1b]0;my \x01title\x07\x1b[?2004h\x1b]9;4;3;\x1b\\")
    assert s.title == "my title" and s.osc_title == "my title" and s.bracketed_paste
    assert s.osc_progress == "4;3;"
    s.clear_agent_osc()
    assert s.title == "my title" and s.osc_title == "" and s.osc_progress == ""
    s.feed(b"\x1b]2;\x07\x1b[?2004l")
    assert s.title == "" and not s.bracketed_paste
    s.feed(b"primary\r\n\x1b[?1049h\x1b[Hfull screen")
    assert s.alternate_screen and s.read("visible") == ("full screen\n", False)
    s.feed(b"\x1b[?1049l")
    assert not s.alternate_screen and s.read("visible") == ("primary\n", False)
    ansi, _ = s.read("visible", fmt="ansi")
    assert ansi == "primary"
    s.feed(b"\x1b[32mgreen\x1b[0m")
    assert "\x1b[32mgreen\x1b[0m" in s.read("visible", fmt="ansi")[0]


def test_pyte_screen_answers_terminal_queries():
    s = PtyScreen(cols=20, rows=4)
    answers = []
    s.respond = answers.append
    s.feed(b"ab\x1b[6n")
    assert answers == ["\x1b[1;3R"]


# --- screen-state rules (herdr's manifests) ---------------------------------------------------


def test_pi_working_literal_and_idle_fallback():
    assert D.detect("pi", "pi\nWorking...\n", manifests="0.8.2").state == "working"  # pi.toml:7-13
    assert (
        D.detect("pi", "pi\nworking...\n", manifests="0.8.2").state == "working"
    )  # contains is case-insensitive
    d = D.detect("pi", "> \n", manifests="0.8.2")
    assert (d.state, d.rule, d.visible_idle) == ("idle", "default_known_agent_idle_fallback", False)
    assert D.detect(None, "Working...\n", manifests="0.8.2").state == "unknown"  # no agent: unknown


@pytest.mark.parametrize(
    "screen, title, progress, state, rule",
    [
        ("x\n", "\u2802 Thinking", "", "working", "osc_title_working"),
        ("x\n", "\u25d0 busy", "", "working", "osc_title_working"),
        ("x\n", "\u2733 Claude", "", "idle", "osc_title_idle"),
        ("x\n", "", "4;0;", "idle", "osc_progress_idle"),
        ("out\n────────\n❯ \n────────\n  ? for shortcuts\n", "", "", "idle", "live_prompt_box"),
        (
            "Bash command\n  rm -rf x\nDo you want to proceed?\n❯ 1. Yes\n  2. No\n",
            "",
            "",
            "blocked",
            "bash_permission_prompt",
        ),
        (
            "────\nDo you want to proceed?\n❯ 1. Yes\n  2. No\nEsc to cancel\n",
            "",
            "",
            "blocked",
            "generic_permission_prompt",
        ),
        (
            "────\nPick one\nEnter to select · ↑/↓ to navigate · Esc to cancel\n",
            "",
            "",
            "blocked",
            "live_blocked_form",
        ),
        ("Would you like to continue? yes/no\n", "", "", "blocked", "legacy_no_prompt_blocker"),
        (
            "Would you like to continue? yes\n❯ \n",
            "",
            "",
            "idle",
            "default_known_agent_idle_fallback",
        ),
        ("Showing detailed transcript\nctrl+o to toggle\n", "", "", "unknown", "transcript_viewer"),
        ("just text\n", "", "", "idle", "default_known_agent_idle_fallback"),
    ],
)
def test_claude_rules(screen, title, progress, state, rule):
    d = D.detect("claude", screen, title, progress, manifests="0.8.2")
    assert (d.state, d.rule) == (state, rule)
    if rule == "transcript_viewer":
        assert d.skip_state_update


def test_higher_priority_wins():
    # a permission prompt (850) under a working title (1100): the title wins
    screen = "Bash command\nDo you want to proceed?\n❯ 1. Yes\n  2. No\n"
    assert D.detect("claude", screen, "\u2802 x", manifests="0.8.2").state == "working"


def test_regions():
    text = "a\n────\nb\nc\n────\nd\n\ne\n"
    assert D.region("after_last_horizontal_rule", text) == "d\n\ne\n"
    assert D.region("prompt_box_body", text) == "b\nc\n"
    assert D.region("above_prompt_box", text) == "a\n"
    assert D.region("bottom_non_empty_lines(2)", text) == "d\n\ne\n"
    assert D.region("bottom_lines(2)", text) == "\ne\n"
    assert D.region("top_non_empty_lines(2)", text) == "a\n────\n"
    assert D.region("last_non_empty_above_prompt_box", text) == "a"
    assert D.region("osc_title", text, "t", "p") == "t"


# --- process identification ------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, argv, kind",
    [
        ("pi", ["/bin/sh", "/tmp/bin/pi"], "pi"),  # a script: comm is its name
        ("claude", ["claude"], "claude"),
        ("python3", ["python3", "/x/claude-code", "--flag"], "claude"),  # generic runtime + script
        ("python3", ["python3", "-c", "import pi"], None),  # inline code is no script
        (
            "node",
            ["node", "/usr/lib/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"],
            "pi",
        ),
        ("bash", ["bash"], None),
        ("MainThread", ["/opt/codex/bin/codex", "--yolo"], "codex"),  # thread-renamed: argv[0]
        ("cursor-agent", ["cursor-agent"], "cursor"),
    ],
)
def test_identify_agent(name, argv, kind):
    job = procfs.ForegroundJob(10, [procfs.Process(10, name, argv)])
    found = D.identify_agent_in_job(job)
    assert (found[0] if found else None) == kind


def test_leader_wins_then_best_score():
    job = procfs.ForegroundJob(
        10,
        [
            procfs.Process(10, "bash", ["bash"]),
            procfs.Process(11, "node", ["node", "x"]),
            procfs.Process(12, "pi", ["pi"]),
        ],
    )
    assert D.identify_agent_in_job(job) == ("pi", "pi")
    job = procfs.ForegroundJob(
        10, [procfs.Process(10, "claude", ["claude"]), procfs.Process(12, "pi", ["pi"])]
    )
    assert D.identify_agent_in_job(job) == ("claude", "claude")


class _Screen:
    content_seq = 0
    osc_title = osc_progress = ""

    def __init__(self):
        self.text = ""
        self.ranges: set[bool] = set()  # the recent ranges detection asked for

    def detection_text(self, recent_includes_viewport=False):
        self.ranges.add(recent_includes_viewport)
        return self.text

    def clear_agent_osc(self):
        pass


class _Sink:
    def __init__(self):
        self.calls = []

    def process_detected(self, kind):
        self.calls.append(("detected", kind))

    def state_changed(self, agent, state, blocker, exited):
        self.calls.append(("state", agent, state, exited))


@pytest.mark.parametrize("includes_viewport", [False, True])
def test_the_detector_reads_on_the_release_recent_range(monkeypatch, includes_viewport):
    # herdr's detection text is the recent text of the screen's rows on the release's range
    # (0.8.x: to the bottom row; 0.9: to the cursor / last text): rows.recent_includes_viewport
    monkeypatch.setattr(D.procfs, "foreground_pgid", lambda pid, fd=None: 200)
    monkeypatch.setattr(
        D, "probe_foreground", lambda pid, pgid, fd=None: D.Probe(pgid, False, "pi")
    )
    screen = _Screen()
    screen.text = "Working...\n"
    det = D.Detector(
        100, screen, _Sink(), manifests="0.8.2", recent_includes_viewport=includes_viewport
    )
    t = 0.0
    while t < 1.0 + D.STARTUP_GRACE + 1.0:
        t += det.tick(t)
    assert screen.ranges == {includes_viewport}


def test_detector_loop_timing(monkeypatch):
    """Grace, working, the held working->idle change, process exit then clear."""
    fg = {"pgid": 100, "agent": None, "shell": True}
    monkeypatch.setattr(D.procfs, "foreground_pgid", lambda pid, fd=None: fg["pgid"])
    monkeypatch.setattr(
        D, "probe_foreground", lambda pid, pgid, fd=None: D.Probe(pgid, fg["shell"], fg["agent"])
    )
    screen, sink = _Screen(), _Sink()
    det = D.Detector(100, screen, sink, manifests="0.8.2")
    t = 0.0

    def run(until):
        nonlocal t
        while t < until:
            t += det.tick(t)

    run(1.0)
    assert sink.calls == []  # a plain shell: nothing
    fg.update(pgid=200, agent="pi", shell=False)
    screen.text = "Working...\n"
    run(1.5)
    assert sink.calls == [("detected", "pi")]
    run(1.3 + D.STARTUP_GRACE + 0.7)  # the grace ends, then the screen
    assert sink.calls[-1] == ("state", "pi", "working", False)
    screen.text = "> \n"
    screen.content_seq += 1
    before = len(sink.calls)
    start = t
    run(t + 0.35)
    assert len(sink.calls) == before + 1 and sink.calls[-1] == ("state", "pi", "idle", False)
    assert t - start >= 0.3  # held for 3 confirmations
    fg.update(pgid=100, agent=None, shell=True)  # the process exits
    run(t + 0.7)
    assert sink.calls[-2:] == [("state", "pi", "idle", True), ("state", None, "unknown", False)]


def test_vt_screen_survives_huge_csi_parameters():
    from simherdr.panes.vt import PtyScreen

    v = PtyScreen(80, 24)
    v.feed("\x1b[" + "9" * 5000 + "Hx")
    v.feed("\x1b[" + "9" * 3000)
    v.feed("9" * 3000 + "Hy")  # split across reads
    v.feed("after")
    assert "after" in v.read("visible", None, "text")[0]
