"""``herdr ARGV`` of an installed stand-in, run in this process: the stand-in's own
``simherdr.stub.cli.core.run`` with the call's environment and byte streams, as the Python
launcher runs it (``simherdr/stub/boot.py``) and the native launcher's fork server does in its
child; without a process per call (a launcher's exec, a fork server child's copy-on-write and
exit: ~5-9 ms of CPU each in a loaded suite).

For the tables of verbs of a test module whose subject is what the stand-in prints and sends,
not its process: each such module keeps its calls of one behaviour through the executable
(``subprocess``), and ``tests/stub/test_stub_commands.py::test_inprocess_matches_subprocess``
and ``tests/stub/test_native_standin.py`` check that the two print the same bytes. Not for
the verbs that depend on the caller's process: its working directory (relative paths), its
descriptors or terminal, a signal, ``herdr server`` (an exec)."""

from __future__ import annotations

import io
import os
import subprocess
from collections.abc import Callable, Mapping, Sequence


def herdr_inproc(
    stub: str, version: str, argv: Sequence[str], env: Mapping[str, str], *, text: bool = False
) -> subprocess.CompletedProcess:
    """What ``subprocess.run([stub, *argv], env=env, capture_output=True, text=text)`` returns
    for the stand-in ``stub`` of release ``version`` (``write_stub``'s), run in this process."""
    from simherdr.stub.cli import core

    out, err = io.BytesIO(), io.BytesIO()
    code = core.run(list(argv), version=version, env=dict(env), stdout=out, stderr=err, argv0=stub)
    stdout, stderr = out.getvalue(), err.getvalue()
    if text:  # (as subprocess's text mode decodes: the locale's UTF-8, universal newlines)
        return subprocess.CompletedProcess([stub, *argv], code, _text(stdout), _text(stderr))
    return subprocess.CompletedProcess([stub, *argv], code, stdout, stderr)


def run_inproc(version: str) -> Callable[..., subprocess.CompletedProcess]:
    """A ``subprocess.run`` for ``[stub, *argv]`` calls of the stand-in of release ``version``
    (``capture_output=True``; ``env``, ``cwd`` and ``text`` as ``subprocess.run`` takes them),
    run in this process by :func:`herdr_inproc`: for code that runs a stand-in through a
    ``subprocess.run`` seam (e.g. ``simherdr.contract.verify.run_binary``). ``cwd`` is this
    process's working directory for the call (from one thread at a time); ``timeout`` is not
    enforced (a call that never ends is for a test of the process). ``herdr`` alone and
    ``herdr server`` (an exec of the server) run as processes."""

    def run(
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        capture_output: bool = True,
        timeout: float | None = None,
        cwd: str | None = None,
        text: bool = False,
    ) -> subprocess.CompletedProcess:
        assert capture_output, "the stand-in's output is captured"
        if len(argv) < 2 or argv[1] == "server":
            kw = {"env": env, "timeout": timeout, "cwd": cwd, "text": text}
            return subprocess.run(list(argv), capture_output=True, **kw)  # type: ignore[call-overload]
        here = os.getcwd()
        if cwd is not None:
            os.chdir(cwd)
        try:
            return herdr_inproc(argv[0], version, argv[1:], env, text=text)
        finally:
            os.chdir(here)

    return run


def _text(data: bytes) -> str:
    return data.decode().replace("\r\n", "\n").replace("\r", "\n")
