"""``simherdr ARGV`` through the CLI's own ``main`` in this process: the same parser, the same
lines, the same exit status as ``python -m simherdr ARGV``, without a Python start-up (~0.1-0.2 s
of CPU each). For tables of cases of one command; each such table keeps a case that runs the
command as a process."""

from __future__ import annotations

import contextlib
import io
import subprocess


def main_result(name: str, main, argv: list[str]) -> subprocess.CompletedProcess:
    """stdout, stderr and the status of the console command ``name`` whose entry is ``main``
    (``main(argv)``; argparse's exits included), run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(argv))
        except SystemExit as e:  # argparse's exit
            rc = e.code if isinstance(e.code, int) else 1
    return subprocess.CompletedProcess([name, *argv], rc, out.getvalue(), err.getvalue())


def simherdr_main(*argv: str) -> subprocess.CompletedProcess:
    """stdout, stderr and the status of ``simherdr ARGV`` (argparse's exits included)."""
    from simherdr.cli import main

    return main_result("simherdr", main, list(argv))
