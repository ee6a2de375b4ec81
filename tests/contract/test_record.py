"""The recording proxy: relays byte for byte, records conversations that replay, survives
clients and upstreams that go away mid-stream."""

from __future__ import annotations

import json
import socket
import time

import pytest

from simherdr.contract import verify as V
from simherdr.contract.corpus import load_corpus
from simherdr.contract.journal import read_journal
from simherdr.contract.recorder import ThreadRecorder
from simherdr.contract.targets import simherdr_target
from simherdr.testing import ThreadServer
from tests import background
from tests import herdr_reference as ref
from tests.contract.recording import call, client_session
from tests.core.socketclient import Subscription


def journaled(rec: ThreadRecorder, conn: int, close: str) -> None:
    """Until the recorder's journal (written as each event happens) holds ``conn``'s close by
    ``close`` ("client" | "upstream")."""
    deadline = time.monotonic() + 10
    while not any(
        e.get("conn") == conn and e.get("close") == close for e in read_journal(rec.path)[1]
    ):
        assert time.monotonic() < deadline, f"no {close} close of conn {conn} recorded"
        time.sleep(0.005)


@pytest.fixture
def upstream(version, config):
    srv = ThreadServer(version, config=config)
    yield srv
    srv.stop()


def test_proxy_relays_byte_for_byte_and_replay_reproduces_the_conversation(
    upstream, version, tmp_path
):
    work = tmp_path / "client-work"
    work.mkdir()
    rec = ThreadRecorder(upstream.path, str(tmp_path / "proxy.sock"), tmp_path / "corpus", "s")
    via_proxy = client_session(str(tmp_path / "proxy.sock"), str(work))
    journaled(rec, 1, "upstream")  # the upstream ended the subscription the client closed
    cassette = rec.stop()
    assert via_proxy[0].startswith(b'{"id":"p","result":{"type":"pong"')
    assert cassette.version == version and cassette.provenance["source"] == "recorded"
    refs = cassette.refs
    assert refs["<pane:1>"] == "w1:p1" and refs["<tmp:1>"] == str(work)
    sends = [s["send"] for s in cassette.steps if "send" in s]
    assert {"raw": "not json"} in sends
    # the stream is recorded: the ack and the events, on the subscription's connection
    sub_conn = cassette.steps[0]["conn"]
    recvs = [s["recv"] for s in cassette.steps if s.get("conn") == sub_conn and "recv" in s]
    assert recvs[0]["result"]["type"] == "subscription_started"
    assert [r["event"] for r in recvs[1:]] == ["pane_created", "pane_created", "pane_closed"]
    # identity kept: the pane the split made is the one closed and then reported closed
    text = json.dumps(cassette.steps)
    assert "w1:p" not in text and "<pane:2>" in text
    [loaded] = load_corpus(tmp_path / "corpus")
    # the stream replays in process too (the handler pushes to the in-process connection)
    for kind in ("socket", "stub", "inprocess"):
        check = lambda reply: ref.validate_reply(reply, version)
        with simherdr_target(kind, version) as t:
            result = V.run_cassette(loaded, t, check)
        assert result.status == "pass", (
            result.report() + "\n" + "\n".join(json.dumps(s)[:160] for s in loaded.steps)
        )


def test_a_changed_upstream_is_caught_with_a_clear_miss_report(version, request):
    # recorded and replayed against a changed upstream in the background (tests/background.py,
    # tests/contract/recording.py changed_upstream): its ~0.5 s of waiting for a stream event
    # the changed split never makes cost no worker
    result = background.result(request.config, "changed", f"changed@{version}")
    assert result["status"] == "fail"
    report = result["report"]
    misses = result["misses"]
    split = next(m for m in misses if m["path"] == "$.error" or m["path"].startswith("$.result"))
    assert "pane.split" in split["where"]
    assert split["closest"] is not None
    # the message change: step, path, expected, actual
    msg = next(m for m in misses if m["path"] == "$.error.message")
    assert msg["expected"] == "pane <pane:3> not found" and msg["actual"] == "gone"
    assert (
        f"step {msg['step']} (conn" in report
        and '$.error.message: expected "pane <pane:3> not found", got "gone"' in report
    )
    assert "closest recorded reply: step" in report


def test_proxy_survives_a_client_that_disconnects_mid_stream(upstream, tmp_path):
    proxy = str(tmp_path / "proxy.sock")
    rec = ThreadRecorder(upstream.path, proxy, tmp_path / "corpus", "s")
    sub = Subscription(proxy, [{"type": "workspace.created"}])
    sub.next()
    call(proxy, "workspace.create", {"focus": False})
    sub.next()
    sub.close()  # gone mid-stream
    journaled(rec, 1, "client")
    journaled(rec, 1, "upstream")
    assert call(proxy, "ping", {})["result"]["type"] == "pong"  # the proxy still relays
    cassette = rec.stop()
    sub_steps = [s for s in cassette.steps if s.get("conn") == 1]
    assert [k for s in sub_steps for k in s if k in ("send", "recv", "close")] == [
        "send",
        "recv",
        "recv",
        "close",
        "close",
    ]
    assert sub_steps[3]["close"] == "client"
    with simherdr_target("socket", cassette.version) as t:
        assert V.run_cassette(cassette, t).status == "pass"


def test_proxy_survives_an_upstream_that_dies_and_the_recording_stays_readable(version, tmp_path):
    srv = ThreadServer(version)
    proxy = str(tmp_path / "proxy.sock")
    rec = ThreadRecorder(srv.path, proxy, tmp_path / "corpus", "s")
    sub = Subscription(proxy, [{"type": "workspace.created"}])
    sub.next()
    srv.stop()  # the upstream dies while a stream is open
    assert sub.file.readline() == b""  # the client sees the end, as with herdr itself
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(proxy)  # the proxy still accepts; the upstream is gone, so it closes at once
    try:
        s.sendall(b'{"id":"1","method":"ping","params":{}}\n')
        assert s.recv(100) == b""
    except (BrokenPipeError, ConnectionResetError):
        pass  # closed before the request was sent or read
    s.close()
    # readable before the proxy is stopped (a crash leaves the journal) ...
    [mid] = load_corpus(tmp_path / "corpus")
    assert mid.steps[0]["send"]["method"] == "events.subscribe"
    cassette = rec.stop()
    assert any(st.get("close") == "upstream" for st in cassette.steps)
    assert any(st.get("unreachable") for st in cassette.steps)
    # ... and after; replay skips what met a dead upstream and passes the rest
    with simherdr_target("socket", version) as t:
        result = V.run_cassette(cassette, t)
    assert result.status == "pass", result.report()
    assert result.skipped_steps
