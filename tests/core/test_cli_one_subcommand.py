"""``simherdr NAME ...`` builds only NAME's parser (simherdr.cli ``parser(only=NAME)``: a start of
``simherdr run`` or ``install-stub`` imports none of the other commands). What it answers, help,
mistakes and a parsed command line alike, is what the whole command line answers."""

from __future__ import annotations

import contextlib
import functools
import io

import pytest

from simherdr import cli

CASES = [
    ["--help"],
    [],
    ["--bogus"],
    ["x", "y", "z"],
    ["--herdr-version", "9.9.9"],
]
MORE = [
    ["trace", "view", "--help"],
    ["trace", "show", "t.jsonl"],
    ["contract", "verify", "--help"],
    ["contract", "diff", "a", "b"],
    ["scenario", "run", "--help"],
    ["install-stub", "d", "--herdr-version", "0.8.2"],
    ["run", "--time-scale", "5", "--", "true"],
    ["run", "--version"],
    ["serve", "--socket", "/tmp/s", "--time-scale", "nan"],
]


@functools.cache
def _whole():
    """The whole command line's parser, built once for the module's cases (a parse leaves a
    parser as it was; the width of a help text is read when it is printed)."""
    return cli.parser(None)


def _answer(argv: list[str], only: str | None) -> tuple:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            ns = vars((cli.parser(only) if only else _whole()).parse_args(argv))
            got: object = sorted((k, repr(v)) for k, v in ns.items() if k != "fn")
            got = (got, ns["fn"].__name__)
        except SystemExit as e:
            got = ("exit", e.code)
    return got, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "argv",
    [[name, *case] for name in cli.SUBCOMMANDS for case in CASES] + MORE,
    ids=lambda a: " ".join(a) or "-",
)
def test_one_subcommands_parser_answers_as_the_whole_command_line(argv, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert _answer(argv, argv[0]) == _answer(argv, None)


def test_the_one_subcommand_parser_has_no_other_subcommand():
    ap = cli.parser("trace")
    assert list(ap._subparsers._group_actions[0].choices) == ["trace"]  # type: ignore[union-attr]
    assert list(cli.parser()._subparsers._group_actions[0].choices) == list(cli.SUBCOMMANDS)  # type: ignore[union-attr]


def test_version_answers_as_the_whole_command_line():
    """``simherdr --version`` prints without building the parser (main's fast path: the whole
    parser imports every command's module); what it prints is the version action's."""
    from tests.inproc import simherdr_main

    fast = simherdr_main("--version")
    assert (("exit", fast.returncode), fast.stdout, fast.stderr) == _answer(["--version"], None)
