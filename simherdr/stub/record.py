"""The stand-in's recording mode: run a real ``herdr`` binary and write down each run.

:func:`write_recording_stub` puts a ``herdr`` launcher into a directory. A client that finds it
first on ``PATH`` runs the real binary through it, unchanged: same argv, same stdin, its stdout,
stderr and exit code passed back. Each run appends one line to a journal: argv, the ``HERDR_*``
environment (CHOICE: their values, minus the socket path the recorder sets; other variables by
name only, they are the client's business), stdout, stderr, exit code, start and end times.
``simherdr record --herdr-bin`` reads the journal into the session's cassette.

Stdlib only, like the rest of the stand-in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

_LAUNCHER = """\
# simherdr recording stand-in (written by simherdr.stub.record.write_recording_stub).
import sys
sys.path.insert(0, {root!r})
from simherdr.stub.record import main
sys.exit(main(sys.argv[1:], real={real!r}, journal={journal!r}, socket={socket!r}))
"""

SOCKET_ENV = "HERDR_SOCKET_PATH"


def main(argv: list[str], real: str, journal: str, socket: str | None) -> int:
    env = dict(os.environ)
    if socket:
        env[SOCKET_ENV] = socket  # the real binary talks to the recorder's CLI-side socket
    start = time.time()
    try:
        p = subprocess.run([real, *argv], env=env, capture_output=True)
        code, out, err = p.returncode, p.stdout, p.stderr
    except OSError as e:
        code, out, err = 127, b"", f"herdr: cannot run {real}: {e}\n".encode()
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.buffer.flush()
    herdr_env = {k: v for k, v in os.environ.items() if k.startswith("HERDR_") and k != SOCKET_ENV}
    line = {
        "t": round(start, 4),
        "t_end": round(time.time(), 4),
        "argv": argv,
        "env": herdr_env,
        "env_keys": sorted(os.environ),
        "exit": code,
        "stdout": out.decode("utf-8", errors="surrogateescape"),
        "stderr": err.decode("utf-8", errors="surrogateescape"),
    }
    fd = os.open(journal, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(
            fd, (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
        )
    finally:
        os.close(fd)
    return code


def write_recording_stub(directory: str, real: str, journal: str, socket: str | None) -> str:
    """Write ``<directory>/herdr`` recording runs of ``real`` into ``journal``; return its path."""
    from .install import _header, _project_root

    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "herdr")
    text = _header(os.path.abspath(sys.executable)) + _LAUNCHER.format(
        root=_project_root(),
        real=os.path.abspath(real),
        journal=os.path.abspath(journal),
        socket=socket and os.path.abspath(socket),
    )
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path + ".tmp", 0o755)
    os.replace(path + ".tmp", path)
    return path
