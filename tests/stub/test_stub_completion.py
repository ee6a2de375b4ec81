"""``herdr completion <shell>`` (src/cli/completion.rs): clap_complete 4.6.5's scripts for
herdr's clap tree; goldens per version and shell in __snapshots__."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.releases import VERSIONS, grammar

USAGE = "usage: herdr completion <bash|elvish|fish|powershell|zsh>\n"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("shell", ["bash", "zsh", "fish", "elvish", "powershell"])
def test_completion_golden(cli, fake, snapshot, version, shell):
    res = cli("completion", shell, version=version)
    assert (res.rc, res.err) == (0, b"")
    assert fake.lines == []
    assert res.stdout == snapshot


@pytest.mark.parametrize("version", VERSIONS)
def test_bash_script_parses_and_lists_every_verb(cli, tmp_path, version):
    text = cli("completions", "bash", version=version).stdout
    path = tmp_path / "herdr.bash"
    path.write_text(text)
    assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
    assert 'opts="-h --json --output --help"' in text  # api schema
    assert "herdr__subcmd__pane__subcmd__wait__subcmd__output)" in text
    assert ("--no-session" in text) == grammar(version).no_session_flag
    assert ("herdr,machine)" in text) == grammar(version).machine


def test_bash_completes_subcommands_and_values(cli, tmp_path):
    if shutil.which("bash") is None:  # pragma: no cover
        pytest.skip("bash is not installed")
    script = tmp_path / "herdr.bash"
    script.write_text(cli("completion", "bash").stdout)

    def complete(*words):
        line = " ".join(words)
        probe = (
            f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
            f'_herdr herdr "{words[-1]}" "{words[-2]}"; printf "%s\\n" "${{COMPREPLY[@]}}"'
        )
        out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True)
        return out.stdout.split()

    assert "workspace" in complete("herdr", "wor")
    assert complete("herdr", "pane", "split", "--direction", "") == ["right", "down"]
    assert "--raw" in complete("herdr", "pane", "read", "--r")


def test_zsh_long_options_are_space_separated(cli):
    text = cli("completion", "zsh").stdout
    assert "'--cwd[]:PATH:_files' \\" in text
    assert "'(--regex)--match[Match a literal substring]:TEXT:_default' \\" in text
    assert "--cwd=[" not in text and text.startswith("#compdef herdr\n")


def test_fish_lists_options_with_their_help(cli):
    text = cli("completion", "fish").stdout
    assert (
        'complete -c herdr -n "__fish_herdr_using_subcommand agent; and __fish_seen_subcommand_from wait" '
        "-l until -d 'State to match; repeat for more than one state' -r -f -a \"idle\\t''\nworking\\t''"
    ) in text


@pytest.mark.parametrize(
    "argv,rc,err",
    [
        (["completion"], 2, USAGE),
        (["completion", "help"], 0, USAGE),
        (["completion", "bash", "zsh"], 2, USAGE),
        (["completion", "tcsh"], 2, "unknown shell: tcsh\n" + USAGE),
    ],
)
def test_completion_usage(cli, argv, rc, err):
    res = cli(*argv)
    assert (res.rc, res.out, res.stderr) == (rc, b"", err)
