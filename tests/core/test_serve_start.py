"""What `simherdr serve` imports up to its first pong (issue 16: exec to first pong <= 50 ms,
timed by benchmarks/serve_start.py). Structural, not timed: the areas and libraries the first
ping does not need stay unimported, so a top-level import that undoes the lazy loading fails
here rather than only as a slower benchmark."""

from __future__ import annotations

import json
import subprocess
import sys

import tests.herdr_reference as ref
from simherdr.facts.versions import DEFAULT_VERSION

# The server runs in the main thread; a client thread pings it, then prints the reply and
# every module loaded so far, and ends the process.
_PROBE = """
import os, socket, sys, threading, time
path, config_dir, method = sys.argv[1], sys.argv[2], sys.argv[3]

def client():
    while True:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(path)
            break
        except OSError:
            s.close()
            time.sleep(0.005)
    s.sendall(b'{"id":"t","method":"%s","params":{}}\\n' % method.encode())
    reply = b""
    while not reply.endswith(b"\\n"):
        reply += s.recv(65536)
    print(reply.decode().strip())
    print(" ".join(sorted(sys.modules)), flush=True)
    os._exit(0)

threading.Thread(target=client, daemon=True).start()
control = os.path.join(os.path.dirname(path), "control.sock")  # a control socket nobody uses
trace = os.path.join(os.path.dirname(path), "trace.jsonl")  # every request a line (no json)
sys.argv = ["simherdr", "serve", "--socket", path, "--control", control, "--trace", trace,
            "--quiet", "--herdr-config-dir", config_dir]
from simherdr.cli import main
main()
"""

# Not needed to answer a ping on a server with no config file, scenario or panes, a trace file
# (its lines by json's C encoder, simherdr.trace.dumps) and a control socket nobody used (its
# ops, the scenario and fault layer, come with its first request).
NOT_AT_START = (
    "tomllib",
    "hashlib",
    "shutil",
    "unicodedata",
    "struct",  # issue 34: the peer's pid (SO_PEERCRED) is read with memoryview.cast
    "json",  # issue 34: six regex compiles; wire and the release data read with _json's scanner
    "ctypes",  # the libghostty-vt engine (simherdr.panes.ghostty) is loaded by the first pane
    "simherdr.panes",  # panes, their engines and the stand-in's fork server: made on first use
    "simherdr.stub",
    "simherdr.protocol",  # the terminal plane's wire: its connections are made by a first client
    "simherdr.terminalplane.plane",
    "simherdr.terminalplane.connection",
    "simherdr.agents",
    "simherdr.hostcore.config_keys",
    "simherdr.git",
    "simherdr.hostconfig",  # no config.toml: runtime.config applies the defaults itself
    "simherdr.model.events",  # the session model: made by the first call that reads it
    "simherdr.model.hub",
    "simherdr.model.layout",
    "simherdr.model.metadata",
    "simherdr.model.screen",
    "simherdr.model.terminal",
    "simherdr.model.terminal_detection",
    "simherdr.model.state",
    "simherdr.model.surface",
    "simherdr.model.terminal_reports",
    "simherdr.outbox",
    "simherdr.panes.manifests",
    "simherdr.panes.pty",
    "simherdr.panes.simulated",
    "simherdr.persist",
    "simherdr.plugins",  # the plugin host is made on first use (Simulator.plugins)
    "simherdr.scenarios",
    "simherdr.views",
)
# The handler modules the first ping loads: the package, its table and ping's own area (the
# handler context is typing, and the worktree operations it holds are made on first use).
HANDLERS_AT_START = {
    "simherdr.handlers",
    "simherdr.handlers.registry",
    "simherdr.handlers.server",
}


def test_serve_answers_its_first_ping_without_the_areas_it_does_not_need(tmp_path):
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path / "herdr.sock"), str(config_dir), "ping"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    reply_line, modules_line = out.stdout.splitlines()
    reply = json.loads(reply_line)
    ref.validate_reply(reply, DEFAULT_VERSION)
    assert reply["result"]["type"] == "pong"
    modules = set(modules_line.split())
    early = [m for m in NOT_AT_START if m in modules]
    assert not early, f"imported before the first pong: {early}"
    assert {m for m in modules if m.startswith("simherdr.handlers")} == HANDLERS_AT_START


# What a client's first workspace.create still does without: the records of the model, git and
# metadata are made by facts.record (no dataclasses, no compile at import), shutil is imported
# by the one removal that needs it.
NOT_AT_FIRST_CREATE = ("dataclasses", "shutil", "tomllib", "simherdr.persist", "simherdr.plugins")


def test_a_first_workspace_create_imports_no_dataclasses_nor_shutil(tmp_path):
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _PROBE,
            str(tmp_path / "herdr.sock"),
            str(config_dir),
            "workspace.create",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    reply_line, modules_line = out.stdout.splitlines()
    assert json.loads(reply_line)["result"]["type"] == "workspace_created"
    modules = set(modules_line.split())
    assert "simherdr.model.terminal" in modules  # the probe reached the pane's terminal
    early = [m for m in NOT_AT_FIRST_CREATE if m in modules]
    assert not early, f"imported by a first workspace.create: {early}"
