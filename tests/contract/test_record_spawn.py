"""The recording herdr's spawn (simherdr/stub/record.py ``_spawn``) starts the real binary as
``subprocess.Popen`` with pipes would: stdout and stderr on the given descriptors, no other
descriptor of the recording process (a caller's inheritable one included), SIGPIPE and SIGXFSZ
at their defaults (Python ignores them), and an exec error raised as Popen raises it; the
journal line it writes without json's import is json.dumps's."""

from __future__ import annotations

import json
import os
import shutil
import signal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simherdr.stub import record
from tests.budget import examples


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


# The run: prints the blocked signals of each of the recording process's threads but its main
# one (once its two pumps have started), then waits to be ended.
_RUN = """\
import os, time
parent = os.getppid()
deadline = time.monotonic() + 10  # a hang guard: the pumps start at once
while len(os.listdir(f"/proc/{parent}/task")) < 3 and time.monotonic() < deadline:
    time.sleep(0.001)
for tid in sorted(os.listdir(f"/proc/{parent}/task")):
    if int(tid) != parent:
        with open(f"/proc/{parent}/task/{tid}/status") as f:
            print([ln.split()[1] for ln in f if ln.startswith("SigBlk:")][0], flush=True)
print("ready", flush=True)
time.sleep(60)
"""

_RECORDER = """\
import os, sys
from simherdr.stub import record
code, out, err, pid = record._run(sys.executable, ["-I", "-S", "-c", sys.argv[1]], dict(os.environ))
print("exit", code, flush=True)
"""


def test_a_signal_that_ends_the_run_is_taken_by_the_main_thread_and_passed_on():
    """The tee's pump threads block TERM, INT and HUP: only the main thread, whose Python
    handler passes them on, takes them (a pump thread that took one left the run going: the
    handler runs in the main thread only, asleep in the tee's wait; under strace -f)."""
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", _RECORDER, _RUN], stdout=subprocess.PIPE, text=True)
    try:
        masks = []
        while (line := p.stdout.readline().strip()) != "ready":
            assert line, "the run ended early"
            masks.append(int(line, 16))
        assert len(masks) == 2  # the two pumps
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            assert all(m & (1 << (sig - 1)) for m in masks), (sig.name, [hex(m) for m in masks])
        p.send_signal(signal.SIGTERM)
        assert p.stdout.readline().strip() == f"exit {-signal.SIGTERM}"
        assert p.wait(10) == 0  # a hang guard
    finally:
        p.kill()
        p.wait()
        p.stdout.close()


# a journal line's values: what record.main puts there (str with surrogate escapes, times,
# exit codes, pids, None, argv lists, env dicts, nested)
_SCALARS = st.one_of(
    st.text(),
    st.text(st.characters(codec="utf-8")).map(
        lambda s: s.encode().decode("ascii", "surrogateescape")
    ),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=examples(100), deadline=None)
@given(_VALUES)
def test_the_journal_line_is_what_json_dumps_writes(value):
    """record._json (the recorder's start imports no json) writes what the cassette reader's
    json.dumps(..., ensure_ascii=False) would."""
    assert record._json(value) == json.dumps(value, ensure_ascii=False)
