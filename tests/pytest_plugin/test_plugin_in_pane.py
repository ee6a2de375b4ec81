"""The pytest plugin's ``in_pane`` (issue 33 item 3): ``simherdr_herdr`` as if inside a herdr
pane, with herdr's pane environment (simherdr/panes/paneenv.py, per release)."""

from __future__ import annotations

import json
import os

import pytest

from tests.releases import DEFAULT_VERSION, rows


@pytest.mark.simherdr(version=DEFAULT_VERSION, in_pane=True)
def test_in_pane_gives_the_stand_in_a_pane(simherdr_herdr, simherdr_server):
    env = simherdr_herdr.env
    assert env["HERDR_ENV"] == "1"
    assert env["HERDR_PANE_ID"] == simherdr_herdr.pane_id is not None
    assert env["HERDR_WORKSPACE_ID"] == simherdr_herdr.workspace_id
    assert env["HERDR_TAB_ID"] == simherdr_herdr.tab_id
    assert env["HERDR_SOCKET_PATH"] == simherdr_server.path
    assert env["HERDR_BIN_PATH"] == simherdr_herdr.path
    assert env["TERM"] == "xterm-256color"
    assert (env.get("TERM_PROGRAM") == "herdr") == rows(DEFAULT_VERSION).term_program_env
    # the stand-in reads HERDR_PANE_ID: `pane get` of the caller's pane, its cwd ours
    p = simherdr_herdr.run("pane", "get", env["HERDR_PANE_ID"])
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["result"]["pane"]["cwd"] == os.getcwd()


def test_without_in_pane_no_pane(simherdr_herdr, monkeypatch):
    assert simherdr_herdr.pane_id is None
    assert "HERDR_ENV" not in simherdr_herdr.env


def test_in_pane_must_be_a_bool(pytester):
    pytester.makepyfile("""
        import pytest
        @pytest.mark.simherdr(in_pane="yes")
        def test_x(simherdr_herdr):
            pass
    """)
    result = pytester.runpytest_inprocess("-p", "no:xdist", "-p", "no:cacheprovider")
    assert "in_pane: must be True or False, not 'yes'" in result.stdout.str() + "\n".join(
        result.errlines
    )
