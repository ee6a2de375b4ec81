"""Golden tests: herdr's bundled screen manifests (simherdr/panes/manifests/*.toml), one known
screen per file gives the kind's state through the detection engine; the loader validates as
herdr's parse_manifest and reports what server.agent_manifests lists."""

from __future__ import annotations

import re

import pytest

from simherdr.facts.versions import releases
from simherdr.panes import detection as D
from simherdr.panes import manifests as M
from simherdr.panes.detection import detect
from tests.releases import VERSIONS

# (kind, screen, osc_title, osc_progress, expected state, expected rule) — written for these tests
GOLDEN = [
    ("amp", "╭─ main\n╰ claude thinking ─────\n", "", "", "working", "status_footer_working"),
    (
        "agy",
        "Agent is requesting permission for:\n  rm -rf build\nDo you want to proceed?\n",
        "",
        "",
        "blocked",
        "permission_prompt",
    ),
    (
        "claude",
        "────\n❯ \n────\n  ? for shortcuts\n",
        "✳ Claude Code",
        "",
        "idle",
        "live_prompt_box",
    ),
    (
        "cline",
        "Cline wants to run:\n  npm test\nLet Cline use this tool?\n",
        "",
        "",
        "blocked",
        "tool_permission",
    ),
    ("codex", "• Working (12s • esc to interrupt)\n", "", "", "working", "screen_working_fallback"),
    ("cursor", "  ⬢ Reading files\n  ctrl+c to stop\n", "", "", "working", "stop_hint_working"),
    ("devin", "Reading shell output\n  timeout: 30s\n", "", "", "working", "tool_reading_timeout"),
    ("droid", "⠙ Thinking...  (esc to stop)\n", "", "", "working", "spinner_stop_working"),
    (
        "gemini",
        "│ Apply this change?\n│ ● Yes, allow once\n",
        "",
        "",
        "blocked",
        "apply_or_allow_change",
    ),
    ("grok", "> refactor\n", "⚠ Action Required - grok", "", "blocked", "osc_title_blocked"),
    ("hermes", "thinking about it\n", "⏳ hermes", "", "working", "osc_title_working"),
    ("kilo", "building the feature\n  esc interrupt\n", "", "", "working", "esc_interrupt_working"),
    ("kimi", "  ⠹ Thinking...\n", "", "", "working", "braille_spinner_working"),
    ("kiro", "Kiro is working on it\n", "", "", "working", "kiro_working_marker"),
    ("maki", "output\n ⠋ [BUILD] model\n", "", "", "working", "status_bar_spinner_working"),
    (
        "opencode",
        "△ Permission required\n  bash: git push\n",
        "",
        "",
        "blocked",
        "permission_required",
    ),
    ("pi", "Working...\n", "", "", "working", "working_literal"),
    ("qodercli", "⠧ Generating a plan\n", "", "", "working", "spinner_working"),
    ("qwen", "answer\n", "◐ qwen", "", "working", "osc_title_working"),
    (
        "copilot",
        "Select an option\n  enter to select · esc to cancel\n",
        "",
        "",
        "blocked",
        "selection_blocker",
    ),
]


def test_every_bundled_manifest_has_a_golden_screen():
    assert sorted(k for k, *_ in GOLDEN) == sorted(M.BUNDLED)


@pytest.mark.parametrize(
    "kind,screen,title,progress,state,rule", GOLDEN, ids=[g[0] for g in GOLDEN]
)
def test_a_known_screen_gives_the_kinds_state(kind, screen, title, progress, state, rule):
    d = detect(kind, screen, title, progress, manifests="0.8.2")
    assert (d.state, d.rule) == (state, rule)
    # the same screen without the manifest's evidence is the known-agent idle fallback
    assert detect(kind, "$ \n", manifests="0.8.2").state in (
        "idle",
        "working",
    )  # cline's catch-all is working


def test_no_rule_means_the_idle_fallback_and_no_agent_unknown():
    assert detect("pi", "$ ls\n", manifests="0.8.2").rule == "default_known_agent_idle_fallback"
    assert (
        detect("omp", "Working...\n", manifests="0.8.2").state == "idle"
    )  # herdr bundles no omp manifest
    assert detect(None, "Working...\n", manifests="0.8.2").state == "unknown"


# The agents each manifest table bundles, by table key: 0.8.0 has no qwen (346411fa bundles
# no qwen.toml), muse is 0.9.x only.
BUNDLED_BY_TABLE = {
    "0.8.0": set(M.BUNDLED) - {"qwen"},
    "0.8.2": set(M.BUNDLED),
    "0.9.3": set(M.BUNDLED) | set(M.BUNDLED_0_9),
}


@pytest.mark.parametrize("table", sorted({v.tables.manifests for v in releases()}))
def test_each_file_pins_herdrs_manifest_version(table):
    loaded = M.load(table)
    assert set(loaded) == BUNDLED_BY_TABLE[table]
    for m in loaded.values():
        assert re.fullmatch(r"\d{4}\.\d{2}\.\d{2}\.\d+", m.version), m.agent
        assert m.min_engine_version <= M.ENGINE_VERSION and m.rules
    assert loaded["claude"].version == "2026.08.13.1"  # v0.8.2's, not HEAD's 2026.08.21.1
    assert all(m.id == m.agent for m in loaded.values())  # each file's id is its kind
    assert "antigravity" in loaded["agy"].aliases and "ghcs" in loaded["copilot"].aliases
    # 0.9.3's own pi and grok ([H093] src/detect/manifests/), 0.8.2's elsewhere
    versions = {
        "0.8.0": ("2026.06.10.1", "2026.07.16.2"),  # CHOICE (panes/manifests.py): 0.8.2's
        "0.8.2": ("2026.06.10.1", "2026.07.16.2"),
        "0.9.3": ("2026.09.14.1", "2026.09.18.2"),
    }
    assert (loaded["pi"].version, loaded["grok"].version) == versions[table]


@pytest.mark.parametrize(
    "table,screen,state,rule",
    [
        # 0.9.3's pi draws its working line as a border; 0.8.2's manifest does not know it
        ("0.9.3", "hello\n── ⠙ Working ──────────\n> ", "working", "working_border"),
        (
            "0.8.2",
            "hello\n── ⠙ Working ──────────\n> ",
            "idle",
            "default_known_agent_idle_fallback",
        ),
        ("0.9.3", "Working...\n", "working", "working_literal"),
    ],
)
def test_pi_by_version(table, screen, state, rule):
    found = D.detect("pi", screen, manifests=table)
    assert (found.state, found.rule) == (state, rule)


@pytest.mark.parametrize(
    "title,progress,screen,state,rule",
    [
        ("⚠ Action Required - grok", "", "", "blocked", "osc_title_blocked"),
        ("", "4;1;-1", "", "working", "osc_progress_working"),
        ("demo - grok", "4;0;0", "", "idle", "osc_title_idle"),
        (
            "",
            "",
            "  ⠧ Waiting on subagent… 2.8s   13s ⇣29.7k [stop]\n",
            "working",
            "spinner_status_working",
        ),
        ("", "", "┃  2 (○) Yes, proceed\n", "blocked", "option_dialog_blocked"),
        (
            "",
            "",
            "  ◎ 2 commands still running\n> \nctrl+.:shortcuts\n",
            "working",
            "background_status_working",
        ),
    ],
)
def test_grok_093(title, progress, screen, state, rule):
    found = D.detect("grok", screen, title, progress, manifests="0.9.3")
    assert (found.state, found.rule) == (state, rule)


def test_rust_regex_syntax_is_translated():
    assert M.python_pattern(r"^[\x{2800}-\x{28FF}] ") == "^[\\U00002800-\\U000028FF] "
    assert M.python_pattern(r"⚠[\u{fe0e}]") == "⚠[\\U0000FE0E]"
    assert re.search(M.python_pattern(r"\p{Alphabetic}+ing\b"), "⠙ Thinking")
    assert M.python_pattern(r"a\\x{41}") == r"a\\x{41}"  # an escaped backslash stays


@pytest.mark.parametrize(
    "text,message",
    [
        ("id = 'x'\n", "manifest must contain at least one rule"),
        (
            "min_engine_version = 9\n[[rules]]\nid = 'r'\ncontains = ['a']\n",
            "manifest requires engine 9, current engine is 3",
        ),
        (
            "[[rules]]\nid = 'r'\nstate = 'idle'\nskip_state_update = true\ncontains = ['a']\n",
            'rule r uses skip_state_update without state = "unknown"',
        ),
        (
            "[[rules]]\nid = 'r'\nregion = 'middle'\ncontains = ['a']\n",
            "rule r uses invalid region: middle",
        ),
        (
            "[[rules]]\nid = 'r'\nnot = [{ contains = ['a'] }]\n",
            "rule r must contain a positive matcher",
        ),
    ],
)
def test_invalid_manifests_are_refused(text, message):
    with pytest.raises(M.ManifestError) as e:
        M.parse(text, "x")
    assert str(e.value) == message


def test_agent_manifest_infos_report_the_bundled_sources():
    from tests import herdr_reference as ref

    infos = M.agent_manifest_infos("0.8.2")
    assert [i["agent"] for i in infos] == list(M.BUNDLED)
    assert infos[M.BUNDLED.index("pi")] == {
        "agent": "pi",
        "source": "bundled",
        "source_kind": "bundled",
        "active_version": "2026.06.10.1",
        "local_override_shadowing_remote": False,
    }
    for version in VERSIONS:
        reply = {"id": "t", "result": {"type": "agent_manifest_status", "manifests": infos}}
        ref.validate_reply(reply, version)
