"""A workspace's worktree membership: herdr's ``WorktreeSpaceMembership`` (src/workspace.rs:35-41),
which repository group the workspace belongs to and which checkout it holds.

On the wire it is ``WorkspaceInfo.worktree`` (:meth:`Membership.info`); in herdr's session
file, ``worktree_space`` (:meth:`Membership.saved`, :meth:`Membership.from_saved`). A group is
every workspace whose membership has the same ``repo_key`` (:mod:`.groups`).
"""

from __future__ import annotations

from ..facts.paths import rust_path_components, rust_paths_equal
from ..facts.record import record


@record(frozen=True, eq=False)
class Membership:
    repo_key: str
    repo_name: str
    repo_root: str
    checkout_path: str
    is_linked_worktree: bool

    def __eq__(self, other: object) -> bool:
        """herdr's derived ``PartialEq``: the two paths are ``PathBuf``s, equal by components
        (``/w/proj/.`` == ``/w/proj``); the rest compares exactly."""
        if not isinstance(other, Membership):
            return NotImplemented
        return (
            self.repo_key == other.repo_key
            and self.repo_name == other.repo_name
            and self.is_linked_worktree == other.is_linked_worktree
            and rust_paths_equal(self.repo_root, other.repo_root)
            and rust_paths_equal(self.checkout_path, other.checkout_path)
        )

    def __hash__(self) -> int:
        return hash(
            (
                self.repo_key,
                self.repo_name,
                self.is_linked_worktree,
                rust_path_components(self.repo_root),
                rust_path_components(self.checkout_path),
            )
        )

    def info(self) -> dict:
        """``WorkspaceWorktreeInfo`` (WorkspaceInfo.worktree), in herdr's field order."""
        return {
            "repo_key": self.repo_key,
            "repo_name": self.repo_name,
            "repo_root": self.repo_root,
            "checkout_path": self.checkout_path,
            "is_linked_worktree": self.is_linked_worktree,
        }

    def saved(self) -> dict:
        """As herdr's session file writes it (``worktree_space``)."""
        return {
            "key": self.repo_key,
            "label": self.repo_name,
            "repo_root": self.repo_root,
            "checkout_path": self.checkout_path,
            "is_linked_worktree": self.is_linked_worktree,
        }

    @classmethod
    def from_saved(cls, m: dict) -> Membership:
        return cls(
            repo_key=m["key"],
            repo_name=m["label"],
            repo_root=m["repo_root"],
            checkout_path=m["checkout_path"],
            is_linked_worktree=m["is_linked_worktree"],
        )
