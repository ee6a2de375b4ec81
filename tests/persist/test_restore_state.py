"""What a restored session contains, against herdr's capture/restore (src/persist/): the saved
identity cwd, persisted agent sessions, panes whose directory is gone, the history's layout
fingerprint (0.9.3) and the save debounce. Both profiles; replies schema-validated."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from simherdr import persist
from simherdr.model import snapshot as S
from simherdr.scenarios import server_restart
from simherdr.testing import Harness
from tests import herdr_reference as ref
from tests.releases import rows

UNAVAILABLE = "Saved directory is unavailable. Restore the directory and restart this session."


@pytest.fixture
def persisted(config):
    return dataclasses.replace(config, persist=True)


def _harness(version, config):
    return Harness(version, config=config, validator=ref.validator(version))


def _saved(config) -> dict:
    return json.loads(Path(persist.session_path(config)).read_text())


def test_the_identity_cwd_saved_is_the_root_panes_cwd(version, persisted, tmp_path):
    """capture_workspace: the first tab's root pane's cwd (resolved_identity_cwd_from), not the
    cwd the workspace was created in."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    with _harness(version, persisted) as h:
        h.ok("workspace.create", cwd=str(a))
        h.ok("pane.send_input", pane_id="w1:p1", text=f"cd {b}", keys=["Enter"])
        assert h.ok("pane.get", pane_id="w1:p1")["pane"]["cwd"] == str(b)
        persist.save(h.sim)
        assert _saved(persisted)["workspaces"][0]["identity_cwd"] == str(b)


def test_a_persisted_agent_session_comes_back_once(version, persisted, tmp_path):
    """restore_carries_persisted_agent_session_metadata; a duplicate is not restored twice and
    an invalid reference (a path ref for claude) not at all."""
    with _harness(version, persisted) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        h.ok("pane.split", direction="right")
        h.ok("pane.split", direction="down")
        persist.save(h.sim)
        data = _saved(persisted)
        panes = data["workspaces"][0]["tabs"][0]["panes"]
        session = {"source": "herdr:claude", "agent": "claude", "kind": "id", "value": "s-1"}
        panes["1"]["agent_session"] = session
        panes["2"]["agent_session"] = dict(session)  # the same session again
        panes["3"]["agent_session"] = {**session, "kind": "path", "value": "/x"}
        Path(persist.session_path(persisted)).write_text(json.dumps(data))
        persist.restore_from_disk(h.sim)
        h.sim.commit()
        got = {p["pane_id"]: p.get("agent_session") for p in h.ok("pane.list")["panes"]}
        assert got == {"w1:p1": session, "w1:p2": None, "w1:p3": None}
        assert h.ok("agent.list")["agents"] == []  # a stored session is no agent
        # and it is saved again as it was read
        persist.save(h.sim)
        again = _saved(persisted)["workspaces"][0]["tabs"][0]["panes"]
        assert again["1"]["agent_session"] == session and "agent_session" not in again["2"]


def test_a_pane_whose_directory_is_gone(version, persisted, tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    config = dataclasses.replace(persisted, pane_history=True)
    with _harness(version, config) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        h.ok("pane.split", direction="right", cwd=str(gone))
        h.ok("pane.send_input", pane_id="w1:p2", text="echo remembered", keys=["Enter"])
        persist.save(h.sim)
        shutil.rmtree(gone)
        data = _saved(config)
        data["workspaces"][0]["tabs"][0]["panes"]["2"]["launch_argv"] = ["htop"]
        Path(persist.session_path(config)).write_text(json.dumps(data))
        h.sim.session.workspaces = []
        persist.restore_from_disk(h.sim)
        h.sim.commit()
        pane = h.ok("pane.get", pane_id="w1:p2")["pane"]
        command = h.ok("layout.export", tab_id="w1:t1")["layout"]["root"]["second"]
        assert "restore_error" not in h.ok("pane.get", pane_id="w1:p1")["pane"]
        if rows(version).restore_keeps_unavailable_panes:
            assert (pane["cwd"], pane["restore_error"]) == (str(gone), UNAVAILABLE)
            assert command.get("command") == ["htop"]  # kept by the unavailable terminal
            read = h.ok("pane.read", pane_id="w1:p2", source="recent", lines=50)["read"]
            assert "remembered" not in read["text"]  # no terminal: no history replayed
        else:
            assert pane["cwd"] == config.home and "restore_error" not in pane
            assert "command" not in command  # a fresh shell


def test_the_history_carries_the_sessions_layout_fingerprint(version, persisted, tmp_path):
    config = dataclasses.replace(persisted, pane_history=True)
    with _harness(version, config) as h:
        h.ok("workspace.create", cwd=str(tmp_path), label="alpha")
        h.ok("pane.split", direction="right", ratio=0.3)
        h.ok("pane.send_input", pane_id="w1:p1", text="echo remembered", keys=["Enter"])
        persist.save(h.sim)
        session_text = Path(persist.session_path(config)).read_text()
        history = json.loads(Path(persist.history_path(config)).read_text())
        fingerprinted = rows(version).history_layout_fingerprint
        if fingerprinted:
            # the file is herdr's full struct already: its canonical JSON is what is hashed
            canonical = json.dumps(
                json.loads(session_text), sort_keys=True, separators=(",", ":")
            ).encode()
            assert history["layout_fingerprint"] == hashlib.sha256(canonical).hexdigest()
            assert history["layout_fingerprint"] == S.layout_fingerprint(
                S.parse(json.loads(session_text))
            )
        else:
            assert "layout_fingerprint" not in history
        server_restart(h.sim)  # a matching history is replayed
        read = h.ok("pane.read", pane_id="w1:p1", source="recent", lines=50)["read"]
        assert "echo remembered" in read["text"]
        # the layout changes behind the history's back
        changed = json.loads(session_text)
        changed["workspaces"][0]["custom_name"] = "renamed"
        Path(persist.session_path(config)).write_text(json.dumps(changed))
        Path(persist.history_path(config)).write_text(json.dumps(history))
        h.sim.session.workspaces = []
        persist.restore_from_disk(h.sim)
        h.sim.commit()
        assert h.ok("workspace.get", workspace_id="w1")["workspace"]["label"] == "renamed"
        read = h.ok("pane.read", pane_id="w1:p1", source="recent", lines=50)["read"]
        assert ("echo remembered" in read["text"]) is not fingerprinted


def test_a_history_without_fingerprint_is_ignored_by_0_9_3(version, persisted, tmp_path):
    config = dataclasses.replace(persisted, pane_history=True)
    with _harness(version, config) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        h.ok("pane.send_input", pane_id="w1:p1", text="echo remembered", keys=["Enter"])
        persist.save(h.sim)
        path = Path(persist.history_path(config))
        history = json.loads(path.read_text())
        history.pop("layout_fingerprint", None)  # as 0.8.2 writes it
        path.write_text(json.dumps(history))
        h.sim.session.workspaces = []
        persist.restore_from_disk(h.sim)
        h.sim.commit()
        read = h.ok("pane.read", pane_id="w1:p1", source="recent", lines=50)["read"]
        replayed = "echo remembered" in read["text"]
        assert replayed is not rows(version).history_layout_fingerprint


def test_each_change_moves_the_save_deadline(version, persisted, tmp_path):
    """schedule_session_save: now + 5 s on every change, so a save follows the last change."""
    path = Path(persist.session_path(persisted))
    with _harness(version, persisted) as h:
        h.ok("workspace.create", cwd=str(tmp_path), label="one")
        h.advance(4)
        h.ok("workspace.rename", workspace_id="w1", label="two")
        h.advance(4)
        assert not path.exists()  # 8 s after the first change, 4 s after the last
        h.advance(1.5)
        assert _saved(persisted)["workspaces"][0]["custom_name"] == "two"


def _snapshot_copies(config) -> list[str]:
    directory = Path(persist.session_path(config)).parent / persist.SNAPSHOT_DIR
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


def test_session_snapshots_compare_layout_fingerprints(version, persisted, tmp_path):
    """writer.rs preserve_snapshot_history: a copy whose mtime is in the future does not hold
    the next one back; a copy with the same layout written differently (key order, spacing)
    counts as the same layout."""
    if not rows(version).session_backups:
        pytest.skip("0.9.x session-snapshots/")
    directory = Path(persist.session_path(persisted)).parent / persist.SNAPSHOT_DIR
    with _harness(version, persisted) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        persist.save(h.sim)
        h.ok("workspace.rename", workspace_id="w1", label="a")
        persist.save(h.sim)  # the first copy is of the first save's file
        [first] = _snapshot_copies(persisted)
        # the same layout written differently (defaults left out, key order), and old: no
        # new copy of an unchanged layout
        current = json.loads(Path(persist.session_path(persisted)).read_text())
        del current["sidebar_width"], current["collapsed_space_keys"]
        (directory / first).write_text(json.dumps(current, sort_keys=True))
        os.utime(directory / first, (0, 0))
        h.ok("workspace.focus", workspace_id="w1")  # no layout change; a save all the same
        persist.save(h.sim)
        assert _snapshot_copies(persisted) == [first]
        # the wall clock went back: the newest copy is "from the future"
        future = time.time() + 86400
        os.utime(directory / first, (future, future))
        h.ok("workspace.rename", workspace_id="w1", label="b")
        persist.save(h.sim)
        assert len(_snapshot_copies(persisted)) == 2


def test_which_worktree_memberships_come_back(version, persisted, tmp_path, monkeypatch):
    """restored_worktree_space_membership: 0.8.2 wants the checkout to exist and belong to the
    saved repository; 0.9.3 drops a membership only when its checkout path is now the root of
    another repository."""
    from simherdr.git import GitResult, worktrees
    from tests.gitrepos import isolate, make_base, make_linked, make_repo

    githome = tmp_path / "githome"
    githome.mkdir()
    isolate(monkeypatch, githome)  # isolated, the repositories are replayed: no git process
    base = make_base(tmp_path)
    repo = make_repo(base)
    other = base / "other"
    other.mkdir()
    make_repo(other)  # other/proj: another repository
    plain = base / "plain"
    plain.mkdir()
    linked = make_linked(repo, base)
    key = os.path.realpath(repo / ".git")
    checkouts = {
        "same": repo,
        "linked": linked,
        "gone": base / "gone",
        "plain": plain,
        "other": other / "proj",
    }
    with _harness(version, persisted) as h:
        for _ in checkouts:
            h.ok("workspace.create", cwd=str(base))
        persist.save(h.sim)
        data = _saved(persisted)
        for ws, path in zip(data["workspaces"], checkouts.values(), strict=True):
            ws["worktree_space"] = {
                "key": key,
                "label": "proj",
                "repo_root": str(repo),
                "checkout_path": str(path),
                "is_linked_worktree": path == linked,
            }
        Path(persist.session_path(persisted)).write_text(json.dumps(data))
        h.sim.session.workspaces = []
        ran: list = []
        failed = GitResult(returncode=128, stdout="", stderr="fatal: not run")
        monkeypatch.setattr(worktrees, "run_git", lambda *a, **k: ran.append(a) or failed)
        persist.restore_from_disk(h.sim)
        assert ran == []  # herdr's git_space_metadata reads files: no git worktree list
        h.sim.commit()
        kept = {
            name: "worktree" in w
            for name, w in zip(checkouts, h.ok("workspace.list")["workspaces"], strict=True)
        }
    if rows(version).restore_membership_unless_other_repo:
        assert kept == {"same": True, "linked": True, "gone": True, "plain": True, "other": False}
    else:
        assert kept == {"same": True, "linked": True, "gone": False, "plain": False, "other": False}


def test_a_saved_ratio_comes_back_unclamped(version, persisted, tmp_path):
    """restore.rs remap_inner keeps the saved ratio (no valid_split_ratio clamp on restore)."""
    with _harness(version, persisted) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        h.ok("pane.split", direction="right", ratio=0.3)
        persist.save(h.sim)
        data = _saved(persisted)
        data["workspaces"][0]["tabs"][0]["layout"]["Split"]["ratio"] = 0.05
        Path(persist.session_path(persisted)).write_text(json.dumps(data))
        h.sim.session.workspaces = []
        persist.restore_from_disk(h.sim)
        h.sim.commit()
        (layout,) = h.ok("session.snapshot")["snapshot"]["layouts"]
        assert [s["ratio"] for s in layout["splits"]] == [0.05]
        persist.save(h.sim)
        assert _saved(persisted)["workspaces"][0]["tabs"][0]["layout"]["Split"]["ratio"] == 0.05


def test_a_file_with_a_malformed_layout_is_ignored(version, persisted, tmp_path, capsys):
    """serde rejects the whole file (parse_snapshot): the server starts with no workspaces."""
    with _harness(version, persisted) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        h.ok("pane.split", direction="right")
        persist.save(h.sim)
        data = _saved(persisted)
        data["workspaces"][0]["tabs"][0]["layout"]["Split"]["ratio"] = "half"
        Path(persist.session_path(persisted)).write_text(json.dumps(data))
        h.sim.session.workspaces = []
        assert persist.restore_from_disk(h.sim) is False
        h.sim.commit()
        assert h.ok("workspace.list")["workspaces"] == []
    assert "ignoring" in capsys.readouterr().err


@pytest.mark.parametrize(
    "edit",
    [
        lambda hist: hist.update(version=99),
        lambda hist: hist["workspaces"][0].update(tabs="none"),
        lambda hist: hist["workspaces"][0]["tabs"][0]["panes"]["1"].pop("ansi"),
    ],
    ids=["newer", "tabs", "ansi"],
)
def test_a_newer_or_malformed_history_is_ignored(version, persisted, tmp_path, capsys, edit):
    """parse_history_snapshot: the session comes back, its history does not."""
    config = dataclasses.replace(persisted, pane_history=True)
    with _harness(version, config) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        h.ok("pane.send_input", pane_id="w1:p1", text="echo remembered", keys=["Enter"])
        persist.save(h.sim)
        path = Path(persist.history_path(config))
        history = json.loads(path.read_text())
        edit(history)
        path.write_text(json.dumps(history))
        h.sim.session.workspaces = []
        assert persist.restore_from_disk(h.sim) is True
        h.sim.commit()
        read = h.ok("pane.read", pane_id="w1:p1", source="recent", lines=50)["read"]
        assert "echo remembered" not in read["text"]
    assert "ignoring" in capsys.readouterr().err


def test_a_reported_resume_command_is_saved_and_restored(version, persisted, tmp_path):
    """0.9.2+ PaneSnapshot.agent_resume ([H093] capture_tab; restore.rs
    saved_reported_resume): a server started on the file types it into the new shell and keeps
    saving it; an invalid saved command is dropped. 0.8.2 has no such field."""
    if not rows(version).report_resume_argv:
        pytest.skip("0.9.2 resume_argv")
    persisted = dataclasses.replace(persisted, pane_history=True)
    with _harness(version, persisted) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        h.ok("pane.split", direction="right")
        h.ok("pane.send_input", pane_id="w1:p1", text="echo remembered", keys=["Enter"])
        h.ok("pane.send_input", pane_id="w1:p2", text="echo second", keys=["Enter"])
        h.ok(
            "pane.report_agent",
            pane_id="w1:p1",
            source="custom:bot",
            agent="bot",
            state="working",
            resume_argv=["bot", "--resume", "s 1"],
        )
        persist.save(h.sim)
        data = _saved(persisted)
        panes = data["workspaces"][0]["tabs"][0]["panes"]
        resume = {"source": "custom:bot", "agent": "bot", "argv": ["bot", "--resume", "s 1"]}
        assert panes["1"]["agent_resume"] == resume and "agent_resume" not in panes["2"]
        panes["2"]["agent_resume"] = {**resume, "argv": ["/usr/bin/bot"]}  # a path: invalid
        Path(persist.session_path(persisted)).write_text(json.dumps(data))
        history_path = Path(persist.history_path(persisted))
        history = json.loads(history_path.read_text())
        history["layout_fingerprint"] = S.layout_fingerprint(S.parse(data))  # still matching
        history_path.write_text(json.dumps(history))
        h.sim.session.workspaces = []
        persist.restore_from_disk(h.sim)
        h.sim.commit()
        h.advance(1)
        text = h.ok("pane.read", pane_id="w1:p1", source="visible")["read"]["text"]
        assert "$ bot --resume 's 1'" in text
        assert "remembered" not in text  # a resuming pane replays no history
        other = h.ok("pane.read", pane_id="w1:p2", source="recent", lines=50)["read"]["text"]
        assert "echo second" in other  # ...while the other pane's history came back
        assert "bot" not in h.ok("pane.read", pane_id="w1:p2", source="visible")["read"]["text"]
        persist.save(h.sim)
        again = _saved(persisted)["workspaces"][0]["tabs"][0]["panes"]
        assert again["1"]["agent_resume"] == resume and "agent_resume" not in again["2"]


def test_the_sidebar_fields_saved(version, persisted, tmp_path):
    """0.8.2 saves the server's sidebar state (its defaults, or what the file gave); 0.9.3
    writes null, null, [] (the sidebar is each client's)."""
    saves = rows(version).session_saves_sidebar
    with _harness(version, persisted) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        persist.save(h.sim)
        data = _saved(persisted)
        fields = ("sidebar_width", "sidebar_section_split", "collapsed_space_keys")
        assert [data[k] for k in fields] == ([26, 0.5, []] if saves else [None, None, []])
        data.update(sidebar_width=30, sidebar_section_split=0.25, collapsed_space_keys=["k"])
        Path(persist.session_path(persisted)).write_text(json.dumps(data))
        h.sim.session.workspaces = []
        persist.restore_from_disk(h.sim)
        h.sim.commit()
        h.ok("workspace.rename", workspace_id="w1", label="again")
        persist.save(h.sim)
        again = _saved(persisted)
        assert [again[k] for k in fields] == ([30, 0.25, ["k"]] if saves else [None, None, []])
