"""Reading a git layout from the filesystem, without running git.

herdr discovers repositories by walking up from a path and looking at files, not by
running ``git rev-parse`` (src/workspace/git/discovery.rs:42-56,136-162,181-184,
191-231,249-267 at herdrdev/herdr 1c76079f). This module follows that walk so that
the simulator finds exactly the checkouts herdr finds:

* a directory is a checkout root when ``<dir>/.git`` is a directory, or a file
  ``gitdir: <path>`` (relative paths are joined to ``<dir>``), **and** the git dir it
  names has a ``HEAD`` file;
* a directory is also a root when it has the git-dir layout (``HEAD`` file,
  ``objects/`` and ``refs/``) **and** its ``config`` says ``core.bare = true``: a bare
  repository is its own root;
* a non-bare git dir (``<checkout>/.git`` itself, or a ``--separate-git-dir`` store)
  is *not* a root; the walk simply continues upward. So a path inside ``.git``
  belongs to the checkout that contains that ``.git``, and a path inside a detached
  ``--separate-git-dir`` store that has no checkout above it is not in git at all;
* the walk starts at the path if it is a directory (symlinks followed), else at its
  parent (also for paths that do not exist), and stops at ``/``.

Paths are kept as walked (a symlinked checkout keeps its symlink spelling); keys and
git dirs are canonical (realpath when the path exists, else unchanged: herdr's
``canonicalize_best_effort_path``).
"""

from __future__ import annotations

import os

from ..facts.record import record

StrPath = str | os.PathLike[str]


@record(frozen=True)
class FoundCheckout:
    """A checkout root found on disk (no git process involved)."""

    checkout_root: str  # as walked from the given path (not canonical)
    git_dir: str  # canonical
    common_dir: str  # canonical
    is_bare: bool
    is_linked_worktree: bool


def canonical_or_original(path: StrPath) -> str:
    """realpath if the path resolves, else the path unchanged (herdr's best effort)."""
    path = os.fspath(path)
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, RuntimeError):
        return path


def read_git_config_value(config_path: StrPath, section: str, key: str) -> str | None:
    """herdr's minimal config reader (discovery.rs:191-231): first ``key`` in ``[section]``.

    Section and key match case-insensitively; quoted subsections are not sections;
    a ``#``/``;`` comment after whitespace is cut from the value; a key without ``=``
    is not seen.
    """
    try:
        with open(config_path, encoding="utf-8", errors="replace") as handle:
            contents = handle.read()
    except OSError:
        return None
    in_section = False
    for raw_line in contents.splitlines():
        line = raw_line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        section_name = _simple_section(line)
        if section_name is not None:
            in_section = section_name.lower() == section.lower()
            continue
        if not in_section or "=" not in line:
            continue
        name, value = line.split("=", 1)
        if name.strip().lower() == key.lower():
            return _strip_comment(value).strip()
    return None


def _simple_section(line: str) -> str | None:
    if not line.startswith("[") or "]" not in line:
        return None
    section = line[1:].split("]", 1)[0].strip()
    return None if '"' in section else section


def _strip_comment(value: str) -> str:
    value = value.strip()
    for marker in ("#", ";"):
        if marker in value:
            prefix = value.split(marker, 1)[0]
            if prefix and prefix[-1].isspace():
                return prefix
    return value


def git_dir_is_bare(git_dir: StrPath) -> bool:
    value = read_git_config_value(os.path.join(os.fspath(git_dir), "config"), "core", "bare")
    return value is not None and value.lower() == "true"


def _is_git_dir_layout(path: str) -> bool:
    return (
        os.path.isfile(os.path.join(path, "HEAD"))
        and os.path.isdir(os.path.join(path, "objects"))
        and os.path.isdir(os.path.join(path, "refs"))
    )


def git_dir_for_root(root: StrPath) -> str | None:
    """The git dir a candidate root names (discovery.rs:136-158), not yet validated."""
    root = os.fspath(root)
    dot_git = os.path.join(root, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as handle:
            contents = handle.read().strip()
    except OSError:
        contents = None
    if contents is not None and contents.startswith("gitdir:"):
        target = contents[len("gitdir:") :].strip()
        return target if os.path.isabs(target) else os.path.join(root, target)
    if _is_git_dir_layout(root) and git_dir_is_bare(root):
        return root
    return None


def common_dir_for_git_dir(git_dir: StrPath) -> str:
    """``<git_dir>/commondir`` resolved (relative to the git dir), else the git dir."""
    git_dir = os.fspath(git_dir)
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8", errors="replace") as h:
            target = h.read().strip()
    except OSError:
        return git_dir
    return target if os.path.isabs(target) else os.path.join(git_dir, target)


def _trim_trailing(path: str) -> str:
    """Rust ``Components::trim_right``: drop trailing separators and ``.`` components."""
    while len(path) > 1:
        if path.endswith("/"):
            path = path[:-1]
        elif path.endswith("/."):
            path = path[:-2] or "/"
        else:
            break
    return path


def path_parent(path: str) -> str | None:
    """Rust ``Path::parent`` on a Unix path string (what ``PathBuf::pop`` truncates to).

    Unlike ``os.path.dirname`` it skips trailing ``/`` and ``/.`` first and trims them from
    the result (``/w/proj/.`` -> ``/w``), but keeps the rest of the spelling. None for ``/``.
    """
    trimmed = _trim_trailing(path)
    if trimmed in ("/", ""):
        return None
    cut = trimmed.rfind("/")
    if cut < 0:
        return ""
    return _trim_trailing(trimmed[:cut] if cut > 0 else "/")


def find_checkout_root(path: StrPath) -> str | None:
    """Walk up from ``path`` to the first directory that is a checkout or bare root.

    The path is used as spelled (herdr joins and pops ``PathBuf``s, it never normalises): a
    checkout reached as ``/w/proj/.`` or ``/w/proj/`` (what the CLI sends for ``--cwd .``) is
    reported with that spelling. A relative path (never sent by herdr's API, which requires
    absolute paths) is made absolute against the process cwd and normalised.
    """
    start = os.fspath(path)
    if not os.path.isabs(start):
        start = os.path.abspath(start)
    current = start if os.path.isdir(start) else path_parent(start)
    while current is not None:
        git_dir = git_dir_for_root(current)
        if git_dir is not None and os.path.isfile(os.path.join(git_dir, "HEAD")):
            return current
        current = path_parent(current)
    return None


def find_checkout(path: StrPath) -> FoundCheckout | None:
    """herdr's ``git_worktree_info`` (discovery.rs:42-56) for ``path``, or None."""
    root = find_checkout_root(path)
    if root is None:
        return None
    raw_git_dir = git_dir_for_root(root)
    if raw_git_dir is None:  # pragma: no cover - the walk just validated it
        return None
    git_dir = canonical_or_original(raw_git_dir)
    common_dir = canonical_or_original(common_dir_for_git_dir(git_dir))
    return FoundCheckout(
        checkout_root=root,
        git_dir=git_dir,
        common_dir=common_dir,
        is_bare=git_dir_is_bare(git_dir),
        is_linked_worktree=git_dir != common_dir,
    )


def repo_name_for(found: FoundCheckout) -> str:
    """herdr's repo name (discovery.rs:78-91,101-105): named after the common dir.

    * common dir ``.../<name>/.git``      -> ``<name>``;
    * common dir ``.../<container>/.bare`` whose container's ``.git`` points at it
      -> ``<container>``, else ``.bare``;
    * any other common dir (a bare ``x.git``, a ``--separate-git-dir`` store)
      -> the common dir's own basename.
    """
    common = found.common_dir
    base = os.path.basename(common)
    if base == ".git":
        label_path = os.path.dirname(common) or found.checkout_root
    elif base == ".bare":
        container = os.path.dirname(common)
        container_git_dir = git_dir_for_root(container) if container else None
        if container_git_dir is not None and canonical_or_original(container_git_dir) == common:
            label_path = container
        else:
            label_path = common
    else:
        label_path = common
    return path_file_name(label_path) or "repo"


def path_file_name(path: str) -> str | None:
    """Rust ``Path::file_name``: last normal component, None for ``/`` or ``..``."""
    stripped = path.rstrip("/")
    while stripped.endswith("/."):
        stripped = stripped[:-2].rstrip("/")
    if not stripped:
        return None
    name = stripped.rsplit("/", 1)[-1]
    if name in ("", "..") or (name == "." and "/" not in stripped):
        return None
    return name
