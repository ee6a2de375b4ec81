"""Help as herdr gives it (stdout, exit 0), per version; goldens in __snapshots__.

Root help is herdr's hand-written text (``src/main.rs:616-690``), subcommand help is clap's
long help of the ``src/cli/spec.rs`` tree; the word ``help`` after a group prints the group's
hand-written list on stderr (exit 0).  The assertions that are not snapshots are herdr's own
CLI integration tests (``tests/cli/surface.rs``, ``src/cli/spec.rs`` tests).
"""

from __future__ import annotations

import pytest

from tests.releases import VERSIONS, grammar

HELP_ARGV = [
    ["--help"],
    ["-h"],
    ["workspace", "--help"],
    ["pane", "-h"],
    ["agent", "--help"],
    ["status", "--help"],
    ["server", "--help"],
    ["worktree", "list", "--help"],
    ["workspace", "create", "--help"],
    ["pane", "split", "--help"],
    ["pane", "wait-output", "--help"],
    ["pane", "report-agent", "--help"],
    ["agent", "start", "--help"],
    ["agent", "prompt", "--help"],
    ["agent", "rename", "--help"],
    ["completion", "--help"],
    ["integration", "install", "--help"],
]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("argv", HELP_ARGV, ids=[" ".join(a) for a in HELP_ARGV])
def test_help_golden(cli, fake, snapshot, version, argv):
    res = cli(*argv, version=version, env={"HOME": "/home/user"}, unset=("HERDR_SOCKET_PATH",))
    assert (res.rc, res.err) == (0, b"")
    assert fake.lines == []
    assert res.stdout == snapshot


@pytest.mark.parametrize("version", VERSIONS)
def test_root_help_points_agents_to_docs(cli, version):
    out = cli("--help", version=version).stdout
    assert out.startswith("herdr \u2014 terminal workspace manager for AI coding agents\n\nUsage:")
    for expected in ("https://herdr.dev/agent-guide.md", "https://herdr.dev/llms.txt"):
        assert expected in out
    assert out.endswith("Otherwise run: herdr --skill\n")
    assert "herdr client" not in out and "herdr wait <subcommand>" not in out
    assert ("--no-session" in out) == grammar(version).no_session_flag
    assert ("--machine <label-or-id>" in out) == grammar(version).machine


def test_root_help_paths_follow_the_session(cli, base_env):
    out = cli("--session", "lab", "--help", env={"XDG_CONFIG_HOME": "/x"}).stdout
    assert "Config: /x/herdr/config.toml\n" in out
    assert (
        "Logs:   /x/herdr/sessions/lab/herdr.log (plus herdr-client.log, herdr-server.log)\n" in out
    )
    out = cli("-h", env={"HERDR_CONFIG_PATH": "/etc/h.toml"}).stdout
    assert "Config: /etc/h.toml\n" in out


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["agent", "wait", "--help"], "Without --until"),
        (
            ["agent", "prompt", "--help"],
            "Wait for the first matching state observed after submission",
        ),
        (["agent", "start", "--help"], "ready for input"),
        (["agent", "send-keys", "--help"], "Use esc as the canonical Escape key name"),
        (["pane", "wait-output", "--help"], "Without --timeout, this waits indefinitely."),
        (["pane", "send-keys", "--help"], "escape is also accepted."),
        (["agent", "rename", "--help"], "Usage: herdr agent rename <TARGET> <NAME>|--clear"),
        (["agent", "--help"], "https://herdr.dev/llms.txt"),
        (["tab", "rename", "--help"], "Usage: herdr tab rename"),
        (["terminal", "session", "observe", "--help"], "Usage: herdr terminal session observe"),
        (["completions", "--help"], "Usage: herdr completions <SHELL>"),
    ],
)
def test_subcommand_help_explains_semantics_without_a_server(cli, fake, argv, expected):
    res = cli(*argv)
    assert res.rc == 0 and expected in res.stdout
    assert fake.lines == []


def test_every_spec_path_renders_help(cli):
    from simherdr.stub.cli.base import release_of
    from simherdr.stub.cli.spec import tree

    def paths(command, prefix):
        for sub in command[3]:
            yield prefix + [sub[0]]
            yield from paths(sub, prefix + [sub[0]])

    for version in VERSIONS:
        release = release_of(version)
        for path in paths(tree(release), []):
            res = cli(*path, "--help", version=version)
            assert res.rc == 0, path
            assert "Usage: herdr %s" % " ".join(path) in res.stdout or "[OPTIONS]" in res.stdout


def test_group_help_word_prints_the_list_on_stderr(cli):
    res = cli("workspace", "help")
    assert (res.rc, res.out) == (0, b"")
    assert res.stderr.startswith("herdr workspace commands:\n")
