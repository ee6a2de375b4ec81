"""The simulated shell's word splitting: the first-word shortcut never disagrees with shlex."""

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simherdr.agents.layer import command_kind
from simherdr.model import shellwords

# Lines made of what matters to shlex: words, its whitespace, quotes, escapes, a few others.
_LINE = st.text(alphabet=st.sampled_from(list("cd laude/x\t\r\n'\"\\#;~-\x0b\u00a0")), max_size=24)


@given(_LINE)
def test_first_word_agrees_with_shlex(line):
    try:
        words = shlex.split(line)
    except ValueError:
        words = None
    first = shellwords.first_word(line)
    assert shellwords.split(line) == words
    if first is not None and words is not None:
        assert first == (words[0] if words else "")


@pytest.mark.parametrize(
    "line,first",
    [
        ("cd /tmp", "cd"),
        ("  \tcd", "cd"),
        ("", ""),
        (" \t ", ""),
        ("'cd' /tmp", None),  # quoted: only the full parse can tell
        ("c\\d x", None),
        ('echo "open', "echo"),  # an open quote later does not hide the first word
        ("cd\x0bx", "cd\x0bx"),  # \v is not shlex whitespace
    ],
)
def test_first_word_examples(line, first):
    assert shellwords.first_word(line) == first


@pytest.mark.parametrize(
    "line,expected",
    [
        ("claude --resume x", ("claude", ["claude", "--resume", "x"])),
        ("/usr/local/bin/codex", ("codex", ["/usr/local/bin/codex"])),
        ("'claude' -p 'a b'", ("claude", ["claude", "-p", "a b"])),  # quoted program
        ("claude 'open", None),  # the shell cannot parse it: nothing runs
        ("echo claude", None),
        ("", None),
        ("cursor-agent", ("cursor", ["cursor-agent"])),  # by executable
    ],
)
def test_command_kind(line, expected):
    assert command_kind(line, "0.8.2") == expected
