"""Running git: argv lists only, ``-C <dir>`` like herdr, a cleaned environment, a timeout.

herdr runs every git command as ``git -C <dir> <args...>`` through
``noninteractive_process::command`` (src/worktree.rs:308-326, 267-292, 404-493 at
herdrdev/herdr 1c76079f) and relays git's own text when a command fails:
stderr trimmed, else stdout trimmed, else ``"<what> failed with status <status>"``.
This module does the same and adds what herdr does not do but a simulator needs for
determinism: a cleaned environment and a timeout.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence

from ..facts.record import record
from . import layout
from .layout import StrPath

#: Seconds a single git command may run before it is killed (herdr has no timeout).
DEFAULT_TIMEOUT = 60.0

#: Variables that would point git at another repository, inject configuration, or
#: write diagnostics into stderr (which is relayed as an error message). They are
#: removed from the inherited environment; ``env_extra`` can put any of them back.
_STRIPPED_VARS = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_COMMON_DIR",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_NAMESPACE",
        "GIT_PREFIX",
        "GIT_CEILING_DIRECTORIES",
        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
        "GIT_QUARANTINE_PATH",
        "GIT_REPLACE_REF_BASE",
        "GIT_NO_REPLACE_OBJECTS",
        "GIT_GRAFT_FILE",
        "GIT_SHALLOW_FILE",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "LANGUAGE",
    }
)
_STRIPPED_PREFIXES = ("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "GIT_TRACE")

#: Set in every git child. ``GIT_CONFIG_NOSYSTEM`` ignores /etc/gitconfig; ``LC_ALL=C``
#: keeps git's messages in English (herdr classifies "dirty" by message text);
#: ``GIT_TERMINAL_PROMPT=0`` forbids prompts; ``GIT_OPTIONAL_LOCKS=0`` keeps
#: ``git status`` from taking index.lock in checkouts that agents are using.
#: The user's global config (HOME / GIT_CONFIG_GLOBAL) is inherited, as in herdr.
_FORCED_VARS = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "LC_ALL": "C",
    "LANG": "C",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
}


@record(frozen=True)
class GitResult:
    """What one git process did. A non-zero ``returncode`` is not an exception."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def failure_message(self, what: str = "git") -> str:
        """herdr's failure text: stderr trimmed, else stdout trimmed, else a status line.

        ``what`` names the command in the status line, e.g. ``"git worktree list"``
        (src/worktree.rs:318-325, 283-291, 486-491).
        """
        stderr = self.stderr.strip()
        if stderr:
            return stderr
        stdout = self.stdout.strip()
        if stdout:
            return stdout
        return f"{what} failed with status {exit_status_text(self.returncode)}"


class GitError(Exception):
    """A git operation failed. ``message`` is git's own text (what herdr relays)."""

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.returncode = returncode

    def __str__(self) -> str:
        return self.message


def exit_status_text(returncode: int) -> str:
    """Rust's ``ExitStatus`` Display on Unix: ``exit status: N`` or ``signal: N``."""
    if returncode < 0:
        return f"signal: {-returncode}"
    return f"exit status: {returncode}"


def os_error_text(err: OSError) -> str:
    """Rust's ``io::Error`` Display for an OS error: ``<strerror> (os error N)``."""
    if err.errno is not None and err.strerror:
        return f"{err.strerror} (os error {err.errno})"
    return str(err)


def git_env(env_extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a git child gets: inherited, cleaned, forced values, then extras."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in _STRIPPED_VARS and not key.startswith(_STRIPPED_PREFIXES)
    }
    env.update(_FORCED_VARS)
    if env_extra:
        env.update(env_extra)
    return env


def trust_args(directory: StrPath) -> list[str]:
    """``-c safe.directory=<dir>`` arguments that trust one repository for one command.

    herdr 0.9's ``--trust-repository`` (VERSIONS.md §1.3) is, in a 0.9.x fork
    (Smarty-Pants-Inc/herdr src/worktree.rs ``repository_git_args``), exactly
    ``git -c safe.directory=<dir> -C <dir> ...``: command-line config only, nothing
    written. git <= 2.45 compares ``safe.directory`` with the *physical* top-level
    path (getcwd after chdir), so this also trusts the realpath of ``directory`` and of
    the checkout (or bare git dir) that contains it; all of them name the same
    repository.
    """
    absolute = os.path.abspath(os.fspath(directory))
    candidates = [absolute, os.path.realpath(absolute)]
    found = layout.find_checkout(absolute)
    if found is not None:
        candidates.append(os.path.realpath(found.checkout_root))
    args: list[str] = []
    seen: set[str] = set()
    for candidate in candidates:
        if candidate not in seen:
            seen.add(candidate)
            args += ["-c", f"safe.directory={candidate}"]
    return args


def run_git(
    args: Sequence[str],
    cwd: StrPath | None = None,
    env_extra: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    *,
    trust: bool = False,
) -> GitResult:
    """Run ``git [-c safe.directory=...] [-C cwd] *args`` and return its result.

    ``cwd`` is passed as ``-C <cwd>`` (as herdr does), never as a shell or a process
    cwd. A non-zero exit is returned, not raised. ``GitError`` is raised only when git
    cannot be started (message like Rust's io::Error, e.g. ``No such file or directory
    (os error 2)``) or exceeds ``timeout`` (the whole process group is killed).
    ``trust`` adds :func:`trust_args` for ``cwd`` (or the process cwd).
    """
    argv: list[str] = ["git"]
    if trust:
        argv += trust_args(cwd if cwd is not None else os.getcwd())
    if cwd is not None:
        argv += ["-C", os.fspath(cwd)]
    argv += [os.fspath(arg) for arg in args]
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=git_env(env_extra),
            start_new_session=True,
        )
    except OSError as err:
        raise GitError(os_error_text(err)) from err
    try:
        out, err_bytes = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        proc.communicate()
        raise GitError(f"git timed out after {timeout:g}s: {' '.join(argv[1:])}") from None
    return GitResult(
        returncode=proc.returncode,
        stdout=out.decode("utf-8", "replace"),
        stderr=err_bytes.decode("utf-8", "replace"),
    )
