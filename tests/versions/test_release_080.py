"""herdr 0.8.0 (protocol 19) and 0.8.1 against 0.8.2: each row of releases/0.8.0.toml and
0.8.1.toml on the releases it tells apart (in-process, replies checked against each release's
own published schema). The stand-in's 0.8.0 grammar: tests/stub/test_stub_080.py."""

from __future__ import annotations

import pytest

from simherdr.facts import methods as M
from simherdr.hostcore import config_keys as CK
from tests.agents.conftest import start_ready, statuses
from tests.releases import distinguishing, kinds, resolve, rows


def on(*names: str):
    """Parametrize over the releases the named rows tell apart."""
    return pytest.mark.parametrize("version", distinguishing(*names))


@pytest.fixture
def ws(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    return h


@on("protocol")
def test_ping_answers_the_release_protocol(h, version):
    pong = h.ok("ping")
    assert pong["protocol"] == resolve(version).protocol and pong["version"] == version


@on("methods")
def test_pane_input_set_is_an_unknown_variant_in_080(ws, version):
    if "pane.input.set" not in resolve(version).methods:
        e = ws.err("pane.input.set", pane_id="w1:p1", right_click="pane")
        assert e["code"] == "invalid_request" and "unknown variant `pane.input.set`" in e["message"]
    else:
        assert ws.ok("pane.input.set", pane_id="w1:p1", right_click="pane") == {"type": "ok"}


@on("prompt_refuses_blocked")
def test_prompt_to_a_blocked_agent(ws, version):
    """#2790: 0.8.2 refuses it with agent_blocked; 0.8.0 types into the dialog."""
    from simherdr.agents import DEFAULT_BLOCK_MARKER

    start_ready(ws)
    ws.ok("agent.prompt", target="rev", text=f"rm -rf {DEFAULT_BLOCK_MARKER}")
    ws.advance(1.1)
    assert ws.ok("agent.get", target="rev")["agent"]["agent_status"] == "blocked"
    if not rows(version).prompt_refuses_blocked:
        assert ws.ok("agent.prompt", target="rev", text="more")["type"] == "agent_prompted"
    else:
        assert ws.err("agent.prompt", target="rev", text="more") == {
            "code": "agent_blocked",
            "message": "agent rev is blocked and requires interactive input",
        }


@on("process_detection_acquires")
def test_a_detected_agent_is_idle_at_once_in_080(ws, version):
    """#2537: 0.8.0 publishes a freshly detected agent process idle at once; 0.8.2 starts it
    unknown until its screen says idle (claude: detected at 0.2 s, idle at 2.2 s)."""
    mark = ws.sim.hub.seq
    ws.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    ws.advance(0.25)
    a = ws.ok("agent.get", target="rev")["agent"]
    assert a["agent"] == "claude"
    assert a["agent_status"] == ("unknown" if rows(version).process_detection_acquires else "idle")
    ws.advance(3)
    assert ws.ok("agent.get", target="rev")["agent"]["interactive_ready"] is True
    assert statuses(ws, mark) == ["idle"]


@on("managed_start_blocked_phase")
def test_a_start_blocked_at_startup_is_ready_in_080(ws, version):
    """#2537: 0.8.0 takes a blocked startup dialog for readiness; 0.8.2 waits in a blocked
    phase (launch_pending) until the agent is idle."""
    ws.sim.agents.configure_pane("w1:p1", startup_blocked=True)
    ws.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1", timeout_ms=5000)
    ws.advance(10)
    a = ws.ok("agent.get", target="rev")["agent"]
    assert a["agent_status"] == "blocked" and a["name"] == "rev"
    if not rows(version).managed_start_blocked_phase:
        assert a["interactive_ready"] is True and "launch_pending" not in a
    else:
        assert a["launch_pending"] is True and "interactive_ready" not in a


@on("backtab_keeps_shift")
def test_shift_tab_keeps_shift_from_082(ws, version, monkeypatch):
    """#2259 (CHANGELOG #1561): 0.8.0 sends shift+tab as a plain tab."""
    written = []
    monkeypatch.setattr(ws.sim, "write_input", lambda pane, data: written.append(data))
    ws.ok("pane.send_keys", pane_id="w1:p1", keys=["shift+tab", "tab", "ctrl+shift+tab"])
    if not rows(version).backtab_keeps_shift:
        assert written == [b"\t\t\x1b[27;5;9~"]
    else:
        assert written == [b"\x1b[Z\t\x1b[27;6;9~"]


@on("close_focus_returns_to_opener")
def test_closing_the_focused_pane_refocuses_its_opener_from_082(ws, version):
    """#2266: w1:p2 is split from w1:p1, w1:p3 from w1:p2; focus w1:p1, then w1:p3, close it:
    0.8.2 goes back to w1:p1 (the pane focus came from), 0.8.0 to the next in layout order
    (none after w1:p3, so the previous one, w1:p2)."""
    ws.ok("pane.split", target_pane_id="w1:p1", direction="right", focus=True)
    ws.ok("pane.split", target_pane_id="w1:p2", direction="down", focus=True)
    ws.ok("pane.focus", pane_id="w1:p1")
    ws.ok("pane.focus", pane_id="w1:p3")
    ws.ok("pane.close", pane_id="w1:p3")
    focused = ws.ok("pane.current")["pane"]["pane_id"]
    assert focused == ("w1:p1" if rows(version).close_focus_returns_to_opener else "w1:p2")


@on("headless_cols", "headless_rows")
def test_headless_layout_area(ws, version):
    """#2828: 0.8.0's shared size without a client is 80x24, 0.8.2's 120x40; pane rects are
    laid out on the view's terminal area in it (the sidebar's 26 columns and the tab bar's row
    taken off, src/ui.rs:227-244)."""
    area = ws.ok("pane.layout", pane_id="w1:p1")["layout"]["area"]
    r = rows(version)
    assert (area["x"] + area["width"], area["y"] + area["height"]) == (
        r.headless_cols,
        r.headless_rows,
    )
    assert (area["x"], area["y"]) == (r.view_sidebar_width, r.view_tab_bar_rows)
    assert (r.headless_cols, r.headless_rows) in ((80, 24), (120, 40))  # #2828's two sizes


@on("copilot_prompt_focus_in")
def test_copilot_prompt_focus_in_from_082(ws, version, monkeypatch):
    """#2734: 0.8.2 sends focus-in (ESC [ I) before a copilot prompt."""
    start_ready(ws, kind="copilot")
    written = []
    monkeypatch.setattr(ws.sim, "write_input", lambda pane, data: written.append(data))
    ws.ok("agent.prompt", target="rev", text="go")
    assert (b"\x1b[I" in written) is rows(version).copilot_prompt_focus_in


@on("tables.agent_kinds")
def test_qwen_is_no_kind_in_080(ws, version):
    if "qwen" not in kinds(version):
        e = ws.err("agent.start", name="q", kind="qwen", pane_id="w1:p1")
        assert e["code"] == "unsupported_agent_kind"
    else:
        assert ws.ok("agent.start", name="q", kind="qwen", pane_id="w1:p1")["type"] == (
            "agent_started"
        )


@on("tables.config_keys", "config_check_theme_names")
def test_config_diagnostics(version):
    """#2452 theme names, and the keys 0.8.0's reference lacks ([server], window_title, the
    retired ui.agent_panel_scope 0.8.2 still reads)."""
    text = (
        '[theme]\nname = "catppucin"\n[server]\nheadless_cols = 0\n'
        '[ui]\nwindow_title = "x"\nagent_panel_scope = "all"\n'
    )
    got = CK.diagnose(version, text)
    if not rows(version).config_check_theme_names:
        assert got == [
            "unknown config section [server]; ignoring section",
            "unknown config key ui.agent_panel_scope; ignoring key",
            "unknown config key ui.window_title; ignoring key",
        ]
    else:
        assert got == [
            'unknown theme name theme.name = "catppucin"; using "catppuccin"; valid themes: '
            + ", ".join(CK.THEME_NAMES),
            "server.headless_cols and server.headless_rows must be greater than zero (got 0x40)",
        ]


def test_release_data():
    """releases/0.8.0.toml's own facts, beside the base's."""
    v080, v082 = resolve("0.8.0"), resolve("0.8.2")
    assert v082.methods == M.METHODS_0_8_2 and v080.methods == M.METHODS_0_8_2 - {"pane.input.set"}
    for v in (v080, v082):
        assert v.schema == v.name and v.schema_published
    assert v080.commit.endswith("346411fa21afd297f5ed3b3fa56f9e3fbf7654b7")
    # every row read in a tree; the one choice: 0.8.0's manifests are 0.8.2's but qwen's
    assert {k for k, src in v080.sources.items() if src.evidence != "source"} == {"manifests"}


def test_081_is_082_but_two_rows():
    v081, v082 = resolve("0.8.1"), resolve("0.8.2")
    assert (v081.protocol, v081.methods, v081.schema) == (20, v082.methods, "0.8.2")
    diff = {
        k for k in v082.rows.__dataclass_fields__ if getattr(v081.rows, k) != getattr(v082.rows, k)
    }
    assert diff == {"cli_quiet_broken_pipe", "worktree_remove_focus_parent_only_if_active"}


def test_080_config_keys_match_its_reference():
    """0.8.0's key table against herdr's own 0.8.0 key reference (docs/next/website/src/data/
    config-reference.json at tag v0.8.0), read from a herdr git directory: SIMHERDR_HERDR_GIT,
    else the team's mirror. The undocumented keys are 0.8.2's minus the retired
    ui.agent_panel_scope (read from 1f1e4342, #2295)."""
    import json
    import os
    import subprocess
    from pathlib import Path

    git_dir = Path(os.environ.get("SIMHERDR_HERDR_GIT", "/work/.mirror/herdrdev+herdr/repo"))
    if not git_dir.is_dir():
        pytest.skip(f"no herdr git directory at {git_dir}: set SIMHERDR_HERDR_GIT")
    shown = subprocess.run(
        [
            "git",
            "-C",
            str(git_dir),
            "show",
            "346411fa:docs/next/website/src/data/config-reference.json",
        ],
        capture_output=True,
        text=True,
    )
    if shown.returncode != 0:
        pytest.skip(f"{git_dir} lacks herdr commit 346411fa: {shown.stderr.strip()}")
    doc = json.loads(shown.stdout)
    documented = {k["key"] for section in doc["sections"] for k in section["keys"]}
    ours = set(CK.flat_keys("0.8.0"))
    assert documented - ours == set()
    assert ours - documented == {
        "advanced.scrollback_lines",
        "keys.command",
        "keys.fullscreen",
        "ui.toast.enabled",
    }


def test_the_080_corpus_differs_from_082_only_by_its_rows():
    """The drift check of CONTRIBUTING's "Adding herdr X.Y": the client-suite corpus recorded on
    0.8.0 (`make corpus`) against 0.8.2's; every difference is explained by a 0.8.0 row."""
    from pathlib import Path

    from simherdr.contract.corpus import load_corpus
    from simherdr.contract.diff import diff_corpora

    base = Path(__file__).resolve().parents[1] / "contract" / "corpus"
    report = diff_corpora(load_corpus(str(base / "0.8.2")), load_corpus(str(base / "0.8.0")))
    rows = [d for d in report["differences"]]
    assert rows and all(d["explained_by"] for d in rows), [d for d in rows if not d["explained_by"]]
