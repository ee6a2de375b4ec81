"""0.9.x saved machines: herdr's catalog, ``herdr machine`` over it, and ``--machine`` routing
(issue 25 item 3).

Sources ([H093], renamed herdsman -> herdr): ``src/client/endpoint/catalog.rs`` (the catalog
file, its fields, ``validate``, the selection file, ``store_private_json``),
``src/config/io.rs`` (``state_dir``), ``src/cli/machine.rs`` (``list``, ``status``,
``reconnect``, ``add``, ``rename``, ``remove``, ``set_enabled``), ``src/cli/target.rs``
(``resolve_machine``, ``api_client``: ``machine '<label>': <error>``), ``src/remote/attach.rs``
(``detect_remote_platform``, ``ssh_error_requires_authentication``).  The stand-in reaches no
machine (stub/cli/machine.py CHOICE(unreachable)).
"""

from __future__ import annotations

import json
import os

import pytest

from simherdr.stub.cli import catalog, machine
from tests.releases import grammar, releases_where, rows

V9 = {"version": "0.9.3"}
#: Releases with and without saved machines (the grammar row ``machine``).
WITH_MACHINES = releases_where(lambda v: grammar(v.name).machine)
#: ... and the releases with the ``--machine`` prefix (row cli_machine_prefix: 0.9.1 on).
WITH_PREFIX = releases_where(lambda v: v.rows.cli_machine_prefix)
WITHOUT_MACHINES = releases_where(lambda v: not grammar(v.name).machine)
MAC = "0123456789abcdef0123456789abcdef"
BUILD = "fedcba9876543210fedcba9876543210"
UNREACHABLE_BUILD = (
    "Error: Custom { kind: Other, error: \"machine 'build': remote platform detection failed: "
    'ssh: Could not resolve hostname build.example: Name or service not known" }\n'
)


@pytest.fixture(autouse=True)
def no_terminal(monkeypatch):
    monkeypatch.setattr(machine, "_is_terminal", lambda fd: False)


def _profile(id, label, target, session="default", enabled=True):
    return {"id": id, "label": label, "target": target, "session": session, "enabled": enabled}


@pytest.fixture
def state(base_env):
    """The catalog directory of the ``cli`` fixture's HOME (no XDG_STATE_HOME there)."""
    path = os.path.join(base_env["HOME"], ".local", "state", "herdr", "client")
    os.makedirs(path)
    return path


def write_catalog(state, *profiles, selected=None, raw=None):
    doc = {"version": 1, "ssh": list(profiles)}
    if selected is not None:
        doc["selected_profile"] = selected
    with open(os.path.join(state, "endpoints.json"), "w") as f:
        f.write(json.dumps(doc) if raw is None else raw)


def read_catalog(state):
    with open(os.path.join(state, "endpoints.json")) as f:
        return f.read()


@pytest.fixture
def two(state):
    """mac (disabled, session agents) and build (enabled, an ssh:// target)."""
    write_catalog(
        state,
        _profile(MAC, "mac", "dev@mac-ssh", "agents", enabled=False),
        _profile(BUILD, "build", "ssh://dev@build.example:2222"),
    )
    return state


# -- where the catalog lives ---------------------------------------------------------------------


def test_state_dir_follows_xdg_then_home_then_tmpdir():
    assert catalog.catalog_path({"XDG_STATE_HOME": "/x", "HOME": "/h"}) == (
        "/x/herdr/client/endpoints.json"
    )
    assert catalog.catalog_path({"HOME": "/h"}) == "/h/.local/state/herdr/client/endpoints.json"
    assert catalog.selection_path({"TMPDIR": "/t"}) == (
        "/t/herdr-state/client/endpoint-selection.json"
    )


def test_list_reads_the_catalog_under_xdg_state_home(cli, tmp_path):
    path = tmp_path / "xdg" / "herdr" / "client"
    path.mkdir(parents=True)
    write_catalog(str(path), _profile(MAC, "mac", "mac-ssh"))
    res = cli("machine", "list", env={"XDG_STATE_HOME": str(tmp_path / "xdg")}, **V9)
    assert res.stdout == "%s\tmac\tmac-ssh\tdefault\tenabled\n" % MAC


# -- machine list ----------------------------------------------------------------------------------


def test_list_text_and_json(cli, two):
    res = cli("machine", "list", **V9)
    assert (res.rc, res.stdout) == (
        0,
        "%s\tmac\tdev@mac-ssh\tagents\tdisabled\n"
        "%s\tbuild\tssh://dev@build.example:2222\tdefault\tenabled\n" % (MAC, BUILD),
    )
    res = cli("machine", "list", "--json", **V9)
    assert res.rc == 0
    # serde_json::to_string_pretty of MachineListRow, field order included.
    assert res.stdout == (
        json.dumps(
            [
                dict(_profile(MAC, "mac", "dev@mac-ssh", "agents", False), selected=False),
                dict(_profile(BUILD, "build", "ssh://dev@build.example:2222"), selected=False),
            ],
            indent=2,
        )
        + "\n"
    )


def test_list_selected_comes_from_the_selection_file_when_it_names_an_enabled_machine(cli, two):
    def selected():
        rows = json.loads(cli("machine", "list", "--json", **V9).stdout)
        return [r["id"] for r in rows if r["selected"]]

    selection = os.path.join(two, "endpoint-selection.json")
    with open(selection, "w") as f:
        json.dump({"version": 1, "selected_profile": BUILD}, f)
    assert selected() == [BUILD]
    for ignored in (
        {"version": 1, "selected_profile": MAC},  # disabled
        {"version": 2, "selected_profile": BUILD},
        {"version": 1, "selected_profile": BUILD, "extra": 1},
    ):
        with open(selection, "w") as f:
            json.dump(ignored, f)
        assert selected() == [], ignored


def test_list_keeps_the_catalogs_own_selection_without_a_selection_file(cli, state):
    write_catalog(state, _profile(BUILD, "build", "b"), selected=BUILD)
    assert json.loads(cli("machine", "list", "--json", **V9).stdout)[0]["selected"] is True


# -- the catalog's refusals ----------------------------------------------------------------------

INVALID = [
    ("", "stored endpoint catalog is invalid: EOF while parsing a value at line 1 column 0"),
    ("{", "stored endpoint catalog is invalid: EOF while parsing an object at line 1 column 1"),
    ('{"version": 2}', "unsupported endpoint catalog version 2; expected 1"),
    (
        '{"version": 1, "bogus": 1}',
        "stored endpoint catalog is invalid: unknown field `bogus`, expected one of `version`, "
        "`selected_profile`, `ssh` at line 1 column 22",
    ),
    (
        '{"version": 1, "ssh": [{"id": "x"}]}',
        "stored endpoint catalog is invalid: missing field `label` at line 1 column 34",
    ),
    (
        '{"version": "1"}',
        'stored endpoint catalog is invalid: invalid type: string \\"1\\", expected u32 at line '
        "1 column 15",
    ),
    (
        json.dumps({"version": 1, "ssh": [_profile("ABC", "a", "h")]}),
        "endpoint profile id must be 32 lowercase hexadecimal characters",
    ),
    (
        json.dumps({"version": 1, "ssh": [_profile(MAC, "a", "u:secret@h")]}),
        "SSH target must not contain a password",
    ),
    (
        json.dumps({"version": 1, "ssh": [_profile(MAC, "a", "-oProxyCommand=x")]}),
        "--remote target must not start with '-'",
    ),
    (
        json.dumps({"version": 1, "ssh": [_profile(MAC, "a", "h", session="a b")]}),
        "session name may only contain ASCII letters, numbers, '.', '_' and '-'",
    ),
    (
        json.dumps({"version": 1, "ssh": [_profile(MAC, "a", "h"), _profile(MAC, "b", "h")]}),
        "duplicate endpoint profile id %s" % MAC,
    ),
    (
        json.dumps(
            {"version": 1, "selected_profile": MAC, "ssh": [_profile(MAC, "a", "h", enabled=False)]}
        ),
        "selected SSH endpoint is absent or disabled in the catalog",
    ),
]


@pytest.mark.parametrize("raw,message", INVALID, ids=[m[:40] for _, m in INVALID])
def test_an_invalid_catalog_fails_every_reader(cli, fake, state, raw, message):
    write_catalog(state, raw=raw)
    expected = 'Error: Custom { kind: Other, error: "%s" }\n' % message
    for argv in (("machine", "list"), ("machine", "status"), ("--machine", "a", "pane", "list")):
        res = cli(*argv, **V9)
        assert (res.rc, res.out, res.stderr) == (1, b"", expected), argv
    assert fake.lines == []


def test_a_catalog_that_cannot_be_read(cli, state):
    os.mkdir(os.path.join(state, "endpoints.json"))
    res = cli("machine", "list", **V9)
    assert res.rc == 1
    assert res.stderr == (
        'Error: Custom { kind: Other, error: "failed to read endpoint catalog: Is a directory '
        '(os error 21)" }\n'
    )
    os.rmdir(os.path.join(state, "endpoints.json"))
    write_catalog(state, raw=" " * (64 * 1024 + 1))
    assert "endpoint catalog exceeds the storage limit" in cli("machine", "list", **V9).stderr


# -- herdr --machine NAME ...: disabled, unknown, ambiguous, unreachable ---------------------------


@pytest.mark.parametrize("version", WITH_PREFIX)
def test_machine_prefix_refuses_a_disabled_machine(cli, fake, two, version):
    for selector in ("mac", MAC):
        res = cli("--machine", selector, "pane", "list", version=version)
        assert (res.rc, res.out, res.stderr) == (
            2,
            b"",
            "error: machine '%s' is disabled\n" % selector,
        )
    assert fake.lines == []


def test_machine_prefix_unknown_and_ambiguous(cli, fake, state):
    write_catalog(state, _profile(MAC, "box", "a"), _profile(BUILD, "box", "b"))
    res = cli("--machine", "nope", "agent", "list", **V9)
    assert (res.rc, res.stderr) == (2, "error: unknown machine 'nope'; use `herdr machine list`\n")
    res = cli("--machine=box", "agent", "list", **V9)
    assert (res.rc, res.stderr) == (
        2,
        "error: machine label 'box' is ambiguous; use its profile ID\n",
    )
    # A target is not a selector; the id is.
    res = cli("--machine", "a", "agent", "list", **V9)
    assert res.stderr == "error: unknown machine 'a'; use `herdr machine list`\n"
    assert cli("--machine", BUILD, "agent", "list", **V9).rc == 1
    assert fake.lines == []


def test_machine_prefix_to_an_enabled_machine_fails_where_herdr_reaches_it(cli, fake, two):
    res = cli("--machine", "build", "pane", "list", **V9)
    assert (res.rc, res.out, res.stderr) == (1, b"", UNREACHABLE_BUILD)
    res = cli("--machine", BUILD, "status", "server", **V9)
    assert (res.rc, res.stderr) == (1, UNREACHABLE_BUILD)
    assert fake.lines == []  # never the local server


def test_machine_prefix_parses_the_command_before_reaching_the_machine(cli, fake, two):
    res = cli("--machine", "build", "pane", "list", "--bogus", **V9)
    assert (res.rc, res.stderr) == (2, "unknown option: --bogus\n")
    res = cli("--machine", "build", "pane", "list", "--help", **V9)
    assert res.rc == 0 and res.stdout.startswith("List panes")
    # The caller's pane is local: a routed split does not take HERDR_PANE_ID (caller_pane_id).
    env = {"HERDR_PANE_ID": "w1:p2"}
    res = cli("--machine", "build", "pane", "split", "--direction", "right", env=env, **V9)
    assert (res.rc, res.stderr) == (1, UNREACHABLE_BUILD)
    assert fake.lines == []


def test_the_ssh_error_is_configurable(cli, two):
    env = {
        machine.SSH_ERROR_ENV: "ssh: connect to host build.example port 2222: Connection refused"
    }
    res = cli("--machine", "build", "api", "snapshot", env=env, **V9)
    assert res.stderr == (
        "Error: Custom { kind: Other, error: \"machine 'build': remote platform detection "
        'failed: ssh: connect to host build.example port 2222: Connection refused" }\n'
    )


def test_machine_prefix_through_the_installed_binary(herdr, fake, two):
    res = herdr("--machine", "mac", "workspace", "list", **V9)
    assert (res.rc, res.stderr) == (2, "error: machine 'mac' is disabled\n")
    res = herdr("--machine", "build", "workspace", "list", **V9)
    assert (res.rc, res.stderr) == (1, UNREACHABLE_BUILD)
    assert fake.lines == []


@pytest.mark.parametrize("version", WITHOUT_MACHINES)
def test_releases_without_machines_keep_their_refusals(cli, fake, two, version):
    res = cli("--machine", "mac", "pane", "list", version=version)
    assert (res.rc, res.stderr) == (2, "unknown option: --machine\nrun 'herdr --help' for usage\n")
    res = cli("machine", "list", version=version)
    assert (res.rc, res.stderr) == (2, "unknown command: machine\nrun 'herdr --help' for usage\n")


# -- machine status / reconnect ----------------------------------------------------------------


def test_status_reports_disabled_and_unreachable_machines(cli, two):
    res = cli("machine", "status", **V9)
    assert (res.rc, res.stdout) == (
        1,
        "%s\tmac\tdisabled\n%s\tbuild\terror\n  remote platform detection failed: ssh: Could not "
        "resolve hostname build.example: Name or service not known\n" % (MAC, BUILD),
    )
    rows = json.loads(cli("machine", "status", "--json", **V9).stdout)
    assert rows[0] == {"id": MAC, "label": "mac", "status": "disabled", "error": None}
    assert rows[1]["status"] == "error"
    assert list(rows[1]) == ["id", "label", "status", "error"]
    # A selector resolves as --machine does (a disabled one is refused, without `error: `).
    res = cli("machine", "status", "mac", **V9)
    assert (res.rc, res.stdout, res.stderr) == (2, "", "machine 'mac' is disabled\n")


def test_status_of_disabled_machines_only_succeeds(cli, state):
    write_catalog(state, _profile(MAC, "mac", "m", enabled=False))
    res = cli("machine", "status", **V9)
    assert (res.rc, res.stdout) == (0, "%s\tmac\tdisabled\n" % MAC)


def test_status_classifies_an_authentication_failure(cli, two):
    env = {machine.SSH_ERROR_ENV: "dev@build.example: Permission denied (publickey)."}
    res = cli("machine", "status", "build", env=env, **V9)
    assert res.rc == 1
    assert res.stdout == (
        "%s\tbuild\tauth required\n  remote platform detection failed: dev@build.example: "
        "Permission denied (publickey).\n" % BUILD
    )


def test_status_escapes_the_error_like_rust_escape_debug(cli, two):
    env = {machine.SSH_ERROR_ENV: "it's\tbad"}
    assert "  remote platform detection failed: it\\'s\\tbad\n" in (
        cli("machine", "status", env=env, **V9).stdout
    )


def test_reconnect(cli, two, monkeypatch):
    res = cli("machine", "reconnect", "mac", **V9)
    assert (res.rc, res.stderr) == (2, "machine 'mac' is disabled\n")
    res = cli("machine", "reconnect", "build", **V9)
    assert (res.rc, res.stderr) == (
        2,
        "reconnect requires an interactive terminal; use herdr machine status for "
        "noninteractive checks\n",
    )
    monkeypatch.setattr(machine, "_is_terminal", lambda fd: True)
    res = cli("machine", "reconnect", "build", **V9)
    assert (res.rc, res.stderr) == (
        1,
        "ssh: Could not resolve hostname build.example: Name or service not known\n"
        "SSH authentication failed; the saved machine was not changed.\n",
    )


# -- the catalog edits -----------------------------------------------------------------------------


def test_disable_then_enable_rewrites_the_catalog(cli, fake, two):
    res = cli("machine", "disable", BUILD, **V9)
    assert (res.rc, res.stdout) == (0, "Disabled SSH machine %s.\n" % BUILD)
    res = cli("--machine", "build", "pane", "list", **V9)
    assert (res.rc, res.stderr) == (2, "error: machine 'build' is disabled\n")
    res = cli("machine", "enable", MAC, **V9)
    assert (res.rc, res.stdout) == (0, "Enabled SSH machine %s.\n" % MAC)
    # serde_json::to_vec_pretty of EndpointCatalog (no selected_profile when None).
    assert read_catalog(two) == json.dumps(
        {
            "version": 1,
            "ssh": [
                _profile(MAC, "mac", "dev@mac-ssh", "agents"),
                _profile(BUILD, "build", "ssh://dev@build.example:2222", enabled=False),
            ],
        },
        indent=2,
    )
    assert os.stat(os.path.join(two, "endpoints.json")).st_mode & 0o777 == 0o600
    assert fake.lines == []


def test_disabling_the_selected_machine_clears_the_selection(cli, state):
    write_catalog(state, _profile(BUILD, "build", "b"), selected=BUILD)
    assert cli("machine", "disable", BUILD, **V9).rc == 0
    assert "selected_profile" not in json.loads(read_catalog(state))
    with open(os.path.join(state, "endpoint-selection.json")) as f:
        assert f.read() == '{\n  "version": 1,\n  "selected_profile": null\n}'


def test_rename_and_remove(cli, two):
    res = cli("machine", "rename", BUILD, "--label=mac", **V9)
    assert (res.rc, res.stdout) == (0, "Renamed SSH machine %s.\n" % BUILD)
    res = cli("--machine", "mac", "pane", "list", **V9)
    assert res.stderr == "error: machine label 'mac' is ambiguous; use its profile ID\n"
    res = cli("machine", "rename", BUILD, "--label", " ", **V9)
    assert (res.rc, res.stderr) == (2, "error: SSH endpoint label cannot be empty\n")
    res = cli("machine", "remove", MAC, **V9)
    assert (res.rc, res.stdout) == (0, "Removed SSH machine %s.\n" % MAC)
    assert [p["id"] for p in json.loads(read_catalog(two))["ssh"]] == [BUILD]
    res = cli("machine", "remove", MAC, **V9)
    assert (res.rc, res.stderr) == (1, "machine profile %s was not found\n" % MAC)


@pytest.mark.parametrize("verb", ["remove", "enable", "disable"])
def test_a_profile_id_that_does_not_parse(cli, fake, verb):
    res = cli("machine", verb, "build.example", **V9)
    assert (res.rc, res.stderr) == (
        2,
        "error: endpoint profile id must be 32 lowercase hexadecimal characters\n",
    )
    res = cli("machine", "rename", "build.example", "--label", "x", **V9)
    assert res.stderr == "error: endpoint profile id must be 32 lowercase hexadecimal characters\n"


def test_add_checks_the_catalog_before_ssh(cli, two):
    res = cli("machine", "add", "dev@build", **V9)
    assert (res.rc, res.stderr) == (
        2,
        "error: a machine named 'build' already exists; pass --label to choose another name\n",
    )
    res = cli("machine", "add", "dev:pw@other", "--label", "o", **V9)
    assert (res.rc, res.stderr) == (2, "error: SSH target must not contain a password\n")
    res = cli("machine", "add", "other", "--remote-session", "a b", **V9)
    assert res.stderr.startswith("error: session name may only contain")
    profiles = [_profile("%032x" % n, "m%d" % n, "h") for n in range(64)]
    write_catalog(two, *profiles)
    res = cli("machine", "add", "other", **V9)
    assert (res.rc, res.stderr) == (2, "error: at most 64 SSH endpoints can be saved\n")


def test_a_symlinked_catalog_is_read_but_never_replaced(cli, state, tmp_path):
    # Clients declare the catalog as a link into a read-only store (a Nix home-manager file,
    # index id 70155324800): herdr reads through it and refuses to replace it.
    target = tmp_path / "declared.json"
    target.write_text(json.dumps({"version": 1, "ssh": [_profile(MAC, "mac", "m")]}))
    os.symlink(target, os.path.join(state, "endpoints.json"))
    assert cli("machine", "list", **V9).stdout == "%s\tmac\tm\tdefault\tenabled\n" % MAC
    res = cli("machine", "disable", MAC, **V9)
    assert (res.rc, res.stdout, res.stderr) == (
        1,
        "",
        'Error: Custom { kind: Other, error: "refusing to replace endpoint catalog through a '
        'non-file path" }\n',
    )
    assert json.loads(target.read_text())["ssh"][0]["enabled"] is True


def test_the_catalog_is_shared_by_every_local_session(cli, two):
    # herdr#4036: saved machines are global across named local sessions.
    res = cli("--session", "other", "machine", "list", **V9)
    assert res.stdout == cli("machine", "list", **V9).stdout
    assert res.stdout.count("\n") == 2


def test_routed_worktree_paths_are_the_remote_machines(cli, fake, two):
    # 0.9.3 src/cli/worktree.rs normalize_path_arg and its machine test
    # remote_worktree_paths_are_not_expanded_on_the_caller_machine.
    for path in ("~/Projects/herdr", "/Users/can/Projects/herdr", r"C:\work\repo", "C:/work/repo"):
        assert machine.remote_path(path) == path
    res = cli("--machine", "build", "worktree", "create", "--cwd", "../other", **V9)
    assert (res.rc, res.stderr) == (
        1,
        'Error: Custom { kind: InvalidInput, error: "remote worktree paths must be absolute or '
        'start with ~/" }\n',
    )
    res = cli("--machine", "build", "worktree", "open", "--path", "C:relative", **V9)
    assert res.rc == 1 and "remote worktree paths must be absolute" in res.stderr
    res = cli("--machine", "build", "worktree", "list", "--cwd", "~/repo", **V9)
    assert (res.rc, res.stderr) == (1, UNREACHABLE_BUILD)
    assert fake.lines == []


def test_there_is_no_machine_get(cli, two):
    # 0.9.3 run_machine_command knows list/status/reconnect/add/rename/remove/enable/disable;
    # any other word prints the machine help on stderr, exit 2.
    res = cli("machine", "get", "build", **V9)
    assert (res.rc, res.out) == (2, b"")
    assert res.stderr.startswith("Usage:\n  herdr machine list [--json]\n")


def test_a_state_dir_that_is_a_file_is_one_clear_line(cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    for argv in (
        ("machine", "list"),
        ("machine", "enable", MAC),
        ("--machine", "x", "tab", "list"),
    ):
        res = cli(*argv, env={"XDG_STATE_HOME": str(blocker)}, **V9)
        assert (res.rc, res.out) == (1, b""), argv
        assert res.stderr == (
            'Error: Custom { kind: Other, error: "failed to open endpoint catalog %s/herdr/client/'
            'endpoints.json: Not a directory (os error 20)" }\n' % blocker
        )


@pytest.mark.parametrize("version", releases_where(lambda v: grammar(v.name).machine))
def test_machine_prefix_came_after_the_machine_group(cli, fake, two, version):
    # herdr 0.9.0 has `herdr machine` (#3670); the global --machine is 0.9.1's (#3918).
    assert cli("machine", "list", version=version).stdout.count("\t") == 8
    res = cli("--machine", "mac", "pane", "list", version=version)
    if rows(version).cli_machine_prefix:
        assert (res.rc, res.stderr) == (2, "error: machine 'mac' is disabled\n")
    else:
        assert (res.rc, res.stderr) == (
            2,
            "unknown option: --machine\nrun 'herdr --help' for usage\n",
        )
    assert fake.lines == []
