"""Worktree flows over the real socket transport (one request per connection)."""

from __future__ import annotations

import threading

from tests.core.socketclient import Subscription, request
from tests.releases import rows


def ok(server, method, **params):
    reply = request(server.path, method, params, timeout=30)
    assert "result" in reply, reply
    return reply["result"]


def err(server, method, **params):
    reply = request(server.path, method, params, timeout=30)
    assert "error" in reply, reply
    return reply


def test_list_open_create_remove_close_group(server, version, repo, linked, base):
    r = ok(server, "worktree.open", cwd=str(repo), path=str(linked), label="feat")
    assert r["already_open"] is False and r["workspace"]["label"] == "feat"
    again = ok(server, "worktree.open", cwd=str(repo), branch="feature")
    assert again["already_open"] is True and again["workspace"]["workspace_id"] == "w2"
    made = ok(server, "worktree.create", workspace_id="w1", branch="sock", path=str(base / "sock"))
    assert made["workspace"]["workspace_id"] == "w3"
    listed = ok(server, "worktree.list", workspace_id="w1")
    assert [e.get("open_workspace_id") for e in listed["worktrees"]] == ["w1", "w2", "w3"]
    removed = ok(server, "worktree.remove", workspace_id="w3")
    assert removed == {
        "type": "worktree_removed",
        "workspace_id": "w3",
        "path": str(base / "sock"),
        "forced": False,
    }
    dirty = linked / "dirty.txt"
    dirty.write_text("x\n")
    refusal = err(server, "worktree.remove", workspace_id="w2")
    assert refusal["id"] == "t" and refusal["error"]["code"] == "dirty_worktree_requires_force"
    if not rows(version).close_group_required:
        ok(server, "workspace.close", workspace_id="w1")
    else:
        assert err(server, "workspace.close", workspace_id="w1")["error"]["code"] == (
            "workspace_group_close_required"
        )
        ok(server, "workspace.close", workspace_id="w1", close_group=True)
    assert ok(server, "workspace.list")["workspaces"] == []
    assert dirty.exists()


def test_create_is_answered_when_git_finishes_meanwhile_others_are_served(server, repo, base, gate):
    ok(server, "workspace.create", cwd=str(repo))
    path = str(base / "slow")
    replies = {}

    def slow_create():
        replies["create"] = request(
            server.path,
            "worktree.create",
            {"workspace_id": "w1", "branch": "slow", "path": path},
            rid="slow",
            timeout=30,
        )

    sub = Subscription(server.path, [{"type": "worktree.created"}])
    try:
        assert sub.next()["result"]["type"] == "subscription_started"
        worker = threading.Thread(target=slow_create)
        worker.start()
        assert gate.entered.wait(10)
        # Git is running: the server keeps answering, and the checkout is busy.
        assert ok(server, "pane.list")["panes"][0]["pane_id"] == "w1:p1"
        busy = err(server, "worktree.create", workspace_id="w1", branch="x", path=path)
        assert busy["error"]["code"] == "worktree_operation_in_progress"
        assert "create" not in replies
        gate.release.set()
        worker.join(30)
        created = replies["create"]
        assert created["id"] == "slow" and created["result"]["type"] == "worktree_created"
        event = sub.next()
        assert event["event"] == "worktree_created"
        assert (
            event["data"]["workspace"]["workspace_id"]
            == created["result"]["workspace"]["workspace_id"]
        )
        assert event["data"]["worktree"] == created["result"]["worktree"]
    finally:
        gate.release.set()
        sub.close()


def test_symlinked_repository_over_the_socket(server, repo, link, base):
    made = ok(
        server, "worktree.create", cwd=str(link), branch="via-link", path=str(link / ".." / "vl")
    )
    # Paths a client gives keep their spelling; keys are canonical.
    assert made["worktree"]["path"] == str(link / ".." / "vl")
    assert made["workspace"]["worktree"]["repo_root"] == str(link)
    assert made["workspace"]["worktree"]["repo_key"] == str(repo / ".git")
    listed = ok(server, "worktree.list", cwd=str(repo))
    entry = next(e for e in listed["worktrees"] if e.get("branch") == "via-link")
    assert entry["path"] == str(base / "vl")  # git's own spelling
    assert entry["open_workspace_id"] == made["workspace"]["workspace_id"]
