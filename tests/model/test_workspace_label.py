"""WorkspaceInfo.label follows the workspace's identity cwd, the first tab's root pane's cwd
(display_name_from, src/workspace.rs:1139-1159; [H093] the same): both profiles, over the
harness with schema-validated replies."""

from __future__ import annotations

import pytest

from simherdr.testing import Harness
from tests import herdr_reference as ref
from tests.gitrepos import make_base, make_repo


@pytest.fixture
def hv(version, config):
    with Harness(version, config=config, validator=ref.validator(version)) as h:
        yield h


def _label(h, workspace_id: str = "w1") -> str:
    return h.ok("workspace.get", workspace_id=workspace_id)["workspace"]["label"]


def _cd(h, pane_id: str, path) -> None:
    h.ok("pane.send_input", pane_id=pane_id, text=f"cd {path}", keys=["Enter"])
    assert h.ok("pane.get", pane_id=pane_id)["pane"]["cwd"] == str(path)


def test_the_label_follows_the_root_pane(hv, tmp_path):
    base = make_base(tmp_path)
    (base / "first").mkdir()
    (base / "second").mkdir()
    (base / "other").mkdir()
    repo = make_repo(base)
    (repo / "src").mkdir()
    hv.ok("workspace.create", cwd=str(base / "first"))
    assert _label(hv) == "first"
    _cd(hv, "w1:p1", base / "second")
    assert _label(hv) == "second"
    assert hv.ok("workspace.list")["workspaces"][0]["label"] == "second"
    # inside a repository: the repository's name, as the git refresh admits it
    _cd(hv, "w1:p1", repo / "src")
    assert _label(hv) == "proj"
    # another pane's cwd is not the identity
    hv.ok("pane.split", target_pane_id="w1:p1", direction="right", cwd=str(base / "other"))
    hv.ok("tab.create", workspace_id="w1", cwd=str(base / "other"))
    assert _label(hv) == "proj"
    # back in the cwd it was made in
    _cd(hv, "w1:p1", base / "first")
    assert _label(hv) == "first"


def test_a_custom_name_stays(hv, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    hv.ok("workspace.create", cwd=str(tmp_path / "a"), label="mine")
    _cd(hv, "w1:p1", tmp_path / "b")
    assert _label(hv) == "mine"
