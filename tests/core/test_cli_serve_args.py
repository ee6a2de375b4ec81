"""``simherdr serve``'s plain command lines are read without argparse (simherdr.cli
_serve_args, start-up time, issue 26): what it reads equals what argparse reads, and whatever
it does not take (help, mistakes, abbreviations) is left to argparse."""

from __future__ import annotations

import functools
import itertools
import subprocess
import sys

import pytest

from simherdr import cli

TAKEN = [
    ["--socket", "/tmp/s.sock"],
    ["--socket=/tmp/s.sock"],
    ["--socket="],
    ["--socket", "a=b"],
    ["--session", "default"],
    ["--session=work", "--quiet", "--persist", "--pane-history"],
    ["--quiet", "--socket", "/tmp/s", "--herdr-version", "0.8.2", "--time-scale", "100"],
    ["--socket", "/tmp/s", "--time-scale=1e3", "--cwd", "/", "--pane-mode", "mixed"],
    ["--socket", "/tmp/s", "--control", "/tmp/c", "--trace", "/tmp/t", "--scenario", "x"],
    ["--socket", "/tmp/s", "--scenario", "x", "--seed", "7", "--herdr-session", "n"],
    ["--socket", "/tmp/s", "--herdr-config-dir", "/tmp/h", "--no-herdr-config"],
    ["--socket", "/tmp/s", "--seed", " 5"],
    ["--socket", "/tmp/s", "--seed", "5_0"],
    ["--socket", "/tmp/s", "--time-scale", "1000", "--time-pacing", "wall"],
]
LEFT = [
    [],
    ["--help"],
    ["-h"],
    ["--sock", "/tmp/s"],  # an abbreviation
    ["--socket"],
    ["--socket", "/tmp/s", "--socket", "/tmp/t"],
    ["--socket", "/tmp/s", "--session", "x"],
    ["--socket", "-x"],
    ["--socket", "-"],
    ["--socket", "/tmp/s", "--quiet=1"],
    ["--socket", "/tmp/s", "--time-scale", "0"],
    ["--socket", "/tmp/s", "--time-scale", "nan"],
    ["--socket", "/tmp/s", "--time-scale", "-1"],
    ["--socket", "/tmp/s", "--seed", "x"],
    ["--socket", "/tmp/s", "--herdr-version", "9.9.9"],
    ["--socket", "/tmp/s", "--pane-mode", "real"],
    ["--socket", "/tmp/s", "--time-pacing", "fast"],
    ["--socket", "/tmp/s", "extra"],
    ["--socket", "/tmp/s", "--"],
    ["--socket", "/tmp/s", "--unknown"],
]


@functools.cache
def _serve_parser():
    """simherdr's parser for serve, built once (argparse reads each command line afresh)."""
    return cli.parser(only="serve")


def _argparse(words: list[str]) -> dict | None:
    try:
        return vars(_serve_parser().parse_args(["serve", *words]))
    except SystemExit:
        return None


@pytest.mark.parametrize("words", TAKEN, ids=" ".join)
def test_what_it_takes_argparse_reads_the_same(words):
    fast = cli._serve_args(words)
    assert fast is not None
    assert vars(fast) == _argparse(words)


@pytest.mark.parametrize("words", LEFT, ids=" ".join)
def test_what_it_leaves_goes_to_argparse(words):
    assert cli._serve_args(words) is None


def test_every_pair_of_options_agrees_with_argparse():
    """Each option beside --socket, alone and in pairs: taken and equal, or left to argparse
    (never a reading argparse would not give)."""
    samples = {
        "--quiet": [[]],
        "--persist": [[]],
        "--pane-history": [[]],
        "--no-herdr-config": [[]],
        "--herdr-version": [["0.9.3"], ["0.8.0"], ["1"]],
        "--time-scale": [["2.5"], ["inf"], ["x"]],
        "--pane-mode": [["pty"], ["simulated"], ["bad"]],
        "--time-pacing": [["paced"], ["wall"], ["x"]],
        "--seed": [["3"], ["-3"], ["3.5"]],
        "--cwd": [["/x"], ["-"]],
    }
    single = [[flag, *v] for flag, vs in samples.items() for v in vs]
    for a, b in itertools.product(single, repeat=2):
        words = ["--socket", "/tmp/s", *a, *b]
        fast = cli._serve_args(words)
        if fast is not None:
            assert vars(fast) == _argparse(words), words


def test_the_table_is_the_whole_serve_parser():
    sub = cli.parser(only="serve")._subparsers._group_actions[0].choices["serve"]
    flags = {a.option_strings[0] for a in sub._actions if a.option_strings[0] != "-h"}
    assert flags == {flag for flag, _ in cli._SERVE_WHERE + cli._SERVE_OPTIONS}


def test_a_plain_serve_imports_no_argparse(tmp_path):
    code = (
        "import sys; import simherdr.cli as c; "
        f"a = c._serve_args(['--socket', {str(tmp_path / 's')!r}]); "
        "print(a.cmd, 'argparse' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["serve", "False"]
