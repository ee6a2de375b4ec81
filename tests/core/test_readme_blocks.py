"""The README's release list and command reference are the code's (issue 33 item 6: the README
still said "Two herdr profiles" when seven releases were served).

Both are blocks written from the code (``tools/readme_blocks.py --write``): the releases from
``simherdr/facts/releases``, the reference from ``simherdr.cli.parser()``. Beyond the blocks,
every ``simherdr`` command line the README shows in a code block names a real command and only
options that command has."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest

from simherdr.facts.versions import DEFAULT_VERSION, RELEASES, resolve

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
_spec = importlib.util.spec_from_file_location("readme_blocks", ROOT / "tools/readme_blocks.py")
assert _spec is not None and _spec.loader is not None
blocks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(blocks)
FIX = "write it again: .venv/bin/python tools/readme_blocks.py --write"


@pytest.mark.parametrize("name", sorted(blocks.BLOCKS))
def test_the_readme_block_is_what_the_code_says(name):
    have = blocks.current(README, name)
    assert have is not None, f"README.md has no <!-- {name}: ... --> block"
    assert have == blocks.BLOCKS[name](), f"README.md's {name} block is stale: {FIX}"


def test_the_release_list_names_every_release_with_its_protocol_and_the_default():
    table = blocks.current(README, "releases")
    rows = re.findall(
        r"^\| (?:\*\*)?([0-9.]+)(?:\*\*)?( \(the default\))? \| (\d+) \|", table, re.M
    )
    assert sorted(r[0] for r in rows) == sorted(RELEASES)
    assert [r[0] for r in rows if r[1]] == [DEFAULT_VERSION]
    assert all(int(p) == resolve(v).protocol for v, _, p in rows)
    assert "Two herdr profiles" not in README


def _commands() -> dict[tuple[str, ...], set[str]]:
    from simherdr.cli import parser

    out = {}
    for words, _, sub in blocks._commands(parser()):
        out[words] = {o for a in sub._actions for o in a.option_strings}
    return out


def _command_lines() -> list[str]:
    """Every line of a fenced shell block that runs ``simherdr`` (continuations joined)."""
    lines, fence, block = [], None, []
    for line in README.splitlines():
        if line.startswith("```"):
            if fence is None:
                fence, block = line[3:].strip(), []
                continue
            if fence in ("", "sh", "bash", "shell", "console"):
                for cmd in "\n".join(block).replace("\\\n", " ").splitlines():
                    cmd = cmd.strip().removeprefix("$ ")
                    if cmd.startswith("simherdr "):
                        lines.append(cmd.split(" #", 1)[0])
            fence = None
        elif fence is not None:
            block.append(line)
    return lines


def test_every_command_line_in_the_readme_names_a_command_and_its_options():
    commands = _commands()
    lines = _command_lines()
    assert len(lines) > 20
    problems = []
    for line in lines:
        try:
            words = shlex.split(line)[1:]
        except ValueError:
            words = line.split()[1:]
        path: tuple[str, ...] = ()
        while words and (*path, words[0]) in commands:
            path, words = (*path, words[0]), words[1:]
        if not path:
            problems.append(f"{line}: no such command")
            continue
        for w in words:
            if w == "--":
                break
            flag = w.strip("[]").split("=", 1)[0]
            if flag.startswith("--") and flag not in commands[path]:
                problems.append(f"{line}: `simherdr {' '.join(path)}` has no {flag}")
    assert not problems, "\n".join(problems)
