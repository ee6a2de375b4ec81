"""integration.install / integration.uninstall over the socket, both versions (herdr's server
runs its CLI's install code, src/app/api/integrations.rs): the same core as the stand-in's
`herdr integration`, writing under the simulator's home only. Replies schema-checked."""

from __future__ import annotations

import io
import json
import os

import pytest

from simherdr.hostcore import integration as core
from simherdr.stub.cli import integration as cli
from tests.core.socketclient import request
from tests.releases import resolve


def call(server, method, **params):
    return request(server.path, method, params, rid="i")


def agent_dir(home, target):
    folder = core._DIRS[target.label]({"HOME": home})
    os.makedirs(os.path.dirname(folder) if target.extension_dir else folder, exist_ok=True)
    return folder


def cli_lines(home, version, verb, label):
    out, err = io.StringIO(), io.StringIO()
    code = cli.run(verb, [label], {"HOME": home}, version, out, err)
    assert (code, err.getvalue()) == (0, "")
    return out.getvalue().splitlines()


@pytest.mark.parametrize("name", core.SOCKET_TARGETS)
def test_install_and_uninstall_answer_as_the_cli_prints(server, version, home, name):
    target = core.resolve(name, version)
    agent_dir(home, target)
    reply = call(server, "integration.install", target=name)
    assert reply["result"]["type"] == "integration_install"
    assert reply["result"]["target"] == name
    messages = reply["result"]["details"]["messages"]
    asset = os.path.join(core._DIRS[target.label]({"HOME": home}), *target.asset.split("/"))
    assert os.path.isfile(asset)
    assert core.parse_version(open(asset).read()) == core.expected_version(target, version)

    reply = call(server, "integration.uninstall", target=name)
    assert reply["result"]["type"] == "integration_uninstall"
    assert reply["result"]["target"] == name
    removed = reply["result"]["details"]["messages"]
    assert not os.path.exists(asset)
    # the stand-in's CLI, run on the same home, prints the very same lines
    assert cli_lines(home, version, "install", target.label) == messages
    assert cli_lines(home, version, "uninstall", target.label) == removed


def test_claude_install_writes_under_the_simulators_home(
    server, version, home, tmp_path, monkeypatch
):
    real = tmp_path / "runner-home"
    real.mkdir()
    (real / ".claude").mkdir()
    monkeypatch.setenv("HOME", str(real))  # the test runner's HOME: never written
    os.makedirs(os.path.join(home, ".claude"))
    result = call(server, "integration.install", target="claude")["result"]
    hook = os.path.join(home, ".claude", "hooks", "herdr-agent-state.sh")
    settings = os.path.join(home, ".claude", "settings.json")
    assert result == {
        "type": "integration_install",
        "target": "claude",
        "details": {
            "messages": [
                "installed claude integration hook to %s" % hook,
                "ensured claude settings at %s" % settings,
            ]
        },
    }
    assert os.access(hook, os.X_OK)
    assert hook in json.load(open(settings))["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert os.listdir(real / ".claude") == []


def test_integration_list_reports_what_install_wrote(server, version, home):
    if "integration.list" not in resolve(version).methods:
        pytest.skip("integration.list is 0.9.x")

    def state():
        rows = call(server, "integration.list")["result"]["integrations"]
        return {r["target"]: r["state"] for r in rows}["claude"]

    os.makedirs(os.path.join(home, ".claude"))
    assert state() == "not_installed"
    call(server, "integration.install", target="claude")
    assert state() == "current"
    call(server, "integration.uninstall", target="claude")
    assert state() == "not_installed"


def test_install_failure_is_herdrs_error_text(server, version, home):
    reply = call(server, "integration.install", target="claude")
    assert reply["error"] == {
        "code": "integration_install_failed",
        "message": "claude directory not found at %s. install claude code first"
        % os.path.join(home, ".claude"),
    }


def test_uninstall_failure_is_herdrs_error_text(server, version, home):
    os.makedirs(os.path.join(home, ".claude"))
    settings = os.path.join(home, ".claude", "settings.json")
    with open(settings, "w") as f:
        f.write("{not json")
    reply = call(server, "integration.uninstall", target="claude")
    assert reply["error"]["code"] == "integration_uninstall_failed"
    assert reply["error"]["message"].startswith("failed to parse %s: " % settings)


def test_os_errors_are_rusts_io_error_text(server, version, home):
    os.makedirs(os.path.join(home, ".claude"))
    os.makedirs(os.path.join(home, ".claude", "hooks", "herdr-agent-state.sh"))  # a directory
    reply = call(server, "integration.install", target="claude")
    assert reply["error"] == {
        "code": "integration_install_failed",
        "message": "Is a directory (os error 21)",
    }


@pytest.mark.parametrize("name", ["letta", "antigravity-cli", "nope"])
def test_only_the_socket_targets_are_accepted(server, version, name):
    reply = call(server, "integration.install", target=name)
    assert reply["error"]["code"] == "invalid_request"
    assert "unknown variant `%s`" % name in reply["error"]["message"]
