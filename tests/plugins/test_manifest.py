"""herdr-plugin.toml validation as herdr's load_plugin_manifest (manifest.rs), in-process."""

from __future__ import annotations

import pytest

from .helpers import write_plugin

CASES = [
    ('id = "a b"\nname = "n"\nversion = "1"\nmin_herdr_version = "0.1.0"\n', "invalid_plugin_id"),
    ('id = "a"\nname = " "\nversion = "1"\nmin_herdr_version = "0.1.0"\n', "invalid_plugin_name"),
    ('id = "a"\nname = "n"\nversion = "1"\n', "invalid_plugin_min_herdr_version"),
    (
        'id = "a"\nname = "n"\nversion = "1"\nmin_herdr_version = "1.2"\n',
        "invalid_plugin_min_herdr_version",
    ),
    (
        'id = "a"\nname = "n"\nversion = "1"\nmin_herdr_version = "99.0.0"\n',
        "plugin_requires_newer_herdr",
    ),
    ('name = "n"\nversion = "1"\nmin_herdr_version = "0.1.0"\n', "plugin_manifest_parse_failed"),
    ("id = [", "plugin_manifest_parse_failed"),
    (
        'id = "a"\nname = "n"\nversion = "1"\nmin_herdr_version = "0.1.0"\nplatforms = []\n',
        "invalid_plugin_platform",
    ),
    (
        'id = "a"\nname = "n"\nversion = "1"\nmin_herdr_version = "0.1.0"\nplatforms = ["beos"]\n',
        "plugin_manifest_parse_failed",
    ),
]

BASE = 'id = "a"\nname = "n"\nversion = "1"\nmin_herdr_version = "0.1.0"\n'
ITEM_CASES = [
    ('[[actions]]\nid = "x.y"\ntitle = "t"\ncommand = ["true"]\n', "invalid_plugin_action_id"),
    ('[[actions]]\nid = "x"\ntitle = "t"\ncommand = []\n', "invalid_plugin_command"),
    ('[[actions]]\nid = "x"\ntitle = "t"\ncommand = ["true", ""]\n', "invalid_plugin_command"),
    (
        '[[actions]]\nid = "x"\ntitle = "t"\ncommand = ["a"]\n' * 2,
        "duplicate_plugin_action_id",
    ),
    ('[[panes]]\nid = "p"\ntitle = "t"\nwidth = 10\ncommand = ["a"]\n', "invalid_plugin_pane_size"),
    ('[[events]]\non = " "\ncommand = ["a"]\n', "invalid_plugin_event"),
    (
        '[[link_handlers]]\nid = "l"\ntitle = "t"\npattern = "x"\naction = "missing"\n',
        "invalid_plugin_link_handler_action",
    ),
]


@pytest.mark.parametrize("text,code", CASES + [(BASE + b, c) for b, c in ITEM_CASES])
def test_bad_manifests_fail_with_herdrs_code(h, tmp_path, text, code):
    root = tmp_path / "p"
    root.mkdir()
    (root / "herdr-plugin.toml").write_text(text)
    assert h.err("plugin.link", path=str(root))["code"] == code
    assert h.ok("plugin.list")["plugins"] == []


def test_requires_newer_message_names_both_versions(h, tmp_path, version):
    root = write_plugin(tmp_path / "p", "", min_version="9.9.9")
    assert h.err("plugin.link", path=str(root)) == {
        "code": "plugin_requires_newer_herdr",
        "message": f"plugin requires Herdr 9.9.9 or newer; current Herdr is {version}",
    }


def test_undeclared_platforms_warn_and_events_sort(h, tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "herdr-plugin.toml").write_text(
        BASE
        + '[[events]]\non = "tab.created"\ncommand = ["b"]\n'
        + '[[events]]\non = "pane.created"\ncommand = ["z"]\n'
        + '[[events]]\non = "tab.created"\ncommand = ["a"]\n'
    )
    plugin = h.ok("plugin.link", path=str(root / "herdr-plugin.toml"))["plugin"]
    assert [(e["on"], e["command"]) for e in plugin["events"]] == [
        ("pane.created", ["z"]),
        ("tab.created", ["a"]),
        ("tab.created", ["b"]),
    ]
    assert plugin["warnings"] == ["manifest does not declare platforms; platform support unknown"]
    assert plugin["min_herdr_version"] == "0.1.0"
