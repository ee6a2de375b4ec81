"""``make demo``: start a simulator, drive a short session with the stand-in binary, show it.

Everything goes through the stand-in ``herdr`` binary as a subprocess, exactly as a client
would run the real one; the simulator is a separate ``simherdr serve`` process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

TIME_SCALE = 10.0  # simulated seconds per wall second: herdr's 3 s agent settle takes 300 ms


def _show(step: str, argv: list[str], env: dict) -> dict | str | None:
    t0 = time.monotonic()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    ms = (time.monotonic() - t0) * 1000
    shown = " ".join(a if " " not in a else repr(a) for a in argv[1:])
    print(f"\n$ herdr {shown}    # {step} ({ms:.0f} ms, exit {proc.returncode})")
    out = proc.stdout if proc.returncode == 0 else proc.stderr
    out = out.rstrip("\n")
    if len(out) > 600:
        out = out[:600] + " …"
    print("  " + out.replace("\n", "\n  ") if out else "  (no output)")
    if proc.returncode == 0 and proc.stdout.startswith("{"):
        return json.loads(proc.stdout)
    return proc.stdout


def run_demo(herdr_version: str | None = None) -> int:
    from .facts.versions import DEFAULT_VERSION
    from .stub.install import write_stub
    from .testing import spawn_server

    version = herdr_version or DEFAULT_VERSION
    tmp = tempfile.mkdtemp(prefix="simherdr-demo-")
    os.chmod(tmp, 0o700)
    sock = os.path.join(tmp, "herdr.sock")
    print(f"simherdr demo: herdr {version} simulated, time x{TIME_SCALE:g}, socket {sock}")
    server = spawn_server(sock, version=version, time_scale=TIME_SCALE)
    try:
        herdr = write_stub(os.path.join(tmp, "bin"), herdr_version=version)
        env = dict(os.environ, HERDR_SOCKET_PATH=sock, SIMHERDR_TIME_SCALE=str(TIME_SCALE))
        work = os.path.join(tmp, "project")
        os.makedirs(work)
        _show("is a server there?", [herdr, "status"], env)
        ws = _show(
            "open a workspace",
            [herdr, "workspace", "create", "--cwd", work, "--label", "demo"],
            env,
        )
        pane = ws["result"]["root_pane"]["pane_id"]
        _show("split it", [herdr, "pane", "split", pane, "--direction", "right", "--no-focus"], env)
        _show(
            "type into the first pane",
            [herdr, "pane", "run", pane, "echo hello from simherdr"],
            env,
        )
        _show("read it back", [herdr, "pane", "read", pane, "--source", "visible"], env)
        if _has_agents():
            seen = []
            tab = _show(
                "a background tab for the agent",
                [herdr, "tab", "create", "--no-focus", "--label", "agents"],
                env,
            )
            second = tab["result"]["root_pane"]["pane_id"]
            started = _show(
                "start a pi agent there (waits for interactive readiness)",
                [herdr, "agent", "start", "demo-pi", "--kind", "pi", "--pane", second],
                env,
            )
            seen.append(_status(started))
            working = _show(
                "prompt it and wait until it is seen working",
                [
                    herdr,
                    "agent",
                    "prompt",
                    "demo-pi",
                    "write a haiku",
                    "--wait",
                    "--until",
                    "working",
                    "--timeout",
                    "60000",
                ],
                env,
            )
            seen.append(_status(working))
            done = _show(
                "wait until it finishes (in a background tab, so herdr says done)",
                [herdr, "agent", "wait", "demo-pi", "--until", "done", "--timeout", "60000"],
                env,
            )
            seen.append(_status(done))
            focused = _show(
                "focusing it turns done into idle", [herdr, "agent", "focus", "demo-pi"], env
            )
            seen.append(_status(focused))
            print(f"\n  agent status over the session: {' -> '.join(s for s in seen if s)}")
        _show("a missing pane is herdr's error envelope", [herdr, "pane", "get", "w1:p9"], env)
        _show("a usage error exits 2", [herdr, "pane", "get"], env)
        _show("the whole session", [herdr, "api", "snapshot"], env)
        _show("stop the server", [herdr, "server", "stop"], env)
        server.wait(10)
        print(
            f"\nsimherdr demo: done; server exited with {server.returncode}, socket removed: "
            f"{not os.path.exists(sock)}"
        )
        return 0
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(5)
        shutil.rmtree(tmp, ignore_errors=True)


def _status(reply) -> str | None:
    if isinstance(reply, dict) and "result" in reply:
        return reply["result"].get("agent", {}).get("agent_status")
    return None


def _has_agents() -> bool:
    from .handlers.registry import load_all

    return "agent.start" in load_all()


if __name__ == "__main__":
    sys.exit(run_demo())
