"""`herdr integration install|uninstall|status` for every herdr target (simherdr.stub.cli.integration)."""

from __future__ import annotations

import io
import json
import os

import pytest

from simherdr.stub.cli import integration as integ
from tests.releases import VERSIONS, kinds


def targets_of(version):
    return integ.targets(version) + ([integ.LETTA] if "letta" in kinds(version) else [])


CASES = [(v, t.label) for v in VERSIONS for t in targets_of(v)]


@pytest.fixture
def env(tmp_path):
    # PATH without a `kimi`: the kimi install warns that it cannot check the version.
    return {"HOME": str(tmp_path), "PATH": str(tmp_path / "bin")}


def call(env, version, verb, *args):
    out, err = io.StringIO(), io.StringIO()
    code = integ.run(verb, list(args), env, version, out, err)
    return code, out.getvalue(), err.getvalue()


def agent_dir(env, target):
    folder = integ._DIRS[target.label](env)
    # pi/omp: herdr creates the extensions dir when its parent exists.
    os.makedirs(os.path.dirname(folder) if target.extension_dir else folder, exist_ok=True)
    return folder


def status_line(env, version, label):
    code, out, err = call(env, version, "status")
    assert (code, err) == (0, "")
    prefix = label + (" (experimental)" if label == "letta" else "") + ": "
    (line,) = [line for line in out.splitlines() if line.startswith(prefix)]
    return line[len(prefix) :]


@pytest.mark.parametrize(("version", "label"), CASES)
def test_install_current_outdated_uninstall(env, version, label):
    target = integ._resolve(label, version)
    folder = agent_dir(env, target)
    asset = os.path.join(folder, *target.asset.split("/"))
    expected = integ.expected_version(target, version)
    assert status_line(env, version, label) == "not installed (%s)" % asset

    code, out, err = call(env, version, "install", label)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    shown = os.path.join(folder, *target.plugin_dir.split("/")) if target.plugin_dir else asset
    assert lines[0] == target.install.format(path=shown)
    for cfg in target.configs:
        if cfg.install and cfg.event != "legacy":
            assert cfg.install.format(path=os.path.join(folder, *cfg.path.split("/"))) in lines
    text = open(asset).read()
    assert "HERDR_INTEGRATION_VERSION=%d" % expected in text
    assert "not herdr's own asset" in text  # simherdr's own file, never herdr's
    assert integ.parse_version(text) == expected
    assert status_line(env, version, label) == "current (v%d) (%s)" % (expected, asset)
    if label != "letta":
        assert call(env, version, "status", "--outdated-only") == (0, "", "")

    # An older marker: outdated, and --outdated-only says how to update.
    with open(asset, "w") as handle:
        handle.write(text.replace("VERSION=%d" % expected, "VERSION=%d" % (expected - 1)))
    assert status_line(env, version, label) == "outdated (v%d < v%d) (%s)" % (
        expected - 1,
        expected,
        asset,
    )
    if label != "letta":  # letta is not one of the builtin statuses (fork registry.rs)
        assert call(env, version, "status", "--outdated-only") == (
            0,
            "",
            "installed herdr integrations need updating; run herdr integration install %s.\n"
            % label,
        )
    # No marker at all: a legacy install.
    with open(asset, "w") as handle:
        handle.write("#!/bin/sh\n")
    assert status_line(env, version, label) == "outdated (legacy < v%d) (%s)" % (expected, asset)

    assert call(env, version, "install", label)[0] == 0  # reinstall repairs
    code, out, err = call(env, version, "uninstall", label)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == target.removed.format(path=shown)
    assert not os.path.exists(asset)
    assert status_line(env, version, label) == "not installed (%s)" % asset
    code, out, err = call(env, version, "uninstall", label)
    assert out.splitlines()[0] == target.absent.format(path=shown)


def test_registration_removed_needs_repair_on_093(env):
    target = integ._resolve("claude", "0.9.3")
    folder = agent_dir(env, target)
    assert call(env, "0.9.3", "install", "claude")[0] == 0
    settings = os.path.join(folder, "settings.json")
    hooks = json.load(open(settings))["hooks"]["SessionStart"]
    assert (
        hooks[-1]["hooks"][0]["command"] == "bash '%s/hooks/herdr-agent-state.sh' session" % folder
    )
    os.remove(settings)
    assert status_line(env, "0.9.3", "claude").startswith("needs repair (v10)")
    assert status_line(env, "0.8.2", "claude").startswith("current (v10)")  # 0.8.2: marker only


def test_user_settings_survive_install_and_uninstall(env):
    target = integ._resolve("qwen", "0.8.2")
    folder = agent_dir(env, target)
    settings = os.path.join(folder, "settings.json")
    mine = {"theme": "dark", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}
    with open(settings, "w") as handle:
        json.dump(mine, handle)
    call(env, "0.8.2", "install", "qwen")
    call(env, "0.8.2", "install", "qwen")  # idempotent: one entry
    data = json.load(open(settings))
    assert data["theme"] == "dark" and len(data["hooks"]["SessionStart"]) == 1
    call(env, "0.8.2", "uninstall", "qwen")
    assert json.load(open(settings)) == mine


def test_grok_config_is_herdrs_exact_file(env):
    folder = agent_dir(env, integ._resolve("grok", "0.9.3"))
    call(env, "0.9.3", "install", "grok")
    hook = os.path.join(folder, "hooks", "herdr-agent-state.sh")
    config = os.path.join(folder, "hooks", "herdr.json")
    assert json.load(open(config)) == {
        "hooks": {
            "SessionStart": [
                {"hooks": [{"type": "command", "command": "sh '%s' session" % hook, "timeout": 10}]}
            ]
        }
    }
    with open(config, "w") as handle:
        handle.write("{}")
    assert status_line(env, "0.8.2", "grok").startswith("needs repair (v2)")


def test_outdated_only_lists_every_outdated_target(env):
    for label in ("pi", "claude", "codex"):
        target = integ._resolve(label, "0.8.2")
        agent_dir(env, target)
        call(env, "0.8.2", "install", label)
    # A 0.8.2 install is older than 0.9.3's pi (9), claude (10) and codex (9).
    assert call(env, "0.9.3", "status", "--outdated-only")[2] == (
        "installed herdr integrations need updating; run herdr integration install pi, "
        "herdr integration install claude and herdr integration install codex.\n"
    )


def test_hook_script_reports_the_session(env, tmp_path):
    import subprocess

    folder = agent_dir(env, integ._resolve("claude", "0.9.3"))
    call(env, "0.9.3", "install", "claude")
    log = tmp_path / "argv"
    fake = tmp_path / "fakeherdr"
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > ' + str(log) + "\n")
    fake.chmod(0o755)
    hook = os.path.join(folder, "hooks", "herdr-agent-state.sh")
    run_env = {"PATH": "/usr/bin:/bin", "HERDR_PANE_ID": "w1:p2", "HERDR_BIN_PATH": str(fake)}
    assert subprocess.run(["sh", hook, "session"], env=run_env, timeout=10).returncode == 0
    assert log.read_text().split("\n")[:7] == [
        "pane",
        "report-agent-session",
        "w1:p2",
        "--source",
        "simherdr:claude",
        "--agent",
        "claude",
    ]


def test_missing_agent_directory(env):
    code, out, err = call(env, "0.8.2", "install", "claude")
    assert (code, out) == (1, "")
    assert (
        err == "claude directory not found at %s/.claude. install claude code first\n" % env["HOME"]
    )
    code, _, err = call(env, "0.8.2", "install", "pi")
    assert code == 1
    assert err == (
        "pi extension directory not found at %s/.pi/agent/extensions. install pi first\n"
        % env["HOME"]
    )


@pytest.mark.parametrize(
    ("reported", "code", "tail"), [("kimi 0.15.2", 0, None), ("kimi v0.13.9", 1, "")]
)
def test_kimi_version_gate(env, tmp_path, reported, code, tail):
    os.makedirs(tmp_path / "bin")
    kimi = tmp_path / "bin" / "kimi"
    kimi.write_text("#!/bin/sh\necho '%s'\n" % reported)
    kimi.chmod(0o755)
    agent_dir(env, integ._resolve("kimi", "0.8.2"))
    env = dict(env, PATH=str(tmp_path / "bin") + ":/usr/bin:/bin")
    got, out, err = call(env, "0.8.2", "install", "kimi")
    assert got == code
    if code == 0:
        assert out.splitlines()[-1] == "requires kimi code 0.14.0 or newer"
    else:
        assert err == (
            "kimi code 0.13.9 is too old: herdr hooks require kimi code 0.14.0 or newer. "
            "upgrade kimi code, then re-run install\n"
        )


def test_kimi_without_binary_warns(env):
    agent_dir(env, integ._resolve("kimi", "0.8.2"))
    out = call(env, "0.8.2", "install", "kimi")[1]
    assert out.splitlines()[-1] == (
        "warning: could not run `kimi --version` to verify the installed version; hooks require "
        "kimi code 0.14.0 or newer"
    )


USAGE_082 = (
    "pi|omp|claude|codex|copilot|devin|droid|kimi|opencode|kilo|hermes|qodercli|qwen|cursor|"
    "mastracode|grok"
)


@pytest.mark.parametrize(
    ("version", "args", "code", "err"),
    [
        ("0.8.2", ("install",), 2, "usage: herdr integration install <%s>\n" % USAGE_082),
        (
            "0.8.2",
            ("uninstall", "a", "b"),
            2,
            "usage: herdr integration uninstall <%s>\n" % USAGE_082,
        ),
        (
            "0.9.3",
            ("install",),
            2,
            "usage: herdr integration install <%s>\n" % USAGE_082.replace("|qwen|", "|qwen|letta|"),
        ),
        (
            "0.8.2",
            ("install", "letta"),
            2,
            "unknown integration target: letta\ncurrently supported: pi, omp, claude, codex, "
            "copilot, devin, droid, kimi, opencode, kilo, hermes, qodercli, qwen, cursor, "
            "mastracode, antigravity-cli, grok\n",
        ),
        ("0.8.2", ("status", "--json"), 2, "usage: herdr integration status [--outdated-only]\n"),
    ],
)
def test_usage(env, version, args, code, err):
    assert call(env, version, *args) == (code, "", err)


def test_antigravity_alias(env):
    agent_dir(env, integ._resolve("antigravity-cli", "0.8.2"))
    code, out, _ = call(env, "0.8.2", "install", "antigravity_cli")
    assert code == 0 and out.startswith("installed antigravity-cli integration hook to ")


def test_clap_tree_targets_come_from_the_target_table():
    """spec.py's `integration install <TARGET>` values are IntegrationTarget::ALL (integ.TARGETS),
    plus 0.9.x's experimental labels at the end (src/cli/spec.rs integration_target_values)."""
    from simherdr.stub.cli.base import release_of
    from simherdr.stub.cli.spec import tree

    def values(version):
        release = release_of(version)
        root = tree(release)
        integration = next(c for c in root[3] if c[0] == "integration")
        install = next(c for c in integration[3] if c[0] == "install")
        return install[2][0]["pv"]

    assert values("0.8.2") == [t.label for t in integ.TARGETS]
    assert values("0.9.3") == [t.label for t in integ.TARGETS] + ["letta"]
