"""Issue 33 item 5: ``simherdr ctl`` with hostile arguments ends in one line, never a traceback.

``simherdr ctl --control PATH --timeout=1e10 ops`` ended in ``OverflowError: timestamp out of
range for platform time_t`` (10 of 300 fuzzed runs): the stdlib fast path (simherdr/ctl.py)
took any finite positive --timeout. The fuzz runs ctl's own ``main`` in this process (what
``simherdr ctl`` dispatches to before anything else is imported) against a live control socket
and against paths that are not one, with argv drawn from its options, ops, JSON and garbage;
stdout is strict UTF-8 and stderr backslash-escaped, as a real process's. ``make fuzz`` runs it
10x deeper (tests/budget.py): 3,000 runs.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from simherdr import ctl
from simherdr.controlsocket import ControlServer
from tests.budget import examples

from .conftest import HOSTILE, server
from .strategies import JSON

pytestmark = pytest.mark.hostile

OPS = [o.strip() for o in ctl.OPS_HELP.split(",")]
#: values of --timeout: the issue's, the edges of the bound, and what float() reads oddly
TIMEOUTS = st.sampled_from(
    ["1e10", "1e400", "9.3e9", "1e9", "1000000001", "nan", "-inf", "inf", "0", "-0", "-1",
     "1e-300", "5e-324", "0x10", "", " 2 ", "1_0", "ten", "\udcff", "1e308"]
) | st.floats().map(repr) | st.text(max_size=8)  # fmt: skip


def _paths(live: str, herdr: str, tmp: str) -> st.SearchStrategy[str]:
    return st.sampled_from(
        [live, live, live, herdr, tmp, os.path.join(tmp, "missing.sock"), "", "/",
         os.path.join(tmp, "file"), "a" * 300, "/tmp/\x00nul", "/tmp/a\nb", "\udcff"]
    ) | st.text(max_size=20)  # fmt: skip


#: the control ops' argument names (CONTROL.md), so a drawn object reaches an op's checks
KEYS = ["pane_id", "name", "type", "kind", "state", "seconds", "values", "cwd", "method", "ms",
        "text", "scenario", "seed", "code", "probability"]  # fmt: skip
ARGS = (
    JSON.map(json.dumps)
    | st.dictionaries(st.text(max_size=8), JSON, max_size=3).map(json.dumps)
    | st.text(max_size=30)
    | st.sampled_from(['{"pane_id": "w1:p1"}', '{"name": "\\udcff"}', "{}", "[]", "null",
                       "[" * 5000, '{"a":' * 100_000, "[" * 900 + "]" * 900])
)  # fmt: skip


def _argv(live: str, paths: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    segment = st.one_of(
        paths.map(lambda p: ["--control", p]),
        paths.map(lambda p: [f"--control={p}"]),
        TIMEOUTS.map(lambda t: ["--timeout", t]),
        TIMEOUTS.map(lambda t: [f"--timeout={t}"]),
        (st.sampled_from(OPS) | st.text(max_size=12)).map(lambda o: [o]),
        ARGS.map(lambda a: [a]),
        st.sampled_from([["--"], ["--control"], ["--timeout"], ["-x"], ["--bogus=1"], ["-"]]),
    )
    lead = paths.map(lambda p: ["--control", p])
    garbage = st.tuples(lead, st.lists(segment, max_size=6)).map(
        lambda t: t[0] + [w for seg in t[1] for w in seg]
    )
    # well-formed: an op (known or not) with JSON args, so the control socket answers
    op = st.sampled_from(OPS) | st.text(max_size=12).filter(lambda o: not o.startswith("-"))
    objects = st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), JSON, max_size=3)
    shaped = st.tuples(
        st.one_of(st.just(live), st.just(live), paths),
        op,
        st.lists(objects.map(json.dumps) | ARGS, max_size=1),
        st.sampled_from([[], ["--timeout", "5"]]),
    ).map(lambda t: ["--control", t[0], *t[3], t[1], *t[2]])
    return garbage | shaped


def run_ctl(argv: list[str]) -> tuple[int, str, str]:
    """ctl.main in this process, with a real process's stdout (strict) and stderr."""
    out_b, err_b = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_b, encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(err_b, encoding="utf-8", errors="backslashreplace")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = ctl.main(argv)
        except SystemExit as e:  # --help, as argparse's
            status = -1 if e.code != 0 else 0
            assert any(w in ("-h", "--help") for w in argv)
    out.flush()
    err.flush()
    return status, out_b.getvalue().decode(), err_b.getvalue().decode()


@pytest.fixture
def control(tmp_path):
    srv = server("0.9.3", tmp_path)
    path = str(tmp_path / "control.sock")
    cs = ControlServer(srv.sim, path)
    srv.run(lambda sim: cs.start())
    (tmp_path / "file").write_text("not a socket")
    yield path, srv.path, str(tmp_path)
    srv.run(lambda sim: cs.close())
    srv.stop()


def test_ctl_with_hostile_arguments_prints_one_line_never_a_traceback(control):
    live, herdr, tmp = control

    @settings(HOSTILE, max_examples=examples(100))
    @given(argv=_argv(live, _paths(live, herdr, tmp)))
    @example(argv=["--control", live, "--timeout=1e10", "ops"])  # the issue's
    @example(argv=["--control", live, "fault.add", "[" * 100_000])
    def fuzz(argv):
        status, out, err = run_ctl(argv)
        if any(w in ("-h", "--help") for w in argv[: argv.index("--") if "--" in argv else None]):
            assert status == 0 and out.startswith(ctl.USAGE_LINE)
            return
        assert status in (ctl.OK, ctl.REFUSED, ctl.USAGE, ctl.UNREACHABLE), (status, out, err)
        if status == ctl.OK:
            assert not err and out.count("\n") == 1, (argv, out, err)
            json.loads(out)
        else:
            assert not out and err.count("\n") == 1, (argv, out, err)
            assert err.startswith("simherdr ctl: "), err

    fuzz()
    assert run_ctl(["--control", live, "ops"])[0] == ctl.OK  # the control socket still serves


@pytest.mark.parametrize("value", ["1e10", "9.3e9", "1e400", "1000000001"])
def test_a_timeout_beyond_what_a_socket_takes_is_a_usage_line(control, value):
    live = control[0]
    status, out, err = run_ctl(["--control", live, f"--timeout={value}", "ops"])
    assert (status, out) == (ctl.USAGE, "")
    assert err == (
        f"simherdr ctl: argument --timeout: must be a finite number of seconds > 0 and at most "
        f"1e+09, not {value!r} (see simherdr ctl --help)\n"
    )
    assert run_ctl(["--control", live, "--timeout", "1e9", "ops"])[0] == ctl.OK


def test_the_issue_command_exits_2_with_one_line(tmp_path):
    """The issue's command line, as a process: exit 2, one line on stderr, no traceback."""
    p = subprocess.run(
        [sys.executable, "-m", "simherdr", "ctl", "--control", str(tmp_path / "c.sock"),
         "--timeout=1e10", "ops"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert p.returncode == 2 and p.stdout == "", p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert "argument --timeout" in p.stderr


def test_deep_args_and_unprintable_names_are_one_line(control):
    live = control[0]
    status, _, err = run_ctl(["--control", live, "fault.add", "[" * 100_000])
    assert status == ctl.USAGE and "nested too deeply" in err and err.count("\n") == 1
    status, _, err = run_ctl(["--control", live, "no\nsuch\x00op"])
    assert status == ctl.REFUSED and err.count("\n") == 1 and "no\\nsuch\\x00op" in err


def _answering(path: str, reply: bytes):
    """A control socket that answers every line with ``reply`` (a build that is not ours)."""
    import socket
    import threading

    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen()

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.sendall(reply)

    threading.Thread(target=serve, daemon=True).start()
    return srv


@pytest.mark.parametrize(
    "reply, status",
    [
        (b'{"ok":true,"result":{"cwd":"/tmp/\\udcff"}}\n', ctl.OK),  # a lone surrogate
        (b"[" * 100_000 + b"\n", ctl.UNREACHABLE),  # nested too deeply
        (b'{"ok":false,"error":"line one\\nline two"}\n', ctl.REFUSED),
    ],
)
def test_a_hostile_reply_is_still_one_line(tmp_path, reply, status):
    path = str(tmp_path / "c.sock")
    srv = _answering(path, reply)
    try:
        got, out, err = run_ctl(["--control", path, "ops"])
    finally:
        srv.close()
    assert got == status, (out, err)
    assert (out + err).count("\n") == 1 and not (out and err)
    if status == ctl.OK:
        assert json.loads(out) == {"cwd": "/tmp/\udcff"}
