"""The background job of tests that each run something which mostly waits (tests/background.py):
`make demo`'s session (tests/core/test_demo.py: ~1.2 s of wall for ~0.35 s of CPU at its time
x10, the agent's start and turn), the server out of file descriptors
(tests/hostile/test_socket_lifecycle.py: ~0.7 s, its starved accept's 0.5 s window and the
back-off's retry), and the recorded gaps between CLI runs replayed on the stub target
(tests/contract/test_replay_fixes.py: ~1.4 s, a recorded 0.6 s sleep, slept again in real
time), and a replay against a changed upstream (tests/contract/test_record.py, each release
~0.9 s: the stream event it never sends awaited for the 0.5 s reply timeout). ``python -m tests.process_runs OUTDIR KEY...``; a process's result is its returncode,
stdout and stderr, the others' what tests/contract/recording.py returns; the tests
check them. The runs are here, not in the test modules: the job's process imports no
pytest."""

from __future__ import annotations

import subprocess
import sys

EMFILE_SCRIPT = r"""
import resource, socket, sys, time
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
from simherdr.testing import ThreadServer
with ThreadServer("0.9.3") as srv:
    socks = []
    try:
        for _ in range(200):
            s = socket.socket(socket.AF_UNIX); s.connect(srv.path); socks.append(s)
    except OSError:
        pass
    time.sleep(0.5)  # a spinning accept loop logs ~10,000 lines in this time
    for s in socks:
        s.close()
    # answered once accept is tried again (its back-off is 1 s at most): the connect waits in
    # the listen backlog meanwhile
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(srv.path)
    s.sendall(b'{"id":"p","method":"ping","params":{}}\n')
    print(s.recv(1000).decode())
"""

# key -> (argv, timeout in seconds)
RUNS = {
    "demo": ([sys.executable, "-m", "simherdr", "demo"], 120),
    "emfile": ([sys.executable, "-c", EMFILE_SCRIPT], 60),
}


def run(key: str) -> dict:
    if key == "gaps":
        from tests.contract.recording import stub_gaps

        return stub_gaps()
    if key.startswith("changed@"):
        from tests.contract.recording import changed_upstream

        return changed_upstream(key.partition("@")[2])
    argv, timeout = RUNS[key]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    return {"returncode": p.returncode, "stdout": p.stdout, "stderr": p.stderr}


if __name__ == "__main__":
    from tests import background

    sys.exit(background.main(sys.argv[1], sys.argv[2:], run, 2))
