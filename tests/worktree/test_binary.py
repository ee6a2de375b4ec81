"""The stand-in ``herdr`` binary (simherdr.stub) against a ThreadServer: worktree commands,
``workspace close --group`` and ``--trust-repository`` by version (CLI.md §7, VERSIONS.md §1.2-1.3)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.releases import rows

install = pytest.importorskip("simherdr.stub.install", reason="the stand-in binary is not built")


@pytest.fixture(scope="module")
def stub_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("herdr-stub")


@pytest.fixture
def herdr(server, version, stub_dir, home):
    """Run the stub for the server's version: ``herdr(*argv, cwd=None)`` -> (rc, out, err)."""
    binary = install.write_stub(str(stub_dir / version), version)

    def run(*argv, cwd=None):
        env = {
            key: value
            for key, value in os.environ.items()
            if key.startswith(("GIT_", "XDG_", "LC_")) or key in ("PATH", "HOME")
        }
        env["HERDR_SOCKET_PATH"] = server.path
        proc = subprocess.run(
            [binary, *argv],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        return proc.returncode, proc.stdout, proc.stderr

    return run


def _json(text):
    return json.loads(text.strip().splitlines()[-1])


def test_worktree_commands(herdr, repo, linked, base):
    rc, out, err = herdr("worktree", "list", "--cwd", ".", cwd=str(repo))
    assert rc == 0, err
    listed = _json(out)
    assert listed["id"] == "cli:worktree:list"
    # The CLI joins a relative --cwd to its own cwd; herdr keeps that spelling.
    assert listed["result"]["source"]["repo_root"] == f"{repo}/."
    assert [e["path"] for e in listed["result"]["worktrees"]] == [str(repo), str(linked)]

    rc, out, err = herdr(
        "worktree", "open", "--cwd", str(repo), "--branch", "feature", "--label", "feat", "--focus"
    )
    assert rc == 0, err
    opened = _json(out)["result"]
    assert opened["type"] == "worktree_opened" and opened["already_open"] is False
    assert opened["workspace"]["label"] == "feat" and opened["workspace"]["focused"] is True

    rc, out, err = herdr(
        "worktree",
        "create",
        "--workspace",
        "w1",
        "--branch",
        "cli",
        "--path",
        "cli-wt",
        cwd=str(base),
    )
    assert rc == 0, err
    created = _json(out)
    assert created["id"] == "cli:worktree:create"
    assert created["result"]["worktree"]["path"] == str(base / "cli-wt")
    wid = created["result"]["workspace"]["workspace_id"]

    (base / "cli-wt" / "dirty.txt").write_text("x\n")
    rc, out, err = herdr("worktree", "remove", "--workspace", wid)
    assert rc == 1 and out == ""
    assert _json(err)["error"]["code"] == "dirty_worktree_requires_force"
    rc, out, err = herdr("worktree", "remove", "--workspace", wid, "--force")
    assert rc == 0, err
    assert _json(out)["result"] == {
        "type": "worktree_removed",
        "workspace_id": wid,
        "path": str(base / "cli-wt"),
        "forced": True,
    }

    rc, out, err = herdr("worktree", "open", "--cwd", str(linked), "--branch", "main")
    assert rc == 1 and _json(err)["error"]["code"] == "linked_worktree_source"


def test_workspace_close_group(herdr, version, repo, linked):
    assert herdr("worktree", "open", "--cwd", str(repo), "--path", str(linked))[0] == 0
    rc, out, err = herdr("workspace", "close", "w1", "--group")
    if not rows(version).close_group_required:
        assert rc == 2 and "usage: herdr workspace close <workspace_id>" in err
        rc, out, err = herdr("workspace", "close", "w1")  # 0.8.2 closes the group silently
        assert rc == 0, err
    else:
        assert rc == 0, err
        assert _json(out) == {"id": "cli:workspace:close", "result": {"type": "ok"}}
    rc, out, _ = herdr("workspace", "list")
    assert _json(out)["result"]["workspaces"] == []


def test_workspace_close_without_group(herdr, version, repo, linked):
    assert herdr("worktree", "open", "--cwd", str(repo), "--path", str(linked))[0] == 0
    rc, out, err = herdr("workspace", "close", "w1")
    if not rows(version).close_group_required:
        assert rc == 0 and _json(out) == {"id": "cli:workspace:close", "result": {"type": "ok"}}
        remaining = 0  # the whole group closed silently
    else:
        assert rc == 1 and out == ""
        assert _json(err) == {
            "id": "cli:workspace:close",
            "error": {
                "code": "workspace_group_close_required",
                "message": "workspace has linked worktree workspaces; use --group "
                "(close_group=true in the API) to close the group",
            },
        }
        remaining = 2
    rc, out, _ = herdr("workspace", "list")
    assert len(_json(out)["result"]["workspaces"]) == remaining


def test_trust_repository_flag(herdr, version, repo, monkeypatch):
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")  # server and stub share it
    rc, out, err = herdr("worktree", "list", "--cwd", str(repo), "--trust-repository")
    if not rows(version).trust_repository:
        assert rc == 2 and out == "" and err.strip() == "unknown option: --trust-repository"
    else:
        assert rc == 0, err
        assert _json(out)["result"]["worktrees"][0]["path"] == str(repo)
        rc, out, err = herdr("worktree", "list", "--cwd", str(repo))
        assert rc == 1 and _json(err)["error"]["code"] == "worktree_list_failed"
