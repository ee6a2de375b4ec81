"""What a private root leaves in repositories outside it (``simherdr run``, issue 33 item 2).

herdr puts a new worktree under ``~/.herdr/worktrees`` (0.8.2 src/config/model.rs:1096,
``[worktrees] directory``). Under ``simherdr run`` the server's HOME is the run's private root,
so ``herdr worktree create`` in the user's own repository registers, in that repository, a
worktree whose checkout is inside the root; when the root is removed the repository keeps a
"prunable" worktree and the branch herdr made for it. :func:`release_worktrees` undoes that
before the root goes: each such worktree is removed from its repository (``git worktree remove
--force --force``: its metadata and its checkout), and its branch is deleted when the run
created it (the branch's reflog starts after the run started) and no commit is only on it.
CHOICE: a branch created in the run with commits of its own is kept (deleting it would drop
them), and said so; a reflog stamp is whole seconds, so a branch made in the second the run
started counts as the run's (only a branch with no commit of its own is ever deleted).
"""

from __future__ import annotations

import os

from .layout import common_dir_for_git_dir
from .runner import GitError, run_git


def _inside(path: str, root: str) -> bool:
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")


def _gitdir_of(directory: str) -> str | None:
    """The git dir a ``.git`` file in ``directory`` points to (a linked worktree), else None."""
    dot_git = os.path.join(directory, ".git")
    if not os.path.isfile(dot_git):
        return None
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as handle:
            contents = handle.read().strip()
    except OSError:
        return None
    if not contents.startswith("gitdir:"):
        return None
    target = contents[len("gitdir:") :].strip()
    return target if os.path.isabs(target) else os.path.join(directory, target)


def worktrees_from_outside(root: str) -> list[tuple[str, str]]:
    """(checkout, common git dir) of every linked worktree under ``root`` whose repository
    is outside ``root``."""
    found = []
    for folder, dirs, _files in os.walk(root):
        gitdir = _gitdir_of(folder)
        if gitdir is not None:
            dirs[:] = []  # a checkout: nothing of another repository below
            common = common_dir_for_git_dir(gitdir)
            if not _inside(common, root) and os.path.isdir(common):
                found.append((folder, os.path.normpath(common)))
            continue
        dirs[:] = [d for d in dirs if d != ".git"]
    return found


def _created_since(common: str, branch: str, since: float) -> bool:
    """The branch's oldest reflog entry is at or after ``since`` (no reflog: not known)."""
    log = run_git(["reflog", "show", "--date=unix", "--format=%gd", "refs/heads/" + branch], common)
    lines = log.stdout.split() if log.ok else []
    if not lines:
        return False
    oldest = lines[-1]
    try:
        stamp = int(oldest[oldest.rindex("@{") + 2 : -1])
    except ValueError:
        return False
    return stamp >= int(since)


def _only_on(common: str, branch: str) -> bool:
    """Some commit is reachable from the branch and from no other ref."""
    ref = "refs/heads/" + branch
    own = run_git(["rev-list", "-n", "1", ref, "--not", "--exclude=" + ref, "--all"], common)
    return not own.ok or bool(own.stdout.strip())


def release_worktrees(root: str, since: float) -> list[str]:
    """Remove from their repositories the worktrees checked out under ``root`` (see the
    module); the lines to tell the user (a kept branch, a worktree git would not remove)."""
    notes = []
    for checkout, common in worktrees_from_outside(root):
        try:
            head = run_git(["symbolic-ref", "-q", "--short", "HEAD"], checkout)
            branch = head.stdout.strip() if head.ok else ""
            removed = run_git(["worktree", "remove", "--force", "--force", checkout], common)
            if not removed.ok:
                notes.append(
                    f"could not remove the worktree {checkout} from {common}: "
                    f"{removed.stderr.strip()}"
                )
                continue
            if not branch or not _created_since(common, branch, since):
                continue
            if _only_on(common, branch):
                repo = os.path.dirname(common) if os.path.basename(common) == ".git" else common
                notes.append(f"kept branch {branch} in {repo}: the run made it and committed on it")
                continue
            run_git(["branch", "-D", branch], common)
        except GitError as e:
            notes.append(f"could not remove the worktree {checkout}: {e}")
    return notes
