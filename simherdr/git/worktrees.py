"""``git worktree`` operations as herdr runs them (SOCKET.md §9.2-9.4).

Source: src/worktree.rs at herdrdev/herdr 1c76079f (v0.8.2 + 21 commits), cited
below as ``worktree.rs:<lines>``. Every function takes ``trust``: herdr 0.9's
per-request ``--trust-repository``, i.e. ``-c safe.directory=...`` for the ``-C``
directory (see :func:`simherdr.git.runner.trust_args`); nothing is written to any
git config.
"""

from __future__ import annotations

import os

from ..facts.record import record
from .layout import StrPath, canonical_or_original
from .runner import GitError, exit_status_text, os_error_text, run_git

_HEADS = "refs/heads/"


@record(frozen=True)
class WorktreeEntry:
    """One record of ``git worktree list --porcelain``."""

    path: str
    branch: str | None  # without refs/heads/ (other refs kept whole)
    head: str | None  # None for a bare entry (git prints no HEAD line)
    is_bare: bool
    is_detached: bool
    is_prunable: bool
    is_locked: bool


@record(frozen=True)
class WorktreeAdded:
    """What :func:`worktree_add` did."""

    path: str
    branch: str
    created_branch: bool  # False: an existing local branch was checked out
    argv: tuple[str, ...]  # the git arguments after ``-C <source>``


# --------------------------------------------------------------------------- parsing


def parse_worktree_porcelain(text: str) -> list[WorktreeEntry]:
    """Parse ``git worktree list --porcelain`` text, in git's order (worktree.rs:404-471).

    A blank (whitespace-only) line ends a record; a record without a ``worktree``
    line is dropped; ``branch refs/heads/x`` gives ``x``; ``prunable`` and ``locked``
    match with or without a reason. Unknown lines are ignored.
    """
    entries: list[WorktreeEntry] = []
    record: _Record = _Record()
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        if not line.strip():
            record.finish(entries)
            record = _Record()
        elif line.startswith("worktree "):
            record.path = line[len("worktree ") :]
        elif line.startswith("HEAD "):
            record.head = line[len("HEAD ") :]
        elif line.startswith("branch "):
            record.branch = line[len("branch ") :].removeprefix(_HEADS)
        elif line == "detached":
            record.detached = True
        elif line == "bare":
            record.bare = True
        elif line.startswith("prunable"):
            record.prunable = True
        elif line == "locked" or line.startswith("locked "):
            record.locked = True
    record.finish(entries)
    return entries


@record
class _Record:
    path: str | None = None
    branch: str | None = None
    head: str | None = None
    bare: bool = False
    detached: bool = False
    prunable: bool = False
    locked: bool = False

    def finish(self, entries: list[WorktreeEntry]) -> None:
        if self.path is not None:
            entries.append(
                WorktreeEntry(
                    path=self.path,
                    branch=self.branch,
                    head=self.head,
                    is_bare=self.bare,
                    is_detached=self.detached,
                    is_prunable=self.prunable,
                    is_locked=self.locked,
                )
            )


# --------------------------------------------------------------------------- argv


def build_add_args(path: StrPath, branch: str, base: str, *, existing_branch: bool) -> list[str]:
    """The git arguments of SOCKET.md §9.4 (worktree.rs:228-265), after ``-C <source>``.

    Existing local branch: ``worktree add <path> <branch>`` (``base`` unused);
    otherwise ``worktree add -b <branch> <path> <base>``.
    """
    if existing_branch:
        return ["worktree", "add", os.fspath(path), branch]
    return ["worktree", "add", "-b", branch, os.fspath(path), base]


def build_remove_args(path: StrPath, force: bool) -> list[str]:
    """``worktree remove [--force] <path>`` (worktree.rs:158-178). Never deletes a branch."""
    return ["worktree", "remove", *(["--force"] if force else []), os.fspath(path)]


# --------------------------------------------------------------------------- commands


def worktree_list(repo_dir: StrPath, *, trust: bool = False) -> list[WorktreeEntry]:
    """``git -C <repo_dir> worktree list --porcelain``, parsed (worktree.rs:473-492).

    Raises GitError with git's stderr, or ``git worktree list failed with status
    exit status: N`` when stderr is empty (stdout is not consulted, as in herdr).
    """
    result = run_git(["worktree", "list", "--porcelain"], cwd=repo_dir, trust=trust)
    if result.ok:
        return parse_worktree_porcelain(result.stdout)
    stderr = result.stderr.strip()
    raise GitError(
        stderr or f"git worktree list failed with status {exit_status_text(result.returncode)}",
        result.returncode,
    )


def branch_exists(repo_dir: StrPath, branch: str, *, trust: bool = False) -> bool:
    """Does local branch ``refs/heads/<branch>`` exist? (worktree.rs:267-292)

    ``git show-ref --verify --quiet refs/heads/<branch>``: exit 0 -> True, exit 1 ->
    False, anything else -> GitError (e.g. an invalid ref name, an untrusted repo).
    """
    result = run_git(
        ["show-ref", "--verify", "--quiet", f"{_HEADS}{branch}"], cwd=repo_dir, trust=trust
    )
    if result.returncode == 0:
        return True
    if result.returncode == 1:
        return False
    raise GitError(result.failure_message("git show-ref"), result.returncode)


def worktree_add(
    source_dir: StrPath,
    path: StrPath,
    branch: str,
    base: str = "HEAD",
    *,
    trust: bool = False,
) -> WorktreeAdded:
    """Create a linked worktree exactly as herdr's ``worktree.create`` does.

    1. Create ``path``'s parent directories (deferred.rs:162,191-195); an OS failure
       is a GitError with Rust's io::Error text (``Permission denied (os error 13)``).
    2. :func:`branch_exists` in ``source_dir``; its failure is the GitError.
    3. ``git -C <source_dir>`` + :func:`build_add_args` (worktree.rs:294-306).

    On failure GitError carries git's whole stderr, trimmed (it can start with
    ``Preparing worktree (...)``), which herdr relays as ``worktree_create_failed``.
    ``branch`` and ``base`` are passed to git verbatim (herdr trims ``branch`` before).
    """
    path_text = os.fspath(path)
    existing = None
    if base.startswith("-"):
        # herdr passes base as a bare positional (worktree.rs:228-247), so git would read
        # `--lock` or `--force` as an option: `worktree add` parses options anywhere, and
        # with -b it hands base to `git branch`, where `--end-of-options` does not reach.
        # CHOICE(option-shaped-base): refuse it as git refuses a base it cannot resolve,
        # before anything is created; herdr has no error of its own for it.
        existing = branch_exists(source_dir, branch, trust=trust)
        if not existing:
            raise GitError(f"fatal: invalid reference: {base}")
    parent = os.path.dirname(path_text)
    if parent:
        try:
            os.makedirs(parent, exist_ok=True)
        except OSError as err:
            raise GitError(os_error_text(err)) from err
    if existing is None:
        existing = branch_exists(source_dir, branch, trust=trust)
    args = build_add_args(path_text, branch, base, existing_branch=existing)
    result = run_git(args, cwd=source_dir, trust=trust)
    if not result.ok:
        raise GitError(result.failure_message("git"), result.returncode)
    return WorktreeAdded(
        path=path_text, branch=branch, created_branch=not existing, argv=tuple(args)
    )


def worktree_remove(
    repo_root: StrPath, path: StrPath, force: bool = False, *, trust: bool = False
) -> None:
    """``git -C <repo_root> worktree remove [--force] <path>``; the branch is kept.

    Mirrors ``run_worktree_remove_command_with_recovery`` (worktree.rs:328-375): with
    ``force``, when git answers "is not a working tree" and ``path`` is not in
    ``git worktree list``, a leftover directory whose ``.git`` file points into this
    repository's ``<common dir>/worktrees`` is deleted and the call succeeds; an
    unrelated directory is left alone and git's error is raised.

    A dirty checkout without ``force`` raises GitError with git's
    ``... contains modified or untracked files, use --force to delete it``; use
    :func:`remove_error_code` to turn any GitError into herdr's error code.
    """
    result = run_git(build_remove_args(path, force), cwd=repo_root, trust=trust)
    if result.ok:
        return
    message = result.failure_message("git")
    if not (force and is_not_working_tree_remove_error(message)):
        raise GitError(message, result.returncode)
    # Recovery (forced only).
    expected = canonical_or_original(path)
    if any(
        canonical_or_original(entry.path) == expected
        for entry in worktree_list(repo_root, trust=trust)
    ):
        raise GitError(message, result.returncode)
    path_text = os.fspath(path)
    if os.path.lexists(path_text):
        if not _leftover_checkout_matches_repo(repo_root, path_text, trust=trust):
            raise GitError(message, result.returncode)
        import shutil  # not at import: with its compression modules, a first workspace's cost

        try:
            shutil.rmtree(path_text)
        except OSError as err:
            raise GitError(
                f"{message}; failed to remove leftover checkout {path_text}: {os_error_text(err)}",
                result.returncode,
            ) from err


def _leftover_checkout_matches_repo(repo_root: StrPath, path: str, *, trust: bool) -> bool:
    """worktree.rs:357-375: ``<path>/.git`` is ``gitdir: X`` with X under common/worktrees."""
    try:
        with open(os.path.join(path, ".git"), encoding="utf-8", errors="replace") as handle:
            contents = handle.read().strip()
    except OSError:
        return False
    if not contents.startswith("gitdir:"):
        return False
    gitdir = contents[len("gitdir:") :].strip()
    if not os.path.isabs(gitdir):
        gitdir = os.path.join(path, gitdir)
    result = run_git(["rev-parse", "--git-common-dir"], cwd=repo_root, trust=trust)
    common = result.stdout.strip() if result.ok else ""
    if not common:
        return False
    if not os.path.isabs(common):
        common = os.path.join(os.fspath(repo_root), common)
    worktrees_dir = canonical_or_original(os.path.join(common, "worktrees"))
    candidate = canonical_or_original(gitdir)
    # Rust Path::starts_with compares whole components.
    return candidate == worktrees_dir or candidate.startswith(worktrees_dir.rstrip("/") + "/")


def is_dirty(path: StrPath, *, trust: bool = False) -> bool:
    """Modified, staged or untracked files in the checkout at ``path``?

    herdr's ``checkout_has_dirty_files`` (worktree.rs:199-226): ``git -C <path> status
    --porcelain --untracked-files=all`` and "dirty" means any output. Ignored files
    do not count (git's own ``worktree remove`` check ignores them too). Failure ->
    GitError (stderr, else stdout, else ``git status failed with status ...``).

    herdr 0.8.2 calls this before git only on Windows (deferred.rs:259-274); on Unix it
    runs ``worktree remove`` and classifies git's failure (deferred.rs:505-511, see
    :func:`remove_error_code`). Both give ``dirty_worktree_requires_force``.
    """
    result = run_git(["status", "--porcelain", "--untracked-files=all"], cwd=path, trust=trust)
    if not result.ok:
        raise GitError(result.failure_message("git status"), result.returncode)
    return result.stdout != ""


# --------------------------------------------------------------------------- errors


def is_dirty_remove_error(message: str) -> bool:
    """worktree.rs:180-184: git's refusal to remove a dirty worktree."""
    lower = message.lower()
    return "contains modified or untracked files" in lower and "use --force to delete it" in lower


def is_not_working_tree_remove_error(message: str) -> bool:
    """worktree.rs:186-189."""
    lower = message.lower()
    return "is not a working tree" in lower or "is not a worktree" in lower


def dirty_remove_message(path: StrPath) -> str:
    """The message herdr synthesises for a pre-checked dirty checkout (worktree.rs:191-197)."""
    return (
        f"fatal: '{os.fspath(path)}' contains modified or untracked files, use --force to delete it"
    )


def remove_error_code(message: str, force: bool) -> str:
    """herdr's code for a failed remove (deferred.rs:505-511)."""
    if not force and is_dirty_remove_error(message):
        return "dirty_worktree_requires_force"
    return "worktree_remove_failed"
