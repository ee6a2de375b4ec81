"""A workspace's worktree membership (model/membership.py): herdr's WorktreeSpaceMembership,
equal as herdr's derived PartialEq compares it, frozen, and in herdr's two shapes."""

import dataclasses

import pytest

from simherdr.model.membership import Membership


def membership(**kw):
    fields = {
        "repo_key": "/w/proj/.git",
        "repo_name": "proj",
        "repo_root": "/w/proj",
        "checkout_path": "/w/proj",
        "is_linked_worktree": False,
    }
    return Membership(**{**fields, **kw})


def test_paths_compare_by_components_the_rest_exactly():
    a = membership()
    same = membership(repo_root="/w/proj/.", checkout_path="/w//proj/")
    assert a == same and hash(a) == hash(same)
    assert a != membership(checkout_path="/w/proj/../proj")  # `..` is not resolved
    assert a != membership(repo_name="Proj")
    assert a != membership(is_linked_worktree=True)
    assert a != None  # noqa: E711 (no membership at all)


def test_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        membership().checkout_path = "/elsewhere"


def test_the_wire_and_the_session_file_shapes():
    m = membership(checkout_path="/w/trees/feat", is_linked_worktree=True)
    assert list(m.info()) == [
        "repo_key",
        "repo_name",
        "repo_root",
        "checkout_path",
        "is_linked_worktree",
    ]
    saved = m.saved()
    assert saved == {
        "key": "/w/proj/.git",
        "label": "proj",
        "repo_root": "/w/proj",
        "checkout_path": "/w/trees/feat",
        "is_linked_worktree": True,
    }
    assert Membership.from_saved(saved).info() == m.info()
