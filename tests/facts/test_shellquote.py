"""agent.start's command composition (SOCKET.md §6.5 steps 3, 9, 12)."""

import pytest

from simherdr.facts.shellquote import (
    compose_command,
    has_control_char,
    is_powershell_name,
    normalize_process_name,
    posix_quote,
    pwsh_quote,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("claude", "claude"),
        ("--model", "--model"),
        ("a@b%c_d+e=f:g,h./-", "a@b%c_d+e=f:g,h./-"),
        ("/usr/bin/x", "/usr/bin/x"),
        ("", "''"),
        ("two words", "'two words'"),
        ("it's", "'it'\\''s'"),
        ("'", "''\\'''"),
        ("$HOME", "'$HOME'"),
        ("a;b", "'a;b'"),
        ("*", "'*'"),
        ("~", "'~'"),
        ("caf\u00e9", "'caf\u00e9'"),  # only ASCII alphanumerics stay bare
        ("\u0661", "'\u0661'"),  # a non-ASCII digit
    ],
)
def test_posix_quote(value, expected):
    assert posix_quote(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("claude", "claude"),
        ("--model=x", "--model=x"),
        ("a_b-c.d/e:f+g=h", "a_b-c.d/e:f+g=h"),
        ("", "''"),
        ("@options", "'@options'"),
        ("a,b", "'a,b'"),
        ("50%", "'50%'"),
        ("it's", "'it''s'"),
        ("$env:HOME", "'$env:HOME'"),
        ("two words", "'two words'"),
    ],
)
def test_pwsh_quote(value, expected):
    assert pwsh_quote(value) == expected


ARGV = ["claude", "", "fix the bug", "don't", "$PATH", "x;y", "@file", "--flag=1"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "sh", "fish", "nu", "cmd", "-bash", "/bin/zsh"])
def test_compose_posix(shell):
    assert compose_command(ARGV, shell) == (
        "claude '' 'fix the bug' 'don'\\''t' '$PATH' 'x;y' @file --flag=1"
    )


@pytest.mark.parametrize(
    "shell", ["pwsh", "powershell", "PowerShell", "/usr/bin/pwsh", "pwsh.exe", "-pwsh"]
)
def test_compose_powershell(shell):
    assert compose_command(ARGV, shell) == (
        "claude '' 'fix the bug' 'don''t' '$PATH' 'x;y' '@file' --flag=1"
    )


def test_compose_single_and_empty_argv():
    assert compose_command(["kiro-cli"], "bash") == "kiro-cli"
    with pytest.raises(ValueError):
        compose_command([], "bash")


def test_process_name_normalisation():
    assert normalize_process_name("-zsh") == "zsh"
    assert normalize_process_name("--bash") == "bash"
    assert normalize_process_name("/usr/bin/PWSH") == "pwsh"
    assert normalize_process_name("C:\\tools\\pwsh.exe.exe") == "pwsh"
    assert normalize_process_name("PWSH.EXE") == "pwsh.exe"
    assert normalize_process_name("dir/") == ""
    assert is_powershell_name("powershell")
    assert not is_powershell_name("bash")


@pytest.mark.parametrize(
    "value",
    [
        "\t",
        "\n",
        "\r",
        "\x00",
        "\x1b",
        "\x1b[31m",
        "a\tb",
        "\x7f",
        "\x80",
        "\x85",
        "\x9f",
        "ok\x07",
    ],
)
def test_control_characters_detected(value):
    assert has_control_char(value)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "plain",
        "two words",
        "caf\u00e9",
        "\xa0",
        "\xa0nbsp",
        "\u2028",
        "\u200b",
        "\ufeff",
        "\U0001f642",
        "~!@#$%^&*()",
    ],
)
def test_non_control_characters_pass(value):
    assert not has_control_char(value)
