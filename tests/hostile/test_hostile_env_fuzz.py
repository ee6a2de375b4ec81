"""Issue 25 item 6: stand-in runs with garbage in their environment against one server.

The issue's fuzz (231 stand-in runs with garbage HERDR_*, XDG_*, HOME, TMPDIR, TERM, SHELL, LANG,
SIMHERDR_TIME_SCALE, PATH values against one server) once made the server log ``OSError: [Errno
9] Bad file descriptor``. That was not reproduced since; this keeps the fuzz in the hostile
suite so that a crash of the server, or a traceback of the stand-in, fails a test the day it
comes back. Bounded and reproducible: a fixed seed, ``SIMHERDR_FUZZ_ENV_RUNS`` runs (default
40; the issue's 231 with ``SIMHERDR_FUZZ_ENV_RUNS=231 make fuzz``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import subprocess

import pytest

from simherdr.clock import ScaledClock
from simherdr.simulator import Config
from simherdr.stub.install import write_stub
from simherdr.testing import ThreadServer
from tests.releases import VERSIONS

from .conftest import exchange

pytestmark = pytest.mark.hostile

RUNS = int(os.environ.get("SIMHERDR_FUZZ_ENV_RUNS", "40"))
# Verbs that answer without waiting on the server's clock (the fuzz is about the environment,
# not about waits), each valid for every release.
VERBS = [
    ["workspace", "list"],
    ["workspace", "create"],
    ["pane", "list"],
    ["pane", "get", "w1:p1"],
    ["pane", "split", "w1:p1", "--direction", "right"],
    ["pane", "send-text", "w1:p1", "echo hi"],
    ["pane", "read", "w1:p1"],
    ["agent", "list"],
    ["tab", "list"],
    ["session", "list"],
    ["status"],
    ["api", "snapshot"],
    ["nonsense-verb"],
    ["--version"],
]
KEYS = [
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "TMPDIR",
    "TERM",
    "SHELL",
    "LANG",
    "LC_ALL",
    "SIMHERDR_TIME_SCALE",
    "HERDR_CONFIG_PATH",
    "HERDR_PANE_ID",
    "HERDR_SESSION",
    "HERDR_ENV",
    "COLUMNS",
]


def _garbage(rng: random.Random, tmp: str) -> str:
    return rng.choice(
        [
            "",
            " ",
            "\t",
            "x" * rng.choice([1, 300, 5000]),
            "/" + "y" * 4200,
            "-1",
            "0",
            "nan",
            "inf",
            "1e400",
            "../../..",
            "/dev/null",
            "/proc/self/fd/0",
            os.path.join(tmp, "a-file"),
            "é🙂\u202e",
            "w1:p999",
            "$(reboot)",
            "%s%s%n",
        ]
    )


@pytest.fixture
def served(tmp_path):
    """One server on the real socket transport; every unhandled loop exception and every
    logged error is a crash."""
    home = tmp_path / "home"
    home.mkdir()
    srv = ThreadServer(
        VERSIONS[-1], clock=ScaledClock(1000), config=Config(home=str(home), server_cwd=str(home))
    )
    crashes: list[str] = []

    def handler(loop, context):
        crashes.append(f"{context.get('message')}: {context.get('exception')!r}")

    srv.run(lambda sim: asyncio.get_running_loop().set_exception_handler(handler))
    yield srv, crashes
    srv.stop()


def test_garbage_environments_crash_neither_the_server_nor_the_stand_in(served, tmp_path, caplog):
    srv, crashes = served
    (tmp_path / "a-file").write_text("not a directory")
    stubs = {v: write_stub(str(tmp_path / "bin" / v), v) for v in (VERSIONS[0], VERSIONS[-1])}
    rng = random.Random(25)
    caplog.set_level(logging.ERROR)
    for n in range(RUNS):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HERDR_SOCKET_PATH": srv.path}
        for key in rng.sample(KEYS, rng.randint(1, 6)):
            env[key] = _garbage(rng, str(tmp_path))
        if rng.random() < 0.1:
            env["PATH"] = _garbage(rng, str(tmp_path))
        argv = rng.choice(VERBS)
        stub = stubs[rng.choice(sorted(stubs))]
        got = subprocess.run([stub, *argv], env=env, capture_output=True, timeout=30)
        # herdr's exits: 0, 1 (an error line), 2 (usage); never a Python traceback
        assert got.returncode in (0, 1, 2), (n, argv, env, got)
        assert b"Traceback" not in got.stderr, (n, argv, env, got.stderr[-2000:])
    assert crashes == []
    assert [r.getMessage() for r in caplog.records if r.name.startswith("simherdr")] == []
    assert (
        json.loads(exchange(srv.path, b'{"id":"p","method":"ping","params":{}}\n'))["result"][
            "type"
        ]
        == "pong"
    )
