"""The socket verbs the stand-in used to refuse, as herdr 0.8.2 sends them.

Request lines follow the params structs (``src/api/schema/*.rs``: field order, skip rules) and
the parsers in ``src/cli/pane.rs``, ``src/cli/workspace.rs``, ``src/cli/notification.rs``,
``src/cli/server.rs``; usage texts are herdr's.
"""

from __future__ import annotations

import pytest
from stub_fake import error, ok, result

REQUESTS = [
    (["pane", "edges"], {}, '{"id":"cli:pane:edges","method":"pane.edges","params":{}}'),
    (
        ["pane", "edges", "--current"],
        {"HERDR_PANE_ID": "w1:p2"},
        '{"id":"cli:pane:edges","method":"pane.edges","params":{"pane_id":"w1:p2"}}',
    ),
    (
        ["pane", "neighbor", "--direction", "left", "--pane", "w1:p1"],
        {},
        '{"id":"cli:pane:neighbor","method":"pane.neighbor","params":{"pane_id":"w1:p1","direction":"left"}}',
    ),
    (
        ["pane", "neighbor", "--pane", "w1:p1", "--current", "--direction", "up"],
        {"HERDR_PANE_ID": "w1:p2"},
        '{"id":"cli:pane:neighbor","method":"pane.neighbor","params":{"direction":"up"}}',
    ),
    (
        ["pane", "focus", "--direction", "right"],
        {},
        '{"id":"cli:pane:focus","method":"pane.focus_direction","params":{"direction":"right"}}',
    ),
    (
        ["pane", "resize", "--direction", "down", "--amount", "0.1"],
        {},
        '{"id":"cli:pane:resize","method":"pane.resize","params":{"direction":"down","amount":0.1}}',
    ),
    (
        ["pane", "zoom"],
        {},
        '{"id":"cli:pane:zoom","method":"pane.zoom","params":{"mode":"toggle"}}',
    ),
    (
        ["pane", "zoom", "w1:p1", "--on"],
        {},
        '{"id":"cli:pane:zoom","method":"pane.zoom","params":{"pane_id":"w1:p1","mode":"on"}}',
    ),
    (
        ["pane", "input", "--right-click=pane", "--pane=w1:p3"],
        {},
        '{"id":"cli:pane:input:set","method":"pane.input.set","params":{"pane_id":"w1:p3","right_click":"pane"}}',
    ),
    (
        ["pane", "input", "--current", "--right-click", "herdr"],
        {"HERDR_PANE_ID": "w1:p2"},
        '{"id":"cli:pane:input:set","method":"pane.input.set","params":{"pane_id":"w1:p2","right_click":"herdr"}}',
    ),
    (
        ["pane", "swap", "--direction", "left", "--current"],
        {},
        '{"id":"cli:pane:swap","method":"pane.swap","params":{"direction":"left"}}',
    ),
    (
        ["pane", "swap", "--source-pane", "w1:p1", "--target-pane", "w1:p2"],
        {},
        '{"id":"cli:pane:swap","method":"pane.swap","params":{"source_pane_id":"w1:p1","target_pane_id":"w1:p2"}}',
    ),
    (
        [
            "pane",
            "move",
            "w1:p1",
            "--tab",
            "w2:t1",
            "--split",
            "down",
            "--ratio",
            "0.25",
            "--target-pane",
            "w2:p1",
        ],
        {},
        '{"id":"cli:pane:move","method":"pane.move","params":{"pane_id":"w1:p1","destination":{"type":"tab","tab_id":"w2:t1","target_pane_id":"w2:p1","split":"down","ratio":0.25},"focus":true}}',
    ),
    (
        ["pane", "move", "w1:p1", "--new-tab", "--workspace", "w2", "--no-focus"],
        {},
        '{"id":"cli:pane:move","method":"pane.move","params":{"pane_id":"w1:p1","destination":{"type":"new_tab","workspace_id":"w2"},"focus":false}}',
    ),
    (
        ["pane", "move", "w1:p1", "--new-workspace", "--label", "L", "--tab-label", "T"],
        {},
        '{"id":"cli:pane:move","method":"pane.move","params":{"pane_id":"w1:p1","destination":{"type":"new_workspace","label":"L","tab_label":"T"},"focus":true}}',
    ),
    (
        [
            "pane",
            "report-metadata",
            "w1:p1",
            "--source",
            " s ",
            "--title",
            "T",
            "--state-label",
            " IDLE =zz",
            "--token",
            "a=1",
            "--clear-token",
            "b",
            "--seq",
            "3",
        ],
        {},
        '{"id":"cli:request","method":"pane.report_metadata","params":{"pane_id":"w1:p1","source":"s","title":"T","state_labels":{"idle":"zz"},"tokens":{"a":"1","b":null},"clear_title":false,"clear_display_agent":false,"clear_state_labels":false,"seq":3}}',
    ),
    (
        ["workspace", "report-metadata", "w1", "--source", " s", "--token", "k=", "--ttl-ms", "10"],
        {},
        '{"id":"cli:request","method":"workspace.report_metadata","params":{"workspace_id":"w1","source":" s","tokens":{"k":""},"ttl_ms":10}}',
    ),
    (
        ["notification", "show", "Hi", "--body", "b", "--position", "top-left", "--sound", "none"],
        {},
        '{"id":"cli:notification:show","method":"notification.show","params":{"title":"Hi","body":"b","position":"top-left"}}',
    ),
    (
        ["notification", "show", "Hi", "--sound", "done"],
        {},
        '{"id":"cli:notification:show","method":"notification.show","params":{"title":"Hi","sound":"done"}}',
    ),
]


@pytest.mark.parametrize("argv,env,line", REQUESTS, ids=[" ".join(r[0]) for r in REQUESTS])
def test_request_line(cli, fake, argv, env, line):
    fake.default_reply = ok()
    res = cli(*argv, env=env)
    assert res.rc == 0, res.err
    assert [x.decode() for x in fake.lines[1:]] == [line]
    silent = '"id":"cli:request"' in line
    assert (res.out == b"") == silent


_MOVE_USAGE = (
    "usage: herdr pane move <pane_id> --tab <tab_id> --split right|down [--target-pane ID] [--ratio FLOAT] [--focus|--no-focus]\n"
    "       herdr pane move <pane_id> --new-tab [--workspace ID] [--label TEXT] [--focus|--no-focus]\n"
    "       herdr pane move <pane_id> --new-workspace [--label TEXT] [--tab-label TEXT] [--focus|--no-focus]"
)
_SWAP_USAGE = (
    "usage: herdr pane swap --direction left|right|up|down [--pane ID|--current]\n"
    "       herdr pane swap --source-pane ID --target-pane ID"
)
_FOCUS_USAGE = "usage: herdr pane focus --direction left|right|up|down [--pane ID|--current]"

USAGE = [
    (
        ["pane", "neighbor"],
        "usage: herdr pane neighbor --direction left|right|up|down [--pane ID|--current]",
    ),
    (
        ["pane", "neighbor", "--direction", "north"],
        "invalid pane direction: north (expected left, right, up, or down)",
    ),
    (["pane", "neighbor", "--pane"], "missing value for --pane"),
    (["pane", "focus", "--direction", "north"], _FOCUS_USAGE),
    (["pane", "focus", "--bogus"], _FOCUS_USAGE),
    (["pane", "resize", "--direction", "up", "--amount", "nan"], "invalid amount: nan"),
    (["pane", "zoom", "--on", "--off"], "provide only one of --toggle, --on, or --off"),
    (["pane", "zoom", "w1:p1", "w1:p2"], "unknown option: w1:p2"),
    (
        ["pane", "input", "w1:p1"],
        "usage: herdr pane input [<pane_id>|--pane ID|--current] --right-click herdr|pane",
    ),
    (["pane", "input", "w1:p1", "--pane", "w1:p2"], "provide only one pane selector"),
    (["pane", "input", "--pane", "w1:p2", "w1:p1"], "unexpected argument: w1:p1"),
    (["pane", "input", "--current", "--right-click", "pane"], "--current requires HERDR_PANE_ID"),
    (["pane", "input", "-x"], "unknown option: -x"),
    (["pane", "swap"], _SWAP_USAGE),
    (["pane", "swap", "--direction", "up", "--source-pane", "a"], _SWAP_USAGE),
    (["pane", "swap", "--pane", "p", "--source-pane", "a", "--target-pane", "b"], _SWAP_USAGE),
    (["pane", "move"], _MOVE_USAGE),
    (["pane", "move", "--tab", "t"], _MOVE_USAGE),
    (["pane", "move", "p", "--tab", "t"], _MOVE_USAGE),
    (["pane", "move", "p", "--tab", "t", "--new-tab", "--split", "down"], _MOVE_USAGE),
    (["pane", "move", "p", "--new-tab", "--tab-label", "x"], _MOVE_USAGE),
    (["pane", "move", "p", "--new-workspace", "--workspace", "w"], _MOVE_USAGE),
    (
        ["pane", "move", "p", "--split", "left"],
        "invalid split direction: left (expected right or down)",
    ),
    (["pane", "move", "p", "--ratio", "x"], "invalid ratio: x"),
    (
        ["pane", "report-metadata"],
        "usage: herdr pane report-metadata <pane_id> --source ID [--agent LABEL] [--applies-to-source ID] [--title TEXT|--clear-title] [--display-agent TEXT|--clear-display-agent] [--state-label STATUS=TEXT] [--clear-state-labels] [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]",
    ),
    (["pane", "report-metadata", "p", "--title", "t"], "missing required --source"),
    (["pane", "report-metadata", "p", "--source", "s"], "missing metadata field to set or clear"),
    (
        ["pane", "report-metadata", "p", "--source", "s", "--title", "t", "--clear-title"],
        "cannot set and clear the same metadata field",
    ),
    (
        ["pane", "report-metadata", "p", "--source", "s", "--applies-to-source", " "],
        "missing value for --applies-to-source",
    ),
    (
        ["pane", "report-metadata", "p", "--state-label", "idle"],
        "expected --state-label STATUS=TEXT",
    ),
    (["pane", "report-metadata", "p", "--state-label", "Busy=x"], "unknown state label: busy"),
    (["pane", "report-metadata", "p", "--token", "x"], "token must use NAME=VALUE"),
    (["pane", "report-metadata", "p", "--token", "=x"], "token name must not be empty"),
    (["workspace", "report-metadata", "w", "--source", "s"], "missing token to set or clear"),
    (["workspace", "report-metadata", "w", "--token", "a=b"], "missing required --source"),
    (["workspace", "report-metadata", "w", "--source"], "missing value for --source"),
    (
        ["notification", "show"],
        "usage: herdr notification show <title> [--body TEXT] [--position top-left|top-right|bottom-left|bottom-right] [--sound none|done|request]",
    ),
    (
        ["notification", "show", "help"],
        "usage: herdr notification show <title> [--body TEXT] [--position top-left|top-right|bottom-left|bottom-right] [--sound none|done|request]",
    ),
    (
        ["notification", "show", "t", "--position", "middle"],
        "invalid position: middle (expected top-left, top-right, bottom-left, or bottom-right)",
    ),
    (
        ["notification", "show", "t", "--sound", "beep"],
        "invalid sound: beep (expected none, done, or request)",
    ),
    (
        ["server", "live-handoff", "--bogus", "x"],
        "usage: herdr server live-handoff [--import-exe <path>] [--expected-protocol <n>] [--expected-version <version>]",
    ),
    (
        ["server", "live-handoff", "--expected-protocol", "x"],
        "usage: herdr server live-handoff [--import-exe <path>] [--expected-protocol <n>] [--expected-version <version>]",
    ),
    (["server", "agent-manifests", "x"], "usage: herdr server agent-manifests [--json]"),
]


@pytest.mark.parametrize("argv,message", USAGE, ids=[" ".join(u[0]) for u in USAGE])
def test_usage_errors(cli, fake, argv, message):
    res = cli(*argv)
    assert (res.rc, res.out, res.stderr) == (2, b"", message + "\n")
    assert fake.lines == []


def test_metadata_seq_is_an_io_error(cli, fake):
    res = cli("pane", "report-metadata", "p", "--seq", "x")
    assert (res.rc, res.stderr) == (
        1,
        'Error: Custom { kind: Other, error: "invalid value for --seq: x" }\n',
    )


def test_live_handoff_is_sent_without_a_ping(cli, fake, base_env):
    fake.on("server.live_handoff", ok(), error("handoff_failed", "no"))
    res = cli(
        "server",
        "live-handoff",
        "--expected-version=0.9.3",
        "--import-exe",
        "/x/herdr",
        "--expected-protocol",
        "22",
    )
    assert res.rc == 0
    assert [x.decode() for x in fake.lines] == [
        '{"id":"cli:server:live-handoff","method":"server.live_handoff","params":{"import_exe":"/x/herdr","expected_protocol":22,"expected_version":"0.9.3"}}'
    ]
    assert (
        res.stderr
        == "live handoff complete; server log: %s/.config/herdr/herdr-server.log\n"
        % base_env["HOME"]
    )
    res = cli("server", "live-handoff")
    assert (res.rc, res.stderr) == (
        1,
        '{"error":{"code":"handoff_failed","message":"no"},"id":"cli:server:live-handoff"}\n',
    )


STATUS = result(
    "agent_manifest_status",
    last_check_unix=1700000000,
    last_result="checked",
    manifests=[
        {
            "agent": "claude",
            "source_kind": "bundled",
            "active_version": "3",
            "cached_remote_version": None,
        },
        {
            "agent": "pi",
            "source_kind": "local",
            "active_version": "1",
            "local_override_shadowing_remote": True,
        },
        {
            "agent": "codex",
            "source_kind": "remote",
            "remote_update_error": "offline",
            "remote_update_result": "failed",
        },
    ],
)


def test_agent_manifests_text_and_json(cli, fake):
    fake.on("server.agent_manifests", STATUS)
    res = cli("server", "agent-manifests")
    assert res.stdout == (
        "last check: 1700000000\nresult: checked\n\n"
        "  claude    bundled        active 3              remote -              not checked\n"
        "! pi        local          active 1              remote -              not checked\n"
        "  local override shadows cached remote rules\n"
        "x codex     remote         active -              remote -              failed\n"
        "  offline\n"
    )
    fake.on("server.agent_manifests", STATUS)
    assert cli("server", "agent-manifests", "--json").out.startswith(
        b'{"id":"cli:server:agent-manifests","result":'
    )


def test_update_agent_manifests_reloads_then_reads(cli, fake):
    fake.on("server.reload_agent_manifests", result("agent_manifest_reload", manifests=[]))
    fake.on("server.agent_manifests", STATUS)
    res = cli("server", "update-agent-manifests", "--json")
    assert res.rc == 0
    assert [m for m, _ in fake.calls()] == [
        "ping",
        "server.reload_agent_manifests",
        "ping",
        "server.agent_manifests",
    ]


def test_terminal_title_set_and_clear(cli, fake):
    fake.default_reply = ok()
    assert cli("terminal", "title", "set", "build #4").rc == 0
    assert cli("terminal", "title", "clear").rc == 0
    assert [x.decode() for x in fake.lines if b'"ping"' not in x] == [
        '{"id":"cli:terminal:title:set","method":"client.window_title.set","params":{"title":"build #4"}}',
        '{"id":"cli:terminal:title:clear","method":"client.window_title.clear","params":{}}',
    ]


@pytest.mark.parametrize(
    "argv,rc,err",
    [
        (["terminal", "title", "set"], 2, "usage: herdr terminal title set <title>\n"),
        (["terminal", "title", "clear", "x"], 2, "usage: herdr terminal title clear\n"),
        (
            ["terminal", "title"],
            2,
            "usage: herdr terminal title set <title>\n       herdr terminal title clear\n",
        ),
        (["terminal", "attach"], 2, "usage: herdr terminal attach <terminal_id> [--takeover]\n"),
        (["terminal", "attach", "t1", "--x"], 2, "unknown option: --x\n"),
        (
            ["terminal", "attach", "t1", "help"],
            0,
            "usage: herdr terminal attach <terminal_id> [--takeover]\n",
        ),
        (
            ["terminal", "session", "help"],
            0,
            "usage: herdr terminal session control <target> [--takeover] [--cols N] [--rows N]\n"
            "usage: herdr terminal session observe <target> [--cols N] [--rows N]\n",
        ),
    ],
)
def test_terminal_usage(cli, fake, argv, rc, err):
    res = cli(*argv)
    assert (res.rc, res.stderr) == (rc, err)
    assert fake.lines == []


def test_terminal_group_list(cli):
    res = cli("terminal")
    assert res.rc == 2 and res.stderr.startswith("herdr terminal commands:\n")
    assert res.stderr.endswith("send literal ctrl+b with ctrl+b ctrl+b\n")


def test_channel_show_reads_the_config(cli, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[update]\nchannel = "preview"\n')
    assert cli("channel", "show", env={"HERDR_CONFIG_PATH": str(config)}).stdout == "preview\n"
    assert cli("channel", "show").stdout == "stable\n"
    res = cli("channel", "show", "x")
    assert res.rc == 2 and res.stderr.startswith("herdr channel commands:\n")


KEYS_CONFIG = """onboarding = false

[theme]
name = "catppuccin"

[keys]
prefix = "ctrl+a"

[[keys.command]]
key = "g"
command = "lazygit"

[keys.indexed]
tabs = "ctrl"

[ui]
mouse_capture = false
"""


def test_config_reset_keys(cli, tmp_path):
    config = tmp_path / "config.toml"
    env = {"HERDR_CONFIG_PATH": str(config)}
    res = cli("config", "reset-keys", env=env)
    assert (
        res.stdout == f"No config file found at {config}. Built-in v2 keybindings already apply.\n"
    )
    config.write_text("[ui]\nmouse_capture = true\n")
    res = cli("config", "reset-keys", env=env)
    assert (
        res.stdout
        == f"No [keys] config found in {config}. Built-in v2 keybindings already apply.\n"
    )
    config.write_text(KEYS_CONFIG)
    res = cli("config", "reset-keys", env=env)
    assert res.rc == 0
    backups = list(tmp_path.glob("config.toml.bak-keybind-v2-*"))
    assert len(backups) == 1 and backups[0].read_text() == KEYS_CONFIG
    assert config.read_text() == (
        'onboarding = false\n\n[theme]\nname = "catppuccin"\n\n[ui]\nmouse_capture = false\n'
    )
    assert res.stdout.splitlines() == [
        f"Created backup: {backups[0]}",
        f"Removed [keys], [keys.indexed], and [[keys.command]] from {config}.",
        "Built-in v2 keybindings will apply after Herdr restarts or reloads config.",
        "If a Herdr server is running, run `herdr server reload-config` to apply this now.",
        f"To restore: cp {backups[0]} {config}",
    ]
    assert cli("config", "reset-keys", "x", env=env).stderr == "usage: herdr config reset-keys\n"
    config.write_text("[keys\n")
    res = cli("config", "reset-keys", env=env)
    assert res.rc == 1 and res.stderr.startswith(f"config file at {config} is invalid TOML: ")
