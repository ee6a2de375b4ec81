"""Worktree groups: workspace.close (0.8.2 silent group close; 0.9.x close_group and
workspace_group_close_required), tab.close / pane.close confirmation, focus after a close."""

from __future__ import annotations

import pytest

from tests import gitrepos as G
from tests.releases import rows

from .helpers import events, kinds


def _group(h, repo, base, created: bool):
    h.ok("workspace.create", cwd=str(base))
    h.ok("workspace.create", cwd=str(repo))
    if created:
        h.ok("worktree.create", workspace_id="w2", branch="g", path=str(base / "g"))
    else:
        G.make_linked(repo, base, "g", "g")  # replayed: the checkout git would make
        h.ok("worktree.open", workspace_id="w2", path=str(base / "g"))
    h.ok("workspace.create", cwd=str(base))
    return h


@pytest.fixture
def group(h, repo, base):
    """w1 plain (base), w2 repo parent, w3 linked worktree of it (on branch g), w4 plain (base).

    w3 is an existing checkout opened with worktree.open: no git worktree add per test (a
    created one is the same group: test_closing_the_root runs with both)."""
    return _group(h, repo, base, created=False)


def _ids(h):
    return [w["workspace_id"] for w in h.ok("workspace.list")["workspaces"]]


def _focused(h):
    return [w["workspace_id"] for w in h.ok("workspace.list")["workspaces"] if w["focused"]]


@pytest.mark.parametrize("made_by", ["open", "create"])
def test_closing_the_root(h, repo, base, version, made_by):
    h = _group(h, repo, base, created=made_by == "create")
    h.ok("workspace.focus", workspace_id="w3")
    before = {w["workspace_id"]: w for w in h.ok("workspace.list")["workspaces"]}
    mark = h.sim.hub.seq
    if not rows(version).close_group_required:
        assert h.ok("workspace.close", workspace_id="w2") == {"type": "ok"}
        evs = events(h, mark)
        # The whole group closes silently: one event, for the target.
        assert [k for k, _ in evs if k == "workspace_closed"] == ["workspace_closed"]
        assert evs[0][1] == {
            "type": "workspace_closed",
            "workspace_id": "w2",
            "workspace": before["w2"],
        }
    else:
        assert h.err("workspace.close", workspace_id="w2") == {
            "code": "workspace_group_close_required",
            "message": "workspace has linked worktree workspaces; use --group "
            "(close_group=true in the API) to close the group",
        }
        assert _ids(h) == ["w1", "w2", "w3", "w4"] and kinds(h, mark) == []
        assert _focused(h) == ["w3"]
        assert h.ok("workspace.close", workspace_id="w2", close_group=True) == {"type": "ok"}
        evs = events(h, mark)
        # One workspace_closed per closed workspace, each with its snapshot before the close.
        closed = [d for k, d in evs if k == "workspace_closed"]
        assert closed == [
            {"type": "workspace_closed", "workspace_id": i, "workspace": before[i]}
            for i in ("w2", "w3")
        ]
    assert _ids(h) == ["w1", "w4"]
    # The active workspace (w3) closed with the group: focus goes to the workspace now at the
    # root's former index (1), i.e. w4 (herdr's close_selected_workspace).
    assert _focused(h) == ["w4"]
    assert kinds(h, mark)[-3:] == ["workspace_focused", "tab_focused", "pane_focused"]


def test_closing_a_linked_member_closes_only_it(group, version):
    h = group
    params = {"close_group": True} if rows(version).close_group_required else {}
    h.ok("workspace.close", workspace_id="w3", **params)
    assert _ids(h) == ["w1", "w2", "w4"]
    # The root is alone in its group now: it closes by itself on every version.
    h.ok("workspace.close", workspace_id="w2")
    assert _ids(h) == ["w1", "w4"]


def test_close_group_is_inert_on_an_ordinary_workspace(group):
    h = group
    h.ok("workspace.close", workspace_id="w4", close_group=True)
    assert _ids(h) == ["w1", "w2", "w3"]


def test_close_group_param_by_version(group, version):
    h = group
    reply = h.call("workspace.close", workspace_id="w4", close_group="yes")
    if not rows(version).close_group_required:
        assert reply["result"] == {"type": "ok"}  # an unknown key: ignored, whatever its type
        assert _ids(h) == ["w1", "w2", "w3"]
    else:
        assert reply["id"].startswith("req-")  # 0.9.2+: the request's own id (#4344)
        assert reply["error"]["code"] == "invalid_request"
        assert _ids(h) == ["w1", "w2", "w3", "w4"]
    # 0.8.2 ignores close_group=false too and closes the group; 0.9 refuses.
    reply = h.call("workspace.close", workspace_id="w2", close_group=False)
    if not rows(version).close_group_required:
        assert "result" in reply and _ids(h) == ["w1"]
    else:
        assert reply["error"]["code"] == "workspace_group_close_required"


@pytest.mark.parametrize("method", ["tab.close", "pane.close"])
def test_last_tab_or_pane_of_root_needs_confirmation(group, method):
    h = group
    mark = h.sim.hub.seq
    target = {"tab_id": "w2:t1"} if method == "tab.close" else {"pane_id": "w2:p1"}
    what = method.split(".")[0]
    assert h.err(method, **target) == {
        "code": "confirmation_required",
        "message": f"closing this {what} would close a worktree group",
    }
    assert _ids(h) == ["w1", "w2", "w3", "w4"] and kinds(h, mark) == []
    # Not the last tab / pane: no group close, no confirmation.
    h.ok("tab.create", workspace_id="w2")
    h.ok(method, **target)
    assert _ids(h) == ["w1", "w2", "w3", "w4"]
    # A linked member's last tab / pane closes just that workspace.
    h.ok(method, **({"tab_id": "w3:t1"} if method == "tab.close" else {"pane_id": "w3:p1"}))
    assert _ids(h) == ["w1", "w2", "w4"]


@pytest.mark.parametrize("method", ["tab.close", "pane.close"])
def test_without_confirm_close_the_whole_group_closes(group, method):
    h = group
    h.sim.config.confirm_close = False
    h.ok("workspace.focus", workspace_id="w2")
    before = h.ok("workspace.get", workspace_id="w2")["workspace"]
    mark = h.sim.hub.seq
    target = {"tab_id": "w2:t1"} if method == "tab.close" else {"pane_id": "w2:p1"}
    h.ok(method, **target)
    assert _ids(h) == ["w1", "w4"]
    evs = events(h, mark)
    first = (
        ("tab_closed", {"type": "tab_closed", "tab_id": "w2:t1", "workspace_id": "w2"})
        if method == "tab.close"
        else ("pane_closed", {"type": "pane_closed", "pane_id": "w2:p1", "workspace_id": "w2"})
    )
    assert evs[:2] == [
        first,
        (
            "workspace_closed",
            {"type": "workspace_closed", "workspace_id": "w2", "workspace": before},
        ),
    ]
    assert [k for k, _ in evs[2:]] == ["workspace_focused", "tab_focused", "pane_focused"]
    assert _focused(h) == ["w4"]  # the closed root's index


def test_group_from_worktree_open_and_list_after_group_close(h, repo, linked, version):
    h.ok("worktree.open", cwd=str(repo), path=str(linked))
    params = {} if not rows(version).close_group_required else {"close_group": True}
    h.ok("workspace.close", workspace_id="w1", **params)
    assert _ids(h) == []
    assert linked.exists()  # workspace.close never touches the checkout
    listed = h.ok("worktree.list", cwd=str(repo))["worktrees"]
    assert all("open_workspace_id" not in e for e in listed)


def test_workspace_close_focus_follows_the_closed_index(h, base):
    for _ in range(3):
        h.ok("workspace.create", cwd=str(base))
    h.ok("workspace.focus", workspace_id="w1")
    h.ok("workspace.focus", workspace_id="w3")
    h.ok("workspace.close", workspace_id="w3")
    # herdr keeps the active workspace if it survives, else the one now at the closed index
    # (clamped): w2, not the earlier-focused w1.
    assert _focused(h) == ["w2"]
    h.ok("workspace.close", workspace_id="w1")  # a background close keeps focus
    assert _focused(h) == ["w2"]


@pytest.fixture
def two_parents(group, repo):
    """The group fixture plus w5: a second workspace at the repository, given the group's
    non-linked membership by worktree.open (ensure_source_parent_membership): two primaries."""
    h = group
    h.ok("workspace.create", cwd=str(repo))
    h.ok("worktree.open", workspace_id="w5", path=str(repo))
    m = h.ok("workspace.get", workspace_id="w5")["workspace"]["worktree"]
    assert m["is_linked_worktree"] is False
    assert (
        m["repo_key"]
        == h.ok("workspace.get", workspace_id="w2")["workspace"]["worktree"]["repo_key"]
    )
    return h


def test_duplicate_parents_close_independently(two_parents, version):
    """0.9.3 workspace_close_indices: without close_group, a primary whose group holds another
    primary closes alone (no refusal); 0.8.2 closes the whole group from either parent."""
    h = two_parents
    mark = h.sim.hub.seq
    h.ok("workspace.close", workspace_id="w2")
    closed = [d["workspace_id"] for k, d in events(h, mark) if k == "workspace_closed"]
    assert closed == ["w2"]
    if not rows(version).close_group_required:
        assert _ids(h) == ["w1", "w4"]
        return
    assert _ids(h) == ["w1", "w3", "w4", "w5"]
    # w5 is now the only primary of the group: it needs the explicit intent.
    assert h.err("workspace.close", workspace_id="w5")["code"] == "workspace_group_close_required"
    assert _ids(h) == ["w1", "w3", "w4", "w5"]


def test_explicit_group_close_takes_every_primary(two_parents, version):
    h = two_parents
    before = {w["workspace_id"]: w for w in h.ok("workspace.list")["workspaces"]}
    mark = h.sim.hub.seq
    h.ok("workspace.close", workspace_id="w5", close_group=True)  # 0.8.2: an unknown key
    closed = [d for k, d in events(h, mark) if k == "workspace_closed"]
    # 0.8.2 closes the group silently: one event, for the target.
    ids = ["w5"] if not rows(version).close_group_required else ["w2", "w3", "w5"]
    assert closed == [
        {"type": "workspace_closed", "workspace_id": i, "workspace": before[i]} for i in ids
    ]
    assert _ids(h) == ["w1", "w4"]


@pytest.mark.parametrize("method", ["tab.close", "pane.close"])
def test_last_tab_or_pane_of_a_duplicate_parent(two_parents, version, method):
    """0.9.3 close_selected_workspace goes through workspace_close_indices too: the last tab or
    pane of a parent whose group holds another parent closes that workspace alone, with no
    confirmation ([H093] duplicate_repo_parents_close_independently_unless_group_is_explicit).
    0.8.2 treats it as a group root: confirmation_required, then the whole group."""
    h = two_parents
    target = {"tab_id": "w2:t1"} if method == "tab.close" else {"pane_id": "w2:p1"}
    if not rows(version).close_group_required:
        assert h.err(method, **target)["code"] == "confirmation_required"
        h.sim.config.confirm_close = False
        h.ok(method, **target)
        assert _ids(h) == ["w1", "w4"]
        return
    mark = h.sim.hub.seq
    h.ok(method, **target)
    assert _ids(h) == ["w1", "w3", "w4", "w5"]
    closed = [d["workspace_id"] for k, d in events(h, mark) if k == "workspace_closed"]
    assert closed == ["w2"]
    # w5 is the only parent left: its last pane is a group root's again.
    assert h.err("pane.close", pane_id="w5:p1")["code"] == "confirmation_required"
