"""The git layer behind simherdr's worktree handlers. Git on disk is the truth.

Modules: :mod:`.runner` (running git), :mod:`.layout` (reading a git layout from
the filesystem, as herdr does), :mod:`.discovery` (which checkout a path is in),
:mod:`.worktrees` (``git worktree`` list/add/remove, dirtiness), :mod:`.names`
(generated branches, slugs, default paths).
"""

from .discovery import Checkout, discover, head_branch, label_for_cwd
from .layout import canonical_or_original
from .names import (
    ADJECTIVES,
    DEFAULT_WORKTREE_DIRECTORY,
    NOUNS,
    PATH_MUST_BE_ABSOLUTE,
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
from .runner import DEFAULT_TIMEOUT, GitError, GitResult, run_git, trust_args
from .worktrees import (
    WorktreeAdded,
    WorktreeEntry,
    branch_exists,
    build_add_args,
    build_remove_args,
    dirty_remove_message,
    is_dirty,
    is_dirty_remove_error,
    is_not_working_tree_remove_error,
    parse_worktree_porcelain,
    remove_error_code,
    worktree_add,
    worktree_list,
    worktree_remove,
)

__all__ = [
    "ADJECTIVES",
    "DEFAULT_TIMEOUT",
    "DEFAULT_WORKTREE_DIRECTORY",
    "NOUNS",
    "PATH_MUST_BE_ABSOLUTE",
    "Checkout",
    "GitError",
    "GitResult",
    "WorktreeAdded",
    "WorktreeEntry",
    "absolute_user_path",
    "branch_exists",
    "branch_path_slug",
    "build_add_args",
    "build_remove_args",
    "canonical_or_original",
    "default_checkout_path",
    "dirty_remove_message",
    "discover",
    "expand_tilde",
    "expand_tilde_absolute",
    "generated_branch_name",
    "head_branch",
    "is_dirty",
    "is_dirty_remove_error",
    "is_not_working_tree_remove_error",
    "label_for_cwd",
    "new_branch_name",
    "parse_worktree_porcelain",
    "remove_error_code",
    "resolve_branch",
    "run_git",
    "trust_args",
    "worktree_add",
    "worktree_directory",
    "worktree_list",
    "worktree_remove",
]
