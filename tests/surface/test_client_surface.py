"""The small methods as a headless herdr answers them with no client attached:
notification.show, client.window_title.*, agent.view.*, pane.input.set, popup.close."""

from __future__ import annotations

import pytest

from simherdr.simulator import Config
from simherdr.testing import Harness
from tests import herdr_reference as ref
from tests.releases import rows


def _harness(version, tmp_path, **cfg):
    return Harness(
        version,
        config=Config(home=str(tmp_path), server_cwd=str(tmp_path), **cfg),
        validator=ref.validator(version),
    )


def test_notification_disabled_by_default(h):
    assert h.ok("notification.show", title="build failed") == {
        "type": "notification_show",
        "shown": False,
        "reason": "disabled",
    }


def test_notification_title_must_survive_sanitising(h):
    assert h.err("notification.show", title=" \t\n\x07 ") == {
        "code": "invalid_params",
        "message": "notification title is empty",
    }


def test_notification_bad_position_is_a_parse_error(h):
    e = h.err("notification.show", title="t", position="middle")
    assert e["code"] == "invalid_request" and "unknown variant `middle`" in e["message"]


def test_in_app_toast_busy_then_rate_limit(version, tmp_path):
    with _harness(version, tmp_path, toast_delivery="herdr") as h:
        reason = lambda: h.ok("notification.show", title="t", sound="done")["reason"]
        if (
            rows(version).notification_needs_client_shell
        ):  # 0.9: only a client shell shows it, and none is attached
            assert [reason(), reason()] == ["no_foreground_client"] * 2
            return
        assert reason() == "shown"
        assert reason() == "busy"  # the toast is on screen for 3 s
        h.advance(3.0)
        assert reason() == "shown"
        h.advance(3.0)
        assert reason() == "shown"


@pytest.mark.parametrize("delivery", ["terminal", "system"])
def test_forwarded_delivery_has_no_client(version, tmp_path, delivery):
    with _harness(version, tmp_path, toast_delivery=delivery) as h:
        r = h.ok("notification.show", title="t", body="b")
        assert r == {"type": "notification_show", "shown": False, "reason": "no_foreground_client"}
        # nothing was shown, so nothing is rate-limited
        assert h.ok("notification.show", title="t")["reason"] == "no_foreground_client"


def test_off_is_disabled(version, tmp_path):
    with _harness(version, tmp_path, toast_delivery="off") as h:
        r = h.ok("notification.show", title="t")
        assert r == {"type": "notification_show", "shown": False, "reason": "disabled"}


def test_window_title(h):
    want = {"type": "client_window_title", "changed": False, "reason": "no_foreground_client"}
    assert h.ok("client.window_title.set", title="my title") == want
    assert h.sim.surface.api_window_title == "my title"
    assert h.ok("client.window_title.clear") == want
    assert h.sim.surface.api_window_title is None
    assert h.err("client.window_title.set", title="\x1b\x07 ") == {
        "code": "invalid_params",
        "message": "window title is empty",
    }


def test_agent_view_set_and_clear(h):
    view = {
        "source": " orch:board ",
        "label": "working",
        "filter": {
            "op": "all",
            "filters": [
                {"op": "in", "field": "status", "values": ["working", "blocked"]},
                {"op": "eq", "field": "workspace_id", "value": {"context": "current_workspace_id"}},
                {"op": "not", "filter": {"op": "exists", "field": {"token": "hidden"}}},
            ],
        },
        "sort": [{"field": "attention"}, {"field": {"token": "prio"}, "order": "desc"}],
    }
    assert h.ok("agent.view.set", **view) == {
        "type": "agent_view",
        "active": True,
        "source": "orch:board",
        "label": "working",
    }
    # a clear for another source leaves it; no source clears whatever is active
    assert h.ok("agent.view.clear", source="other")["active"] is True
    assert h.ok("agent.view.clear", source="orch:board") == {"type": "agent_view", "active": False}
    assert h.ok("agent.view.clear") == {"type": "agent_view", "active": False}


@pytest.mark.parametrize(
    "params,message",
    [
        (
            {"source": "bad source"},
            "agent view source must be non-empty, at most 120 characters, and contain only ASCII "
            "letters, digits, colon, dot, underscore, or hyphen",
        ),
        (
            {"source": "s", "label": " "},
            "agent view label must be non-empty and at most 32 characters",
        ),
        (
            {"source": "s", "filter": {"op": "eq", "field": "status", "value": "asleep"}},
            "unknown agent status `asleep`",
        ),
        (
            {"source": "s", "filter": {"op": "eq", "field": "seen", "value": "yes"}},
            "agent view value type does not match the selected field",
        ),
        (
            {
                "source": "s",
                "filter": {
                    "op": "eq",
                    "field": "tab_id",
                    "value": {"context": "current_workspace_id"},
                },
            },
            "agent view context type does not match the selected field",
        ),
        (
            {"source": "s", "filter": {"op": "any", "filters": []}},
            "agent view all/any filters must not be empty",
        ),
        (
            {"source": "s", "filter": {"op": "in", "field": "agent", "values": []}},
            "agent view in filters require 1 to 32 values",
        ),
        (
            {"source": "s", "filter": {"op": "exists", "field": {"token": "no spaces"}}},
            "invalid agent view token `no spaces`",
        ),
        (
            {"source": "s", "sort": [{"field": "agent"}] * 9},
            "agent view sort may contain at most 8 fields",
        ),
    ],
)
def test_agent_view_validation(h, params, message):
    assert h.err("agent.view.set", **params) == {"code": "invalid_agent_view", "message": message}


def test_agent_view_filter_depth(h):
    f: dict = {"op": "exists", "field": "agent"}
    for _ in range(8):
        f = {"op": "not", "filter": f}
    assert h.err("agent.view.set", source="s", filter=f)["message"] == (
        "agent view filter may be nested at most 8 levels"
    )


def test_agent_view_plugin_source_needs_the_plugin(h):
    assert h.err("agent.view.set", source="plugin:board") == {
        "code": "plugin_not_found",
        "message": "plugin not found",
    }


def test_pane_input_set(h, tmp_path):
    h.ok("workspace.create", cwd=str(tmp_path))
    assert h.ok("pane.input.set", pane_id="w1:p1", right_click="pane") == {"type": "ok"}
    assert h.err("pane.input.set", pane_id="w1:p9", right_click="herdr") == {
        "code": "pane_not_found",
        "message": "pane w1:p9 not found",
    }
    assert h.err("pane.input.set", pane_id="w1:p1")["message"] == (
        "invalid request: missing field `right_click`"
    )


def test_popup_close_with_no_popup(h):
    assert h.err("popup.close") == {"code": "popup_not_open", "message": "no popup is open"}


def test_every_small_method_over_the_socket(sock):
    sock.ok("workspace.create", cwd="/")
    assert sock.ok("notification.show", title="t")["reason"] == "disabled"
    assert sock.ok("client.window_title.set", title="t")["changed"] is False
    assert sock.ok("client.window_title.clear")["reason"] == "no_foreground_client"
    assert sock.ok("agent.view.set", source="s")["active"] is True
    assert sock.ok("agent.view.clear")["active"] is False
    assert sock.ok("pane.input.set", pane_id="w1:p1", right_click="herdr") == {"type": "ok"}
    assert sock.err("popup.close")["code"] == "popup_not_open"
