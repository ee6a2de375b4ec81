"""`herdr agent start`: pin, start, busy-shell retry, readiness poll, deadline (CLI.md §5)."""

from __future__ import annotations

import io
import json

import pytest
from stub_fake import Hangup, ThenShutdown, error, result

from simherdr.stub.cli import agent as agent_cli
from simherdr.stub.cli import base
from simherdr.stub.cli import core as herdr_cli
from tests.releases import distinguishing, grammar, resolve

# Success paths: 100 ms poll -> 1 ms, default 30 s deadline -> 300 ms (room for a loaded machine).
FAST = {"SIMHERDR_TIME_SCALE": "100"}
# Expiry paths: 30 s deadline -> 30 ms.
FASTER = {"SIMHERDR_TIME_SCALE": "1000"}
PANE = {
    "pane_id": "w1:p1",
    "terminal_id": "term_1",
    "workspace_id": "w1",
    "tab_id": "w1:t1",
    "focused": True,
    "agent_status": "unknown",
    "revision": 0,
}
BUSY = error("agent_pane_busy", "agent target pane w1:p1 is not an available shell")
SHELL_STARTING = result(
    "pane_process_info",
    process_info={
        "pane_id": "w1:p1",
        "shell_pid": 41,
        "foreground_process_group_id": 41,
        "foreground_processes": [{"pid": 41, "name": "-zsh", "argv": ["-zsh"]}],
    },
)
EDITOR = result(
    "pane_process_info",
    process_info={
        "pane_id": "w1:p1",
        "shell_pid": 41,
        "foreground_process_group_id": 57,
        "foreground_processes": [{"pid": 57, "name": "vim", "argv": ["vim"]}],
    },
)


@pytest.fixture
def herdr(cli):
    """The stand-in in process (the ``cli`` fixture: the same bytes and status as the binary,
    tests/stub/test_stub_commands.py test_inprocess_matches_subprocess), without a process
    start per call; the binary's own process behaviour is tested there and in test_cli_*."""
    return cli


def agent(status="unknown", **extra):
    base = {
        "terminal_id": "term_1",
        "name": "bot",
        "agent": "pi",
        "agent_status": status,
        "workspace_id": "w1",
        "tab_id": "w1:t1",
        "pane_id": "w1:p1",
        "focused": False,
        "state_change_seq": 1,
        "revision": 0,
    }
    base.update(extra)
    return {k: v for k, v in base.items() if v is not None}


def started(**extra):
    return result(
        "agent_started", agent=agent(launch_pending=True, **extra), argv=["pi", "--no-session"]
    )


def info(status="unknown", **fields):
    return result("agent_info", agent=agent(status, **fields))


def script(fake, *polls, start=None):
    fake.on("pane.get", result("pane_info", pane=PANE))
    fake.on("agent.start", *(start or [started()]))
    fake.on("agent.get", *polls)


START = ["agent", "start", "bot", "--kind", "pi", "--pane", "w1:p1"]


def test_ready_success_replaces_agent_and_pings_only_first_poll(herdr, fake):
    script(
        fake,
        info("working", launch_pending=True),
        info("unknown", launch_pending=True),
        info("idle", interactive_ready=True, title="π"),
    )
    res = herdr(*START, "--", "--no-session", "-c", env=FAST)
    assert res.rc == 0 and res.err == b""
    expected_agent = agent("idle", interactive_ready=True, title="π")
    assert (
        res.out
        == (
            json.dumps(
                {
                    "id": "cli:agent:start",
                    "result": {
                        "agent": expected_agent,
                        "argv": ["pi", "--no-session"],
                        "type": "agent_started",
                    },
                },
                separators=(",", ":"),
                sort_keys=True,
                ensure_ascii=False,
            )
            + "\n"
        ).encode()
    )
    assert fake.calls() == [
        ("ping", "api-client:status"),
        ("pane.get", "cli:agent:start:pane"),
        ("ping", "api-client:status"),
        ("agent.start", "cli:agent:start"),
        ("ping", "api-client:status"),
        ("agent.get", "cli:agent:start"),
        ("agent.get", "cli:agent:start"),
        ("agent.get", "cli:agent:start"),
    ]
    ops = fake.ops()
    assert ops[0]["params"] == {"pane_id": "w1:p1"}
    assert fake.lines[3] == (
        b'{"id":"cli:agent:start","method":"agent.start","params":{"name":"bot","kind":"pi",'
        b'"pane_id":"w1:p1","args":["--no-session","-c"]}}'
    )
    assert all(op["params"] == {"target": "bot"} for op in ops[2:])


def test_params_omit_args_and_timeout_unless_given(herdr, fake):
    script(fake, info("idle", interactive_ready=True))
    herdr(
        "agent",
        "start",
        "bot",
        "--timeout",
        "60000",
        "--kind",
        "Claude-Code.EXE",
        "--pane",
        "w1:p1",
        env=FAST,
    )
    assert fake.ops()[1]["params"] == {
        "name": "bot",
        "kind": "Claude-Code.EXE",
        "pane_id": "w1:p1",
        "timeout_ms": 60000,
    }
    fake.lines.clear()
    herdr(*START, env=FAST)
    assert list(fake.ops()[1]["params"]) == ["name", "kind", "pane_id"]


@pytest.mark.parametrize(
    "poll,code,message",
    [
        (
            info("blocked", launch_pending=True),
            "agent_not_ready",
            "agent bot is blocked during startup and is not ready for prompts",
        ),
        (info("idle"), "agent_start_failed", "agent process exited before becoming interactive"),
        (
            info("done", launch_pending=False),
            "agent_start_failed",
            "agent process exited before becoming interactive",
        ),
        (info("idle", agent="claude"), "agent_kind_mismatch", "expected pi, detected claude"),
        (
            info("working", terminal_id="term_2"),
            "agent_name_not_found",
            "named agent bot no longer owns the target terminal",
        ),
        (
            info("idle", name="other"),
            "agent_name_not_found",
            "named agent bot no longer owns the target terminal",
        ),
    ],
)
def test_poll_outcomes(herdr, fake, poll, code, message):
    script(fake, poll)
    res = herdr(*START, env=FAST)
    assert (res.rc, res.out) == (1, b"")
    assert (
        res.err
        == json.dumps(
            {"error": {"code": code, "message": message}, "id": "cli:agent:start"},
            separators=(",", ":"),
        ).encode()
        + b"\n"
    )
    assert [m for m, _ in fake.calls()].count("agent.get") == 1


def test_alias_kind_expects_canonical_label(herdr, fake):
    script(fake, info("idle", agent="pi", interactive_ready=True))
    res = herdr("agent", "start", "bot", "--kind", " claude-code ", "--pane", "w1:p1", env=FAST)
    assert res.err_json()["error"]["message"] == "expected claude, detected pi"


def test_launch_pending_idle_keeps_polling_and_missing_kind_is_tolerated(herdr, fake):
    script(
        fake, info("idle", launch_pending=True, agent=None), info("idle", interactive_ready=True)
    )
    res = herdr(*START, env=FAST)
    assert res.rc == 0 and res.json()["result"]["agent"]["interactive_ready"] is True


def test_fallback_to_pane_id_then_sleep_and_retry(herdr, fake):
    def by_target(request):
        if request["params"]["target"] == "bot":
            return error("agent_not_found", "agent target bot not found")
        return (
            info("idle", interactive_ready=True)
            if len(fake.ops()) > 4
            else error("agent_not_found", "x")
        )

    script(fake, by_target)
    res = herdr(*START, env=FAST)
    assert res.rc == 0
    targets = [op["params"]["target"] for op in fake.ops()[2:]]
    assert targets == ["bot", "w1:p1", "bot", "w1:p1"]
    assert [m for m, _ in fake.calls()].count("ping") == 3  # pin, start, first poll only


def test_start_reply_without_terminal_id(herdr, fake):
    script(fake, info("idle"), start=[result("agent_started", agent={"name": "bot"}, argv=["pi"])])
    res = herdr(*START, env=FAST)
    assert res.err == (
        b'{"error":{"code":"agent_start_failed","message":"agent start response did not include '
        b'terminal_id"},"id":"cli:agent:start"}\n'
    )
    assert "agent.get" not in [m for m, _ in fake.calls()]


def test_start_reply_terminal_differs_from_pinned(herdr, fake):
    script(fake, info("idle"), start=[started(terminal_id="term_9")])
    res = herdr(*START, env=FAST)
    assert res.err_json() == {
        "error": {
            "code": "agent_name_not_found",
            "message": "named agent bot no longer owns the target terminal",
        },
        "id": "cli:agent:start",
    }


def test_timeout_sends_unguarded_timeout_lookup(herdr, fake):
    script(fake, info("working", launch_pending=True))
    res = herdr(*START, "--timeout", "30000", env=FASTER)
    assert (res.rc, res.out) == (1, b"")
    assert res.err == (
        b'{"error":{"code":"timeout","message":"timed out waiting for agent startup"},'
        b'"id":"cli:agent:start"}\n'
    )
    calls = fake.calls()
    assert calls[-1] == ("agent.get", "cli:agent:start:timeout")
    assert calls[-2][0] != "ping"  # unguarded
    assert fake.ops()[-1]["params"] == {"target": "bot"}
    assert [c for c in calls if c == ("agent.get", "cli:agent:start")]  # polled before giving up


def test_server_error_from_agent_start_is_relayed(herdr, fake):
    script(
        fake,
        info("idle"),
        start=[
            error(
                "invalid_agent_timeout",
                "agent start timeout must be greater than 3000ms and at most 300000ms",
            )
        ],
    )
    res = herdr(*START, "--timeout", "3000", env=FAST)
    assert res.rc == 1
    assert res.err == (
        b'{"error":{"code":"invalid_agent_timeout","message":"agent start timeout must be greater '
        b'than 3000ms and at most 300000ms"},"id":"cli:agent:start"}\n'
    )
    assert [m for m, _ in fake.calls()] == ["ping", "pane.get", "ping", "agent.start"]


def test_busy_shell_retry_until_start_succeeds(herdr, fake):
    fake.on("pane.process_info", SHELL_STARTING)
    script(fake, info("idle", interactive_ready=True), start=[BUSY, BUSY, started()])
    res = herdr(*START, env={"SIMHERDR_TIME_SCALE": "2"})  # 1 s window, 50 ms polls
    assert res.rc == 0, res.err
    methods = [m for m, _ in fake.calls() if m != "ping"]
    assert methods == [
        "pane.get",
        "agent.start",
        "pane.get",
        "pane.process_info",
        "pane.get",
        "pane.process_info",
        "agent.start",
        "pane.get",
        "pane.process_info",
        "pane.get",
        "pane.process_info",
        "agent.start",
        "agent.get",
    ]
    ids = {i for m, i in fake.calls() if m == "pane.process_info"}
    assert ids == {"cli:agent:start:process_info"}
    assert all(
        op["params"] == {"pane_id": "w1:p1"}
        for op in fake.ops()
        if op["method"] == "pane.process_info"
    )


def test_busy_not_retried_when_foreground_is_not_the_shell(herdr, fake):
    fake.on("pane.process_info", EDITOR)
    script(fake, info("idle"), start=[BUSY])
    res = herdr(*START, env=FAST)
    assert res.rc == 1 and res.err_json()["error"]["code"] == "agent_pane_busy"
    assert [m for m, _ in fake.calls() if m != "ping"] == [
        "pane.get",
        "agent.start",
        "pane.get",
        "pane.process_info",
    ]


def test_busy_not_retried_when_timeout_outside_valid_range(herdr, fake):
    fake.on("pane.process_info", SHELL_STARTING)
    script(fake, info("idle"), start=[BUSY])
    res = herdr(*START, "--timeout", "3000", env=FAST)
    assert res.rc == 1
    assert [m for m, _ in fake.calls() if m != "ping"] == ["pane.get", "agent.start"]


def test_busy_not_retried_when_terminal_changed(herdr, fake):
    fake.on("pane.process_info", SHELL_STARTING)
    fake.on(
        "pane.get",
        result("pane_info", pane=PANE),
        result("pane_info", pane={**PANE, "terminal_id": "term_2"}),
    )
    fake.on("agent.start", BUSY)
    res = herdr(*START, env=FAST)
    assert res.rc == 1 and res.err_json()["error"]["code"] == "agent_pane_busy"
    assert [m for m, _ in fake.calls() if m != "ping"] == ["pane.get", "agent.start", "pane.get"]


def test_busy_window_expires_with_last_busy_reply(herdr, fake):
    fake.on("pane.process_info", SHELL_STARTING)
    last = error("agent_pane_busy", "agent target pane w1:p1 is not an available shell (last)")
    script(fake, info("idle"), start=[BUSY, last])
    res = herdr(*START, env={"SIMHERDR_TIME_SCALE": "100"})  # 2 s window -> 20 ms
    assert res.rc == 1
    assert res.err_json()["error"]["message"].endswith("(last)")
    assert [m for m, _ in fake.calls()].count("agent.start") >= 2
    assert "agent.get" not in [m for m, _ in fake.calls()]


def test_no_server_reports_pane_lookup_id(herdr, sockdir):
    res = herdr(*START, socket=sockdir + "/none.sock")
    assert res.err.startswith(b'{"id":"cli:agent:start:pane","error":{"code":"server_not_running"')


def test_protocol_mismatch_reports_pane_lookup_id(herdr, fake):
    fake.protocol = 19
    res = herdr(*START)
    assert res.err.startswith(b'{"id":"cli:agent:start:pane","error":{"code":"protocol_mismatch"')
    assert fake.calls() == [("ping", "api-client:status")]


def test_transport_failure_while_polling(herdr, fake):
    script(fake, Hangup())
    res = herdr(*START, env=FAST)
    assert res.rc == 1
    assert res.err == (
        b'{"error":{"code":"agent_start_transport_failed","message":"empty api response"},'
        b'"id":"cli:agent:start"}\n'
    )


def test_server_gone_while_polling_prints_sorted_envelope(herdr, fake):
    # the name lookup fails and the server goes away; the fallback lookup cannot connect
    script(fake, ThenShutdown(error("agent_not_found", "agent target bot not found")))
    res = herdr(*START, env=FAST)
    assert res.rc == 1
    # printed through print_response, i.e. key-sorted: error before id
    assert res.err == (
        b'{"error":{"code":"server_not_running","message":"no herdr server is running at '
        + fake.path.encode()
        + b'; run `herdr` to start or attach it"},"id":"cli:agent:start"}\n'
    )


class FakeClock:
    """The context's clock (base.Clock's interface), advanced only by the CLI's own sleeps."""

    scale = 1.0

    def __init__(self):
        self.ms = 0
        self.sleeps = []

    def monotonic(self):
        return self.ms / 1000

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.ms += round(seconds * 1000)

    def real_seconds(self, seconds):
        return seconds


def test_poll_interval_and_deadline_go_through_the_context_clock(fake, base_env):
    """In-process with a fake clock: 4000 ms deadline / 100 ms polls = exactly 40 polls."""
    clock = FakeClock()
    script(fake, info("working", launch_pending=True))
    out, err = io.BytesIO(), io.BytesIO()
    rc = herdr_cli.run(
        START + ["--timeout", "4000"],
        version="0.8.2",
        env={**base_env, "HERDR_SOCKET_PATH": fake.path},
        stdout=out,
        stderr=err,
        clock=clock,
    )
    assert rc == 1 and json.loads(err.getvalue())["error"]["code"] == "timeout"
    assert clock.sleeps == [agent_cli.AGENT_START_POLL_INTERVAL] * 40
    assert [i for m, i in fake.calls() if m == "agent.get"] == ["cli:agent:start"] * 40 + [
        "cli:agent:start:timeout"
    ]


def test_busy_window_is_two_nominal_seconds(fake, base_env):
    clock = FakeClock()
    fake.on("pane.process_info", SHELL_STARTING)
    script(fake, info("idle"), start=[BUSY])
    rc = herdr_cli.run(
        START,
        version="0.8.2",
        env={**base_env, "HERDR_SOCKET_PATH": fake.path},
        stdout=io.BytesIO(),
        stderr=io.BytesIO(),
        clock=clock,
    )
    assert rc == 1
    assert [m for m, _ in fake.calls()].count("agent.start") == 20  # t = 0, 0.1, ..., 1.9 s
    assert clock.ms == 2000


@pytest.mark.parametrize(
    "raw,scale",
    [
        (None, 1.0),
        ("", 1.0),
        ("4", 4.0),
        ("0.5", 0.5),
        ("0", 1.0),
        ("-2", 1.0),
        ("nan", 1.0),
        ("inf", 1.0),
        ("fast", 1.0),
    ],
)
def test_time_scale_env(raw, scale):
    env = {} if raw is None else {base.TIME_SCALE_ENV: raw}
    assert base.read_time_scale(env) == scale


def test_kind_table():
    assert agent_cli.parse_kind("Cursor-Agent.cmd", "0.8.2") == "cursor"
    assert agent_cli.parse_kind("kiro", "0.8.2") == "kiro"
    assert agent_cli.parse_kind("qwen code", "0.8.2") == "qwen"
    assert agent_cli.parse_kind("bash", "0.8.2") is None
    assert agent_cli._shows_shell_initialization(SHELL_STARTING["result"]["process_info"])
    assert not agent_cli._shows_shell_initialization(EDITOR["result"]["process_info"])


@pytest.mark.parametrize("version", distinguishing("cli_start_codex_unknown_ready"))
def test_codex_unknown_but_interactive_is_started_from_0_9(herdr, fake, version):
    """[H093] src/cli/agent.rs wait_for_named_agent: 0.9 accepts a codex agent whose status is
    still `unknown` once `interactive_ready`; 0.8.2 polls on until idle/done."""
    fake.version, fake.protocol = version, resolve(version).protocol
    script(
        fake,
        info("unknown", agent="codex", interactive_ready=True),
        info("idle", agent="codex", interactive_ready=True),
    )
    res = herdr(*START[:4], "codex", *START[5:], version=version, env=FAST)
    assert res.rc == 0, res.err
    polls = [m for m, _ in fake.calls()].count("agent.get")
    status = res.json()["result"]["agent"]["agent_status"]
    ready_codex = grammar(version).start_codex_unknown_ready
    assert (polls, status) == ((1, "unknown") if ready_codex else (2, "idle"))


def test_unknown_but_interactive_other_kind_keeps_polling_in_0_9(herdr, fake):
    fake.version, fake.protocol = "0.9.3", 22
    script(fake, info("unknown", interactive_ready=True), info("idle", interactive_ready=True))
    res = herdr(*START, version="0.9.3", env=FAST)
    assert res.rc == 0, res.err
    assert res.json()["result"]["agent"]["agent_status"] == "idle"
    assert [m for m, _ in fake.calls()].count("agent.get") == 2
