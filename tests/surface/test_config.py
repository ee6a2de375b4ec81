"""herdr's config.toml read by the server (tomllib) and server.reload_config's
``config_reload`` reply; agent-detection manifests and their local overrides."""

from __future__ import annotations

import pytest

from simherdr.facts.kinds import kind_names_in
from simherdr.simulator import Config
from simherdr.testing import Harness, ThreadServer
from tests import herdr_reference as ref
from tests.releases import rows, tables
from tests.surface.conftest import Socket


@pytest.fixture
def cfgdir(tmp_path):
    d = tmp_path / "xdg" / "herdr"
    (d / "agent-detection").mkdir(parents=True)
    return d


def _config(tmp_path, cfgdir):
    return Config(
        home=str(tmp_path),
        server_cwd=str(tmp_path),
        herdr_config_dir=str(cfgdir),
        config_path=str(cfgdir / "config.toml"),
    )


def _h(version, tmp_path, cfgdir):
    return Harness(
        version,
        config=_config(tmp_path, cfgdir),
        validator=ref.validator(version),
    )


def test_values_read_at_start(version, tmp_path, cfgdir):
    (cfgdir / "config.toml").write_text(
        '[terminal]\ndefault_shell = "zsh"\nshell_mode = "login"\nnew_cwd = "home"\n'
        "[experimental]\npane_history = true\n[ui]\nconfirm_close = false\n"
        '[ui.toast]\ndelivery = "herdr"\n'
    )
    with _h(version, tmp_path, cfgdir) as h:
        c = h.sim.config
        assert (c.default_shell, c.shell_mode, c.new_cwd) == ("zsh", "login", "home")
        assert (c.pane_history, c.confirm_close, c.toast_delivery) == (True, False, "herdr")
        assert h.sim.surface.config_diagnostics == []


def test_bad_config_at_start_means_defaults(version, tmp_path, cfgdir):
    (cfgdir / "config.toml").write_text('[terminal]\nnew_cwd = "home"\nshell_mode = "sideways"\n')
    with _h(version, tmp_path, cfgdir) as h:
        assert h.sim.config.new_cwd == "follow"
        # herdr's start-up text (simherdr.hostcore.config_keys.diagnose: toml's frame)
        assert h.sim.surface.config_diagnostics == [
            "config parse error: TOML parse error at line 3, column 14\n  |\n"
            '3 | shell_mode = "sideways"\n  |              ^^^^^^^^^^\n'
            "unknown variant `sideways`, expected one of `auto`, `login`, `non_login`\n"
            "; using defaults"
        ]
        h.ok("workspace.create", cwd=str(tmp_path))  # and it serves


def test_reload_applied_partial_failed(version, tmp_path, cfgdir):
    path = cfgdir / "config.toml"
    with _h(version, tmp_path, cfgdir) as h:
        path.write_text('[terminal]\nnew_cwd = "home"\n')
        assert h.ok("server.reload_config") == {
            "type": "config_reload",
            "status": "applied",
            "diagnostics": [],
        }
        assert h.sim.config.new_cwd == "home"
        # a bad section keeps that section's current settings, the rest applies
        path.write_text(
            "[terminal]\nnew_cwd = 7\n[ui]\nconfirm_close = false\n[toast]\n[[plugins]]\nx = 1\n"
            "stray = 1\n"
        )
        r = h.ok("server.reload_config")
        assert r["status"] == "partial"
        assert r["diagnostics"] == [
            "unknown config section [toast]; did you mean [ui.toast]? ignoring section",
            "unknown config section [[plugins]]; ignoring section",
            "invalid terminal config: invalid type: integer `7`, expected a string for key "
            "`new_cwd`; keeping current terminal settings",
        ]
        assert h.sim.config.new_cwd == "home" and h.sim.config.confirm_close is False
        # unparsable: nothing changes, the server keeps serving
        path.write_text("[terminal\nnew_cwd = ")
        r = h.ok("server.reload_config")
        assert r["status"] == "failed"
        [d] = r["diagnostics"]
        assert d.startswith("config parse error: ") and d.endswith("; keeping current config")
        assert h.sim.config.new_cwd == "home" and h.sim.config.confirm_close is False
        h.ok("workspace.create", cwd=str(tmp_path))
        # removed file: herdr's defaults again
        path.unlink()
        assert h.ok("server.reload_config")["status"] == "applied"
        assert h.sim.config.new_cwd == "follow" and h.sim.config.confirm_close is True


def test_unknown_keys_inside_sections_are_diagnosed(version, tmp_path, cfgdir):
    (cfgdir / "config.toml").write_text(
        '[terminal]\nnew_cwd = "home"\nnew_cdw = "x"\n[ui.toast]\ndelivery = "herdr"\nspeed = 2\n'
    )
    with _h(version, tmp_path, cfgdir) as h:
        want = [
            "unknown config key terminal.new_cdw; ignoring key",
            "unknown config key ui.toast.speed; ignoring key",
        ]
        assert h.sim.surface.config_diagnostics == want  # at start
        assert h.sim.config.new_cwd == "home"  # unknown keys are ignored, the rest applies
        assert h.ok("server.reload_config") == {
            "type": "config_reload",
            "status": "partial",
            "diagnostics": want,
        }


def test_reloaded_new_cwd_policy_takes_effect(version, tmp_path, cfgdir):
    (tmp_path / "proj").mkdir()
    with _h(version, tmp_path, cfgdir) as h:
        h.ok("workspace.create", cwd=str(tmp_path / "proj"), focus=True)
        assert h.ok("pane.split", direction="right")["pane"]["cwd"] == str(tmp_path / "proj")
        (cfgdir / "config.toml").write_text('[terminal]\nnew_cwd = "current"\n')
        h.ok("server.reload_config")
        assert h.ok("pane.split", direction="right")["pane"]["cwd"] == str(tmp_path)


def test_reload_toast_makes_an_in_app_notification_busy(version, tmp_path, cfgdir):
    (cfgdir / "config.toml").write_text('[ui.toast]\ndelivery = "herdr"\n')
    with _h(version, tmp_path, cfgdir) as h:
        h.ok("server.reload_config")
        if rows(
            version
        ).notification_needs_client_shell:  # 0.9: no client shell attached, whatever the toast
            assert h.ok("notification.show", title="t")["reason"] == "no_foreground_client"
            return
        assert h.ok("notification.show", title="t")["reason"] == "busy"
        h.advance(3)
        assert h.ok("notification.show", title="t")["reason"] == "shown"


def test_bad_config_over_the_socket_keeps_serving(version, tmp_path, cfgdir):
    (cfgdir / "config.toml").write_text("not = [valid toml")
    with ThreadServer(version, config=_config(tmp_path, cfgdir)) as srv:
        s = Socket(srv, version)
        r = s.ok("server.reload_config")
        assert r["status"] == "failed" and r["diagnostics"][0].startswith("config parse error:")
        assert s.ok("workspace.create", cwd=str(tmp_path))["type"] == "workspace_created"
        assert s.ok("ping")["type"] == "pong"


def test_manifests_and_overrides(version, tmp_path, cfgdir):
    od = cfgdir / "agent-detection"
    with _h(version, tmp_path, cfgdir) as h:
        ms = h.ok("server.agent_manifests")["manifests"]
        assert [m["agent"] for m in ms][:3] == ["pi", "claude", "codex"]
        assert all(m["source_kind"] == "bundled" for m in ms)
        assert ("muse" in {m["agent"] for m in ms}) == (
            "muse" in kind_names_in(tables(version).agent_kinds)
        )
        (od / "claude.toml").write_text(
            'id = "claude-code"\nversion = "local.1"\n'
            '[[rules]]\nid = "w"\nstate = "working"\ncontains = ["Working"]\n'
        )
        (od / "codex.toml").write_text('id = "pi"\n[[rules]]\nid = "w"\ncontains = ["x"]\n')
        (od / "gemini.toml").write_text("id = \n")
        # cached until reloaded
        assert h.ok("server.agent_manifests")["manifests"] == ms
        by = {m["agent"]: m for m in h.ok("server.reload_agent_manifests")["manifests"]}
        assert by["claude"] == {
            "agent": "claude",
            "source": str(od / "claude.toml"),
            "source_kind": "local override",
            "active_version": "local.1",
            "local_override_shadowing_remote": False,
        }
        assert by["codex"]["source_kind"] == "bundled"
        assert by["codex"]["warning"] == (
            f"ignored override {od / 'codex.toml'} because manifest id pi does not match codex"
        )
        assert by["gemini"]["warning"].startswith(
            f"ignored override {od / 'gemini.toml'} because it could not be loaded: "
        )
        status = h.ok("server.agent_manifests")
        assert "last_check_unix" not in status and status["manifests"] == list(by.values())


def test_manifest_methods_over_the_socket(sock):
    assert sock.ok("server.agent_manifests")["type"] == "agent_manifest_status"
    assert sock.ok("server.reload_agent_manifests")["type"] == "agent_manifest_reload"
    assert sock.ok("server.reload_config") == {
        "type": "config_reload",
        "status": "applied",
        "diagnostics": [],
    }


def test_serve_reads_the_config_dir(tmp_path, cfgdir):
    from tests import forkserve
    from tests.core.socketclient import request
    from tests.inproc import simherdr_main

    (cfgdir / "config.toml").write_text('[terminal]\nnew_cwd = "home"\n[bogus]\n')
    sock = str(tmp_path / "run" / "herdr.sock")
    # forked and in-process (tests/forkserve.py, tests/inproc.py): the option, not the start
    proc = forkserve.spawn_server(sock, "0.8.2", extra=["--herdr-config-dir", str(cfgdir)])
    try:
        r = request(sock, "server.reload_config")["result"]
        assert r["diagnostics"] == ["unknown config section [bogus]; ignoring section"]
    finally:
        proc.terminate()
        proc.wait(10)
    out = simherdr_main("serve", "--help")
    assert out.returncode == 0 and "--no-herdr-config" in out.stdout
