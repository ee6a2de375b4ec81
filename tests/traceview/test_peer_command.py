"""A peer's command line is read from /proc once per pid (trace.py peer-command-cache)."""

from __future__ import annotations

import os
import subprocess
import sys

from simherdr import trace


def test_a_peer_is_read_once_and_the_cache_stays_bounded(monkeypatch):
    reads: list[int] = []
    real = trace._read_peer_command

    def counting(pid: int):
        reads.append(pid)
        return real(pid)

    monkeypatch.setattr(trace, "_read_peer_command", counting)
    monkeypatch.setattr(trace, "_peer_commands", {})
    me = os.getpid()
    first = trace.peer_command(me)
    assert first and first == trace.peer_command(me)
    assert reads == [me]
    for fake in range(10**7, 10**7 + trace.PEER_CACHE + 5):  # pids no process has: None
        assert trace.peer_command(fake) is None
    assert len(trace._peer_commands) <= trace.PEER_CACHE
    assert me not in trace._peer_commands  # the oldest went first


def test_an_interpreter_run_script_is_named_by_the_script(tmp_path):
    script = tmp_path / "herdr"
    script.write_text("import time\ntime.sleep(5)\n")
    p = subprocess.Popen([sys.executable, "-I", "-S", str(script), "agent", "start", "a1"])
    try:
        import time

        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            cmd = trace._read_peer_command(p.pid)
            if cmd and "herdr" in cmd:
                break
            time.sleep(0.01)
        assert cmd == "herdr agent start a1"
    finally:
        p.kill()
        p.wait()
