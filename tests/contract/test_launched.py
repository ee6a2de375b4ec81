"""Clients that launch a herdr server of their own, and diffs of clients that poll.

Found recording gedovkl/herdr-dock's live suite (its fixture runs ``herdr --session NAME
server``, reads the socket from ``herdr --session NAME status server`` and talks to it): the
recording held 0 connections, verify passed on 0 steps, and the stub target ran the launch again
until its 60 s timeout ended verify with an internal error. Its 0.8.2 vs 0.9.3 diff then showed
65 unexplained differences, all of them the client's own pacing (a background loop that lists
agents as often as its timing lets it) and references numbered per recording.
"""

from __future__ import annotations

import shlex
import sys

import pytest

from simherdr.contract import diff as D
from simherdr.contract import verify as V
from simherdr.contract.cassette import from_json
from simherdr.contract.journal import read_journal
from simherdr.testing import ThreadServer
from tests.contract.conftest import record_script, stub_in_process, verify_everywhere

# A client like herdr-dock's fixture: its own session server, found through `status server`,
# a CLI call and a socket call of its own to it (in this interpreter: a `python3` on PATH may
# be a pyenv shim, ~50 ms of bash), then `server stop` and `session delete`.
LAUNCHING_CLIENT = r"""
set -e
N=lab-$$
herdr --session "$N" server >/dev/null 2>&1 &
i=0
until herdr --session "$N" status server | grep -q '^status: running'; do
  i=$((i+1)); [ "$i" -lt 150 ] || exit 9; sleep 0.1
done
S=$(herdr --session "$N" status server | sed -n 's/^socket: //p')
herdr --session "$N" workspace create --no-focus >/dev/null
PYTHON - "$S" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b'{"id":"own","method":"workspace.list","params":{}}\n')
reply = json.loads(s.makefile().readline())
assert len(reply["result"]["workspaces"]) == 1, reply
EOF
herdr --session "$N" server stop >/dev/null
wait
herdr session delete "$N" >/dev/null
""".replace("PYTHON", shlex.quote(sys.executable))


@pytest.mark.parametrize("version", ["0.8.2", "0.9.3"])
def test_a_server_the_client_launches_itself_is_recorded_and_replays_everywhere(
    tmp_path, real_home, version
):
    with ThreadServer(version) as srv:
        c, _ = record_script(
            srv.path, tmp_path, LAUNCHING_CLIENT, version, home=real_home, keep_journal=True
        )
    assert [s["boundary"] for s in c.steps if "boundary" in s] == ["launch"]
    _, events = read_journal(tmp_path / "journal.jsonl")
    [relayed] = [e["launch"]["socket"] for e in events if "launch" in e]
    opened = [e for e in events if "open" in e]
    # each connection through the launched server's relay names it (_overtaken_probes)
    assert opened and all(e["relay"] == relayed for e in opened)
    own = [s for s in c.steps if "send" in s and not s.get("via")]
    assert [s["send"]["method"] for s in own] == ["workspace.list"]  # the client's own call
    by_cli = {s["send"]["method"] for s in c.steps if "send" in s and s.get("via")}
    assert {"workspace.create", "server.stop"} <= by_cli  # a CLI run's, told by its pid
    launch = next(s for s in c.steps if s.get("launch"))
    assert launch["cli_run"]["argv"] == ["--session", "<launched:1>", "server"]
    results = verify_everywhere(c, version, stub_in_process=stub_in_process(version))
    for kind, r in results.items():
        assert r.status == "pass", f"{kind}:\n{r.report()}"
        assert r.steps_run > 5, kind
    assert any("own server launch" in s for s in results["stub"].skipped_steps)


def test_a_replayed_cli_run_that_never_ends_is_a_miss_not_an_internal_error(tmp_path, monkeypatch):
    """The stub target used to run a recorded server launch again: it serves until stopped."""
    monkeypatch.setattr(V, "CLI_TIMEOUT", 0.3)
    c = from_json(
        {
            "name": "x",
            "provenance": {"herdr_version": "0.9.3"},
            "steps": [
                {
                    "t": 0,
                    "k": 1,
                    "cli_run": {
                        "argv": ["--session", "zz-hang", "server"],
                        "exit": 0,
                        "stdout": "",
                        "stderr": "",
                    },
                },
            ],
        },
        "x.json",
    )
    [r] = V.verify([c], "stub")
    assert r.status == "fail"
    assert "still running after 0.3 s" in r.report()


def test_a_cli_read_is_known_behind_the_global_session_option():
    assert V.is_read_cli(["--session", "lab", "status", "server"])
    assert V.is_read_cli(["--session=lab", "pane", "list"])
    assert not V.is_read_cli(["--session", "lab", "server", "stop"])


def _cassette(steps):
    return from_json(
        {"name": "x", "provenance": {"herdr_version": "0.8.2"}, "steps": steps}, "x.json"
    )


def _conn(cid, method, params, result, via=None):
    send = {"id": f"c-{cid}", "method": method, "params": params}
    steps = [
        {"conn": cid, "send": send},
        {"conn": cid, "recv": {"id": f"c-{cid}", "result": result}},
    ]
    if via:
        for s in steps:
            s["via"] = via
    return steps


def _run(k, argv, stdout=""):
    return {"k": k, "cli_run": {"argv": argv, "exit": 0, "stdout": stdout, "stderr": ""}}


CREATED = {"type": "workspace_created", "root_pane": {"pane_id": "<pane:%d>"}}


def _listed(n):
    return {"type": "agent_list", "agents": [{"pane_id": f"<pane:{n}>", "agent_status": "idle"}]}


def test_diff_aligns_a_clients_repeated_reads_and_its_own_numbering():
    status = ["--session", "<launched:1>", "status", "server"]
    a = _cassette(
        [
            _run(1, status, "not running"),
            _run(2, status, "status: running"),
            *_conn(1, "agent.list", {}, {"type": "agent_list", "agents": []}),
            *_conn(2, "agent.list", {}, {"type": "agent_list", "agents": []}),
            *_conn(3, "workspace.create", {}, {**CREATED, "root_pane": {"pane_id": "<pane:1>"}}),
            *_conn(4, "agent.list", {}, _listed(1)),
            *_conn(5, "agent.list", {}, _listed(1)),
            *_conn(6, "agent.focus", {"target": "<pane:1>"}, {"type": "ok"}),
        ]
    )
    b = _cassette(
        [
            _run(1, status, "status: running"),
            *_conn(1, "workspace.create", {}, {**CREATED, "root_pane": {"pane_id": "<pane:3>"}}),
            *_conn(2, "agent.focus", {"target": "<pane:3>"}, {"type": "ok"}),
            *_conn(3, "agent.list", {}, _listed(3)),
        ]
    )
    r = D.diff_corpora([a], [b])
    assert r["unexplained"] == 0, r["differences"]
    assert {d["path"] for d in r["differences"]} == {
        "CLI run only in A (a repeated read)",
        "connection only in A (a repeated read)",  # the lists before the create, one after
        "connection only in B (a repeated read)",  # the list after the focus
    }
    # a reference that does not correspond is still a difference
    b_bad = _cassette(
        [
            *_conn(1, "workspace.create", {}, {**CREATED, "root_pane": {"pane_id": "<pane:3>"}}),
            *_conn(2, "agent.focus", {"target": "<pane:4>"}, {"type": "ok"}),
        ]
    )
    a_small = _cassette(
        [
            *_conn(1, "workspace.create", {}, {**CREATED, "root_pane": {"pane_id": "<pane:1>"}}),
            *_conn(2, "agent.focus", {"target": "<pane:1>"}, {"type": "ok"}),
        ]
    )
    [bad] = D.diff_pair(a_small, b_bad, "x")
    assert (bad.category, bad.path, bad.a, bad.b) == (
        "requests",
        "$.params.target",
        "<pane:1>",
        "<pane:4>",
    )
    # a mutation only one recording made is not a repeat
    a_more = _cassette(
        [*a_small.steps, *_conn(3, "agent.focus", {"target": "<pane:1>"}, {"type": "ok"})]
    )
    r = D.diff_corpora([a_more], [a_small])
    assert r["unexplained"] == 1


def test_diff_pairs_a_history_event_with_no_live_one(tmp_path):
    """0.8.2 replays history to a new subscriber; a stream the client closed early saw no live
    event: the history event is not compared with the other release's live one."""
    hist = {"event": "pane_created", "data": {"pane": {"pane_id": "<pane:1>", "cwd": "/tmp"}}}
    live = {"event": "pane_created", "data": {"pane": {"pane_id": "<pane:2>", "cwd": "/"}}}
    sub = {"id": "s", "method": "events.subscribe", "params": {"subscriptions": []}}

    def cas(refs, events):
        steps = []
        for cid, n in enumerate(refs, 1):
            steps += _conn(
                cid, "workspace.create", {}, {**CREATED, "root_pane": {"pane_id": f"<pane:{n}>"}}
            )
        steps += [
            {"conn": 9, "send": sub},
            {"conn": 9, "recv": {"id": "s", "result": {"type": "subscription_started"}}},
        ]
        steps += [{"conn": 9, "recv": e} for e in events]
        return _cassette(steps)

    a, b = cas([1, 2], [hist]), cas([1, 2], [live])
    [d] = D.diff_pair(a, b, "x")
    assert (d.category, d.path, d.a, d.b) == (
        "event order",
        "$.event (without a counterpart)",
        ["pane_created"],
        ["pane_created"],
    )
    # the same live event in both: compared, no difference
    assert D.diff_pair(cas([1, 2], [live]), b, "x") == []


def test_selftest_of_a_command_that_talks_to_no_herdr_fails():
    """Before: "PASS ... (0 steps)" on every target, exit 0 (herdr-dock's first recording).
    In process (tests/inproc.py; its server and COMMAND are processes): `contract selftest` as
    a process is test_suites.py's test_selftest_records_a_command_and_verifies_it_on_every_target."""
    from tests.inproc import simherdr_main

    p = simherdr_main("contract", "selftest", "--herdr-version", "0.9.3", "--", "true")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "holds no socket traffic" in p.stdout and "PASS" not in p.stdout


def test_a_cli_run_that_waited_for_the_launched_server_replays_after_its_launch(tmp_path):
    """Under load a `status server` started before the relay was up and reached it after: the
    cassette had it before the launch boundary, so the stub target ran it with no server."""
    import json

    from simherdr.contract.journal import JOURNAL, journal_to_cassette

    cli = tmp_path / "cli.jsonl"
    sock = "/h/.config/herdr/sessions/lab-1/herdr.sock"
    runs = [
        {
            "t": 1.0,
            "t_end": 9.0,
            "argv": ["--session", "lab-1", "server"],
            "exit": 0,
            "stdout": "",
            "stderr": "",
            "pid": 100,
            "launch": {"socket": sock, "session": "lab-1"},
        },
        {
            "t": 1.1,
            "t_end": 1.6,
            "argv": ["--session", "lab-1", "status", "server"],
            "exit": 0,
            "stdout": f"status: running\nsocket: {sock}\n",
            "stderr": "",
            "pid": 200,
        },
    ]
    cli.write_text("".join(json.dumps(r) + "\n" for r in runs))
    events = [
        {"journal": JOURNAL, "meta": {"name": "s", "cli_journal": str(cli)}},
        {"t": 1.2, "launch": {"socket": sock, "argv": runs[0]["argv"], "pid": 100}},
        {"t": 1.3, "conn": 1, "open": "socket", "pid": 200},
        {"t": 1.3, "conn": 1, "send": '{"id":"cli:ping","method":"ping","params":{}}'},
        {"t": 1.4, "conn": 1, "recv": '{"id":"cli:ping","result":{"type":"pong"}}'},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    c = journal_to_cassette(path)
    kinds = [
        "launch-run"
        if s.get("launch")
        else "boundary"
        if "boundary" in s
        else "status-run"
        if "cli_run" in s
        else s.get("via", "conn")
        for s in c.steps
    ]
    assert kinds.index("launch-run") < kinds.index("boundary") < kinds.index("status-run")
    assert set(kinds[kinds.index("status-run") + 1 :]) == {"cli:2"}  # its ping, by its pid
    status = next(s for s in c.steps if "cli_run" in s and not s.get("launch"))
    assert status["cli_run"]["argv"] == ["--session", "<launched:1>", "status", "server"]


def _stop_then_probe(probes):
    """``herdr server stop`` as recorded: server.stop, then reachability probes until the
    socket is gone (the first ones may still connect while the server closes)."""
    steps = [_run(1, ["server", "stop"]), *_conn(1, "server.stop", {}, {"type": "ok"}, "cli:1")]
    steps.append({"conn": 1, "via": "cli:1", "close": "upstream"})
    for n in range(2, 2 + probes):
        steps.append({"conn": n, "via": "cli:1", "close": "client"})
    gone = "FileNotFoundError: [Errno 2] No such file or directory"
    steps.append({"conn": 2 + probes, "via": "cli:1", "close": "upstream", "unreachable": gone})
    return steps


@pytest.mark.parametrize("probes", [0, 1, 3])
def test_a_stop_waits_probes_as_often_as_its_machine_let_it_and_only_the_last_one_counts(probes):
    """Found in CI: a recording whose `server stop` probe still connected while the server
    closed failed the socket replay (a connect after the target had stopped)."""
    from simherdr.contract.journal import _mark_polls

    steps = _stop_then_probe(probes)
    _mark_polls(steps)
    polled = sorted({s["conn"] for s in steps if s.get("poll")})
    assert polled == list(range(2, 2 + probes))
    assert not any(s.get("poll") for s in steps if s.get("conn") == 1)
    for kind in ("socket", "inprocess"):
        [r] = V.verify([_cassette(steps)], kind)
        assert r.status == "pass", f"{kind}:\n{r.report()}"


def test_a_stop_probe_that_met_the_dying_server_is_skipped_not_connected_again():
    """Found in a full run (1 recording in ~13): the last probe of `server stop` connected while
    the server closed (the client closed it, then the upstream dropped it unanswered:
    upstream_down). A target already gone refused the replayed connect ("step 30 (conn 7):
    expected a reply, got ConnectionRefusedError")."""
    from simherdr.contract.journal import _mark_polls

    steps = [_run(1, ["server", "stop"]), *_conn(1, "server.stop", {}, {"type": "ok"}, "cli:1")]
    steps.append({"conn": 1, "via": "cli:1", "close": "upstream"})
    steps.append({"conn": 2, "via": "cli:1", "close": "client"})
    steps.append({"conn": 2, "via": "cli:1", "close": "upstream", "upstream_down": True})
    _mark_polls(steps)
    assert all(s.get("upstream_down") for s in steps if s.get("conn") == 2)
    assert not any(s.get("upstream_down") for s in steps if s.get("conn") == 1)
    for kind in ("socket", "stub", "inprocess"):
        [r] = V.verify([_cassette(steps)], kind)
        assert r.status == "pass", f"{kind}:\n{r.report()}"


@pytest.mark.parametrize("relay_gone_first", [True, False])
def test_a_stop_probe_that_met_the_stopping_server_before_its_relay_went_is_not_the_answer(
    tmp_path, relay_gone_first
):
    """Found under load (1 recording in 15): `server stop`'s last recorded probe connected to
    the launched server while it stopped (its close answered as ever); the launched server then
    exited, its relay went (launch_end), and the probe that found the socket gone met nothing to
    record. Kept as the answer, that probe was connected again on the socket target, already
    stopped by the replayed server.stop: "step 29 (conn 7): expected a reply, got
    FileNotFoundError". A run that ended before the relay went (a stop at its deadline) keeps
    its last probe as the answer."""
    import json

    from simherdr.contract.journal import JOURNAL, journal_to_cassette

    cli = tmp_path / "cli.jsonl"
    sock = "/h/.config/herdr/sessions/lab-1/herdr.sock"
    gone = 2.05 if relay_gone_first else 2.5
    launch = ["--session", "lab-1", "server"]
    runs = [
        {"t": 1.0, "t_end": gone, "argv": launch, "exit": 0, "stdout": "", "stderr": "",
         "pid": 100, "launch": {"socket": sock, "session": "lab-1"}},
        {"t": 1.9, "t_end": 2.1, "argv": ["--session", "lab-1", "server", "stop"], "exit": 0,
         "stdout": "", "stderr": "", "pid": 300},
    ]  # fmt: skip
    cli.write_text("".join(json.dumps(r) + "\n" for r in runs))
    stop = '{"id":"cli:session:stop","method":"server.stop","params":{}}'
    events = [
        {
            "journal": JOURNAL,
            "meta": {"name": "s", "cli_journal": str(cli), "herdr_version": "0.8.2"},
        },
        {"t": 1.2, "launch": {"socket": sock, "argv": launch, "pid": 100}},
        {"t": 2.0, "conn": 1, "open": "socket", "pid": 300, "relay": sock},
        {"t": 2.0, "conn": 1, "send": stop},
        {"t": 2.01, "conn": 1, "recv": '{"id":"cli:session:stop","result":{"type":"ok"}}'},
        {"t": 2.011, "conn": 1, "close": "client"},
        {"t": 2.012, "conn": 2, "open": "socket", "pid": 300, "relay": sock},
        {"t": 2.013, "conn": 2, "close": "client"},
        {"t": 2.014, "conn": 1, "close": "upstream"},
        {"t": 2.015, "conn": 2, "close": "upstream"},
        {"t": gone, "launch_end": sock},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    c = journal_to_cassette(path)
    probe = [s for s in c.steps if s.get("conn") == 2]
    assert len(probe) == 2 and all(s["via"] == "cli:2" for s in probe)
    assert all(bool(s.get("poll")) == relay_gone_first for s in probe)
    assert not any(s.get("poll") for s in c.steps if s.get("conn") == 1)
    if relay_gone_first:  # (the stub target runs the stop itself: its own probes)
        for kind in ("socket", "inprocess"):
            [r] = V.verify([c], kind)
            assert r.status == "pass", f"{kind}:\n{r.report()}"
