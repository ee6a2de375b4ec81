"""Real (PTY-backed) panes: fixtures.

Every test here runs a simherdr socket server (``ThreadServer``) whose panes are real shells
(``bash --norc --noprofile``) in pseudo-terminals, on a clock 20x faster than wall time so
herdr's 3 s detection grace takes 150 ms. Fake agents are tiny ``/bin/sh`` scripts written
into a ``bin`` directory on the panes' PATH (herdr detects them by process name: the kernel
names a script process after the script file).

Hygiene: ``no_leaks`` (autouse) tags every pane process with a per-test environment token and
fails the test when any process carrying it, or any new child of this process, is still
alive afterwards.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import uuid

import pytest

if not sys.platform.startswith("linux") or not os.path.isdir("/proc/self/task"):
    pytest.skip("real PTY panes need Linux with /proc", allow_module_level=True)
if shutil.which("bash") is None:
    pytest.skip(
        "real PTY panes are tested with bash, which is not installed", allow_module_level=True
    )

from simherdr.clock import ScaledClock
from simherdr.simulator import Config
from simherdr.stub.install import write_stub
from simherdr.testing import SocketClient, ThreadServer
from tests import herdr_reference as ref
from tests.pty.leaks import Since
from tests.releases import BASE

SCALE = 20.0  # simulated seconds per wall second
WALL_TIMEOUT = 10.0  # how long a test waits for something real to happen

FAKE_PI = r"""#!/bin/sh
# A fake `pi`: pi-like screens. herdr's pi manifest says "Working..." means working
# (src/detect/manifests/pi.toml:7-13); anything else is the known-agent idle fallback.
# It works until the test lets it go (Client.release: a line on the FIFO $FAKE_AGENT_GATE),
# else for FAKE_PI_WORK seconds.
work() {
  if [ -p "$FAKE_AGENT_GATE" ]; then IFS= read -r _ < "$FAKE_AGENT_GATE"; else sleep "${FAKE_PI_WORK:-0.6}"; fi
}
if [ -n "$FAKE_PI_REPORT" ]; then
  "$HERDR_BIN_PATH" pane report-agent "$HERDR_PANE_ID" --source custom:fake --agent pi --state "$FAKE_PI_REPORT"
fi
printf 'pi (fake) %s\n' "$*"
printf 'Working...\n'
work
# the idle screen keeps the arguments line: a test reads it whenever it gets there (shown
# only while working, a client later than the work's end under load never saw it)
printf '\033[2J\033[Hpi (fake) %s\n> ' "$*"
while IFS= read -r line; do
  case "$line" in
    /exit) exit 0 ;;
  esac
  printf '\033[2J\033[HWorking...\n'
  work
  printf '\033[2J\033[Hdone: %s\n> ' "$line"
done
"""


def request(path: str, method: str, params: dict | None = None, timeout: float = 15.0) -> dict:
    """The public socket client, every reply schema-checked, with a real-pane timeout."""
    check = ref.validator(ref.socket_version(path))
    return SocketClient(path, timeout, check).request(method, params, "t")


class Client:
    def __init__(self, srv: ThreadServer, env: dict, bindir: str, stub: str, gate: str):
        self.srv = srv
        self.path = srv.path
        self.env = env
        self.bindir = bindir
        self.stub = stub
        self.gate = gate

    def call(self, method: str, **params) -> dict:
        return request(self.path, method, params)

    def ok(self, method: str, **params) -> dict:
        reply = self.call(method, **params)
        assert "result" in reply, f"{method} failed: {reply}"
        return reply["result"]

    def err(self, method: str, **params) -> dict:
        reply = self.call(method, **params)
        assert "error" in reply, f"{method} unexpectedly succeeded: {reply}"
        return reply["error"]

    def workspace(self, **params) -> str:
        """A new workspace with one real pane whose shell prompt is up; its pane id."""
        result = self.ok("workspace.create", **params)
        pane_id = result["root_pane"]["pane_id"]
        self.wait_output(pane_id, r"^\$", regex=True)
        return pane_id

    def wait_output(
        self, pane_id: str, text: str, source: str = "visible", regex: bool = False
    ) -> str:
        match = {"type": "regex" if regex else "substring", "value": text}
        result = self.ok(
            "pane.wait_for_output",
            pane_id=pane_id,
            source=source,
            match=match,
            timeout_ms=int(WALL_TIMEOUT * SCALE * 1000),
        )
        return result["matched_line"]

    def release(self) -> None:
        """Ends a fake agent's work: a line on the FIFO it reads (``FAKE_AGENT_GATE``), once
        it is there to read it. A test lets the work end when it has seen what the work
        shows (``working``), not after a fixed time (0.6 s of idle waiting per work)."""
        import errno

        def reading() -> int | None:
            try:
                return os.open(self.gate, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as e:
                if e.errno == errno.ENXIO:  # no reader yet
                    return None
                raise

        fd = self.until(reading, "the fake agent to wait for its release")
        try:
            os.write(fd, b"go\n")
        finally:
            os.close(fd)

    def run(self, pane_id: str, command: str) -> None:
        """What `herdr pane run` sends: the text, then Enter, in one send_input."""
        self.ok("pane.send_input", pane_id=pane_id, text=command, keys=["Enter"])

    def until(self, fn, what: str, timeout: float = WALL_TIMEOUT):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = fn()
            if last:
                return last
            time.sleep(0.01)
        raise AssertionError(f"timed out waiting for {what}; last: {last!r}")

    def pane(self, pane_id: str) -> dict:
        return self.ok("pane.get", pane_id=pane_id)["pane"]

    def status_is(self, pane_id: str, status: str, agent: str | None = "pi") -> dict:
        def check():
            p = self.pane(pane_id)
            return p if p["agent_status"] == status and p.get("agent") == agent else None

        return self.until(check, f"{pane_id} to be {status} ({agent})")

    def events(self, kinds=None) -> list:
        return self.srv.run(lambda sim: [(k, d) for _, k, d in sim.hub.after(0, kinds)])

    def herdr(self, *args: str) -> tuple[int, str, str]:
        """Run the stand-in `herdr` binary against the server, like a client would."""
        import subprocess

        env = dict(os.environ, HERDR_SOCKET_PATH=self.path)
        p = subprocess.run([self.stub, *args], capture_output=True, text=True, env=env, timeout=30)
        return p.returncode, p.stdout, p.stderr


@pytest.fixture(autouse=True)
def no_leaks(monkeypatch):
    token = uuid.uuid4().hex
    monkeypatch.setenv("SIMHERDR_TEST_TOKEN", token)
    since = Since()  # what the test makes from now on (tests/pty/leaks.py)
    yield token
    deadline = time.monotonic() + 3.0
    while True:
        leaked_children, leaked_tagged = since.leaked(token)
        if not leaked_children and not leaked_tagged:
            return
        if time.monotonic() > deadline:
            break
        time.sleep(0.02)
    for pid in leaked_children | leaked_tagged:  # don't let one test poison the rest
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    pytest.fail(
        f"leaked processes: children {sorted(leaked_children)}, tagged {sorted(leaked_tagged)}"
    )


@pytest.fixture
def workdir():
    # Short paths: AF_UNIX socket paths are limited to 107 bytes.
    d = tempfile.mkdtemp(prefix="shp", dir="/tmp")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def make_client(workdir, monkeypatch):
    made = []

    def factory(
        pane_mode: str = "pty", scripts: dict | None = None, version: str = BASE, **config
    ) -> Client:
        home = os.path.join(workdir, "home")
        bindir = os.path.join(workdir, "bin")
        os.makedirs(home, exist_ok=True)
        os.makedirs(bindir, exist_ok=True)
        stub = write_stub(bindir, version)
        for name, text in {"pi": FAKE_PI, **(scripts or {})}.items():
            path = os.path.join(bindir, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        gate = os.path.join(workdir, "gate")
        if not os.path.exists(gate):
            os.mkfifo(gate)
        # What the pane shells inherit from "the server's environment".
        env = {
            "HOME": home,
            "PS1": "$ ",
            "HISTFILE": "/dev/null",
            "LANG": "C.UTF-8",
            "PATH": bindir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
            "FAKE_AGENT_GATE": gate,
        }
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        monkeypatch.delenv("PROMPT_COMMAND", raising=False)
        monkeypatch.delenv(
            "HERDR_AGENT", raising=False
        )  # herdr's agent hint (src/platform/mod.rs:319-328)
        config = Config(
            home=home,
            server_cwd=workdir,
            pane_mode=pane_mode,
            pty_shell="bash --norc --noprofile",
            herdr_bin_path=stub,
            **config,
        )
        srv = ThreadServer(
            version,
            path=os.path.join(workdir, "herdr.sock"),
            clock=ScaledClock(SCALE),
            config=config,
        )
        ref.bind_socket(srv.path, version)
        made.append(srv)
        return Client(srv, env, bindir, stub, gate)

    yield factory
    for srv in made:
        srv.stop()


@pytest.fixture
def client(make_client) -> Client:
    return make_client()
