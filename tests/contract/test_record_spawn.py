"""The recording herdr's spawn (simherdr/stub/record.py ``_spawn``) starts the real binary as
``subprocess.Popen`` with pipes would: stdout and stderr on the given descriptors, no other
descriptor of the recording process (a caller's inheritable one included), SIGPIPE and SIGXFSZ
at their defaults (Python ignores them), and an exec error raised as Popen raises it."""

from __future__ import annotations

import os
import shutil
import signal

import pytest

from simherdr.stub import record


def _run(argv: list[str]) -> str:
    r, w = os.pipe()
    try:
        pid = record._spawn(argv, dict(os.environ), w, w)
    finally:
        os.close(w)
    out = b""
    while chunk := os.read(r, 65536):
        out += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return out.decode()


def test_the_run_gets_no_descriptor_but_its_streams():
    ls = shutil.which("ls")
    if ls is None:
        pytest.skip("no ls on PATH")
    leak = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(leak, True)  # as a caller's descriptor the recording process got
    try:
        listed = sorted(int(n) for n in _run([ls, "/proc/self/fd"]).split())
    finally:
        os.close(leak)
    # 0-2 and ls's own listing of the directory
    assert leak not in listed and listed[:3] == [0, 1, 2] and len(listed) <= 4, listed


def test_the_run_starts_with_sigpipe_and_sigxfsz_at_their_defaults():
    assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN  # Python's, in this process
    status = _run(["/bin/cat", "/proc/self/status"])
    ignored = int(next(ln for ln in status.splitlines() if ln.startswith("SigIgn:")).split()[1], 16)
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        assert not ignored & (1 << (sig - 1)), f"{sig.name} ignored in the run"


def test_a_binary_that_cannot_run_raises_as_popen_does(tmp_path):
    missing = str(tmp_path / "herdr")
    with pytest.raises(FileNotFoundError) as e:
        record._spawn([missing], {}, 1, 2)
    assert str(e.value) == f"[Errno 2] No such file or directory: '{missing}'"
