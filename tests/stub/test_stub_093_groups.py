"""0.8.2 vs 0.9.3 hand-written bodies of the plugin, machine, server and launcher paths.

Sources: 0.8.2 ``src/cli/plugin.rs`` (``plugin_install``, ``GithubPluginSource::parse``),
``src/cli/server.rs`` (``run_server_command``), ``src/main.rs``; 0.9.3 (the fork, renamed)
``src/cli/plugin.rs`` (``parse_plugin_install_args``, ``PLUGIN_INSTALL_USAGE``),
``src/cli/machine.rs`` (``parse_add_args``, ``default_label``, ``rename``, ``remove``,
``set_enabled``), ``src/client/endpoint/catalog.rs`` (label checks), ``src/main.rs``
(``remote-api-bridge``, known flags and words).
"""

from __future__ import annotations

import pytest

from simherdr.stub.cli import core as herdr_cli
from simherdr.stub.cli import machine, plugin
from tests.releases import VERSIONS, grammar

V9 = {"version": "0.9.3"}


@pytest.fixture(autouse=True)
def no_terminal(monkeypatch):
    """The in-process CLI shares pytest's fd 0: pin "not a terminal" (CI has no stdin)."""
    monkeypatch.setattr(plugin, "_stdin_is_terminal", lambda: False)
    monkeypatch.setattr(machine, "_is_terminal", lambda fd: False)


def _unsupported(command):
    return herdr_cli.UNSUPPORTED_MESSAGE.format(command=command) + "\n"


# -- plugin install / uninstall -----------------------------------------------------------------

USAGE_082 = "usage: herdr plugin install <owner>/<repo>[/subdir...] [--ref REF] [--yes]"
SOURCE_082 = "usage: herdr plugin install <owner>/<repo>[/subdir...]"
USAGE_093 = "usage: herdr plugin install [--ref REF] [--yes|-y] <owner>/<repo>[/subdir...]"
NOT_INTERACTIVE = "remote plugin install requires --yes when stdin is not interactive"

INSTALL_ERRORS = [
    # (argv, 0.8.2 stderr, 0.9.3 stderr): every line exits 2 without a request.
    ([], USAGE_082, USAGE_093),
    (["--yes"], SOURCE_082, USAGE_093),
    (["owner"], SOURCE_082, USAGE_093),
    (["--yes", "o/r"], SOURCE_082, None),  # 0.9.3: options may precede the source
    (["--ref", "main", "o/r"], SOURCE_082, NOT_INTERACTIVE),
    (["o/r", "--ref"], "missing value for --ref", "missing value for --ref"),
    (["o/r", "extra/repo"], "unknown option: extra/repo", "unknown option: extra/repo"),
    (["--unknown", "o/r"], SOURCE_082, "unknown option: --unknown"),
    (["o/r", "--bogus"], "unknown option: --bogus", "unknown option: --bogus"),
    (["o/r", "--ref", "--yes"], NOT_INTERACTIVE, NOT_INTERACTIVE),  # the ref is "--yes"
    (["o/r"], NOT_INTERACTIVE, NOT_INTERACTIVE),
    (["https://github.com/o/r"],)
    + ("plugin install v1 accepts only owner/repo[/subdir] shorthand",) * 2,
    (["git@github.com:o/r.git"],)
    + ("plugin install v1 accepts only owner/repo[/subdir] shorthand",) * 2,
    (["/r"],) + ("GitHub owner must not be empty",) * 2,
    (["o/.."],) + ("GitHub repo is invalid: ..",) * 2,
    (["o/r$"],) + ("GitHub repo contains invalid characters: r$",) * 2,
    (["ö/r"],) + ("GitHub owner contains invalid characters: ö",) * 2,
    (["o/r//x"],) + ("invalid plugin subdir segment: ",) * 2,
    (["o/r/../x"],) + ("invalid plugin subdir segment: ..",) * 2,
    (["o/r/a\\b"],) + ("invalid plugin subdir segment: a\\b",) * 2,
]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "argv,err082,err093", INSTALL_ERRORS, ids=[" ".join(row[0]) or "-" for row in INSTALL_ERRORS]
)
def test_plugin_install_checks_its_arguments(cli, fake, version, argv, err082, err093):
    expected = err093 if grammar(version).plugin_install_options_anywhere else err082
    res = cli("plugin", "install", *argv, version=version)
    if expected is None:
        assert (res.rc, res.stderr) == (2, _unsupported("herdr plugin install"))
    else:
        assert (res.rc, res.out, res.stderr) == (2, b"", expected + "\n")
    assert fake.lines == []


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "argv",
    [["o/r", "--yes"], ["o/r/sub/dir", "-y", "--ref", "v1"], ["o.x/r_y-z", "--ref", "main", "-y"]],
)
def test_plugin_install_with_valid_arguments_is_not_supported(cli, fake, version, argv):
    res = cli("plugin", "install", *argv, version=version)
    assert (res.rc, res.stderr) == (2, _unsupported("herdr plugin install"))
    assert fake.lines == []


@pytest.mark.parametrize("version", VERSIONS)
def test_plugin_install_in_a_terminal_needs_no_yes(cli, fake, monkeypatch, version):
    monkeypatch.setattr(plugin, "_stdin_is_terminal", lambda: True)
    res = cli("plugin", "install", "o/r", version=version)
    assert (res.rc, res.stderr) == (2, _unsupported("herdr plugin install"))


@pytest.mark.parametrize("version", VERSIONS)
def test_plugin_uninstall_takes_exactly_one_target(cli, fake, version):
    usage = "usage: herdr plugin uninstall <plugin_id|owner/repo[/subdir...]>\n"
    for argv in ([], ["a", "b"]):
        res = cli("plugin", "uninstall", *argv, version=version)
        assert (res.rc, res.stderr) == (2, usage)
    res = cli("plugin", "uninstall", "examples.x", version=version)
    assert (res.rc, res.stderr) == (2, _unsupported("herdr plugin uninstall"))
    assert fake.lines == []


@pytest.mark.parametrize("version", VERSIONS)
def test_plugin_group_list_keeps_the_install_line(cli, version):
    # print_plugin_help is the same in both versions (only the usage error changed).
    lines = cli("plugin", version=version).stderr.splitlines()
    assert lines[1] == "  herdr plugin install <owner>/<repo>[/subdir...] [--ref REF] [--yes]"


# -- herdr machine add / rename / remove / enable / disable (0.9.3) ------------------------------

ADD_USAGE = "usage: herdr machine add <ssh-target> [--label <label>] [--remote-session <name>]"
PROFILE = "0123456789abcdef0123456789abcdef"

MACHINE_ERRORS = [
    (["add"], 2, ADD_USAGE),
    (["add", "--label", "x"], 2, ADD_USAGE),
    (["add", "h", "--label"], 2, "missing value for --label"),
    (["add", "h", "--remote-session"], 2, "missing value for --remote-session"),
    (["add", "--label", "a", "--label=b", "h"], 2, "--label can only be specified once"),
    (
        ["add", "h", "--remote-session=a", "--remote-session", "b"],
        2,
        "--remote-session can only be specified once",
    ),
    (["add", "h", "--bogus"], 2, "unknown machine add option: --bogus"),
    (["add", "h", "other-host"], 2, "unknown machine add option: other-host"),
    (["add", "--label", "--remote-session", "s", "h"], 2, "unknown machine add option: h"),
    (["add", "h", "--label", " \t"], 2, "error: SSH endpoint label cannot be empty"),
    (
        ["add", "h", "--label", "a\x07b"],
        2,
        "error: SSH endpoint label must be at most 128 bytes and contain no control characters",
    ),
    (
        ["add", "h", "--label", "x" * 129],
        2,
        "error: SSH endpoint label must be at most 128 bytes and contain no control characters",
    ),
    (
        ["add", "ssh://dev@" + "h" * 129 + ":22"],
        2,
        "error: default machine name '%s' is longer than 128 bytes; pass --label to choose a "
        "name" % ("h" * 129),
    ),
    (
        ["add", "h\x01", "--label", "x"],
        2,
        "error: SSH target must be at most 1024 bytes and contain no control characters",
    ),
    (["rename"], 2, "usage: herdr machine rename <profile-id> --label <label>"),
    (
        ["rename", PROFILE, "--name", "x"],
        2,
        "usage: herdr machine rename <profile-id> --label <label>",
    ),
    (["rename", PROFILE, "--label", "x"], 1, "machine profile %s was not found" % PROFILE),
    (["rename", PROFILE, "--label=x"], 1, "machine profile %s was not found" % PROFILE),
    (["remove"], 2, "usage: herdr machine remove <profile-id>"),
    (["remove", PROFILE], 1, "machine profile %s was not found" % PROFILE),
    (["enable", "a", "b"], 2, "usage: herdr machine enable <profile-id>"),
    (["enable", PROFILE], 1, "machine profile %s was not found" % PROFILE),
    (["disable"], 2, "usage: herdr machine disable <profile-id>"),
    (["disable", PROFILE], 1, "machine profile %s was not found" % PROFILE),
]


@pytest.mark.parametrize(
    "argv,rc,message", MACHINE_ERRORS, ids=[" ".join(a)[:40] for a, _, _ in MACHINE_ERRORS]
)
def test_machine_catalog_commands_check_arguments(cli, fake, argv, rc, message):
    res = cli("machine", *argv, **V9)
    assert (res.rc, res.out, res.stderr) == (rc, b"", message + "\n")
    assert fake.lines == []


@pytest.mark.parametrize(
    "argv",
    [
        ["add", "workbox"],
        ["add", "--remote-session", "agents", "dev@workbox", "--label=Box"],
    ],
)
def test_machine_commands_past_the_checks_are_not_supported(cli, fake, argv):
    res = cli("machine", *argv, **V9)
    assert (res.rc, res.stderr) == (2, _unsupported("herdr machine " + argv[0]))


def test_machine_add_in_a_terminal_asks_the_remote_host_first(cli, monkeypatch):
    # Without --remote-session an interactive add lists the remote sessions over SSH before
    # any label check (parse_add_args, then SavedSshSetup::connect).
    monkeypatch.setattr(machine, "_is_terminal", lambda fd: True)
    res = cli("machine", "add", "h", "--label", " ", **V9)
    assert (res.rc, res.stderr) == (2, _unsupported("herdr machine add"))
    res = cli("machine", "add", "h", "--label", " ", "--remote-session", "s", **V9)
    assert (res.rc, res.stderr) == (2, "error: SSH endpoint label cannot be empty\n")


def test_machine_default_label_follows_the_ssh_host():
    # 0.9.3 src/cli/machine.rs test default_label_uses_ssh_host_and_non_default_session.
    for target, session, label in [
        ("workbox", "default", "workbox"),
        ("dev@workbox", "default", "workbox"),
        ("workbox", "agents", "workbox/agents"),
        ("ssh://workbox", "default", "workbox"),
        ("ssh://dev@workbox:2222", "default", "workbox"),
        ("ssh://dev@[::1]:2222", "agents", "::1/agents"),
        ("ssh://dev@workbox/", "default", "workbox"),
        ("ssh://dev@workbox:2222/", "agents", "workbox/agents"),
        ("dev@host:2222", "default", "host:2222"),  # a port only splits off an ssh:// URL
    ]:
        assert machine.default_label(target, session) == label, (target, session)


def test_machine_is_not_a_0_8_2_command(cli):
    res = cli("machine", "remove", PROFILE)
    assert (res.rc, res.stderr) == (2, "unknown command: machine\nrun 'herdr --help' for usage\n")


# -- server: only a bare `herdr server` and `--handoff-import` run the server --------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("argv", [["--bogus"], ["--handoff"], ["--json"]])
def test_server_with_another_option_prints_the_server_commands(cli, fake, version, argv):
    res = cli("server", *argv, version=version)
    assert res.rc == 2 and res.out == b""
    assert res.stderr.startswith("herdr server commands:\n  herdr server                run as")
    assert fake.lines == []


@pytest.mark.parametrize("version", VERSIONS)
def test_server_handoff_import_stays_the_server_path(cli, version):
    res = cli("server", "--handoff-import", "sock", "token", version=version)
    assert (res.rc, res.stderr) == (2, _unsupported("herdr server --handoff-import"))


# -- launcher words of src/main.rs ----------------------------------------------------------------


def test_remote_api_bridge_is_a_0_9_3_word(cli):
    res = cli("remote-api-bridge", "--stdio", **V9)
    assert (res.rc, res.stderr) == (2, _unsupported("herdr remote-api-bridge"))
    res = cli("remote-api-bridge")
    assert (res.rc, res.stderr) == (
        2,
        "unknown command: remote-api-bridge\nrun 'herdr --help' for usage\n",
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_launcher_unknown_option_and_command(cli, version):
    # `--no-session` is a 0.8.2 launch flag only (0.9.3 src/main.rs known_flags).
    res = cli("--no-session", "bogus", version=version)
    expected = (
        "unknown command: bogus\n"
        if grammar(version).no_session_flag
        else "unknown option: --no-session\n"
    )
    assert (res.rc, res.stderr) == (2, expected + "run 'herdr --help' for usage\n")
