"""The stub tests' recording fake (tests/stub/stub_fake.py): the fakes of a process share one
accepting thread, yet each answers and records only its own connections, and one shut down
takes no more while the others serve."""

from __future__ import annotations

import os
import threading

import pytest
from stub_fake import FakeHerdr, ThenShutdown, ok

from simherdr.testing import SocketClient


def ask(path: str, method: str, rid: str = "r") -> dict:
    return SocketClient(path).request(method, rid=rid)


def test_each_fake_answers_and_records_its_own(sockdir):
    a = FakeHerdr(os.path.join(sockdir, "a.sock"), version="0.8.2")
    b = FakeHerdr(os.path.join(sockdir, "b.sock"), version="0.9.3")
    try:
        a.on("tab.list", ok(tabs=["a"]))
        b.on("tab.list", ok(tabs=["b"]))
        assert ask(a.path, "ping")["result"]["version"] == "0.8.2"
        assert ask(b.path, "ping")["result"]["version"] == "0.9.3"
        # connections to both at once, each handled in a thread of its own
        replies: dict[str, dict] = {}

        def call(fake: FakeHerdr, i: int) -> None:
            replies[f"{fake.version}-{i}"] = ask(fake.path, "tab.list", rid=str(i))

        threads = [threading.Thread(target=call, args=(f, i)) for f in (a, b) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert {k: v["result"]["tabs"] for k, v in replies.items()} == {
            f"{f.version}-{i}": [name] for f, name in ((a, "a"), (b, "b")) for i in range(8)
        }
        assert [m for m, _ in a.calls()] == ["ping"] + ["tab.list"] * 8
        assert [m for m, _ in b.calls()] == ["ping"] + ["tab.list"] * 8
    finally:
        a.shutdown()
        b.shutdown()


def test_a_fake_shut_down_takes_no_connection_while_another_serves(sockdir):
    a = FakeHerdr(os.path.join(sockdir, "a.sock"))
    b = FakeHerdr(os.path.join(sockdir, "b.sock"))
    try:
        a.shutdown()
        assert not os.path.exists(a.path)
        with pytest.raises(OSError):
            ask(a.path, "ping")
        assert ask(b.path, "ping")["result"]["type"] == "pong"
        # one made after: served too
        c = FakeHerdr(os.path.join(sockdir, "c.sock"))
        try:
            assert ask(c.path, "ping")["result"]["type"] == "pong"
        finally:
            c.shutdown()
        assert a.lines == []
    finally:
        b.shutdown()


def test_then_shutdown_replies_and_stops_listening(sockdir):
    fake = FakeHerdr(os.path.join(sockdir, "herdr.sock"))
    try:
        fake.on("server.stop", ThenShutdown(ok()))
        assert ask(fake.path, "server.stop")["result"] == {"type": "ok"}
        with pytest.raises(OSError):
            ask(fake.path, "ping")
    finally:
        fake.shutdown()


def test_a_forked_child_has_fakes_of_its_own(sockdir):
    parent = FakeHerdr(os.path.join(sockdir, "parent.sock"))
    try:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # (the child: a fake of its own, served by an acceptor of its own)
            code = 1
            try:
                os.close(r)
                child = FakeHerdr(os.path.join(sockdir, "child.sock"), version="0.9.3")
                reply = ask(child.path, "ping")
                child.shutdown()
                os.write(w, reply["result"]["version"].encode())
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            got = f.read()
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0 and got == b"0.9.3"
        assert ask(parent.path, "ping")["result"]["type"] == "pong"  # the parent's still served
    finally:
        parent.shutdown()
