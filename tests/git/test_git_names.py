from __future__ import annotations

import itertools
import re

import pytest

from simherdr.git import (
    ADJECTIVES,
    NOUNS,
    absolute_user_path,
    branch_path_slug,
    default_checkout_path,
    expand_tilde,
    expand_tilde_absolute,
    generated_branch_name,
    new_branch_name,
    resolve_branch,
    worktree_directory,
)

NAME = re.compile(r"^worktree/([a-z]+)-([a-z]+)-([0-9a-f]{4})$")


def test_word_lists_are_herdrs() -> None:
    assert ADJECTIVES == ("brave", "calm", "clear", "green", "lucky", "quiet", "rapid", "silver")
    assert NOUNS == ("river", "cloud", "field", "forest", "harbor", "meadow", "stone", "valley")


@pytest.mark.parametrize(
    ("seed", "name"),
    [
        (0, "worktree/brave-river-0000"),
        (9, "worktree/calm-cloud-0009"),
        (7 + 8 * 7, "worktree/silver-valley-003f"),
        (0x12345, "worktree/quiet-river-2345"),
        (2**64 + 9, "worktree/calm-cloud-0009"),  # u64 wrap
    ],
)
def test_generated_branch_name(seed: int, name: str) -> None:
    assert generated_branch_name(seed) == name


def test_new_branch_name_uses_injected_source() -> None:
    seeds = itertools.count(0)
    names = [new_branch_name(lambda: next(seeds)) for _ in range(3)]
    assert names == [
        "worktree/brave-river-0000",
        "worktree/calm-river-0001",
        "worktree/clear-river-0002",
    ]


def test_default_source_gives_a_well_formed_name() -> None:
    match = NAME.match(new_branch_name())
    assert match and match[1] in ADJECTIVES and match[2] in NOUNS


def test_resolve_branch() -> None:
    assert resolve_branch("  topic \n") == "topic"
    assert resolve_branch("   ") == ""  # -> invalid_request "branch is required"
    assert resolve_branch(None, lambda: 9) == "worktree/calm-cloud-0009"


@pytest.mark.parametrize(
    ("branch", "slug"),
    [
        ("worktree/brave-river", "worktree-brave-river"),
        ("issue/137 Worktree Spaces", "issue-137-worktree-spaces"),
        ("///", "worktree"),
        ("", "worktree"),
        ("--Feature__X--", "feature-x"),
        ("café/ünïcode", "caf-n-code"),
        ("a..b", "a-b"),
        ("UPPER", "upper"),
    ],
)
def test_branch_path_slug(branch: str, slug: str) -> None:
    assert branch_path_slug(branch) == slug


def test_expand_tilde() -> None:
    assert expand_tilde("~", "/home/me") == "/home/me"
    assert expand_tilde("~/.herdr/worktrees", "/home/me") == "/home/me/.herdr/worktrees"
    assert expand_tilde("~other/x", "/home/me") == "~other/x"
    assert expand_tilde("~\\x", "/home/me") == "~\\x"
    assert expand_tilde("/tmp/w", "/home/me") == "/tmp/w"
    assert expand_tilde("~/x", None) == "~/x"  # HOME unset


def test_absolute_user_path() -> None:
    assert absolute_user_path("~/w", "/home/me") == "/home/me/w"
    assert absolute_user_path("/abs/../x", "/home/me") == "/abs/../x"  # not normalised
    assert absolute_user_path("rel/x", "/home/me") is None
    assert absolute_user_path("~/x", None) is None


def test_expand_tilde_absolute_joins_relative_to_cwd() -> None:
    assert expand_tilde_absolute("rel", "/home/me", "/cwd") == "/cwd/rel"
    assert expand_tilde_absolute("~/w", "/home/me", "/cwd") == "/home/me/w"


def test_default_checkout_path() -> None:
    assert worktree_directory("/home/me") == "/home/me/.herdr/worktrees"
    assert default_checkout_path("herdr", "worktree/brave-river", home="/home/me") == (
        "/home/me/.herdr/worktrees/herdr/worktree-brave-river"
    )
    assert default_checkout_path("proj", "Issue 7", home="/h", directory="/srv/wt") == (
        "/srv/wt/proj/issue-7"
    )
    assert default_checkout_path("proj", "x", home="/h", directory="wt", cwd="/c") == "/c/wt/proj/x"
