"""`herdr config check` and the config key table (simherdr.hostcore.config_keys)."""

from __future__ import annotations

import io
import json
import os

import pytest

from simherdr.hostcore import config_keys
from simherdr.stub.cli import config_check
from tests import herdr_reference as ref
from tests.releases import VERSIONS

#: Keys herdr reads that its reference does not list: serde aliases and retired settings
#: (model.rs:446 fullscreen, :959 scrollback_lines, :903-905 agent_panel_scope, :1180-1215
#: toast.enabled) and the [[keys.command]] rows (keybinds.rs:88-103).
UNDOCUMENTED = {
    "advanced.scrollback_lines",
    "keys.command",
    "keys.fullscreen",
    "ui.agent_panel_scope",
    "ui.toast.enabled",
}


@pytest.mark.parametrize("version", VERSIONS)
def test_key_table_matches_herdrs_reference(version):
    name = f"config-reference-{version}.json"
    path = ref.shared_file(name)
    if path is None:
        pytest.skip(ref.shared_skip_reason(name))
    doc = json.loads(path.read_text())
    documented = {k["key"] for section in doc["sections"] for k in section["keys"]}
    ours = set(config_keys.flat_keys(version))
    assert documented - ours == set()
    assert ours - documented == UNDOCUMENTED


def check(tmp_path, version, text=None, *, path=None):
    config = path or tmp_path / "config.toml"
    if text is not None:
        config.write_text(text)
    env = {"HOME": str(tmp_path), "HERDR_CONFIG_PATH": str(config)}
    out, err = io.StringIO(), io.StringIO()
    code = config_check.run("check", [], env, version, out, err)
    assert err.getvalue() == ""
    return code, out.getvalue()


@pytest.mark.parametrize("version", VERSIONS)
def test_missing_file_is_ok(tmp_path, version):
    assert check(tmp_path, version) == (0, "config: ok\n")


@pytest.mark.parametrize("version", VERSIONS)
def test_known_keys_are_ok(tmp_path, version):
    text = (
        'onboarding = false\n[theme]\nname = "Tokyo Night"\n[ui]\nmouse_capture = false\n'
        '[ui.toast]\ndelivery = "herdr"\n[[keys.command]]\nkey = "prefix+g"\ncommand = "lazygit"\n'
    )
    assert check(tmp_path, version, text) == (0, "config: ok\n")


@pytest.mark.parametrize("version", VERSIONS)
def test_unknown_keys_with_their_full_path(tmp_path, version):
    # herdr's own expectations (src/config/io.rs:916-963), sorted by path.
    text = (
        "plugin = 1\n[theme.custom]\naccentt = '#fff'\n[keys]\nnew_tabb = 'x'\n"
        "[[keys.command]]\ndescrption = 'x'\n[ui]\nmouse_captur = true\n'foo.bar' = 1\n"
        "[ui.toast]\ndelivry = 'off'\n[toast]\nx = 1\n"
    )
    code, out = check(tmp_path, version, text)
    assert code == 1
    assert out.splitlines() == [
        "config: issues found",
        "unknown config section [toast]; did you mean [ui.toast]? ignoring section",
        "unknown config key keys.command.0.descrption; ignoring key",
        "unknown config key keys.new_tabb; ignoring key",
        "unknown config key plugin; ignoring key",
        "unknown config key theme.custom.accentt; ignoring key",
        'unknown config key ui."foo.bar"; ignoring key',
        "unknown config key ui.mouse_captur; ignoring key",
        "unknown config key ui.toast.delivry; ignoring key",
    ]


def test_version_specific_keys(tmp_path):
    text = "[terminal]\nkitty_graphics = true\n"
    assert check(tmp_path, "0.9.3", text) == (0, "config: ok\n")
    assert check(tmp_path, "0.8.2", text) == (
        1,
        "config: issues found\nunknown config key terminal.kitty_graphics; ignoring key\n",
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_unknown_theme_name(tmp_path, version):
    code, out = check(tmp_path, version, '[theme]\nname = "nope"\nlight_name = "dawn"\n')
    assert code == 1
    assert out == (
        "config: issues found\n"
        'unknown theme name theme.name = "nope"; using "catppuccin"; valid themes: '
        + ", ".join(config_keys.THEME_NAMES)
        + "\n"
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_bad_toml(tmp_path, version):
    code, out = check(tmp_path, version, "[ui]\nmouse_capture = \n")
    assert code == 1
    lines = out.splitlines()
    assert lines[:5] == [
        "config: issues found",
        "config parse error: TOML parse error at line 2, column 17",
        "  |",
        "2 | mouse_capture = ",
        "  |                 ^",
    ]
    assert lines[-1] == "; using defaults"


@pytest.mark.parametrize("version", VERSIONS)
def test_wrong_type_fails_the_whole_file(tmp_path, version):
    code, out = check(tmp_path, version, '[ui]\nmouse_capture = "yes"\nmouse_captur = 1\n')
    assert code == 1
    assert out == (
        "config: issues found\n"
        "config parse error: TOML parse error at line 2, column 17\n"
        "  |\n"
        '2 | mouse_capture = "yes"\n'
        "  |                 ^^^^^\n"
        'invalid type: string "yes", expected a boolean\n'
        "; using defaults\n"
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_unreadable_path(tmp_path, version):
    folder = tmp_path / "config.toml"
    folder.mkdir()  # reading a directory fails even as root
    code, out = check(tmp_path, version, path=folder)
    assert (code, out) == (
        1,
        "config: issues found\nconfig read error: Is a directory (os error 21); using defaults\n",
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_permissions(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("")
    config.chmod(0)
    assert check(tmp_path, "0.9.3", path=config)[1].endswith(
        "config read error: Permission denied (os error 13); using defaults\n"
    )


def test_config_path_from_xdg(tmp_path):
    (tmp_path / "herdr").mkdir()
    (tmp_path / "herdr" / "config.toml").write_text("bogus = 1\n")
    out, err = io.StringIO(), io.StringIO()
    code = config_check.run("check", [], {"XDG_CONFIG_HOME": str(tmp_path)}, "0.8.2", out, err)
    assert code == 1 and "unknown config key bogus" in out.getvalue()


@pytest.mark.parametrize(("args", "code"), [(["--json"], 2), (["x", "y"], 2), (["help"], 0)])
def test_usage(tmp_path, args, code):
    out, err = io.StringIO(), io.StringIO()
    assert config_check.run("check", args, {"HOME": str(tmp_path)}, "0.9.3", out, err) == code
    assert (out.getvalue(), err.getvalue()) == ("", "usage: herdr config check\n")
