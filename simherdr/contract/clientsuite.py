"""A client suite: what the clients of CLIENTS.md do to herdr, as a program to record.

Each flow acts like one client (entwurf's fresh-call rail §3.4, the opener §2, phren §4.1) or
touches one VERSIONS.md delta, talking to ``$HERDR_SOCKET_PATH`` and running ``herdr`` from
``PATH``, exactly as the clients do. Run under ``simherdr record`` it yields a corpus without
a hand-written cassette::

    simherdr record --upstream SOCK --socket PROXY --out DIR --name phren \\
        --herdr-bin "$(command -v herdr)" -- python -m simherdr.contract.clientsuite phren

``python -m simherdr.contract.clientsuite --build DIR --herdr-version V`` records every flow
against a fresh ``simherdr serve`` (one cassette per flow): ``make corpus`` writes the
committed corpora in tests/contract/corpus/.

Flows stay deterministic: fixed ids where a client chooses them, no wall-clock reads, reads
only of panes whose screen does not depend on timing.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

SESSION_UUID = "0b7e3c1a-5d2f-4e8a-9c61-2f4d8e9a7b10"  # a client-minted session id


def sock_call(method: str, params: dict | None = None, rid: str = "phren") -> dict:
    return json.loads(sock_line(json.dumps({"id": rid, "method": method, "params": params or {}})))


def sock_line(line: str) -> bytes:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(os.environ["HERDR_SOCKET_PATH"])
    try:
        s.sendall(line.encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return data
    finally:
        s.close()


def herdr(*argv: str, env: dict | None = None) -> tuple[int, dict | str]:
    e = dict(os.environ, **(env or {}))
    p = subprocess.run(["herdr", *argv], capture_output=True, text=True, env=e, timeout=300)
    text = p.stdout if p.returncode == 0 else p.stderr
    try:
        return p.returncode, json.loads(text)
    except json.JSONDecodeError:
        return p.returncode, text


def _workdir(name: str) -> str:
    d = tempfile.mkdtemp(prefix="clientsuite-")
    path = os.path.join(d, name)
    os.makedirs(path)
    return path


def entwurf() -> None:
    """CLIENTS.md §3.4: the fresh-call rail, its refusals and its reclaim."""
    cwd = _workdir("entwurf")
    _, ws = herdr("workspace", "create", "--cwd", cwd, "--no-focus")
    caller = ws["result"]["root_pane"]["pane_id"]  # the rail runs inside this pane
    w = herdr("pane", "get", caller)[1]["result"]["pane"]["workspace_id"]
    herdr("pane", "get", "--pane", caller)  # usage error (§1)
    herdr("tab", "create", "--workspace", "w99", "--no-focus")  # workspace_not_found
    _, tab = herdr(
        "tab",
        "create",
        "--workspace",
        w,
        "--no-focus",
        "--cwd",
        cwd,
        "--env",
        "PI_SESSION_ID=",
        "--env",
        "PI_AGENT_ID=",
    )
    pane = tab["result"]["root_pane"]["pane_id"]
    herdr(
        "agent",
        "start",
        "rail",
        "--kind",
        "pi",
        "--pane",
        "w99:p9",
        "--timeout",
        "240000",
        "--",
        "two\nlines",
    )
    herdr(
        "agent",
        "start",
        "rail",
        "--kind",
        "pi",
        "--pane",
        "w99:p9",
        "--timeout",
        "240000",
        "--",
        "one",
    )
    herdr(
        "agent", "start", "rail", "--kind", "pi", "--pane", pane, "--timeout", "3000"
    )  # invalid_agent_timeout
    herdr(
        "agent",
        "start",
        "rail",
        "--kind",
        "pi",
        "--pane",
        pane,
        "--timeout",
        "240000",
        "--",
        "--name",
        "rail",
        "--session-id",
        SESSION_UUID,
    )
    herdr("agent", "get", "rail")  # the witness read, by name
    herdr("agent", "get", "nobody")  # agent_not_found
    herdr("pane", "get", pane)  # reclaim: agent present -> no close
    _, t2 = herdr("tab", "create", "--workspace", w, "--no-focus")
    spare = t2["result"]["root_pane"]["pane_id"]
    herdr("pane", "get", spare)
    herdr("pane", "close", spare)  # reclaim: closed
    herdr("tab", "get", t2["result"]["tab"]["tab_id"])  # the only pane closed: tab_not_found
    herdr("tab", "close", tab["result"]["tab"]["tab_id"])  # closes with an agent running


def opener() -> None:
    """CLIENTS.md §2.4-2.6: the opener's panel and its Pi start."""
    path = _workdir("panel")
    herdr("worktree", "list", "--cwd", path)  # not a repository
    _, ws = herdr("workspace", "create", "--cwd", path, "--no-focus")
    w = ws["result"]["workspace"]["workspace_id"]
    herdr("pane", "list", "--workspace", w)
    pane = ws["result"]["root_pane"]["pane_id"]
    herdr("pane", "get", pane)
    herdr(
        "agent",
        "start",
        "panel",
        "--kind",
        "pi",
        "--pane",
        pane,
        "--timeout",
        "120000",
        "--",
        "--name",
        "panel",
        "--session-id",
        SESSION_UUID,
    )
    herdr(
        "agent", "start", "again", "--kind", "pi", "--pane", pane, "--timeout", "120000"
    )  # agent_pane_busy
    herdr("agent", "list")


def phren() -> None:
    """CLIENTS.md §4.1: phren's socket calls, in its order of use."""
    cwd = _workdir("phren")
    sock_call("ping")
    ws = sock_call(
        "workspace.create", {"label": "phren", "cwd": cwd, "focus": False, "env": {"PHREN": "1"}}
    )
    w = ws["result"]["workspace"]["workspace_id"]
    sock_call("session.snapshot")
    tab = sock_call(
        "tab.create", {"workspace_id": w, "label": "jobs", "cwd": cwd, "focus": False, "env": {}}
    )
    pane = tab["result"]["root_pane"]["pane_id"]
    sock_call("pane.process_info", {"pane_id": pane})
    sock_call("pane.read", {"pane_id": pane, "source": "recent", "lines": 20, "strip_ansi": True})
    sock_call(
        "agent.start", {"name": "job", "kind": "pi", "pane_id": pane, "timeout_ms": 3000}
    )  # invalid_agent_timeout
    sock_call(
        "agent.start", {"name": "Bad Name", "kind": "pi", "pane_id": pane, "timeout_ms": 45000}
    )
    sock_call("agent.start", {"name": "job", "kind": "pi", "pane_id": pane, "timeout_ms": 45000})
    # the socket start returns at once; wait for the agent like a client that needs it ready
    idle = {"event": "pane_agent_status_changed", "pane_id": pane, "agent_status": "idle"}
    sock_call("events.wait", {"match_event": idle, "timeout_ms": 60000})
    time.sleep(0.3)  # and for its launch to settle (0.9.x reports launch_pending until then)
    sock_call(
        "agent.start", {"name": "job2", "kind": "pi", "pane_id": pane, "timeout_ms": 45000}
    )  # busy
    sock_call("pane.process_info", {"pane_id": pane})
    sock_call("agent.get", {"target": "job"})
    sock_call("agent.rename", {"target": "job", "name": "job-renamed"})
    sock_call("agent.send_keys", {"target": "job-renamed", "keys": ["Escape"]})
    sock_call("agent.get", {"target": "nobody"})
    other = sock_call(
        "tab.create", {"workspace_id": w, "label": "own", "cwd": cwd, "focus": False, "env": {}}
    )
    own = other["result"]["root_pane"]["pane_id"]  # no detected agent to race the report
    sock_call("pane.send_text", {"pane_id": own, "text": "x"})
    sock_call("pane.send_keys", {"pane_id": own, "keys": ["Enter"]})
    sock_call(
        "pane.report_agent",
        {"pane_id": own, "source": "phren", "agent": "phren", "state": "working"},
    )
    sock_call("pane.get", {"pane_id": own})
    sock_call("pane.get", {"pane_id": pane})
    sock_call("pane.focus", {"pane_id": pane})
    sock_call("pane.rename", {"pane_id": pane, "label": "job pane"})
    sock_call("tab.rename", {"tab_id": tab["result"]["tab"]["tab_id"], "label": "renamed"})
    sock_call("pane.get", {"pane_id": "w99:p1"})
    # last: what pi does with a prompt, and when, is the agent's (no read shows its pane after)
    sock_call("agent.prompt", {"target": "job-renamed", "text": "hello"})
    sock_call("workspace.close", {"workspace_id": w})
    sock_call("workspace.get", {"workspace_id": w})


def deltas() -> None:
    """The VERSIONS.md §5 deltas a client can see without a git repository."""
    cwd = _workdir("deltas")
    sock_call("ping")
    _, ws = herdr("workspace", "create", "--cwd", cwd)
    root = ws["result"]["root_pane"]["pane_id"]
    w = ws["result"]["workspace"]["workspace_id"]
    herdr("pane", "split", "--direction", "down", env={"HERDR_PANE_ID": root})  # row 13
    herdr("worktree", "list", "--cwd", cwd, "--trust-repository")  # row 6
    herdr(
        "pane", "report-agent", "--source", "s", root, "--agent", "a", "--state", "idle"
    )  # row 10
    sock_line('{"id":"keep","method":"ping","params":7}')  # row 14
    sock_call("pane.graphics.info", {"pane_id": root})  # row 15
    sock_call("integration.list")  # row 16
    # row 7: a new subscription after history exists; then one live event
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(os.environ["HERDR_SOCKET_PATH"])
    s.sendall(
        b'{"id":"sub","method":"events.subscribe","params":{"subscriptions":[{"type":"pane.created"}]}}\n'
    )
    f = s.makefile("rb")
    f.readline()
    time.sleep(0.5)  # any replayed history arrives now
    _, tab = herdr("tab", "create", "--workspace", w, "--no-focus")
    live = tab["result"]["root_pane"]["pane_id"]
    try:
        while json.loads(f.readline())["data"]["pane"]["pane_id"] != live:
            pass
    finally:
        f.close()
        s.close()
    # row 5, last: in 0.9.3 it closes the workspace
    herdr("workspace", "close", w, "--group")


def worktree() -> None:
    """A worktree flow (the opener's panel, CLIENTS.md §2): a repository's worktrees listed,
    one created beside it, listed again, its workspace read and removed."""
    from .fixtures import git_repo

    repo = _workdir("repo")
    git_repo(repo)  # what replay builds again (FIXTURES)
    herdr("worktree", "list", "--cwd", repo)
    _, ws = herdr("workspace", "create", "--cwd", repo, "--no-focus")
    w = ws["result"]["workspace"]["workspace_id"]
    herdr("worktree", "list", "--workspace", w)
    code, made = herdr("worktree", "create", "--workspace", w, "--branch", "feat", "--no-focus")
    herdr("worktree", "list", "--workspace", w)
    if code == 0 and isinstance(made, dict):
        created = (made.get("result") or {}).get("workspace") or {}
        wid = created.get("workspace_id")
        if isinstance(wid, str):
            herdr("workspace", "get", wid)
            herdr("worktree", "remove", "--workspace", wid, "--force")
    herdr("worktree", "list", "--workspace", w)


def _call(path: str, method: str, params: dict) -> dict:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(path)
    try:
        s.sendall(json.dumps({"id": "dock", "method": method, "params": params}).encode() + b"\n")
        return json.loads(s.makefile("rb").readline())
    finally:
        s.close()


def launcher() -> None:
    """A dashboard that launches a headless herdr of its own (the pattern of gedovkl/herdr-dock's
    live suite, reimplemented): ``herdr --session N server``, ``status server`` until it runs
    (its socket from the output), the client's own socket calls to it (an agent reported, its
    status followed on a subscription, focused), then ``server stop`` and ``session delete``."""
    name = "clientsuite-dock"
    server = subprocess.Popen(
        ["herdr", "--session", name, "server"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        path = None
        deadline = time.monotonic() + 60
        while path is None and time.monotonic() < deadline:
            p = subprocess.run(
                ["herdr", "--session", name, "status", "server"], capture_output=True, text=True
            )
            if "status: running" in p.stdout:
                path = next(
                    line.split(":", 1)[1].strip()
                    for line in p.stdout.splitlines()
                    if line.startswith("socket:")
                )
            else:
                time.sleep(0.1)
        if path is None:
            raise SystemExit("clientsuite launcher: the session's server did not start")
        ws = _call(path, "workspace.create", {"cwd": _workdir("dock")})["result"]
        pane, w = ws["root_pane"]["pane_id"], ws["workspace"]["workspace_id"]
        report = {"pane_id": pane, "source": "dock", "agent": "claude"}
        _call(path, "pane.report_agent", {**report, "state": "working"})
        _call(path, "agent.list", {})
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        s.connect(path)
        sub = [{"type": "pane.agent_status_changed", "pane_id": pane}]
        s.sendall(
            json.dumps(
                {"id": "sub", "method": "events.subscribe", "params": {"subscriptions": sub}}
            ).encode()
            + b"\n"
        )
        f = s.makefile("rb")
        f.readline()
        _call(path, "pane.report_agent", {**report, "state": "blocked"})
        try:
            while json.loads(f.readline())["data"].get("agent_status") != "blocked":
                pass
        finally:
            f.close()
            s.close()
        _call(path, "agent.focus", {"target": pane})
        _call(path, "agent.list", {})
        _call(path, "workspace.close", {"workspace_id": w})
    finally:
        herdr("--session", name, "server", "stop")
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        herdr("session", "delete", name)


FLOWS: dict[str, Callable[[], None]] = {
    "entwurf": entwurf,
    "opener": opener,
    "phren": phren,
    "deltas": deltas,
    "worktree": worktree,
    "launcher": launcher,
}


def build(out: str, version: str, time_scale: float, flows: list[str]) -> int:
    """Record each flow through ``simherdr record`` against a fresh ``simherdr serve``."""
    from ..stub.install import write_stub
    from ..testing import spawn_server

    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="simherdr-corpus-")
    # the server's home (pi's session files live under it) is a temp path, normalized
    os.environ["HOME"] = os.path.join(tmp, "home")
    os.makedirs(os.environ["HOME"])
    real = write_stub(os.path.join(tmp, "bin"), herdr_version=version)
    for name in flows:
        for stale in (os.path.join(out, f"{name}.json"),):
            if os.path.exists(stale):
                os.unlink(stale)
        up = os.path.join(tmp, f"{name}.sock")
        srv = spawn_server(up, version, time_scale=time_scale)
        try:
            p = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "simherdr",
                    "record",
                    "--upstream",
                    up,
                    "--socket",
                    # not <name>.proxy: its client socket would be <name>-client.sock, the
                    # upstream's own (terminalplane client_socket_path)
                    os.path.join(tmp, f"{name}-proxy.sock"),
                    "--out",
                    out,
                    "--name",
                    name,
                    "--herdr-bin",
                    real,
                    "--time-scale",
                    str(time_scale),
                    "--",
                    sys.executable,
                    "-m",
                    "simherdr.contract.clientsuite",
                    name,
                ],
                timeout=600,
            )
        finally:
            srv.terminate()
            srv.wait(10)
        if p.returncode != 0:
            print(f"clientsuite: recording {name} failed ({p.returncode})", file=sys.stderr)
            return 1
        if name in FIXTURES:
            _add_fixtures(os.path.join(out, f"{name}.json"), FIXTURES[name])
    return 0


# What a flow builds outside herdr, that replay must build again before the first step: a
# fixture step per directory (the cassette names it by its reference), kind -> basename.
FIXTURES: dict[str, dict[str, str]] = {"worktree": {"git_repo": "repo"}}


def _add_fixtures(path: str, wanted: dict[str, str]) -> None:
    from .cassette import from_json

    with open(path, encoding="utf-8") as f:
        c = from_json(json.load(f), os.path.basename(path))
    steps = []
    for kind, base in wanted.items():
        ref = next((r for r, v in c.refs.items() if str(v).endswith("/" + base)), None)
        if ref is not None:
            steps.append({"fixture": kind, "path": ref, "t": 0})
    c.steps = steps + c.steps
    c.dump(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simherdr.contract.clientsuite")
    ap.add_argument("flows", nargs="*", help=f"flows to run: {', '.join(FLOWS)} (default: all)")
    ap.add_argument("--build", metavar="DIR", help="record every flow into DIR (one cassette each)")
    ap.add_argument(
        "--build-releases",
        metavar="ROOT",
        help="record every flow on every release simherdr has (facts/versions.py RELEASES) "
        "into ROOT/<release>/ (make corpus)",
    )
    from ..facts.versions import DEFAULT_VERSION, RELEASES

    ap.add_argument("--herdr-version", default=DEFAULT_VERSION, choices=RELEASES)
    ap.add_argument("--time-scale", type=float, default=50.0)
    args = ap.parse_args(argv)
    unknown = [f for f in args.flows if f not in FLOWS]
    if unknown:
        print(
            f"clientsuite: unknown flow {unknown[0]!r} (one of {', '.join(FLOWS)})", file=sys.stderr
        )
        return 2
    flows = args.flows or list(FLOWS)
    if args.build_releases:
        from ..facts.versions import RELEASES

        for release in RELEASES:
            print(f"clientsuite: recording herdr {release}", file=sys.stderr, flush=True)
            out = os.path.join(args.build_releases, release)
            if build(out, release, args.time_scale, flows):
                return 1
        return 0
    if args.build:
        from ..facts.versions import UnknownVersion, resolve

        try:
            resolve(args.herdr_version)
        except UnknownVersion as e:
            print(f"clientsuite: {e}", file=sys.stderr)
            return 2
        return build(args.build, args.herdr_version, args.time_scale, flows)
    if "HERDR_SOCKET_PATH" not in os.environ:
        print(
            "clientsuite: HERDR_SOCKET_PATH is not set (run it under simherdr record)",
            file=sys.stderr,
        )
        return 2
    for f in flows:
        FLOWS[f]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
