"""pane.report_metadata / workspace.report_metadata: herdr's validation order, tokens with a
TTL on the virtual clock, the overlay's authority rules, seq freshness, limits, events."""

from __future__ import annotations

import pytest

from tests.releases import kinds as release_kinds


def _events(h, since, kinds):
    return [(k, d) for _, k, d in h.sim.hub.after(since, kinds)]


def _pane(h):
    return h.ok("pane.get", pane_id="w1:p1")["pane"]


ERRORS = [
    # (params, code, message): herdr checks in this order (src/app/api/panes.rs:1290-1370)
    ({"pane_id": "w9:p9", "source": " ", "agent": " "}, "pane_not_found", "pane w9:p9 not found"),
    ({"source": " ", "agent": " "}, "invalid_agent", "agent label must not be empty"),
    (
        {"source": " ", "tokens": {"bad key": "x"}},
        "invalid_metadata_source",
        "metadata source must not be empty",
    ),
    (
        {"source": "a" * 81},
        "invalid_metadata_source",
        "metadata source must be 80 characters or fewer",
    ),
    (
        {"source": "a b", "title": "t"},
        "invalid_metadata_source",
        (
            "metadata source may contain only ASCII letters, digits, colon, dot, underscore, "
            "and hyphen"
        ),
    ),
    (
        {"source": "s", "tokens": {"bad key": "x"}, "ttl_ms": 0},
        "invalid_metadata_token",
        "invalid metadata token key: bad key",
    ),
    (
        {"source": "s", "tokens": {f"k{i}": "v" for i in range(17)}},
        "invalid_metadata_token",
        "a metadata report may update at most 16 tokens",
    ),
    (
        {"source": "s", "title": "t", "ttl_ms": 0},
        "invalid_metadata_ttl",
        "metadata ttl_ms must be at least 1",
    ),
    (
        {"source": "s", "title": "t", "ttl_ms": 86_400_001},
        "invalid_metadata_ttl",
        "metadata ttl_ms must be 86400000 or less",
    ),
    (
        {"source": "s", "applies_to_source": "", "state_labels": {"nope": "x"}},
        "invalid_metadata_source",
        "metadata source must not be empty",
    ),
    (
        {"source": "s", "state_labels": {" Sleeping ": "x"}},
        "invalid_state_label",
        "unknown state label: sleeping",
    ),
    (
        {"source": "s", "title": "t", "clear_title": True},
        "invalid_metadata_request",
        "cannot set and clear the same metadata field",
    ),
    (
        {"source": "s", "title": "  \n "},
        "invalid_metadata_request",
        "missing metadata field to set or clear",
    ),
]


@pytest.mark.parametrize("params,code,message", ERRORS)
def test_pane_validation_order(ws, params, code, message):
    assert ws.err("pane.report_metadata", **{"pane_id": "w1:p1", **params}) == {
        "code": code,
        "message": message,
    }


def test_pane_token_limit_counts_the_patch_result(ws):
    r = lambda toks: ws.call("pane.report_metadata", pane_id="w1:p1", source="s", tokens=toks)
    for base in (0, 16):
        assert "result" in r({f"k{i}": "v" for i in range(base, base + 16)})
    assert r({"extra": "v"})["error"] == {
        "code": "metadata_token_limit",
        "message": "pane metadata may contain at most 32 tokens",
    }
    assert "result" in r({"extra": "v", "k0": None})  # clearing one makes room


def test_tokens_normalised_and_cleared(ws):
    mark = ws.sim.hub.seq
    rev = _pane(ws)["revision"]
    ws.ok(
        "pane.report_metadata",
        pane_id="w1:p1",
        source="swift:ui",
        tokens={"summary": "  review\nready  ", "empty": " \n ", "model": "opus"},
    )
    p = _pane(ws)
    assert p["tokens"] == {"summary": "reviewready", "model": "opus"}
    assert p["revision"] == rev + 1
    ws.ok("pane.report_metadata", pane_id="w1:p1", source="swift:ui", tokens={"model": None})
    assert _pane(ws)["tokens"] == {"summary": "reviewready"}
    ws.ok("pane.report_metadata", pane_id="w1:p1", source="swift:ui", tokens={"model": None})
    kinds = [k for k, _ in _events(ws, mark, None)]
    assert kinds.count("pane_updated") == 2  # an unchanged patch emits nothing


def test_token_ttl_expires_on_the_virtual_clock(ws):
    ws.ok(
        "pane.report_metadata",
        pane_id="w1:p1",
        source="s",
        tokens={"short": "1"},
        ttl_ms=1500,
    )
    ws.ok("pane.report_metadata", pane_id="w1:p1", source="s", tokens={"long": "2"})
    mark, rev = ws.sim.hub.seq, _pane(ws)["revision"]
    ws.advance(1.49)
    assert _pane(ws)["tokens"] == {"short": "1", "long": "2"}
    assert _events(ws, mark, None) == []
    ws.advance(0.02)
    p = _pane(ws)
    assert p["tokens"] == {"long": "2"} and p["revision"] == rev + 1
    [(kind, data)] = _events(ws, mark, None)
    assert kind == "pane_updated" and data["pane"]["tokens"] == {"long": "2"}


def test_refreshed_token_keeps_its_new_deadline(ws):
    r = lambda ttl: ws.ok(
        "pane.report_metadata", pane_id="w1:p1", source="s", tokens={"k": "v"}, ttl_ms=ttl
    )
    r(1000)
    ws.advance(0.5)
    r(5000)  # same value, new deadline: the first timer finds nothing due
    ws.advance(1.0)
    assert _pane(ws)["tokens"] == {"k": "v"}
    ws.advance(4.0)
    assert "tokens" not in _pane(ws)


def test_title_overlay_and_its_expiry_events(ws):
    mark = ws.sim.hub.seq
    ws.ok(
        "pane.report_metadata",
        pane_id="w1:p1",
        source="pi:ext",
        title="Reviewing",
        display_agent="Pi",
        state_labels={"working": "thinking"},
        ttl_ms=2000,
    )
    p = _pane(ws)
    assert (p["title"], p["display_agent"], p["state_labels"]) == (
        "Reviewing",
        "Pi",
        {"working": "thinking"},
    )
    ws.advance(2.0)
    p = _pane(ws)
    assert "title" not in p and "display_agent" not in p and "state_labels" not in p
    got = [
        (d.get("title"), d.get("display_agent"), d.get("state_labels"))
        for _, d in _events(ws, mark, ("pane_agent_status_changed",))
    ]
    assert got == [("Reviewing", "Pi", {"working": "thinking"}), (None, None, None)]


def test_newest_field_wins_across_sources_and_clear_patches_one_source(ws):
    r = lambda **kw: ws.ok("pane.report_metadata", pane_id="w1:p1", **kw)
    r(source="a", title="from a", display_agent="A")
    r(source="b", title="from b")
    assert (_pane(ws)["title"], _pane(ws)["display_agent"]) == ("from b", "A")
    r(source="b", clear_title=True)
    assert (_pane(ws)["title"], _pane(ws)["display_agent"]) == ("from a", "A")
    r(source="a", title="only title")  # no clear flag: replaces source a's whole overlay
    assert _pane(ws)["title"] == "only title" and "display_agent" not in _pane(ws)


def test_overlay_bound_to_agent_and_authority(ws):
    r = lambda **kw: ws.ok("pane.report_metadata", pane_id="w1:p1", **kw)
    r(source="user:status", agent="claude", applies_to_source="hook:claude", title="Activity")
    assert "title" not in _pane(ws)  # no claude here, no hook:claude authority
    ws.ok(
        "pane.report_agent",
        pane_id="w1:p1",
        source="hook:claude",
        agent="claude",
        state="working",
    )
    assert _pane(ws)["title"] == "Activity"  # the guard now holds
    ws.ok("pane.report_agent", pane_id="w1:p1", source="hook:codex", agent="codex", state="working")
    assert "title" not in _pane(ws)  # another agent took authority: hidden again


def test_seq_freshness_per_source(ws):
    r = lambda **kw: ws.ok("pane.report_metadata", pane_id="w1:p1", source="s", **kw)
    r(title="one", seq=5)
    r(title="stale", seq=5)
    assert _pane(ws)["title"] == "one"
    r(title="unsequenced")  # no seq: always accepted
    assert _pane(ws)["title"] == "unsequenced"
    r(title="two", seq=6)
    assert _pane(ws)["title"] == "two"


def test_sequenced_token_sources_are_bounded(ws):
    for i in range(32):
        ws.ok("pane.report_metadata", pane_id="w1:p1", source=f"s{i}", tokens={"k": "v"}, seq=1)
    assert ws.err(
        "pane.report_metadata", pane_id="w1:p1", source="s32", tokens={"k": "v"}, seq=1
    ) == {
        "code": "metadata_sequence_source_limit",
        "message": "pane metadata may track at most 32 sequenced sources",
    }
    # presentation-only sequenced sources are unbounded
    ws.ok("pane.report_metadata", pane_id="w1:p1", source="s32", title="t", seq=1)


def test_workspace_tokens_ttl_and_events(ws):
    mark = ws.sim.hub.seq
    ws.ok(
        "workspace.report_metadata",
        workspace_id="w1",
        source="orch",
        tokens={"branch": "main"},
        ttl_ms=1000,
    )
    assert ws.ok("workspace.get", workspace_id="w1")["workspace"]["tokens"] == {"branch": "main"}
    ws.advance(1.0)
    assert "tokens" not in ws.ok("workspace.get", workspace_id="w1")["workspace"]
    got = [
        d["workspace"].get("tokens") for _, d in _events(ws, mark, ("workspace_metadata_updated",))
    ]
    assert got == [{"branch": "main"}, None]


WS_ERRORS = [
    (
        {"workspace_id": "w9", "source": " ", "tokens": {}},
        "workspace_not_found",
        "workspace w9 not found",
    ),
    (
        {"source": " ", "tokens": {}, "ttl_ms": 0},
        "invalid_metadata_source",
        "metadata source must not be empty",
    ),
    (
        {"source": "s", "tokens": {}, "ttl_ms": 0},
        "invalid_metadata_ttl",
        "metadata ttl_ms must be at least 1",
    ),
    ({"source": "s", "tokens": {}}, "invalid_metadata_token", "missing token to set or clear"),
]


@pytest.mark.parametrize("params,code,message", WS_ERRORS)
def test_workspace_validation_order(ws, params, code, message):
    assert ws.err("workspace.report_metadata", **{"workspace_id": "w1", **params}) == {
        "code": code,
        "message": message,
    }


def test_workspace_seq_and_limits(ws):
    r = lambda **kw: ws.call("workspace.report_metadata", workspace_id="w1", **kw)
    assert "result" in r(source="s", tokens={"a": "1"}, seq=2)
    assert "result" in r(source="s", tokens={"a": "stale"}, seq=2)
    assert ws.ok("workspace.get", workspace_id="w1")["workspace"]["tokens"] == {"a": "1"}
    for i in range(1, 32):
        assert "result" in r(source=f"s{i}", tokens={"b": "1"}, seq=1)
    assert r(source="s32", tokens={"b": "1"}, seq=1)["error"]["code"] == (
        "metadata_sequence_source_limit"
    )


def test_missing_tokens_is_a_parse_error(ws):
    assert ws.err("workspace.report_metadata", workspace_id="w1", source="s") == {
        "code": "invalid_request",
        "message": "invalid request: missing field `tokens`",
    }


def test_over_the_socket(sock):
    sock.ok("workspace.create", cwd="/")
    assert sock.ok(
        "pane.report_metadata",
        pane_id="w1:p1",
        source="swift",
        title="Build",
        tokens={"model": "opus"},
        ttl_ms=60_000,
    ) == {"type": "ok"}
    p = sock.ok("pane.get", pane_id="w1:p1")["pane"]
    assert p["title"] == "Build" and p["tokens"] == {"model": "opus"}
    assert sock.ok("workspace.report_metadata", workspace_id="w1", source="o", tokens={"x": "y"})
    assert sock.err("pane.report_metadata", pane_id="w1:p1", source="")["code"] == (
        "invalid_metadata_source"
    )


def test_report_about_an_agent_that_just_exited_is_dropped(ws):
    """metadata_report_blocked_by_process_exit (src/terminal/metadata.rs:79-94): answered ok,
    stored nowhere."""
    from simherdr.scenarios import agents as sc

    ws.ok("agent.start", name="rev", kind="claude", pane_id="w1:p1")
    ws.advance(5)
    sc.agent_exits(ws.sim, "w1:p1")
    mark = ws.sim.hub.seq
    for params in (
        {"agent": "claude", "title": "T"},
        {"applies_to_source": "herdr:claude", "title": "T"},
        {"agent": "claude-code", "tokens": {"k": "v"}},
    ):
        assert ws.ok("pane.report_metadata", pane_id="w1:p1", source="x", **params) == {
            "type": "ok"
        }
    p = _pane(ws)
    assert "title" not in p and "tokens" not in p and _events(ws, mark, None) == []
    # another source/agent is not blocked
    ws.ok("pane.report_metadata", pane_id="w1:p1", source="x", tokens={"k": "v"})
    assert _pane(ws)["tokens"] == {"k": "v"}


def test_the_exited_agent_is_named_with_the_version_kinds(ws):
    """0.9's kinds (letta and its aliases) decide which reports the exit drops: the label is
    read with the version's kind table (profile row agent_kinds)."""
    from simherdr.scenarios import agents as sc

    if "letta" not in release_kinds(ws.sim.version.name):
        pytest.skip("letta is not a kind of this release")
    ws.ok("agent.start", name="rev", kind="letta", pane_id="w1:p1")
    ws.advance(5)
    sc.agent_exits(ws.sim, "w1:p1")
    r = ws.ok(
        "pane.report_metadata", pane_id="w1:p1", source="x", agent="letta-code", tokens={"k": "v"}
    )
    assert r == {"type": "ok"} and "tokens" not in _pane(ws)
