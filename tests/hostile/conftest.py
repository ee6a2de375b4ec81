"""Shared pieces of the hostile-input run (``make fuzz``; also part of ``make test``).

Every server here is the real socket transport (ThreadServer) on a VirtualClock, so nothing
changes state behind a test's back (no timer fires unless a test moves the clock), and the
"no state change from a refused request" checks are exact.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import os
import socket
import time

import pytest
from hypothesis import HealthCheck, settings

from simherdr import views as V
from simherdr.clock import VirtualClock
from simherdr.facts.versions import DEFAULT_VERSION
from simherdr.handlers.common import read_pane
from simherdr.simulator import Config
from simherdr.testing import SocketClient, ThreadServer
from tests import herdr_reference as ref
from tests.budget import examples

# Bounded and reproducible: a fixed derivation of examples per test (derandomize), no example
# database, no deadline (a busy CI machine must not turn into flaky failures). `make fuzz`
# runs 10x deeper (tests/budget.py); a chosen depth: SIMHERDR_FUZZ_EXAMPLES=2000 make fuzz.
EXAMPLES = int(os.environ.get("SIMHERDR_FUZZ_EXAMPLES") or examples(40))
HOSTILE = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
)

#: examples actually generated per test (printed at the end of the module with -s)
CASES: collections.Counter = collections.Counter()


def server(version: str, tmp_path) -> ThreadServer:
    """A ThreadServer whose loop records every unhandled exception in ``srv.crashes`` (a
    connection task that dies, e.g. "Unhandled exception in client_connected_cb")."""
    home = tmp_path / "home"
    cwd = tmp_path / "cwd"
    home.mkdir(exist_ok=True)
    cwd.mkdir(exist_ok=True)
    srv = ThreadServer(
        version, clock=VirtualClock(), config=Config(home=str(home), server_cwd=str(cwd))
    )
    srv.crashes = []
    ref.bind_socket(srv.path, version)

    def handler(loop, context):
        srv.crashes.append(f"{context.get('message')}: {context.get('exception')!r}")

    srv.run(lambda sim: asyncio.get_running_loop().set_exception_handler(handler))
    return srv


def state(srv: ThreadServer):
    """Everything a refused request must leave untouched: the snapshot, the event hub's
    sequence, every pane's screen."""

    def take(sim):
        s = sim.session
        snap = V.session_snapshot(
            s, sim.version.name, sim.version.protocol, sim.version.rows.agent_completion_seq
        )
        screens = {
            p.pane_id: read_pane(sim, p, "recent", 1000, "text")["text"] for p in s.all_panes()
        }
        return snap, sim.hub.seq, screens

    return srv.run(take)


def ensure_workspace(srv: ThreadServer, cwd: str) -> None:
    async def go(sim):
        if not sim.session.workspaces:
            await sim.request({"id": "setup", "method": "workspace.create", "params": {"cwd": cwd}})

    srv.run(go)


def connect(path: str, timeout: float = 10.0) -> socket.socket:
    """A connected socket (a full listen backlog means wait, not fail)."""
    return SocketClient(path, timeout).connect()


def exchange(path: str, data: bytes, timeout: float = 10.0, half_close: bool = True) -> bytes:
    """Send ``data`` and read to EOF. Half-closing after the request cancels waits and
    subscriptions (SOCKET.md §1.2), so a generated wait never blocks the run."""
    return SocketClient(path, timeout).exchange(data, half_close=half_close)


def lines(out: bytes, version: str = DEFAULT_VERSION) -> list[dict]:
    """Each reply line, parsed and validated as a herdr envelope."""
    import json

    assert out == b"" or out.endswith(b"\n"), f"unterminated reply: {out[-200:]!r}"
    objs = []
    for raw in out.splitlines():
        obj = json.loads(raw)
        ref.validate_reply(obj, version)
        objs.append(obj)
    return objs


# --- leaks: file descriptors of this process, tasks on the server's loop ---------------------


def fd_count() -> int:
    return len(os.listdir("/proc/self/fd"))


def task_count(srv: ThreadServer) -> int:
    return srv.run(lambda sim: len(asyncio.all_tasks()))


def transport_count(srv: ThreadServer) -> int:
    """Open transports on the server's loop (its fds: one per live connection), for checks
    where other servers in this process would blur a whole-process fd count."""
    return srv.run(
        lambda sim: sum(
            1 for t in list(srv.loop._transports.values()) if t is not None and not t.is_closing()
        )
    )


def conn_count(srv: ThreadServer) -> int:
    return srv.run(lambda sim: srv.server.connections)


def baseline(srv: ThreadServer) -> tuple[int, int]:
    """fds of this process and tasks on the server's loop, once earlier tests' garbage (event
    loops of stopped servers and their fds) is collected."""
    gc.collect()
    time.sleep(0.05)
    return fd_count(), task_count(srv)


def settle(srv: ThreadServer, fds: int, tasks: int, timeout: float = 5.0) -> tuple[int, int]:
    """Wait until the fd and task counts are back to the given baseline (connections close
    asynchronously); return the last counts seen."""
    deadline = time.monotonic() + timeout
    gc.collect()
    while True:
        now = fd_count(), task_count(srv)
        if now == (fds, tasks) or time.monotonic() > deadline:
            return now
        time.sleep(0.02)


@pytest.fixture(scope="module", autouse=True)
def _report_cases(request):
    yield
    counts = {k: v for k, v in CASES.items() if k.startswith(request.module.__name__ + "::")}
    if counts:
        print(
            "\nhostile cases generated: "
            + ", ".join(f"{k.split('::')[1]}={v}" for k, v in counts.items())
        )
