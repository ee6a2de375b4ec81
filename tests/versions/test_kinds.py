"""The agent kinds per version: 0.9.3 adds letta and muse ([H093] src/detect/mod.rs) and
muse's screen manifest ([H093] src/detect/manifests/muse.toml)."""

from __future__ import annotations

import pytest

from simherdr.facts import kinds as K
from simherdr.panes import detection as D
from tests.releases import tables


def test_kind_tables():
    assert len(K.KIND_NAMES) == 22 and len(K.KIND_NAMES_0_9_3) == 24
    assert K.KIND_NAMES_0_9_3[20:] == ("qwen", "letta", "maki", "muse")
    for name, v082, v093 in (
        ("muse", None, "muse"),
        ("Muse-CLI", None, "muse"),
        ("muse-bin-0.1.0-R708.1", None, "muse"),
        ("muse-binary", None, None),
        ("muse-bin", None, None),
        ("letta code", None, "letta"),
        (".cline", None, "cline"),
        ("claude-code", "claude", "claude"),
    ):
        assert K.parse_kind_in("0.8.2", name) == v082, name
        assert K.parse_kind_in("0.9.3", name) == v093, name


def test_agent_start_muse_side_by_side(ws, version):
    reply = ws.call("agent.start", name="m", kind="muse", pane_id="w1:p1")
    if "muse" not in K.kind_names_in(tables(version).agent_kinds):
        assert reply["error"] == {
            "code": "unsupported_agent_kind",
            "message": "unsupported interactive agent kind muse",
        }
        return
    assert reply["result"]["type"] == "agent_started"
    assert reply["result"]["argv"][0] == "muse"
    ws.advance(10)
    agent = ws.ok("agent.get", target="m")["agent"]
    assert agent["agent"] == "muse" and agent["agent_status"] == "idle"


def test_reported_label_canonical_side_by_side(ws, version):
    ws.ok("pane.report_agent", pane_id="w1:p1", source="custom:m", agent="muse-code", state="idle")
    label = ws.ok("pane.get", pane_id="w1:p1")["pane"]["agent"]
    assert label == (
        "muse" if "muse" in K.kind_names_in(tables(version).agent_kinds) else "muse-code"
    )


def test_typed_letta_is_an_agent_only_in_093(ws, version):
    ws.ok("pane.send_input", pane_id="w1:p1", text="letta", keys=["Enter"])
    ws.advance(10)
    pane = ws.ok("pane.get", pane_id="w1:p1")["pane"]
    assert pane.get("agent") == (
        "letta" if "letta" in K.kind_names_in(tables(version).agent_kinds) else None
    )


@pytest.mark.parametrize(
    "screen,state,rule",
    [
        ("hello\n\u27e9 \n  gpt-5 \u00b7 high \u00b7 ~/src", "idle", "idle_prompt"),
        ("\u25c6 Working (3s \u00b7 esc to interrupt)", "working", "working_esc_interrupt"),
        ("Allow this stage once\nAlways allow in this workspace", "blocked", "blocked_approval"),
        ("Do you trust this workspace?\nTrust and continue", "blocked", "workspace_trust_blocked"),
        ("Enter to select \u00b7 Tab for an optional note", "blocked", "pick_request_blocked"),
        ("enter confirm \u00b7 esc go back", "unknown", "menu_overlay"),
        # a lone approval phrase in the transcript is no blocker
        ("it said Allow once\n", "idle", "default_known_agent_idle_fallback"),
    ],
)
def test_muse_manifest(screen, state, rule):
    found = D.detect("muse", screen, manifests="0.9.3")
    assert (found.state, found.rule) == (state, rule)


def test_muse_manifest_is_a_093_data_file():
    from simherdr.panes import manifests as M

    assert "muse" not in [i["agent"] for i in M.agent_manifest_infos("0.8.2")]
    muse = [i for i in M.agent_manifest_infos("0.9.3") if i["agent"] == "muse"]
    assert muse == [
        {
            "agent": "muse",
            "source": "bundled",
            "source_kind": "bundled",
            "active_version": "2026.08.26.1",
            "local_override_shadowing_remote": False,
        }
    ]
