"""Session persistence (src/persist/): a server stopped and started again on the same session
restores workspaces, tabs, panes, labels and ids on new terminals; pane history when enabled;
herdr's legacy pre-tabs v2 file restores as herdr restores it. Over the socket, both profiles."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

from simherdr import persist
from simherdr.scenarios import server_restart
from simherdr.testing import Harness, ThreadServer, spawn_server
from tests import forkserve
from tests import herdr_reference as ref
from tests.core.socketclient import request
from tests.releases import rows

FIXTURES = Path(__file__).parent / "fixtures"
# [H093] src/persist/restore.rs restore_tab: a restored pane whose saved directory is gone
UNAVAILABLE = "Saved directory is unavailable. Restore the directory and restart this session."


def ok(sock, method, **params):
    reply = request(sock, method, params)
    assert "result" in reply, reply
    return reply["result"]


def _ids(snapshot: dict) -> dict:
    """Everything a restart must keep, minus what it must not (terminal ids)."""
    return {
        "focused": [
            snapshot.get(k) for k in ("focused_workspace_id", "focused_tab_id", "focused_pane_id")
        ],
        "workspaces": [
            (w["workspace_id"], w["label"], w["active_tab_id"]) for w in snapshot["workspaces"]
        ],
        "tabs": [(t["tab_id"], t["label"], t["pane_count"]) for t in snapshot["tabs"]],
        "panes": [
            (p["pane_id"], p["tab_id"], p.get("label"), p.get("cwd")) for p in snapshot["panes"]
        ],
        "layouts": [
            (
                lay["tab_id"],
                lay["focused_pane_id"],
                lay["zoomed"],
                [p["pane_id"] for p in lay["panes"]],
                lay["splits"],
            )
            for lay in snapshot["layouts"]
        ],
    }


def _build(sock: str, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    ok(sock, "workspace.create", cwd=str(a), label="alpha")
    ok(sock, "pane.split", direction="right", cwd=str(b))
    ok(sock, "pane.split", target_pane_id="w1:p2", direction="down", ratio=0.3)
    ok(sock, "pane.rename", pane_id="w1:p3", label="logs")
    ok(sock, "tab.create", workspace_id="w1", label="second", cwd=str(b))
    ok(sock, "workspace.create", cwd=str(b))
    ok(sock, "workspace.create", cwd=str(b))
    ok(sock, "workspace.close", workspace_id="w2")
    ok(sock, "tab.rename", tab_id="w3:t1", label="solo")
    ok(sock, "pane.focus", pane_id="w1:p2")
    ok(sock, "pane.zoom", pane_id="w1:p3", mode="on")


def test_a_restarted_server_restores_the_same_ids(version, config, tmp_path):
    config = dataclasses.replace(config, persist=True)
    with ThreadServer(version, config=config) as srv:
        _build(srv.path, tmp_path)
        before = ok(srv.path, "session.snapshot")["snapshot"]
        assert [lay["zoomed"] for lay in before["layouts"]] == [True, False, False]
    saved = json.loads(Path(persist.session_path(config)).read_text())
    assert saved["version"] == 3 and [w["id"] for w in saved["workspaces"]] == ["w1", "w3"]
    with ThreadServer(version, config=config) as srv:
        after = ok(srv.path, "session.snapshot")["snapshot"]
        assert _ids(after) == _ids(before)
        old = {p["pane_id"]: p["terminal_id"] for p in before["panes"]}
        assert all(p["terminal_id"] != old[p["pane_id"]] for p in after["panes"])
        # numbering continues where the old server left off
        assert ok(srv.path, "workspace.create")["workspace"]["workspace_id"] == "w4"
        split = ok(srv.path, "pane.split", target_pane_id="w1:p1", direction="down")
        assert split["pane"]["pane_id"] == "w1:p5"
        assert ok(srv.path, "tab.create", workspace_id="w1")["tab"]["tab_id"] == "w1:t3"


def test_without_persistence_nothing_is_written(version, config, tmp_path):
    with ThreadServer(version, config=config) as srv:
        ok(srv.path, "workspace.create", cwd=str(tmp_path))
    assert not os.path.exists(persist.session_path(config))
    with ThreadServer(version, config=config) as srv:
        assert ok(srv.path, "workspace.list")["workspaces"] == []


def test_an_empty_session_removes_the_files(version, config, tmp_path):
    config = dataclasses.replace(config, persist=True, pane_history=True)
    with ThreadServer(version, config=config) as srv:
        ok(srv.path, "workspace.create", cwd=str(tmp_path))
        srv.run(persist.save)
        assert os.path.exists(persist.session_path(config))
        assert os.path.exists(persist.history_path(config))
        ok(srv.path, "workspace.close", workspace_id="w1")
    assert not os.path.exists(persist.session_path(config))
    assert not os.path.exists(persist.history_path(config))


def test_pane_history_comes_back_when_enabled(version, config, tmp_path):
    config = dataclasses.replace(config, persist=True, pane_history=True)
    with ThreadServer(version, config=config) as srv:
        ok(srv.path, "workspace.create", cwd=str(tmp_path))
        ok(srv.path, "pane.send_input", pane_id="w1:p1", text="echo remembered", keys=["Enter"])
    history = json.loads(Path(persist.history_path(config)).read_text())
    assert "remembered" in history["workspaces"][0]["tabs"][0]["panes"]["1"]["ansi"]
    with ThreadServer(version, config=config) as srv:
        read = ok(srv.path, "pane.read", pane_id="w1:p1", source="recent", lines=50)["read"]
        assert "echo remembered" in read["text"]
    # without pane history the restored terminal starts empty
    config = dataclasses.replace(config, pane_history=False)
    with ThreadServer(version, config=config) as srv:
        read = ok(srv.path, "pane.read", pane_id="w1:p1", source="recent", lines=50)["read"]
        assert "remembered" not in read["text"]
    assert not os.path.exists(persist.history_path(config))


def test_the_legacy_pre_tabs_file_restores_as_herdr_restores_it(version, config, tmp_path):
    root = tmp_path / "proj"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    text = (FIXTURES / "legacy-pre-tabs-v2.json").read_text().replace("@ROOT@", str(root))
    path = Path(persist.session_path(config))
    path.parent.mkdir(parents=True)
    path.write_text(text)
    config = dataclasses.replace(config, persist=True)
    with ThreadServer(version, config=config) as srv:
        snap = ok(srv.path, "session.snapshot")["snapshot"]
        # workspaces without ids get fresh ones in order; pane numbers follow layout order
        assert [(w["workspace_id"], w["label"]) for w in snap["workspaces"]] == [
            ("w1", "old-layout"),
            ("w2", "b"),
        ]
        assert snap["focused_workspace_id"] == "w2"  # "active": 1
        panes = {p["pane_id"]: p for p in snap["panes"]}
        assert list(panes) == ["w1:p1", "w1:p2", "w1:p3", "w2:p1"]
        assert panes["w1:p1"]["cwd"] == str(root / "a")
        if rows(version).restore_keeps_unavailable_panes:
            # 0.9.3: kept at its saved cwd, unavailable ([H093] unavailable_restored_terminal)
            assert panes["w1:p2"]["cwd"] == str(root / "gone")
            assert panes["w1:p2"]["restore_error"] == UNAVAILABLE
        else:
            assert panes["w1:p2"]["cwd"] == config.home  # its saved cwd is gone: HOME
            assert "restore_error" not in panes["w1:p2"]
        assert "restore_error" not in panes["w1:p1"]
        assert panes["w1:p3"]["label"] == "logs" and panes["w1:p3"]["cwd"] == str(root / "b")
        (layout,) = [lay for lay in snap["layouts"] if lay["tab_id"] == "w1:t1"]
        assert layout["focused_pane_id"] == "w1:p2"  # "focused": 7
        assert [(s["direction"], s["ratio"]) for s in layout["splits"]] == [
            ("down", 0.3),
            ("right", 0.6),
        ]
        assert [t["tab_id"] for t in snap["tabs"]] == ["w1:t1", "w2:t1"]
        assert ok(srv.path, "workspace.create")["workspace"]["workspace_id"] == "w3"
    # the next save is the current format
    saved = json.loads(path.read_text())
    assert saved["version"] == 3 and [w["id"] for w in saved["workspaces"]] == ["w1", "w2", "w3"]


def test_a_newer_or_broken_file_is_ignored(version, config, tmp_path):
    path = Path(persist.session_path(config))
    path.parent.mkdir(parents=True)
    config = dataclasses.replace(config, persist=True)
    for text in ('{"version": 99, "workspaces": [], "active": null, "selected": 0}', "{nope"):
        path.write_text(text)
        with ThreadServer(version, config=config) as srv:
            assert ok(srv.path, "workspace.list")["workspaces"] == []


def test_the_in_process_restart_goes_through_the_session_file(version, config, tmp_path):
    """server_restart uses the same restore code; with persistence, through the saved file."""
    config = dataclasses.replace(config, persist=True)
    with Harness(version, config=config, validator=ref.validator(version)) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        h.ok("pane.split", direction="right")
        h.ok("pane.rename", pane_id="w1:p2", label="kept")
        path = Path(persist.session_path(config))
        persist.save(h.sim)
        before = json.loads(path.read_text())
        terminals = {p["pane_id"]: p["terminal_id"] for p in h.ok("pane.list")["panes"]}
        server_restart(h.sim)
        after = {p["pane_id"]: p for p in h.ok("pane.list")["panes"]}
        assert set(after) == set(terminals)
        assert all(after[k]["terminal_id"] != terminals[k] for k in after)
        assert after["w1:p2"]["label"] == "kept"
        assert json.loads(path.read_text()) == before  # a restore saves what it read


def test_serve_persist_flag(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    sock_dir = tmp_path / "s"
    sock_dir.mkdir(mode=0o700)
    sock = str(sock_dir / "herdr.sock")
    proc = spawn_server(sock, "0.8.2", extra=["--persist"])
    try:
        ok(sock, "workspace.create", cwd=str(tmp_path), label="kept")
        ok(sock, "server.stop")
        proc.wait(10)
    finally:
        proc.kill()
    saved = json.loads((tmp_path / "xdg/herdr/session.json").read_text())
    assert saved["workspaces"][0]["custom_name"] == "kept"
    # the second start forked (tests/forkserve.py: the CLI's main in a process of its own)
    proc = forkserve.spawn_server(sock, "0.8.2", extra=["--persist"])
    try:
        assert ok(sock, "workspace.get", workspace_id="w1")["workspace"]["label"] == "kept"
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_zoomed_tab_comes_back(version, config, tmp_path):
    """src/persist/restore.rs:726: the tab's zoom is saved and restored."""
    config = dataclasses.replace(config, persist=True)
    with Harness(version, config=config, validator=ref.validator(version)) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        h.ok("pane.split", direction="right")
        h.ok("pane.zoom", pane_id="w1:p2")
        h.ok("tab.create", workspace_id="w1")
        server_restart(h.sim)
        layouts = h.ok("session.snapshot")["snapshot"]["layouts"]
        assert [lay["zoomed"] for lay in layouts] == [True, False]


def test_a_deep_split_chain_is_saved_and_then_ignored_like_serde_would(config, tmp_path, capsys):
    """Saving never fails however deep a tab's splits go (issue 14); reading the file back
    applies serde_json's 128-level limit, as herdr's parse_snapshot does, so a session that
    deep is ignored on restart with a warning (src/persist/snapshot.rs:451). One profile: the
    rule is version-independent and every split rewrites the whole file."""
    config = dataclasses.replace(config, persist=True)
    with Harness("0.8.2", config=config, validator=ref.validator("0.8.2")) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        target = "w1:p1"
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(150)  # so that 2 JSON levels per split outgrow Python's encoder
        try:
            for i in range(80):  # also past serde's 128 levels
                direction = "down" if i % 2 else "right"
                target = h.ok("pane.split", target_pane_id=target, direction=direction)["pane"][
                    "pane_id"
                ]
            persist.save(h.sim)  # what the debounced save writes, at the same depth
        finally:
            sys.setrecursionlimit(old_limit)
        text = Path(persist.session_path(config)).read_text()
        assert text.count('"Split"') == 80
        server_restart(h.sim)
        assert h.ok("workspace.list")["workspaces"] == []
    assert "recursion limit exceeded" in capsys.readouterr().err


def test_the_file_records_agents_as_herdr_writes_them(version, config, tmp_path):
    config = dataclasses.replace(config, persist=True)
    with Harness(version, config=config, validator=ref.validator(version)) as h:
        h.ok("workspace.create", cwd=str(tmp_path))
        h.ok("agent.start", name="rev", kind="pi", pane_id="w1:p1")
        path = Path(persist.session_path(config))
        persist.save(h.sim)  # what the debounced save will write
        pane = json.loads(path.read_text())["workspaces"][0]["tabs"][0]["panes"]["1"]
        assert "agent_name" not in pane  # the launch is still pending
        h.advance(5)
        persist.save(h.sim)
        pane = json.loads(path.read_text())["workspaces"][0]["tabs"][0]["panes"]["1"]
        assert (pane["agent_name"], pane["managed_agent_kind"]) == ("rev", "pi")
        server_restart(h.sim)
        assert h.ok("agent.list")["agents"] == []  # CHOICE: restored panes are fresh shells


def test_saves_are_debounced_and_a_stop_saves_at_once(version, config, tmp_path):
    config = dataclasses.replace(config, persist=True)
    path = Path(persist.session_path(config))
    with ThreadServer(version, config=config) as srv:
        ok(srv.path, "workspace.create", cwd=str(tmp_path), label="one")
        assert not path.exists()  # herdr's 5 s debounce has not passed
    assert json.loads(path.read_text())["workspaces"][0]["custom_name"] == "one"


def test_serve_reads_pane_history_from_herdrs_config(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".config/herdr").mkdir(parents=True)
    (home / ".config/herdr/config.toml").write_text("[experimental]\npane_history = true\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("HERDR_CONFIG_PATH", raising=False)
    sock_dir = tmp_path / "s"
    sock_dir.mkdir(mode=0o700)
    sock = str(sock_dir / "herdr.sock")
    proc = forkserve.spawn_server(sock, "0.8.2", extra=["--persist"])  # as in the test above
    try:
        ok(sock, "workspace.create", cwd=str(tmp_path))
        ok(sock, "server.stop")
        proc.wait(10)
    finally:
        proc.kill()
    assert (home / ".config/herdr/session-history.json").exists()


def test_serve_persist_debounce_follows_the_scaled_clock(version, tmp_path, monkeypatch):
    """Issue 25 item 9: `serve --persist --time-scale 1000`: herdr's 5 s save debounce is 5 ms
    of wall time; the change is on disk long before 5 wall seconds, with no stop, and a second
    change moves the file again (a wall-clock debounce would write neither in time)."""
    import time

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    sock_dir = tmp_path / "s"
    sock_dir.mkdir(mode=0o700)
    sock = str(sock_dir / "herdr.sock")
    saved = tmp_path / "xdg/herdr/session.json"

    def labels_within(seconds: float) -> list[str] | None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                data = json.loads(saved.read_text())
            except (OSError, ValueError):
                data = None
            if data is not None:
                got = [w["custom_name"] for w in data["workspaces"]]
                if got == wanted:
                    return got
            time.sleep(0.02)
        return None

    proc = forkserve.spawn_server(sock, version, time_scale=1000, extra=["--persist"])
    try:
        ok(sock, "workspace.create", cwd=str(tmp_path), label="first")
        wanted = ["first"]
        assert labels_within(3.0) == wanted, "not saved within 3 s wall (5 s simulated = 5 ms)"
        ok(sock, "workspace.create", cwd=str(tmp_path), label="second")
        wanted = ["first", "second"]
        assert labels_within(3.0) == wanted
    finally:
        proc.terminate()
        proc.wait(10)
