"""trust_repository (0.9.x, #3044): a per-request git trust override, passed to git as
``-c safe.directory=...``; 0.8.2 does not know the field and ignores it (SOCKET.md §10.2)."""

from __future__ import annotations

import pytest

from tests.releases import rows


@pytest.fixture
def untrusted(monkeypatch):
    # git's own test switch: every repository looks owned by someone else ("dubious ownership").
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")


def test_list_and_open(h, version, repo, linked, untrusted):
    assert h.err("worktree.list", cwd=str(repo))["code"] == "worktree_list_failed"
    # open lists first, then checks that the path is absolute (api:473-490).
    assert h.err("worktree.open", cwd=str(repo), path="relative")["code"] == "worktree_list_failed"
    reply = h.call("worktree.list", cwd=str(repo), trust_repository=True)
    if not rows(version).trust_repository:
        assert reply["error"]["code"] == "worktree_list_failed"
        assert "dubious ownership" in reply["error"]["message"]
        assert (
            h.err("worktree.open", cwd=str(repo), branch="feature", trust_repository=True)["code"]
            == "worktree_list_failed"
        )
    else:
        assert [e["path"] for e in reply["result"]["worktrees"]] == [str(repo), str(linked)]
        # From the linked checkout, the trusted listing also finds its parent.
        r = h.ok("worktree.list", cwd=str(linked), trust_repository=True)
        assert r["source"]["repo_root"] == str(repo)
        r = h.ok("worktree.open", cwd=str(repo), branch="feature", trust_repository=True)
        assert r["worktree"]["path"] == str(linked)


def test_create_and_remove(h, version, repo, base, home, untrusted):
    path = base / "t"
    if not rows(version).trust_repository:
        e = h.err(
            "worktree.create", cwd=str(repo), branch="t", path=str(path), trust_repository=True
        )
        assert e["code"] == "worktree_create_failed" and "dubious ownership" in e["message"]
        return
    r = h.ok("worktree.create", cwd=str(repo), branch="t", path=str(path), trust_repository=True)
    wid = r["workspace"]["workspace_id"]
    assert h.err("worktree.remove", workspace_id=wid)["code"] == "worktree_remove_failed"
    h.ok("worktree.remove", workspace_id=wid, trust_repository=True)
    assert not path.exists()
    # Trust never writes any git configuration.
    assert "safe" not in (repo / ".git" / "config").read_text()
    assert "safe" not in open(f"{home}/.gitconfig").read()


def test_trust_repository_type_by_version(h, version, repo):
    reply = h.call("worktree.list", cwd=str(repo), trust_repository="yes")
    if not rows(version).trust_repository:
        assert reply["result"]["type"] == "worktree_list"  # unknown key, ignored
    else:
        assert reply["id"].startswith("req-")  # 0.9.2+: the request's own id (#4344)
        assert reply["error"]["code"] == "invalid_request"
    reply = h.call("worktree.list", cwd=str(repo), trust_repository=None)
    assert ("result" in reply) == (
        not rows(version).trust_repository
    )  # 0.9: a bool field refuses null
