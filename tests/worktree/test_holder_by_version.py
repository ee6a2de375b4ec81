"""Which workspace holds a checkout (profile row ``checkout_holder_membership_only``).

0.8.2 (src/app/api/worktrees.rs:569-597) also matches a workspace that has a membership by its
shell's checkout or cwd, so a repo parent whose shell wandered into a linked checkout "holds"
it; 0.9.3 ([H093] open_workspace_idx_for_checkout) matches such a workspace by its membership
only, so worktree.open opens the checkout in a new workspace instead of taking the parent over.
"""

from __future__ import annotations

from tests.releases import rows


def _parent_in_linked_checkout(h, repo, linked):
    """w1 at the repository, made its group's parent, then its shell cd's into ``linked``."""
    h.ok("workspace.create", cwd=str(repo))
    opened = h.ok("worktree.open", workspace_id="w1", path=str(repo))
    assert opened["workspace"]["workspace_id"] == "w1" and opened["already_open"] is True
    h.ok("pane.send_text", pane_id="w1:p1", text=f"cd {linked}\r")
    h.settle()
    assert h.ok("pane.get", pane_id="w1:p1")["pane"]["cwd"] == str(linked)


def test_list_open_workspace_id(h, repo, linked, version):
    _parent_in_linked_checkout(h, repo, linked)
    entries = h.ok("worktree.list", workspace_id="w1")["worktrees"]
    entry = next(e for e in entries if e["path"] == str(linked))
    if not rows(version).checkout_holder_membership_only:
        assert entry["open_workspace_id"] == "w1"
    else:
        assert "open_workspace_id" not in entry
    root = next(e for e in entries if e["path"] == str(repo))
    assert root["open_workspace_id"] == "w1"  # its membership's checkout, on both versions


def test_open_does_not_take_over_the_parent(h, repo, linked, version):
    _parent_in_linked_checkout(h, repo, linked)
    opened = h.ok("worktree.open", workspace_id="w1", path=str(linked))
    ids = [w["workspace_id"] for w in h.ok("workspace.list")["workspaces"]]
    if not rows(version).checkout_holder_membership_only:
        assert opened["already_open"] is True
        assert opened["workspace"]["workspace_id"] == "w1" and ids == ["w1"]
        assert opened["workspace"]["worktree"]["checkout_path"] == str(linked)
    else:
        assert opened["already_open"] is False
        assert opened["workspace"]["workspace_id"] == "w2" and ids == ["w1", "w2"]
        assert opened["workspace"]["worktree"]["is_linked_worktree"] is True
        parent = h.ok("workspace.get", workspace_id="w1")["workspace"]["worktree"]
        assert parent["checkout_path"] == str(repo) and parent["is_linked_worktree"] is False
