"""The stand-in as herdr 0.8.0 (tag v0.8.0, 346411fa) against the fake server, beside 0.8.2.

What herdr's own CLI tests assert where v0.8.0 and v0.8.2 differ (`git diff 346411fa 9eb52145
-- tests`), in our words: tests/cli/agent_transport.rs, panes.rs, surface.rs, sessions.rs,
workspace.rs, tests/broken_pipe.rs, tests/api_ping.rs. Each is named in its test. The other
client-visible 0.8.0 grammar rows (releases/0.8.0.toml) follow.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from stub_fake import result

from simherdr.stub.cli.base import GRAMMAR
from simherdr.stub.cli.roothelp import AGENT_HELP_FOOTER
from tests.releases import distinguishing, kinds, like_base, resolve, rows

#: The releases speaking the base's CLI grammar (its cli_* grammar rows): what these tests are written
#: against; each test runs on the ones its row tells apart.
BASE_GRAMMAR = like_base(*("cli_" + name for name in GRAMMAR))


@pytest.fixture
def herdr(cli):
    """The stand-in in process (the ``cli`` fixture: the same bytes and status as the binary,
    tests/stub/test_stub_commands.py test_inprocess_matches_subprocess), without a process
    start per call; the binary's own process behaviour is tested there and in test_cli_*."""
    return cli


def on(*names: str):
    """Parametrize over the base-grammar releases the named rows tell apart."""
    return pytest.mark.parametrize("version", distinguishing(*names, among=BASE_GRAMMAR))


def as_release(fake, version):
    """The fake server answers ping as ``version`` (the stand-in's protocol guard)."""
    fake.version, fake.protocol = version, resolve(version).protocol
    return fake


def _agent(**fields):
    base = {"name": "reviewer", "pane_id": "w1:p1", "terminal_id": "term_1", "agent": None}
    return result("agent_info", agent={**base, **fields})


def test_agent_start_takes_interactive_ready_during_a_detection_gap_080(herdr, fake):
    """v0.8.0 tests/cli/agent_transport.rs agent_start_accepts_durable_readiness_during_
    detection_gap: agent.start comes first (no pane.get pin), and the first agent.get that says
    interactive_ready settles the start even while agent_status is still unknown."""
    as_release(fake, "0.8.0")
    started = {"pane_id": "w1:p1", "terminal_id": "term_1", "name": "reviewer"}
    fake.on("agent.start", result("agent_started", agent=started, argv=["opencode"]))
    fake.on(
        "agent.get", _agent(agent_status="unknown", interactive_ready=True, launch_pending=False)
    )
    res = herdr(
        "agent", "start", "reviewer", "--kind", "opencode", "--pane", "w1:p1", version="0.8.0"
    )
    assert res.rc == 0, res.stderr
    assert '"interactive_ready":true' in res.stdout and '"name":"reviewer"' in res.stdout
    assert [r["method"] for r in fake.ops()] == ["agent.start", "agent.get"]


def test_agent_start_blocked_at_startup(herdr, fake):
    """v0.8.2 tests/cli/agent_transport.rs agent_start_waits_through_unknown_then_rejects_blocked
    (agent_not_ready); 0.8.0 has no status rule: ready is ready."""
    started = {"pane_id": "w1:p1", "terminal_id": "term_1", "name": "reviewer"}
    fake.on("pane.get", result("pane_info", pane={"terminal_id": "term_1"}))
    fake.on("agent.start", result("agent_started", agent=started, argv=["opencode"]))
    fake.on(
        "agent.get",
        _agent(
            agent="opencode", agent_status="blocked", interactive_ready=True, launch_pending=False
        ),
    )
    for version in distinguishing("cli_agent_start_follows_status", among=BASE_GRAMMAR):
        as_release(fake, version)
        res = herdr(
            "agent", "start", "reviewer", "--kind", "opencode", "--pane", "w1:p1", version=version
        )
        if not rows(version).cli_agent_start_follows_status:
            assert res.rc == 0, res.stderr
        else:
            assert res.rc == 1 and res.stdout == ""
            assert '"code":"agent_not_ready"' in res.stderr


@on("cli_read_options_anywhere")
def test_pane_read_bad_value(herdr, version):
    """v0.8.2 tests/cli/panes.rs pane_read_rejects_invalid_value_with_usage_error: exit 2 with
    the plain message; 0.8.0 returns the io::Error from main (exit 1, `Error: Custom {...}`)."""
    res = herdr("pane", "read", "w1:p1", "--source", "bogus", version=version)
    if not rows(version).cli_read_options_anywhere:
        assert (res.rc, res.stderr) == (
            1,
            'Error: Custom { kind: Other, error: "invalid read source: bogus" }\n',
        )
    else:
        assert (res.rc, res.stderr) == (2, "invalid read source: bogus\n")


@on("cli_read_options_anywhere")
def test_pane_read_option_order_and_equals(herdr, fake, version):
    """#2183: 0.8.2 takes options before the pane id and --opt=value; 0.8.0's first word is the
    pane id and every later one must be an option of its own."""
    as_release(fake, version).on(
        "pane.read", result("pane_read", read={"pane_id": "w1:p1", "text": "x"})
    )
    res = herdr("pane", "read", "--source", "visible", "w1:p1", version=version)
    if not rows(version).cli_read_options_anywhere:
        assert (res.rc, res.stderr) == (2, "unknown option: visible\n")
    else:
        assert res.rc == 0, res.stderr
    res = herdr("pane", "read", "w1:p1", "--lines=5", version=version)
    if not rows(version).cli_read_options_anywhere:
        assert (res.rc, res.stderr) == (2, "unknown option: --lines=5\n")
    else:
        assert res.rc == 0 and fake.ops()[-1]["params"]["lines"] == 5
    res = herdr("pane", "read", version=version)
    usage = (
        "usage: herdr pane read <pane_id> [--source visible|recent|recent-unwrapped] [--lines N] "
        "[--format text|ansi] [--ansi]\n"
        if not rows(version).cli_read_options_anywhere
        else "usage: herdr pane read <pane_id> [--source visible|recent|recent-unwrapped|detection] "
        "[--lines N] [--format text|ansi] [--ansi] [--raw]\n"
    )
    assert (res.rc, res.stderr) == (2, usage)


@on("cli_read_options_anywhere")
def test_wait_output_timeout_value(herdr, version):
    res = herdr(
        "pane", "wait-output", "w1:p1", "--match", "x", "--timeout", "soon", version=version
    )
    message = "invalid value for --timeout: soon"
    if not rows(version).cli_read_options_anywhere:
        assert (res.rc, res.stderr) == (1, 'Error: Custom { kind: Other, error: "%s" }\n' % message)
    else:
        assert (res.rc, res.stderr) == (2, message + "\n")


@on("cli_pane_input")
def test_pane_input_and_right_click(herdr, fake, version):
    """#2504: 0.8.0 has no `pane input` verb and no `pane split --right-click`."""
    as_release(fake, version).on("pane.input.set", result("ok"))
    res = herdr("pane", "input", "w1:p1", "--right-click", "pane", version=version)
    if not rows(version).cli_pane_input:
        assert res.rc == 2 and res.stderr.startswith("herdr pane commands:\n")
        assert "pane input" not in res.stderr and "--right-click" not in res.stderr
    else:
        assert res.rc == 0 and fake.ops()[-1]["method"] == "pane.input.set"
    res = herdr(
        "pane", "split", "w1:p1", "--direction", "right", "--right-click", "pane", version=version
    )
    if not rows(version).cli_pane_input:
        assert (res.rc, res.stderr) == (2, "unknown option: --right-click\n")
    res = herdr("pane", "--help", version=version)
    assert ("input" in res.stdout.split()) is rows(version).cli_pane_input


@on("cli_pane_input")
def test_split_current_without_a_calling_pane(herdr, fake, version):
    """#2504: 0.8.2 refuses `--current` without HERDR_PANE_ID; 0.8.0 splits the focused pane
    (v0.8.0 src/cli/pane.rs test parse_pane_split_args_current_without_env_keeps_focused_fallback)."""
    as_release(fake, version).on("pane.split", result("pane_info", pane={"pane_id": "w1:p2"}))
    res = herdr(
        "pane",
        "split",
        "--current",
        "--direction",
        "down",
        version=version,
        unset=("HERDR_PANE_ID",),
    )
    if not rows(version).cli_pane_input:
        assert res.rc == 0, res.stderr
        assert "target_pane_id" not in fake.ops()[-1]["params"]
    else:
        assert (res.rc, res.stderr) == (2, "--current requires HERDR_PANE_ID\n")


@on("cli_current_from_env")
def test_layout_current_resolves_the_caller_from_082(herdr, fake, version):
    """#2297/#2298: `pane layout|process-info|edges --current` send HERDR_PANE_ID on 0.8.2;
    0.8.0 sends no pane id (the server's focused pane)."""
    as_release(fake, version).default_reply = result("pane_layout", layout={})
    for verb, method in (
        ("layout", "pane.layout"),
        ("process-info", "pane.process_info"),
        ("edges", "pane.edges"),
    ):
        herdr("pane", verb, "--current", version=version, env={"HERDR_PANE_ID": "w1:p2"})
        sent = fake.ops()[-1]
        assert sent["method"] == method
        assert sent["params"].get("pane_id") == (
            "w1:p2" if rows(version).cli_current_from_env else None
        )


@on("cli_agent_help_footer", "prompt_refuses_blocked")
def test_help_points_agents_to_resources_from_082(herdr, version):
    """v0.8.2 tests/cli/surface.rs root_and_command_group_help_point_agents_to_plain_text_docs;
    0.8.0's root help ends with its Skill: line and group help has no footer."""
    root = herdr("--help", version=version)
    group = herdr("agent", "--help", version=version)
    assert root.rc == group.rc == 0
    for text in (root.stdout, group.stdout):
        assert (AGENT_HELP_FOOTER in text) is rows(version).cli_agent_help_footer
        assert ("https://herdr.dev/llms.txt" in text) is rows(version).cli_agent_help_footer
    skill = "Skill:  herdr --skill prints agent instructions for driving herdr from a pane\n"
    assert root.stdout.endswith(skill) is not rows(version).cli_agent_help_footer
    prompt = herdr("agent", "prompt", "--help", version=version).stdout
    assert ("rejected with agent_blocked" in prompt) is rows(version).prompt_refuses_blocked


@on("cli_quiet_broken_pipe")
def test_closed_stdout_pipe(stubs, base_env, version):
    """v0.8.2 tests/broken_pipe.rs cli_exits_via_sigpipe_without_panicking_when_stdout_closes:
    0.8.2 dies by SIGPIPE and prints nothing; 0.8.0 (and 0.8.1) panic, exit 101."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the stand-in starts (not a race with it)
    try:
        proc = subprocess.Popen(
            [stubs[version], "--help"], env=base_env, stdout=write_end, stderr=subprocess.PIPE
        )
    finally:
        os.close(write_end)
    err = proc.stderr.read().decode()
    rc = proc.wait(timeout=20)
    if not rows(version).cli_quiet_broken_pipe:
        assert rc == 101 and "failed printing to stdout: Broken pipe (os error 32)" in err
    else:
        assert (rc, err) == (-13, "")


@on("protocol")
def test_status_reports_the_release_protocol(herdr, make_fake, version):
    """v0.8.0 tests/cli/sessions.rs status_commands_report_client_and_server_versions and
    tests/api_ping.rs ping_over_socket_returns_version: protocol 19 (0.8.2: 20)."""
    server = make_fake("s.sock", version=version)
    res = herdr("status", version=version, socket=server.path)
    assert res.rc == 0, res.stderr
    protocol = resolve(version).protocol
    assert "  protocol: %d\n" % protocol in res.stdout and "compatible: yes" in res.stdout


@on("config_check_theme_names")
def test_config_check_theme_names(herdr, tmp_path, version):
    """v0.8.2 tests/cli/workspace.rs config_check_reports_unknown_theme_names (#2452); 0.8.0
    accepts the name."""
    config = tmp_path / "config.toml"
    config.write_text('[theme]\nname = "catppucin"\n')
    res = herdr("config", "check", version=version, env={"HERDR_CONFIG_PATH": str(config)})
    if not rows(version).config_check_theme_names:
        assert (res.rc, res.stdout) == (0, "config: ok\n")
    else:
        assert res.rc == 1 and "config: issues found" in res.stdout
        assert 'unknown theme name theme.name = "catppucin"; using "catppuccin"' in res.stdout


@on("tables.agent_kinds")
def test_qwen_kind_and_integration(herdr, version):
    res = herdr("agent", "start", "q", "--kind", "qwen", "--pane", "w1:p1", version=version)
    if "qwen" not in kinds(version):
        assert (res.rc, res.stderr) == (2, "unsupported interactive agent kind: qwen\n")
    listed = herdr("agent", version=version).stderr
    assert ("|qwen|" in listed) is ("qwen" in kinds(version))


@on("cli_pane_input")
def test_group_list_names_each_verb_once(herdr, version):
    """A verb kept in two release variants (read, wait-output, split, layout, ...) is listed
    once, with the release's own usage line."""
    listing = herdr("pane", version=version).stderr.splitlines()
    verbs = [line.split()[2] for line in listing[1:]]
    assert len(verbs) == len(set(verbs)) + verbs.count("swap") + verbs.count("move") - 2
    split = next(line for line in listing if line.startswith("  herdr pane split"))
    assert ("--right-click" in split) is rows(version).cli_pane_input
