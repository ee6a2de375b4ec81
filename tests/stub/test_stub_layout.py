"""The stand-in's pane layout verbs (herdr 0.8.2 src/cli/pane.rs: neighbor, edges, focus,
resize, zoom, swap, move): request lines against the recording fake, herdr's usage errors, and
the commands end to end against a simulator on both profiles (the set-up and the first layout
verb through the binary, the rest in-process: tests/standin_inproc.py)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from stub_fake import ok

from simherdr.stub.install import write_stub
from simherdr.testing import ThreadServer
from tests import herdr_reference as ref
from tests.releases import VERSIONS
from tests.standin_inproc import herdr_inproc

MOVE_USAGE = (
    "usage: herdr pane move <pane_id> --tab <tab_id> --split right|down [--target-pane ID] "
    "[--ratio FLOAT] [--focus|--no-focus]\n"
    "       herdr pane move <pane_id> --new-tab [--workspace ID] [--label TEXT] [--focus|--no-focus]\n"
    "       herdr pane move <pane_id> --new-workspace [--label TEXT] [--tab-label TEXT] "
    "[--focus|--no-focus]"
)
SWAP_USAGE = (
    "usage: herdr pane swap --direction left|right|up|down [--pane ID|--current]\n"
    "       herdr pane swap --source-pane ID --target-pane ID"
)
FOCUS_USAGE = "usage: herdr pane focus --direction left|right|up|down [--pane ID|--current]"

REQUESTS = [
    (
        ["pane", "neighbor", "--direction", "up", "--pane", "w1:p2"],
        {},
        '{"id":"cli:pane:neighbor","method":"pane.neighbor","params":{"pane_id":"w1:p2","direction":"up"}}',
    ),
    (
        ["pane", "neighbor", "--pane", "w1:p2", "--current", "--direction", "left"],
        {},
        '{"id":"cli:pane:neighbor","method":"pane.neighbor","params":{"direction":"left"}}',
    ),
    (
        ["pane", "edges", "--current"],
        {"HERDR_PANE_ID": "w3:p1"},
        '{"id":"cli:pane:edges","method":"pane.edges","params":{"pane_id":"w3:p1"}}',
    ),
    (["pane", "edges"], {}, '{"id":"cli:pane:edges","method":"pane.edges","params":{}}'),
    (
        ["pane", "focus", "--direction", "right"],
        {"HERDR_PANE_ID": "w3:p1"},
        '{"id":"cli:pane:focus","method":"pane.focus_direction","params":{"direction":"right"}}',
    ),
    (
        ["pane", "resize", "--direction", "down", "--amount", "0.1", "--pane", "w1:p1"],
        {},
        '{"id":"cli:pane:resize","method":"pane.resize","params":{"pane_id":"w1:p1","direction":"down","amount":0.1}}',
    ),
    (
        ["pane", "zoom"],
        {},
        '{"id":"cli:pane:zoom","method":"pane.zoom","params":{"mode":"toggle"}}',
    ),
    (
        ["pane", "zoom", "w1:p2", "--on"],
        {},
        '{"id":"cli:pane:zoom","method":"pane.zoom","params":{"pane_id":"w1:p2","mode":"on"}}',
    ),
    (
        ["pane", "zoom", "--pane", "w1:p2", "--current", "--off"],
        {},
        '{"id":"cli:pane:zoom","method":"pane.zoom","params":{"mode":"off"}}',
    ),
    (
        ["pane", "swap", "--direction", "left", "--current"],
        {},
        '{"id":"cli:pane:swap","method":"pane.swap","params":{"direction":"left"}}',
    ),
    (
        ["pane", "swap", "--source-pane", "w1:p1", "--target-pane", "w1:p3"],
        {},
        '{"id":"cli:pane:swap","method":"pane.swap","params":{"source_pane_id":"w1:p1","target_pane_id":"w1:p3"}}',
    ),
    (
        ["pane", "move", "w1:p2", "--tab", "w2:t1", "--split", "down", "--ratio", "0.3"],
        {},
        '{"id":"cli:pane:move","method":"pane.move","params":{"pane_id":"w1:p2","destination":{"type":"tab","tab_id":"w2:t1","split":"down","ratio":0.3},"focus":true}}',
    ),
    (
        ["pane", "move", "w1:p2", "--split", "right", "--target-pane", "w2:p4", "--tab", "w2:t1"],
        {},
        '{"id":"cli:pane:move","method":"pane.move","params":{"pane_id":"w1:p2","destination":{"type":"tab","tab_id":"w2:t1","target_pane_id":"w2:p4","split":"right"},"focus":true}}',
    ),
    (
        ["pane", "move", "w1:p2", "--new-tab", "--workspace", "w2", "--label", "L", "--no-focus"],
        {},
        '{"id":"cli:pane:move","method":"pane.move","params":{"pane_id":"w1:p2","destination":{"type":"new_tab","workspace_id":"w2","label":"L"},"focus":false}}',
    ),
    (
        ["pane", "move", "w1:p2", "--new-workspace", "--tab-label", "T"],
        {},
        '{"id":"cli:pane:move","method":"pane.move","params":{"pane_id":"w1:p2","destination":{"type":"new_workspace","tab_label":"T"},"focus":true}}',
    ),
]


@pytest.mark.parametrize("argv,env,line", REQUESTS, ids=[" ".join(r[0]) for r in REQUESTS])
def test_request_line(cli, fake, argv, env, line):
    fake.default_reply = ok()
    res = cli(*argv, env=env)
    assert res.rc == 0, res.err
    assert [x.decode() for x in fake.lines[1:]] == [line]


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
    (["pane", "edges", "w1:p1"], "unknown option: w1:p1"),
    (["pane", "focus", "--direction", "north"], FOCUS_USAGE),  # every error is the usage
    (["pane", "focus", "--bogus"], FOCUS_USAGE),
    (["pane", "resize", "--direction", "up", "--amount", "inf"], "invalid amount: inf"),
    (
        ["pane", "resize", "--amount", "0.1"],
        "usage: herdr pane resize --direction left|right|up|down [--amount FLOAT] [--pane ID|--current]",
    ),
    (["pane", "zoom", "--on", "--off"], "provide only one of --toggle, --on, or --off"),
    (["pane", "zoom", "w1:p1", "x"], "unknown option: x"),
    (["pane", "swap"], SWAP_USAGE),
    (["pane", "swap", "--direction", "up", "--source-pane", "w1:p1"], SWAP_USAGE),
    (["pane", "swap", "--source-pane", "w1:p1"], SWAP_USAGE),
    (["pane", "swap", "--pane", "w1:p1", "--source-pane", "a", "--target-pane", "b"], SWAP_USAGE),
    (["pane", "move"], MOVE_USAGE),
    (["pane", "move", "--new-tab"], MOVE_USAGE),
    (["pane", "move", "w1:p1"], MOVE_USAGE),
    (["pane", "move", "w1:p1", "--tab", "w1:t2"], MOVE_USAGE),
    (["pane", "move", "w1:p1", "--new-tab", "--new-workspace"], MOVE_USAGE),
    (["pane", "move", "w1:p1", "--new-tab", "--split", "down"], MOVE_USAGE),
    (["pane", "move", "w1:p1", "--new-workspace", "--workspace", "w2"], MOVE_USAGE),
    (["pane", "move", "w1:p1", "--tab", "t", "--split", "down", "--label", "x"], MOVE_USAGE),
    (
        ["pane", "move", "w1:p1", "--tab", "t", "--split", "left"],
        "invalid split direction: left (expected right or down)",
    ),
    (["pane", "move", "w1:p1", "--new-tab", "--ratio", "nan"], "invalid ratio: nan"),
    (["pane", "move", "w1:p1", "--tab"], "missing value for --tab"),
]


@pytest.mark.parametrize("argv,message", USAGE, ids=[" ".join(u[0]) for u in USAGE])
def test_usage_errors(cli, fake, argv, message):
    res = cli(*argv)
    assert (res.rc, res.out, res.stderr) == (2, b"", message + "\n")
    assert fake.lines == []


@pytest.fixture(params=VERSIONS)
def live(request, tmp_path):
    version = request.param
    herdr = write_stub(str(tmp_path / "bin"), herdr_version=version)
    with ThreadServer(version) as srv:
        env = {**os.environ, "HERDR_SOCKET_PATH": srv.path}
        env.pop("HERDR_PANE_ID", None)

        def run(*args, inproc=True):
            if inproc:
                p = herdr_inproc(herdr, version, args, env, text=True)
            else:
                p = subprocess.run(
                    [herdr, *args], env=env, capture_output=True, text=True, timeout=20
                )
            assert p.returncode == 0, p.stderr
            reply = json.loads(p.stdout)
            ref.validate_reply(reply, version)
            return reply["result"]

        yield run


def test_layout_verbs_against_the_simulator(live, tmp_path):
    live("workspace", "create", "--cwd", str(tmp_path), inproc=False)
    live("pane", "split", "--pane", "w1:p1", "--direction", "right", inproc=False)
    live("workspace", "create", "--cwd", str(tmp_path))
    assert live("pane", "neighbor", "--pane", "w1:p1", "--direction", "right", inproc=False)[
        "neighbor"
    ]["neighbor_pane_id"] == ("w1:p2")
    assert live("pane", "edges", "--pane", "w1:p2")["edges"]["right"] is True
    assert live("pane", "resize", "--pane", "w1:p1", "--direction", "right")["resize"]["changed"]
    assert live("pane", "swap", "--source-pane", "w1:p1", "--target-pane", "w1:p2")["swap"][
        "changed"
    ]
    assert live("pane", "zoom", "w1:p1")["zoom"]["zoomed"] is True
    assert live("pane", "zoom", "w1:p1", "--off")["zoom"]["zoomed"] is False
    assert live("pane", "focus", "--pane", "w1:p1", "--direction", "left")["focus"][
        "focused_pane_id"
    ] == ("w1:p2")
    # herdr's test `pane move --new-workspace`: a new id, and focus follows (CLI default)
    m = live("pane", "move", "w1:p1", "--new-workspace", "--label", "moved")["move_result"]
    assert m["pane"]["pane_id"] == "w3:p1" and m["pane"]["focused"] is True
    assert m["created_workspace"]["label"] == "moved"
    m = live("pane", "move", "w3:p1", "--tab", "w2:t1", "--split", "down", "--no-focus")
    assert m["move_result"]["closed_workspace_id"] == "w3"
