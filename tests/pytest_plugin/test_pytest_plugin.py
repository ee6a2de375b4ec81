"""The pytest fixtures simherdr ships for its users (simherdr/pytest_plugin.py)."""

from __future__ import annotations

import json
import os

import pytest


def test_harness_fixture_defaults_to_the_default_profile(simherdr_harness):
    assert simherdr_harness.ok("ping")["protocol"] == 22
    assert simherdr_harness.ok("workspace.create")["workspace"]["workspace_id"] == "w1"


@pytest.mark.simherdr(version="0.8.2")
def test_marker_selects_the_version(simherdr_harness):
    assert simherdr_harness.ok("ping")["protocol"] == 20


@pytest.mark.simherdr(version="0.8.2")
def test_binary_fixture_talks_to_the_server(simherdr_herdr, simherdr_server):
    p = simherdr_herdr.run("workspace", "create", "--label", "t")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["id"] == "cli:workspace:create" and out["result"]["workspace"]["label"] == "t"
    assert simherdr_herdr.run("--version").stdout == "herdr 0.8.2\n"
    assert simherdr_herdr.env["HERDR_SOCKET_PATH"] == simherdr_server.path
    assert os.path.dirname(simherdr_herdr.path) in simherdr_herdr.env["PATH"].split(os.pathsep)[0]


def test_server_socket_is_removed_after_the_test(pytester):
    out = pytester.path / "socket-path.txt"
    pytester.makepyfile(f"""
        import os
        def test_uses_server(simherdr_server):
            assert os.path.exists(simherdr_server.path)
            open({str(out)!r}, "w").write(simherdr_server.path)
    """)
    result = pytester.runpytest_inprocess("-p", "no:xdist", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    path = out.read_text()
    assert path.endswith("herdr.sock") and not os.path.exists(path)
