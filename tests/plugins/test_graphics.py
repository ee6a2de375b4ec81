"""pane.graphics.* over the socket: a headless 0.8.2 herdr on its default config answers
feature_disabled (src/app/api/pane_graphics.rs:541-552); 0.9.2 retired the methods."""

from __future__ import annotations

import pytest

from tests.core.socketclient import request
from tests.releases import resolve

CALLS = [
    ("pane.graphics.info", {"pane_id": "w1:p1"}),
    ("pane.graphics.clear", {"pane_id": "w1:p1", "layer_id": "main"}),
    (
        "pane.graphics.set",
        {"pane_id": "w1:p1", "format": "png", "image_width": 1, "image_height": 1},
    ),
    ("pane.graphics.stream", {"pane_id": "nope"}),
]


@pytest.mark.parametrize("method,params", CALLS)
def test_graphics_answers(server, version, method, params):
    request(server.path, "workspace.create", {"cwd": "/"})
    reply = request(server.path, method, params, rid="g")
    if method not in resolve(version).retired_methods:
        assert reply == {
            "id": "g",
            "error": {
                "code": "feature_disabled",
                "message": "pane graphics require experimental.kitty_graphics",
            },
        }
        return
    # 0.9.2 retired them (VERSIONS.md §5 row 15), the request's id kept
    assert reply == {
        "id": "g",
        "error": {"code": "unknown_method", "message": f"unknown method: {method}"},
    }


def test_graphics_params_are_checked_first(server, version):
    bad = request(server.path, "pane.graphics.set", {"pane_id": "w1:p1", "format": "gif"})
    if (
        "pane.graphics.set" not in resolve(version).retired_methods
    ):  # a request that fails to parse answers id ""
        assert bad["id"] == "" and bad["error"]["code"] == "invalid_request"
    else:  # 0.9.2 retired the method (#4561), keeping the request's id
        assert bad == {
            "id": "t",
            "error": {"code": "unknown_method", "message": "unknown method: pane.graphics.set"},
        }
