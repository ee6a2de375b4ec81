"""cwd and foreground_cwd read from /proc on real panes, and follow-cwd (src/pane.rs:2952-3010)."""

from __future__ import annotations

import os

import pytest

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
