"""Request lines, params and outputs of every in-scope command; usage errors (CLI.md §3.4, §4)."""

from __future__ import annotations

import os

import pytest
from stub_fake import ok, result

# (argv, env, exact operation request line, output kind)
#   output kind "envelope": stdout = sorted reply envelope; "silent": nothing printed.
REQUESTS = [
    (
        ["workspace", "list"],
        {},
        '{"id":"cli:workspace:list","method":"workspace.list","params":{}}',
        "envelope",
    ),
    (
        ["workspace", "create"],
        {},
        '{"id":"cli:workspace:create","method":"workspace.create","params":{"focus":false}}',
        "envelope",
    ),
    (
        [
            "workspace",
            "create",
            "--cwd",
            "rel/dir",
            "--label",
            "L",
            "--env",
            "A=1",
            "--env",
            "B=",
            "--env",
            "A=2=3",
            "--focus",
        ],
        {},
        '{"id":"cli:workspace:create","method":"workspace.create","params":{"cwd":"rel/dir","focus":true,"label":"L","env":{"A":"2=3","B":""}}}',
        "envelope",
    ),
    (
        ["workspace", "create", "--focus", "--no-focus"],
        {},
        '{"id":"cli:workspace:create","method":"workspace.create","params":{"focus":false}}',
        "envelope",
    ),
    (
        ["workspace", "get", "w1"],
        {},
        '{"id":"cli:workspace:get","method":"workspace.get","params":{"workspace_id":"w1"}}',
        "envelope",
    ),
    (
        ["workspace", "focus", "2"],
        {},
        '{"id":"cli:workspace:focus","method":"workspace.focus","params":{"workspace_id":"2"}}',
        "envelope",
    ),
    (
        ["workspace", "rename", "w1", "big", "  project"],
        {},
        '{"id":"cli:workspace:rename","method":"workspace.rename","params":{"workspace_id":"w1","label":"big   project"}}',
        "envelope",
    ),
    (
        ["workspace", "close", "w1"],
        {},
        '{"id":"cli:workspace:close","method":"workspace.close","params":{"workspace_id":"w1"}}',
        "envelope",
    ),
    (["tab", "list"], {}, '{"id":"cli:tab:list","method":"tab.list","params":{}}', "envelope"),
    (
        ["tab", "list", "--workspace", "w2"],
        {},
        '{"id":"cli:tab:list","method":"tab.list","params":{"workspace_id":"w2"}}',
        "envelope",
    ),
    (
        ["tab", "create", "--workspace", "w1", "--no-focus", "--cwd", "/d", "--env", "K=V"],
        {},
        '{"id":"cli:tab:create","method":"tab.create","params":{"workspace_id":"w1","cwd":"/d","focus":false,"env":{"K":"V"}}}',
        "envelope",
    ),
    (
        ["tab", "create", "--label", "x", "--focus"],
        {},
        '{"id":"cli:tab:create","method":"tab.create","params":{"focus":true,"label":"x"}}',
        "envelope",
    ),
    (
        ["tab", "get", "w1:t1"],
        {},
        '{"id":"cli:tab:get","method":"tab.get","params":{"tab_id":"w1:t1"}}',
        "envelope",
    ),
    (
        ["tab", "focus", "w1:t2"],
        {},
        '{"id":"cli:tab:focus","method":"tab.focus","params":{"tab_id":"w1:t2"}}',
        "envelope",
    ),
    (
        ["tab", "rename", "w1:t1", "a", "b"],
        {},
        '{"id":"cli:tab:rename","method":"tab.rename","params":{"tab_id":"w1:t1","label":"a b"}}',
        "envelope",
    ),
    (
        ["tab", "close", "w1:t1"],
        {},
        '{"id":"cli:tab:close","method":"tab.close","params":{"tab_id":"w1:t1"}}',
        "envelope",
    ),
    (["pane", "list"], {}, '{"id":"cli:pane:list","method":"pane.list","params":{}}', "envelope"),
    (
        ["pane", "list", "--workspace", "w3"],
        {},
        '{"id":"cli:pane:list","method":"pane.list","params":{"workspace_id":"w3"}}',
        "envelope",
    ),
    (
        ["pane", "get", "w1:p1"],
        {},
        '{"id":"cli:pane:get","method":"pane.get","params":{"pane_id":"w1:p1"}}',
        "envelope",
    ),
    # One word: `--pane` IS the pane id (CLI.md §8).
    (
        ["pane", "get", "--pane"],
        {},
        '{"id":"cli:pane:get","method":"pane.get","params":{"pane_id":"--pane"}}',
        "envelope",
    ),
    (
        ["pane", "current"],
        {},
        '{"id":"cli:pane:current","method":"pane.current","params":{}}',
        "envelope",
    ),
    (
        ["pane", "current"],
        {"HERDR_PANE_ID": "w1:p3"},
        '{"id":"cli:pane:current","method":"pane.current","params":{"caller_pane_id":"w1:p3"}}',
        "envelope",
    ),
    (
        ["pane", "current"],
        {"HERDR_PANE_ID": "  "},
        '{"id":"cli:pane:current","method":"pane.current","params":{}}',
        "envelope",
    ),
    (
        ["pane", "current", "--pane", "w1:p2"],
        {"HERDR_PANE_ID": "w1:p3"},
        '{"id":"cli:pane:current","method":"pane.current","params":{"caller_pane_id":"w1:p2"}}',
        "envelope",
    ),
    (
        ["pane", "current", "--pane", "w1:p2", "--current"],
        {"HERDR_PANE_ID": "w1:p3"},
        '{"id":"cli:pane:current","method":"pane.current","params":{"caller_pane_id":"w1:p3"}}',
        "envelope",
    ),
    (
        ["pane", "layout"],
        {"HERDR_PANE_ID": "w1:p3"},
        '{"id":"cli:pane:layout","method":"pane.layout","params":{}}',
        "envelope",
    ),
    (
        ["pane", "layout", "--current"],
        {"HERDR_PANE_ID": "w1:p3"},
        '{"id":"cli:pane:layout","method":"pane.layout","params":{"pane_id":"w1:p3"}}',
        "envelope",
    ),
    (
        ["pane", "layout", "--current"],
        {},
        '{"id":"cli:pane:layout","method":"pane.layout","params":{}}',
        "envelope",
    ),
    (
        ["pane", "process-info", "--pane", "w1:p4"],
        {},
        '{"id":"cli:pane:process_info","method":"pane.process_info","params":{"pane_id":"w1:p4"}}',
        "envelope",
    ),
    (
        ["pane", "rename", "w1:p1", "--clear"],
        {},
        '{"id":"cli:pane:rename","method":"pane.rename","params":{"pane_id":"w1:p1"}}',
        "envelope",
    ),
    (
        ["pane", "rename", "w1:p1", "--clear", "x"],
        {},
        '{"id":"cli:pane:rename","method":"pane.rename","params":{"pane_id":"w1:p1","label":"--clear x"}}',
        "envelope",
    ),
    (
        [
            "pane",
            "split",
            "w1:p1",
            "--direction",
            "right",
            "--ratio",
            "0.3",
            "--cwd",
            "x",
            "--right-click=pane",
            "--focus",
            "--env",
            "A=b",
        ],
        {},
        '{"id":"cli:pane:split","method":"pane.split","params":{"target_pane_id":"w1:p1","direction":"right","ratio":0.3,"cwd":"x","focus":true,"right_click":"pane","env":{"A":"b"}}}',
        "envelope",
    ),
    (
        ["pane", "split", "--direction", "down"],
        {"HERDR_PANE_ID": "w1:p3"},
        '{"id":"cli:pane:split","method":"pane.split","params":{"direction":"down","focus":false,"right_click":"herdr"}}',
        "envelope",
    ),
    (
        ["pane", "split", "--current", "--direction", "down", "--ratio", "1e-7"],
        {"HERDR_PANE_ID": "w1:p3"},
        '{"id":"cli:pane:split","method":"pane.split","params":{"target_pane_id":"w1:p3","direction":"down","ratio":1e-7,"focus":false,"right_click":"herdr"}}',
        "envelope",
    ),
    (
        ["pane", "close", "w1:p2"],
        {},
        '{"id":"cli:pane:close","method":"pane.close","params":{"pane_id":"w1:p2"}}',
        "envelope",
    ),
    (
        ["pane", "send-text", "w1:p1", "echo", "hi"],
        {},
        '{"id":"cli:request","method":"pane.send_text","params":{"pane_id":"w1:p1","text":"echo hi"}}',
        "silent",
    ),
    (
        ["pane", "send-keys", "w1:p1", "C-c", "Enter"],
        {},
        '{"id":"cli:request","method":"pane.send_keys","params":{"pane_id":"w1:p1","keys":["C-c","Enter"]}}',
        "silent",
    ),
    (
        ["pane", "run", "w1:p1", "make", "test"],
        {},
        '{"id":"cli:request","method":"pane.send_input","params":{"pane_id":"w1:p1","text":"make test","keys":["Enter"]}}',
        "silent",
    ),
    (
        ["pane", "run", "w1:p1", ""],
        {},
        '{"id":"cli:request","method":"pane.send_input","params":{"pane_id":"w1:p1","keys":["Enter"]}}',
        "silent",
    ),
    (
        [
            "pane",
            "wait-output",
            "--match=a=b",
            "w1:p1",
            "--timeout",
            "500",
            "--source",
            "visible",
            "--lines",
            "3",
            "--raw",
        ],
        {},
        '{"id":"cli:pane:wait-output","method":"pane.wait_for_output","params":{"pane_id":"w1:p1","source":"visible","lines":3,"match":{"type":"substring","value":"a=b"},"timeout_ms":500,"strip_ansi":false}}',
        "envelope",
    ),
    (
        ["pane", "wait-output", "w1:p1", "--regex", "^ok$"],
        {},
        '{"id":"cli:pane:wait-output","method":"pane.wait_for_output","params":{"pane_id":"w1:p1","source":"recent","match":{"type":"regex","value":"^ok$"},"strip_ansi":true}}',
        "envelope",
    ),
    (
        [
            "pane",
            "report-agent",
            "w1:p1",
            "--source",
            " hook ",
            "--agent",
            "claude",
            "--state",
            "idle",
            "--message",
            "m",
            "--seq",
            "+3",
            "--agent-session-id",
            "s",
            "--agent-session-path",
            "/p",
        ],
        {},
        '{"id":"cli:request","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"hook","agent":"claude","state":"idle","message":"m","seq":3,"agent_session_id":"s","agent_session_path":"/p"}}',
        "silent",
    ),
    (
        [
            "pane",
            "report-agent-session",
            "w1:p1",
            "--agent",
            "pi",
            "--source",
            "s",
            "--session-start-source",
            "resume",
        ],
        {},
        '{"id":"cli:request","method":"pane.report_agent_session","params":{"pane_id":"w1:p1","source":"s","agent":"pi","session_start_source":"resume"}}',
        "silent",
    ),
    (
        ["pane", "release-agent", "w1:p1", "--source", "s", "--agent", "pi", "--seq", "7"],
        {},
        '{"id":"cli:request","method":"pane.release_agent","params":{"pane_id":"w1:p1","source":"s","agent":"pi","seq":7}}',
        "silent",
    ),
    (
        ["agent", "list"],
        {},
        '{"id":"cli:agent:list","method":"agent.list","params":{}}',
        "envelope",
    ),
    (
        ["agent", "get", "w1:p1"],
        {},
        '{"id":"cli:agent:get","method":"agent.get","params":{"target":"w1:p1"}}',
        "envelope",
    ),
    (
        ["agent", "focus", "main"],
        {},
        '{"id":"cli:agent:focus","method":"agent.focus","params":{"target":"main"}}',
        "envelope",
    ),
    (
        ["agent", "rename", "w1:p1", "main"],
        {},
        '{"id":"cli:agent:rename","method":"agent.rename","params":{"target":"w1:p1","name":"main"}}',
        "envelope",
    ),
    (
        ["agent", "rename", "main", "--clear"],
        {},
        '{"id":"cli:agent:rename","method":"agent.rename","params":{"target":"main"}}',
        "envelope",
    ),
    (
        ["agent", "send-keys", "main", "esc", "Enter"],
        {},
        '{"id":"cli:agent:send-keys","method":"agent.send_keys","params":{"target":"main","keys":["esc","Enter"]}}',
        "envelope",
    ),
    # Word 2 is always the text, even `--wait` (CLI.md §4.4).
    (
        ["agent", "prompt", "main", "--wait"],
        {},
        '{"id":"cli:agent:prompt","method":"agent.prompt","params":{"target":"main","text":"--wait"}}',
        "envelope",
    ),
    (
        ["agent", "prompt", "main", "hi", "--wait"],
        {},
        '{"id":"cli:agent:prompt","method":"agent.prompt","params":{"target":"main","text":"hi","wait":{}}}',
        "envelope",
    ),
    (
        [
            "agent",
            "prompt",
            "main",
            "hi",
            "--until",
            "idle",
            "--wait",
            "--until",
            "done",
            "--timeout",
            "100",
        ],
        {},
        '{"id":"cli:agent:prompt","method":"agent.prompt","params":{"target":"main","text":"hi","wait":{"until":["idle","done"],"timeout_ms":100}}}',
        "envelope",
    ),
    (
        ["agent", "wait", "main"],
        {},
        '{"id":"cli:agent:wait","method":"agent.wait","params":{"target":"main"}}',
        "envelope",
    ),
    (
        ["agent", "wait", "main", "--until", "blocked", "--until", "unknown", "--timeout", "5"],
        {},
        '{"id":"cli:agent:wait","method":"agent.wait","params":{"target":"main","until":["blocked","unknown"],"timeout_ms":5}}',
        "envelope",
    ),
    (
        ["worktree", "list", "--workspace", "w1", "--json"],
        {},
        '{"id":"cli:worktree:list","method":"worktree.list","params":{"workspace_id":"w1"}}',
        "envelope",
    ),
    (
        ["worktree", "open", "--branch", "feat", "--label", "F", "--focus"],
        {},
        '{"id":"cli:worktree:open","method":"worktree.open","params":{"branch":"feat","label":"F","focus":true}}',
        "envelope",
    ),
    (
        ["worktree", "remove", "--workspace", "w2", "--force"],
        {},
        '{"id":"cli:worktree:remove","method":"worktree.remove","params":{"workspace_id":"w2","force":true}}',
        "envelope",
    ),
    (
        ["worktree", "remove", "--workspace", "w2"],
        {},
        '{"id":"cli:worktree:remove","method":"worktree.remove","params":{"workspace_id":"w2","force":false}}',
        "envelope",
    ),
    (
        ["api", "snapshot"],
        {},
        '{"id":"cli:api:snapshot","method":"session.snapshot","params":{}}',
        "envelope",
    ),
    (
        ["server", "reload-config"],
        {},
        '{"id":"cli:server:reload-config","method":"server.reload_config","params":{}}',
        "envelope",
    ),
]


@pytest.mark.parametrize(
    "argv,env,line,output", REQUESTS, ids=[" ".join(r[0]) or "-" for r in REQUESTS]
)
def test_request_line_and_output(cli, fake, argv, env, line, output):
    fake.default_reply = ok(marker="\u00e9")
    res = cli(*argv, env=env)
    assert res.rc == 0, res.err
    assert res.err == b""
    assert fake.lines[0] == b'{"id":"api-client:status","method":"ping","params":{}}'
    assert [x.decode() for x in fake.lines[1:]] == [line]
    request_id = fake.ops()[0]["id"]
    if output == "silent":
        assert res.out == b""
    else:
        assert (
            res.out
            == ('{"id":"%s","result":{"marker":"\u00e9","type":"ok"}}\n' % request_id).encode()
        )


def test_worktree_paths_made_absolute(herdr, fake, tmp_path, base_env):
    fake.default_reply = ok()
    res = herdr(
        "worktree",
        "create",
        "--cwd",
        "repo",
        "--branch",
        "b",
        "--base",
        "main",
        "--path",
        "~/wt",
        "--label",
        "L",
        cwd=str(tmp_path),
    )
    assert res.rc == 0
    assert fake.ops()[0]["params"] == {
        "cwd": f"{tmp_path}/repo",
        "branch": "b",
        "base": "main",
        "path": f"{base_env['HOME']}/wt",
        "label": "L",
        "focus": False,
    }
    assert list(fake.ops()[0]["params"]) == ["cwd", "branch", "base", "path", "label", "focus"]
    herdr("worktree", "list", "--cwd", "~", cwd=str(tmp_path))
    assert fake.ops()[1]["params"] == {"cwd": base_env["HOME"]}


def test_pane_read_prints_raw_text_without_newline(herdr, fake):
    fake.on(
        "pane.read", result("pane_read", read={"text": "line1\nline2 \u2603", "pane_id": "w1:p1"})
    )
    res = herdr("pane", "read", "--source=visible", "--lines=5", "w1:p1", "--raw")
    assert (res.rc, res.out, res.err) == (0, "line1\nline2 \u2603".encode(), b"")
    assert fake.lines[1] == (
        b'{"id":"cli:pane:read","method":"pane.read","params":{"pane_id":"w1:p1",'
        b'"source":"visible","lines":5,"format":"ansi","strip_ansi":false}}'
    )
    herdr("pane", "read", "w1:p1", "--source", "recent_unwrapped", "--format", "ansi")
    assert fake.ops()[1]["params"] == {
        "pane_id": "w1:p1",
        "source": "recent_unwrapped",
        "format": "ansi",
        "strip_ansi": True,
    }


def test_pane_read_error_and_missing_text(herdr, fake):
    fake.on(
        "pane.read",
        {"error": {"message": "pane w1:p9 not found", "code": "pane_not_found"}},
        result("pane_read", read={}),
    )
    res = herdr("pane", "read", "w1:p9")
    assert (res.rc, res.out) == (1, b"")
    assert (
        res.err
        == b'{"error":{"code":"pane_not_found","message":"pane w1:p9 not found"},"id":"cli:pane:read"}\n'
    )
    res = herdr("pane", "read", "w1:p1")
    assert (res.rc, res.out, res.err) == (0, b"", b"")


def test_agent_read(herdr, fake):
    fake.on("agent.read", result("pane_read", read={"text": "x"}))
    res = herdr("agent", "read", "main", "--source", "visible", "--lines", "2", "--ansi")
    assert res.out == b"x"
    assert fake.ops()[0] == {
        "id": "cli:agent:read",
        "method": "agent.read",
        "params": {
            "target": "main",
            "source": "visible",
            "lines": 2,
            "format": "ansi",
            "strip_ansi": False,
        },
    }
    herdr("agent", "read", "main", "--format", "ansi")
    assert fake.ops()[1]["params"] == {
        "target": "main",
        "source": "recent",
        "format": "ansi",
        "strip_ansi": False,
    }


def test_silent_command_relays_error(herdr, fake):
    fake.on("pane.send_keys", {"error": {"code": "invalid_key", "message": "unsupported key home"}})
    res = herdr("pane", "send-keys", "w1:p1", "home")
    assert (res.rc, res.out) == (1, b"")
    assert (
        res.err
        == b'{"error":{"code":"invalid_key","message":"unsupported key home"},"id":"cli:request"}\n'
    )


def test_agent_explain_text_and_json(herdr, fake):
    explain = {
        "agent": "claude",
        "state": "idle",
        "manifest_source": "bundled",
        "manifest_version": "3",
        "matched_rule": {"id": "idle-prompt", "region": "bottom", "priority": 10},
        "evaluated_rules": [
            {
                "id": "idle-prompt",
                "matched": True,
                "priority": 10,
                "region": "bottom",
                "state": "idle",
                "evidence": {
                    "contains": ["> "],
                    "regex": None,
                    "all_count": 1,
                    "region_bytes": 12,
                    "region_preview": '> "hi"\n',
                },
            }
        ],
        "warning": "w",
    }
    fake.on("agent.explain", result("agent_explain", explain=explain))
    res = herdr("agent", "explain", "main")
    assert res.stdout == (
        "agent: claude\nstate: idle\nmanifest: bundled 3\nrule: idle-prompt (region=bottom priority=10)\n"
        'evidence: "> \\"hi\\"\\n"\nwarning: w\n'
    )
    res = herdr("agent", "explain", "main", "--verbose")
    assert res.stdout.endswith(
        "evaluated_rules:\n  \u2713 idle-prompt priority=10 region=bottom state=idle\n"
        '    matchers: contains=Array [String("> ")] regex=Null line_regex=Null all=1 any=0 not=0\n'
        '    region: bytes=12 preview="> \\"hi\\"\\n"\n'
    )
    assert (
        "visible: idle=false blocker=false working=false\ncached_remote_version: none\n"
        in res.stdout
    )
    res = herdr("agent", "explain", "main", "--format", "json")
    assert res.out.startswith(b'{"agent":"claude","evaluated_rules":[{"evidence":{"all_count":1,')
    assert fake.ops()[0] == {
        "id": "cli:agent:explain",
        "method": "agent.explain",
        "params": {"target": "main"},
    }


USAGE = [
    (["workspace", "list", "x"], "usage: herdr workspace list"),
    (["workspace", "create", "x"], "unknown option: x"),
    (["workspace", "create", "--cwd"], "missing value for --cwd"),
    (["workspace", "create", "--env", "NOEQ"], "env must use KEY=VALUE"),
    (["workspace", "create", "--env", "=v"], "env key must not be empty"),
    (["workspace", "get"], "usage: herdr workspace get <workspace_id>"),
    (["workspace", "focus", "a", "b"], "usage: herdr workspace focus <workspace_id>"),
    (["workspace", "rename", "w1"], "usage: herdr workspace rename <workspace_id> <label>"),
    (["workspace", "close", "w1", "--group"], "usage: herdr workspace close <workspace_id>"),
    (["tab", "get"], "usage: herdr tab get <tab_id>"),
    (["tab", "close", "a", "b"], "usage: herdr tab close <tab_id>"),
    (["tab", "rename", "x"], "usage: herdr tab rename <tab_id> <label>"),
    (["tab", "list", "--bogus"], "unknown option: --bogus"),
    (["tab", "create", "--workspace"], "missing value for --workspace"),
    (["pane", "get", "--pane", "w1:p1"], "usage: herdr pane get <pane_id>"),
    (["pane", "close"], "usage: herdr pane close <pane_id>"),
    (["pane", "current", "--bogus"], "unknown option: --bogus"),
    (["pane", "current", "--pane"], "missing value for --pane"),
    (["pane", "layout", "x"], "unknown option: x"),
    (["pane", "rename", "w1:p1"], "usage: herdr pane rename <pane_id> <label>|--clear"),
    (
        ["pane", "read"],
        "usage: herdr pane read <pane_id> [--source visible|recent|recent-unwrapped|detection] [--lines N] [--format text|ansi] [--ansi] [--raw]",
    ),
    (["pane", "read", "a", "b"], "unexpected argument: b"),
    (["pane", "read", "a", "--source", "bogus"], "invalid read source: bogus"),
    (["pane", "read", "a", "--lines", "-1"], "invalid value for --lines: -1"),
    (["pane", "read", "a", "--lines=4294967296"], "invalid value for --lines: 4294967296"),
    (["pane", "read", "a", "--format", "html"], "invalid read format: html"),
    (["pane", "read", "a", "--raw=yes"], "unknown option: --raw=yes"),
    (
        ["pane", "split", "w1:p1"],
        "usage: herdr pane split [<pane_id>|--pane ID|--current] --direction right|down [--ratio FLOAT] [--cwd PATH] [--env KEY=VALUE] [--right-click herdr|pane] [--focus] [--no-focus]",
    ),
    (["pane", "split", "--direction", "left"], "invalid split direction: left"),
    (["pane", "split", "--direction", "down", "--ratio", "abc"], "invalid ratio: abc"),
    (["pane", "split", "--direction", "down", "--ratio", "inf"], "invalid ratio: inf"),
    (["pane", "split", "--direction", "down", "--ratio", "1e39"], "invalid ratio: 1e39"),
    (
        ["pane", "split", "--direction", "down", "--right-click", "menu"],
        "invalid right-click target: menu",
    ),
    (["pane", "split", "--direction", "down", "--current"], "--current requires HERDR_PANE_ID"),
    (
        ["pane", "split", "--direction", "down", "--direction=right"],
        "unknown option: --direction=right",
    ),
    (["pane", "send-text", "w1:p1"], "usage: herdr pane send-text <pane_id> <text>"),
    (["pane", "send-keys", "w1:p1"], "usage: herdr pane send-keys <pane_id> <key> [key ...]"),
    (["pane", "run", "w1:p1"], "usage: herdr pane run <pane_id> <command>"),
    (
        ["pane", "wait-output"],
        "usage: herdr pane wait-output <pane_id> (--match TEXT | --regex PATTERN) [--source visible|recent|recent-unwrapped] [--lines N] [--timeout MS] [--raw]",
    ),
    (["pane", "wait-output", "w1:p1"], "missing required --match or --regex"),
    (
        ["pane", "wait-output", "w1:p1", "--match", "a", "--regex", "b"],
        "--match and --regex are mutually exclusive",
    ),
    (["pane", "wait-output", "w1:p1", "--match"], "missing value for --match"),
    (
        ["pane", "wait-output", "w1:p1", "--match", "a", "--timeout", "later"],
        "invalid value for --timeout: later",
    ),
    (
        ["pane", "report-agent"],
        "usage: herdr pane report-agent <pane_id> --source ID --agent LABEL --state idle|working|blocked|unknown [--message TEXT] [--seq N] [--agent-session-id ID] [--agent-session-path PATH]",
    ),
    (
        ["pane", "report-agent", "w1:p1", "--agent", "x", "--state", "idle"],
        "missing required --source",
    ),
    (
        ["pane", "report-agent", "w1:p1", "--source", "  ", "--agent", "x", "--state", "idle"],
        "missing required --source",
    ),
    (
        ["pane", "report-agent", "w1:p1", "--source", "s", "--state", "idle"],
        "missing required --agent",
    ),
    (
        ["pane", "report-agent", "w1:p1", "--source", "s", "--agent", "a"],
        "missing required --state",
    ),
    (["pane", "report-agent", "--source", "s", "w1:p1"], "unknown option: s"),
    (["pane", "report-agent-session", "w1:p1", "--source", "s"], "missing required --agent"),
    (
        ["pane", "release-agent"],
        "usage: herdr pane release-agent <pane_id> --source ID --agent LABEL [--seq N]",
    ),
    (["agent", "list", "x"], "usage: herdr agent list"),
    (["agent", "get"], "usage: herdr agent get <target>"),
    (["agent", "focus", "a", "b"], "usage: herdr agent focus <target>"),
    (["agent", "rename", "x"], "usage: herdr agent rename <target> <name>|--clear"),
    (["agent", "send-keys", "x"], "usage: herdr agent send-keys <target> <key> [key ...]"),
    (
        ["agent", "prompt"],
        "usage: herdr agent prompt <target> <text> [--wait] [--until STATUS]... [--timeout MS]",
    ),
    (["agent", "prompt", "x"], "agent prompt requires text"),
    (["agent", "prompt", "x", "hi", "--until", "idle"], "--until requires --wait"),
    (["agent", "prompt", "x", "hi", "--timeout", "5"], "--timeout requires --wait"),
    (["agent", "prompt", "x", "hi", "--wait", "--until"], "--until requires at least one status"),
    (
        ["agent", "prompt", "x", "hi", "--wait", "--until", "finished"],
        "invalid agent status: finished (expected idle, working, blocked, done, or unknown)",
    ),
    (["agent", "prompt", "x", "hi", "--bogus"], "unknown option: --bogus"),
    (["agent", "wait"], "usage: herdr agent wait <target> [--until STATUS]... [--timeout MS]"),
    (["agent", "wait", "x", "extra"], "unknown option: extra"),
    (["agent", "wait", "x", "--timeout", "-5"], "invalid value for --timeout: -5"),
    (
        ["agent", "read"],
        "usage: herdr agent read <target> [--source visible|recent|recent-unwrapped] [--lines N] [--format text|ansi] [--ansi]",
    ),
    (["agent", "read", "x", "--raw"], "unknown option: --raw"),
    (
        ["agent", "explain"],
        "usage: herdr agent explain <target> [--json]\nusage: herdr agent explain --file PATH --agent LABEL [--json]",
    ),
    (["agent", "explain", "x", "y"], "usage: herdr agent explain <target> [--json]"),
    (["agent", "explain", "x", "--agent", "a"], "--agent is only valid with --file"),
    (
        ["agent", "explain", "x", "--format", "yaml"],
        "invalid --format: yaml (expected text or json)",
    ),
    (["agent", "explain", "--file", "f"], "herdr agent explain --file requires --agent LABEL"),
    (
        ["agent", "start"],
        "usage: herdr agent start <name> --kind KIND --pane ID [--timeout MS] [-- <agent-args...>]",
    ),
    (["agent", "start", "a"], "missing required --kind"),
    (["agent", "start", "a", "--kind", "pi"], "missing required --pane"),
    (
        ["agent", "start", "a", "--kind", "nope", "--pane", "w1:p1"],
        "unsupported interactive agent kind: nope",
    ),
    (["agent", "start", "a", "--kind"], "missing value for --kind"),
    (["agent", "start", "a", "--kind", "--", "pi"], "missing value for --kind"),
    (["agent", "start", "a", "--focus"], "unknown option: --focus"),
    (["agent", "start", "a", "--bogus", "--kind"], "unknown option: --bogus"),
    (
        ["agent", "start", "a", "--kind", "pi", "--pane", "p", "--timeout", "soon"],
        "invalid value for --timeout: soon",
    ),
    (
        ["agent", "start", "a", "--kind", "pi", "--pane", "p", "--timeout", "18446744073709551616"],
        "invalid value for --timeout: 18446744073709551616",
    ),
    (
        ["worktree", "list", "--workspace", "w1", "--cwd", "x"],
        "usage: herdr worktree list [--workspace ID | --cwd PATH]",
    ),
    (
        ["worktree", "open"],
        "usage: herdr worktree open [--workspace ID | --cwd PATH] (--path PATH | --branch NAME) [--label TEXT] [--focus] [--no-focus]",
    ),
    (
        ["worktree", "open", "--path", "a", "--branch", "b"],
        "usage: herdr worktree open [--workspace ID | --cwd PATH] (--path PATH | --branch NAME) [--label TEXT] [--focus] [--no-focus]",
    ),
    (
        ["worktree", "create", "--workspace", "w", "--cwd", "c"],
        "usage: herdr worktree create [--workspace ID | --cwd PATH] [--branch NAME] [--base REF] [--path PATH] [--label TEXT] [--focus] [--no-focus]",
    ),
    (["worktree", "remove"], "usage: herdr worktree remove --workspace ID [--force]"),
    (["worktree", "list", "--trust-repository"], "unknown option: --trust-repository"),
    (["api", "snapshot", "x"], "usage: herdr api snapshot"),
    (["server", "stop", "x"], "usage: herdr server stop"),
]


@pytest.mark.parametrize("argv,message", USAGE, ids=[" ".join(u[0]) for u in USAGE])
def test_usage_errors_exit_2_before_socket_contact(cli, fake, argv, message):
    res = cli(*argv)
    assert (res.rc, res.out, res.stderr) == (2, b"", message + "\n")
    assert fake.lines == []


@pytest.mark.parametrize(
    "argv,message",
    [
        (
            ["pane", "report-agent", "w1:p1", "--state", "finished"],
            "invalid pane agent state: finished (expected idle, working, blocked, or unknown)",
        ),
        (["pane", "report-agent", "w1:p1", "--seq", "x"], "invalid value for --seq: x"),
        (["pane", "release-agent", "w1:p1", "--seq", "-1"], "invalid value for --seq: -1"),
        (["agent", "read", "x", "--source", "bogus"], "invalid read source: bogus"),
        (["agent", "read", "x", "--lines", '\u00e9"q'], 'invalid value for --lines: \u00e9\\"q'),
        (["agent", "read", "x", "--format", "html"], "invalid read format: html"),
    ],
)
def test_rust_error_path_exit_1(cli, fake, argv, message):
    res = cli(*argv)
    assert (res.rc, res.out) == (1, b"")
    assert res.stderr == 'Error: Custom { kind: Other, error: "%s" }\n' % message
    assert fake.lines == []


def test_agent_wait_help_word_prints_usage_exit_0(herdr, fake):
    res = herdr("agent", "wait", "x", "help")
    assert (res.rc, res.stderr) == (
        0,
        "usage: herdr agent wait <target> [--until STATUS]... [--timeout MS]\n",
    )
    assert fake.lines == []


def test_server_group(herdr, fake):
    res = herdr("server", "bogus")
    assert res.rc == 2 and res.stderr.startswith(
        "herdr server commands:\n  herdr server                run as headless server\n"
    )
    assert herdr("server", "help").rc == 0
    # `herdr server` starts a server on the active socket, where the fake already answers.
    res = herdr("server")
    assert (res.rc, res.stderr) == (
        1,
        "error: herdr server is already running\napi socket: %s\n" % fake.path,
    )


def test_non_utf8_argument(stubs, fake, base_env):
    import subprocess

    proc = subprocess.run(
        [os.fsencode(stubs["0.8.2"]), b"pane", b"get", b"\xff"],
        capture_output=True,
        env={**base_env, "HERDR_SOCKET_PATH": fake.path},
    )
    assert (proc.returncode, proc.stderr) == (
        2,
        b"error: argument 3 is not valid UTF-8\nrun 'herdr --help' for usage\n",
    )


SAMPLE = [REQUESTS[2], REQUESTS[20], REQUESTS[31], REQUESTS[37], REQUESTS[40], REQUESTS[52]]


@pytest.mark.parametrize("argv,env,line,output", SAMPLE, ids=[" ".join(r[0]) for r in SAMPLE])
def test_inprocess_matches_subprocess(herdr, cli, fake, argv, env, line, output):
    fake.default_reply = ok(marker="\u00e9")
    spawned = herdr(*argv, env=env)
    inproc = cli(*argv, env=env)
    assert spawned == inproc and spawned.rc == 0
    assert fake.lines[1].decode() == line and fake.lines[1] == fake.lines[3]
    for argv, message in (USAGE[3], USAGE[21], USAGE[77]):
        spawned, inproc = herdr(*argv), cli(*argv)
        assert spawned == inproc
        assert (spawned.rc, spawned.out, spawned.err) == (2, b"", (message + "\n").encode())
