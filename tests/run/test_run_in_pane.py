"""`simherdr run --in-pane -- COMMAND` (issue 33 item 3): a pane is created for COMMAND and
COMMAND's environment is what herdr gives a pane's process (0.8.2 src/pane.rs:129-152,
src/integration/env.rs:26-31, src/main.rs:11-12; per release: rows term_program_env and
pane_env_removed), so clients that refuse to act outside herdr, or need their own pane, run."""

from __future__ import annotations

import json
import os
import sys

import pytest

from tests.releases import distinguishing, rows
from tests.run.test_run import simherdr_run

SHOW = r"""
import json, os, subprocess, sys
names = ("HERDR_ENV", "HERDR_WORKSPACE_ID", "HERDR_TAB_ID", "HERDR_PANE_ID", "HERDR_SOCKET_PATH",
         "HERDR_BIN_PATH", "TERM", "COLORTERM", "TERM_PROGRAM", "CODEX_THREAD_ID")
pane = subprocess.run(["herdr", "pane", "get", os.environ.get("HERDR_PANE_ID", "")],
                      capture_output=True, text=True)
json.dump({"env": {n: os.environ.get(n) for n in names}, "pane": pane.stdout,
           "pane_err": pane.stderr}, open(sys.argv[1], "w"))
"""


@pytest.mark.parametrize("version", distinguishing("term_program_env", "pane_env_removed"))
def test_in_pane_gives_herdrs_pane_environment(tmp_path, version):
    out = tmp_path / "seen.json"
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ, CODEX_THREAD_ID="outer", HERDR_ENV="0")
    p = simherdr_run(
        "--in-pane", "--herdr-version", version, "--", sys.executable, "-c", SHOW, str(out),
        cwd=str(work), env=env,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    seen = json.loads(out.read_text())
    got = seen["env"]
    pane = json.loads(seen["pane"])["result"]["pane"]
    assert got["HERDR_ENV"] == "1"
    assert (got["HERDR_WORKSPACE_ID"], got["HERDR_TAB_ID"], got["HERDR_PANE_ID"]) == (
        pane["workspace_id"],
        pane["tab_id"],
        pane["pane_id"],
    )
    assert pane["cwd"] == str(work)  # the pane opens where the command runs
    assert got["HERDR_SOCKET_PATH"].endswith("/herdr.sock")
    assert got["HERDR_BIN_PATH"].endswith("/bin/herdr")
    assert (got["TERM"], got["COLORTERM"]) == ("xterm-256color", "truecolor")
    assert (got["TERM_PROGRAM"] == "herdr") == rows(version).term_program_env
    assert got["CODEX_THREAD_ID"] is None  # removed by every release


def test_without_in_pane_the_command_is_outside_herdr(tmp_path):
    out = tmp_path / "seen.json"
    env = dict(os.environ, HERDR_ENV="1", HERDR_PANE_ID="w9:p9")
    p = simherdr_run("--", sys.executable, "-c", SHOW, str(out), env=env)
    assert p.returncode == 0, p.stderr
    got = json.loads(out.read_text())["env"]
    assert got["HERDR_ENV"] is None
