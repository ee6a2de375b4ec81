"""The surface methods through the stand-in ``herdr``, against the simulator's socket, on both
profiles (rows of simherdr/stub/cli/table.py; ``terminal title`` in stub/cli/terminal.py): each
test's first checked call through the binary (a process), the rest in-process
(tests/standin_inproc.py: the same stand-in code on the same socket, without a process a call)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from simherdr.stub.install import write_stub
from simherdr.testing import ThreadServer
from tests import herdr_reference as ref
from tests.standin_inproc import herdr_inproc


class Herdr:
    """The stand-in, run against one ThreadServer; JSON replies schema-checked per version."""

    def __init__(self, stub: str, srv: ThreadServer, version: str):
        self.stub, self.srv, self.version = stub, srv, version
        self.env = {**os.environ, "HERDR_SOCKET_PATH": srv.path}
        self.env.pop("HERDR_PANE_ID", None)

    def __call__(self, *argv: str, **extra_env: str) -> tuple[int, str, str]:
        """In this process."""
        p = herdr_inproc(self.stub, self.version, argv, {**self.env, **extra_env}, text=True)
        return p.returncode, p.stdout, p.stderr

    def process(self, *argv: str, **extra_env: str) -> tuple[int, str, str]:
        """Through the binary."""
        p = subprocess.run(
            [self.stub, *argv],
            env={**self.env, **extra_env},
            capture_output=True,
            text=True,
            timeout=30,
        )
        return p.returncode, p.stdout, p.stderr

    def result(self, out: str) -> dict:
        reply = json.loads(out)
        ref.validate_reply(reply, self.version)
        return reply["result"]


@pytest.fixture
def herdr(version, config, tmp_path):
    stub = write_stub(str(tmp_path / "bin"), version)
    with ThreadServer(version, config=config) as srv:
        yield Herdr(stub, srv, version)


def test_report_metadata_verbs(herdr, tmp_path):
    assert herdr("workspace", "create", "--cwd", str(tmp_path))[0] == 0
    rc, out, err = herdr.process(
        "pane",
        "report-metadata",
        "w1:p1",
        "--source",
        " pi:ext ",
        "--token",
        "model=opus",
        "--state-label",
        "Working=thinking",
        "--display-agent",
        "Pi",
        "--seq",
        "3",
        "--ttl-ms",
        "60000",
    )
    assert (rc, out, err) == (0, "", "")  # silent success
    pane = herdr.result(herdr("pane", "get", "w1:p1")[1])["pane"]
    assert pane["tokens"] == {"model": "opus"} and pane["display_agent"] == "Pi"
    assert pane["state_labels"] == {"working": "thinking"}
    # a stale seq is accepted silently and changes nothing
    assert (
        herdr(
            "pane",
            "report-metadata",
            "w1:p1",
            "--source",
            "pi:ext",
            "--display-agent",
            "X",
            "--seq",
            "3",
        )[0]
        == 0
    )
    assert herdr.result(herdr("pane", "get", "w1:p1")[1])["pane"]["display_agent"] == "Pi"
    rc, out, err = herdr(
        "workspace", "report-metadata", "w1", "--source", "orch", "--token", "b=main"
    )
    assert (rc, out, err) == (0, "", "")
    ws = herdr.result(herdr("workspace", "get", "w1")[1])["workspace"]
    assert ws["tokens"] == {"b": "main"}
    assert (
        herdr("workspace", "report-metadata", "w1", "--source", "orch", "--clear-token", "b")[0]
        == 0
    )
    assert "tokens" not in herdr.result(herdr("workspace", "get", "w1")[1])["workspace"]


def test_report_metadata_local_refusals_and_server_errors(herdr, tmp_path):
    herdr("workspace", "create", "--cwd", str(tmp_path))
    assert herdr.process("pane", "report-metadata", "w1:p1", "--source", "  ", "--title", "t") == (
        2,
        "",
        "missing required --source\n",
    )
    assert herdr("workspace", "report-metadata", "w1", "--source", "s") == (
        2,
        "",
        "missing token to set or clear\n",
    )
    rc, out, err = herdr("pane", "report-metadata", "w1:p1", "--source", "a b", "--title", "t")
    assert (rc, out) == (1, "")
    assert json.loads(err)["error"]["code"] == "invalid_metadata_source"


def test_server_verbs(herdr):
    rc, out, _ = herdr.process("server", "reload-config")
    assert rc == 0 and herdr.result(out) == {
        "type": "config_reload",
        "status": "applied",
        "diagnostics": [],
    }
    rc, out, _ = herdr("server", "agent-manifests")
    lines = out.splitlines()
    assert rc == 0 and lines[:3] == ["last check: never", "result: not checked", ""]
    assert (
        lines[3]
        == "  pi        bundled        active %-14s remote -              not checked"
        % (
            # pi's bundled manifest version, by the release's manifest table
            {"0.8.2": "2026.06.10.1", "0.9.3": "2026.09.14.1"}[
                herdr.srv.sim.version.tables.manifests
            ]
        )
    )
    rc, out, _ = herdr("server", "agent-manifests", "--json")
    assert rc == 0 and herdr.result(out)["type"] == "agent_manifest_status"
    rc, out, _ = herdr("server", "reload-agent-manifests")
    assert rc == 0 and herdr.result(out)["type"] == "agent_manifest_reload"


def test_client_surface_verbs(herdr, tmp_path):
    herdr("workspace", "create", "--cwd", str(tmp_path))
    rc, out, _ = herdr.process(
        "notification", "show", "build failed", "--body", "api", "--sound", "done"
    )
    assert rc == 0 and herdr.result(out) == {
        "type": "notification_show",
        "shown": False,
        "reason": "disabled",
    }
    rc, out, _ = herdr("terminal", "title", "set", "my title")
    herdr.result(out)
    assert rc == 0 and json.loads(out) == {
        "id": "cli:terminal:title:set",
        "result": {
            "type": "client_window_title",
            "changed": False,
            "reason": "no_foreground_client",
        },
    }
    rc, out, _ = herdr("terminal", "title", "clear")
    assert rc == 0 and json.loads(out)["id"] == "cli:terminal:title:clear"
    assert herdr("terminal", "title", "set") == (2, "", "usage: herdr terminal title set <title>\n")
    rc, _, err = herdr("terminal")
    assert rc == 2 and err.startswith("herdr terminal commands:\n")
    rc, out, _ = herdr("pane", "input", "--right-click", "pane", "--current", HERDR_PANE_ID="w1:p1")
    assert rc == 0 and json.loads(out) == {"id": "cli:pane:input:set", "result": {"type": "ok"}}
