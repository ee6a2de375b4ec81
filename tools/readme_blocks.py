"""Developer tool: the README's blocks that are written from the code.

- ``releases``: the herdr releases simherdr serves (``simherdr/facts/releases/*.toml``, as
  ``simherdr versions`` lists them);
- ``cli-reference``: every ``simherdr`` command's usage line and summary, from the parser
  (``simherdr.cli.parser()``).

Each sits in README.md between ``<!-- NAME: ... -->`` and ``<!-- /NAME -->``;
``tests/core/test_readme_blocks.py`` fails when one differs from what the code says. After
changing a release or a command, write them again::

    .venv/bin/python tools/readme_blocks.py --write
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
WIDTH = 100  # the usage lines are wrapped as on a 100-column terminal
HOW = (
    "written by `python tools/readme_blocks.py --write`; tests/core/test_readme_blocks.py checks it"
)


def releases() -> str:
    from simherdr.versions_cli import describe

    rows = describe()
    lines = ["| release | protocol | herdr commit |", "| --- | --- | --- |"]
    for r in reversed(rows):  # newest first
        name = f"**{r['name']}** (the default)" if r["default"] else r["name"]
        repo, _, commit = str(r["commit"]).partition("@")
        lines.append(f"| {name} | {r['protocol']} | {repo}@{commit[:8]} |")
    return "\n".join(lines)


def _commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], str, argparse.ArgumentParser]]:
    """(the command's words, its one-line help, its parser) for every command and sub-command."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {a.dest: a.help or "" for a in action._choices_actions}
        for name, sub in action.choices.items():
            words = (*path, name)
            yield words, helps.get(name, ""), sub
            yield from _commands(sub, words)


def cli_reference() -> str:
    from simherdr.cli import parser

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH + 2)  # argparse's width: COLUMNS - 2
    try:
        lines = []
        for _words, about, sub in _commands(parser()):
            usage = sub.format_usage().strip()
            # argparse aligns its continuation lines under "usage: PROG ": without "usage: "
            usage = "\n".join(
                line[len("usage: ") :] if i and line.startswith(" " * 7) else line
                for i, line in enumerate(
                    usage.removeprefix("usage: ").replace("[-h] ", "").splitlines()
                )
            )
            lines.append(usage)
            if about:
                lines.append(f"    # {about}")
        return "```text\n" + "\n".join(lines) + "\n```"
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


BLOCKS = {"releases": releases, "cli-reference": cli_reference}


def pattern(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- {re.escape(name)}: [^\n]*-->\n)(.*?)\n?(<!-- /{re.escape(name)} -->)", re.S
    )


def current(text: str, name: str) -> str | None:
    """The block as README.md has it (None: its markers are missing)."""
    m = pattern(name).search(text)
    return m.group(2) if m else None


def write(text: str) -> str:
    for name, render in BLOCKS.items():
        body = render()
        new, n = pattern(name).subn(
            lambda m, name=name, body=body: f"<!-- {name}: {HOW} -->\n{body}\n{m.group(3)}",
            text,
        )
        if n != 1:
            raise SystemExit(f"README.md: no <!-- {name}: ... --> ... <!-- /{name} --> block")
        text = new
    return text


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="rewrite the blocks in README.md")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    text = README.read_text(encoding="utf-8")
    if args.write:
        README.write_text(write(text), encoding="utf-8")
    else:
        for name, render in BLOCKS.items():
            print(f"<!-- {name} -->\n{render()}\n")
