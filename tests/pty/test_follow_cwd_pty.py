"""cwd and foreground_cwd read from /proc on real panes, and follow-cwd (src/pane.rs:2952-3010)."""

from __future__ import annotations

import os

import pytest

from tests.releases import rows

pytestmark = pytest.mark.pty


def test_cwd_follows_cd_and_new_panes_follow_it(client, workdir):
    a, b = os.path.join(workdir, "a"), os.path.join(workdir, "b")
    os.mkdir(a)
    os.mkdir(b)
    pane = client.workspace(cwd=a, focus=True)
    assert client.pane(pane)["cwd"] == a
    client.run(pane, f"cd {b}")
    client.until(lambda: client.pane(pane)["cwd"] == b, "cwd to follow cd")
    p = client.pane(pane)
    assert p["foreground_cwd"] == b  # the shell leads the foreground group
    new = client.ok("pane.split", direction="right")["pane"]
    assert new["cwd"] == b
    client.wait_output(new["pane_id"], r"^\$", regex=True)
    tab = client.ok("tab.create")["root_pane"]
    assert tab["cwd"] == b
    client.wait_output(tab["pane_id"], r"^\$", regex=True)


def test_foreground_cwd_of_a_job_elsewhere(client, workdir):
    a, c = os.path.join(workdir, "a"), os.path.join(workdir, "c")
    os.mkdir(a)
    os.mkdir(c)
    pane = client.workspace(cwd=a, focus=True)
    client.run(pane, f"(cd {c} && exec sleep 30)")
    p = client.until(
        lambda: (q := client.pane(pane)).get("foreground_cwd") == c and q,
        "the foreground job's cwd",
    )
    assert p["cwd"] == a  # the shell stayed
    assert client.ok("pane.split", direction="right")["pane"]["cwd"] == c  # follows the leader
    client.ok("pane.send_keys", pane_id=pane, keys=["C-c"])
    client.until(lambda: client.pane(pane).get("foreground_cwd") == a, "the shell back in front")


def test_foreground_cwd_follows_the_group_leader_on_0_9_3(make_client, workdir, version):
    """Issue 25 item 2: the foreground job's leader runs in the shell's cwd, a member of its
    group elsewhere. herdr 0.8.2 reports the member's cwd (src/pane.rs:2989-3012: a member
    elsewhere wins while the leader is where the shell is); 0.9.3 the leader's ([H093]
    src/pane.rs foreground_cwd, #3270: the leader is authoritative) — row
    foreground_cwd_leader_first."""
    client = make_client(version=version)
    a, c = os.path.join(workdir, "a"), os.path.join(workdir, "c")
    os.mkdir(a)
    os.mkdir(c)
    pane = client.workspace(cwd=a, focus=True)
    client.run(pane, f"sh -c '(cd {c} && exec sleep 30) & exec sleep 31'")
    want = a if rows(version).foreground_cwd_leader_first else c
    other = c if want == a else a

    def settled():
        q = client.pane(pane)
        return bool(q.get("agent_status")) and _member_started(c) and q

    client.until(settled, "the job and its member")
    for _ in range(5):  # stable: not a passing moment
        p = client.pane(pane)
        assert p["foreground_cwd"] == want, (p["foreground_cwd"], other)
        assert p["cwd"] == a
    client.ok("pane.send_keys", pane_id=pane, keys=["C-c"])


def _member_started(cwd: str) -> bool:
    """A `sleep 30` whose cwd is ``cwd`` runs (the job's member is in place)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            if cmd == b"sleep\x0030\x00" and os.readlink(f"/proc/{pid}/cwd") == cwd:
                return True
        except OSError:
            continue
    return False
