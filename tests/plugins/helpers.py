"""Plugins the tests write: a manifest, and hook scripts that call back over the socket."""

from __future__ import annotations

import json
import sys
import textwrap
import time
from pathlib import Path

from tests.core.socketclient import request

# A tiny socket client a hook runs (no socat): one request, the reply printed to stdout.
CALLBACK = textwrap.dedent(
    """\
    import json, os, socket, sys
    method, params = sys.argv[1], json.loads(sys.argv[2])
    for key, value in params.items():  # "$HERDR_X" stands for the hook's own environment
        if isinstance(value, str) and value.startswith("$HERDR_"):
            params[key] = os.environ[value[1:]]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.environ["HERDR_SOCKET_PATH"])
    s.sendall(json.dumps({"id": "hook", "method": method, "params": params}).encode() + b"\\n")
    print(s.makefile().readline().strip())
    """
)


def write_plugin(root: Path, body: str, plugin_id: str = "test.plug", min_version="0.8.0") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "callback.py").write_text(CALLBACK)
    head = (
        f'id = "{plugin_id}"\nname = "Test plugin"\nversion = "1.0.0"\n'
        f'min_herdr_version = "{min_version}"\nplatforms = ["linux", "macos"]\n'
    )
    (root / "herdr-plugin.toml").write_text(head + textwrap.dedent(body))
    return root


def script(root: Path, name: str, text: str) -> str:
    """An executable shell script in the plugin root; ``$PY`` is this interpreter."""
    p = root / name
    p.write_text("#!/bin/sh\nPY=" + json.dumps(sys.executable) + "\n" + textwrap.dedent(text))
    p.chmod(0o755)
    return f"./{name}"


def call(sock: str, method: str, /, **params) -> dict:
    return request(sock, method, params)


def ok(sock: str, method: str, /, **params) -> dict:
    reply = call(sock, method, **params)
    assert "result" in reply, reply
    return reply["result"]


def err(sock: str, method: str, /, **params) -> dict:
    reply = call(sock, method, **params)
    assert "error" in reply, reply
    return reply["error"]


def wait_for(fn, timeout: float = 10.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def finished_logs(path: str, plugin_id: str) -> list[dict]:
    logs = ok(path, "plugin.log.list", plugin_id=plugin_id)["logs"]
    return logs if logs and all(log["status"] != "running" for log in logs) else []
