"""Flow A: the session opener ``herdr_session_open`` (CLIENTS.md §2; the opener's README only).

Public API::

    await open_session(OpenRequest(path, session=None, name=None, notify=True), cwd=..., env=...,
                       herdr_bin=None, runner=None, git_bin="git", new_session_id=None,
                       deliver=None, watchers=None, sleep=None, clock=None,
                       watch=WatchConfig()) -> dict
    open_session_sync(...)                      # the same, for threaded code
    classify(canonical, env, git_bin) -> Classification     # step 1 alone
    checked_argv(argv) -> list[str]             # the closed allowlist (§2.9); raises AllowlistError
    FinishWatcher / WatcherRegistry / WatchConfig          # §2.10

Order: step 0 (resolve, canonicalize, name) -> the test-harness guard on ``HERDR_BIN_PATH`` ->
step 1 (git) -> step 2 (panel) -> step 3 (pane) -> step 4 (start Pi) -> the finish watcher.
Nothing reaches herdr before step 2, and nothing is started before step 3 has passed.

Results (PROPOSAL, ours; the doc fixes only the rows and ``details`` fields):

- success: ``{"ok": True, "rows": [[label, value], ...], "content": "label: value\\n...",
  "details": {path, kind, branch, paneId, workspaceId, sessionId, resumed, agentName, notify}}``;
- refusal: ``{"ok": False, "code": C, "herdrErrorCode"?: X, "message": M, "path"?: P,
  "panel"?: {"workspaceId": W, "paneId"?: P}}`` -- ``panel`` names a panel herdr did create
  (or that was reused) before the refusal.

Every choice made where the doc is silent is marked CHOICE / PROPOSAL here and listed in
``client/__init__.py``.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import stat as _stat
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from ._herdr import envelope_code, nonempty, result_of
from ._js import js_trim
from .runner import HERDR_CLI_TIMEOUT_MS, HerdrRunner, RunResult, run_process

# --- constants ----------------------------------------------------------------------------------

PI_START_READY_MS = 120_000  # `agent start --timeout` (the doc's argv)
OPENER_START_KILL_MS = 150_000  # CHOICE: kill bound for that start (its --timeout + 30 s)
OPENER_CLI_KILL_MS = HERDR_CLI_TIMEOUT_MS  # CHOICE: kill bound for every other herdr verb
GIT_KILL_MS = 10_000  # CHOICE: kill bound for a git call
AGENT_NAME_RE = re.compile(r"[a-z][a-z0-9_-]{0,31}")
DEFAULT_AGENT_NAME = "agent"  # CHOICE (phren §4.4): what an emptied slug becomes

# --- refusal codes (PROPOSAL, ours: CLIENTS.md §2.8) ----------------------------------------------

PATH_MISSING = "path-missing"
PATH_NOT_DIRECTORY = "path-not-directory"
AGENT_NAME_INVALID = "agent-name-invalid"
KIND_UNPROVEN = "kind-unproven"
HERDR_BIN_REFUSED = "herdr-bin-refused"
WORKTREE_CLAIMED_TWICE = "worktree-claimed-twice"
HERDR_FAILED = "herdr-failed"
HERDR_REPLY_UNPARSABLE = "herdr-reply-unparsable"
PANE_MISSING = "pane-missing"
PANE_WORKSPACE_MISMATCH = "pane-workspace-mismatch"
PANE_CWD_OUTSIDE = "pane-cwd-outside"
AGENT_START_FAILED = "agent-start-failed"

KIND_WORKTREE = "worktree"
KIND_PRIMARY = "primary"
KIND_GENERIC = "generic"

# --- the closed allowlist (§2.9) ----------------------------------------------------------------

#: (group, verb) -> (value flags, boolean flags, positionals, takes `-- args`)
ALLOWLIST: dict[tuple[str, str], tuple[frozenset, frozenset, int, bool]] = {
    ("worktree", "list"): (frozenset({"--cwd"}), frozenset(), 0, False),
    ("worktree", "open"): (frozenset({"--path"}), frozenset({"--no-focus"}), 0, False),
    ("workspace", "create"): (frozenset({"--cwd"}), frozenset({"--no-focus"}), 0, False),
    ("pane", "list"): (frozenset({"--workspace"}), frozenset(), 0, False),
    ("agent", "start"): (frozenset({"--kind", "--pane", "--timeout"}), frozenset(), 1, True),
    ("agent", "get"): (frozenset(), frozenset(), 1, False),
}


class AllowlistError(ValueError):
    """An operation or flag outside the opener's closed allowlist (never spawned)."""


def checked_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` unchanged when every word is allowed; otherwise AllowlistError."""
    argv = list(argv)
    op = tuple(argv[:2])
    if len(op) != 2 or op not in ALLOWLIST:
        raise AllowlistError("herdr operation not allowed: %s" % " ".join(argv[:2]))
    values, booleans, positionals, takes_rest = ALLOWLIST[op]
    words = argv[2:]
    seen_positionals = 0
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            if not takes_rest:
                raise AllowlistError("herdr %s %s takes no agent arguments" % op)
            break
        if w.startswith("-"):
            if w in values:
                if i + 1 >= len(words):
                    raise AllowlistError("missing value for %s" % w)
                i += 2
                continue
            if w in booleans:
                i += 1
                continue
            raise AllowlistError("herdr flag not allowed for %s %s: %s" % (op + (w,)))
        seen_positionals += 1
        if seen_positionals > positionals:
            raise AllowlistError("unexpected word for herdr %s %s: %r" % (op + (w,)))
        i += 1
    if seen_positionals != positionals:
        raise AllowlistError("herdr %s %s needs %d positional word(s)" % (op + (positionals,)))
    return argv


# --- step 0: resolve and canonicalize ------------------------------------------------------------


def requested_spelling(path: str, cwd: str) -> str:
    """The absolute, unresolved path. CHOICE: lexically normalized like Node's ``path.resolve``
    (``.``/``..``/duplicate and trailing slashes), symlinks untouched."""
    joined = path if path.startswith("/") else os.path.join(cwd, path)
    norm = os.path.normpath(joined)
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    return norm


def sanitize_name(text: str) -> str:
    """CHOICE (the sanitizer is UNKNOWN; phren's slug, CLIENTS.md §4.4): lowercase, runs outside
    ``[a-z0-9_-]`` -> ``-``, leading non-letters dropped, at most 32, trailing ``-`` dropped,
    ``agent`` when empty."""
    slug = re.sub(r"[^a-z0-9_-]+", "-", text.lower())
    slug = re.sub(r"^[^a-z]+", "", slug)[:32].rstrip("-")
    return slug or DEFAULT_AGENT_NAME


def default_agent_name(requested: str, branch: str | None = None) -> str:
    """A worktree panel: its branch (``feature/login`` -> ``feature-login``); otherwise the
    requested spelling's last component; both sanitized (:func:`sanitize_name`)."""
    return sanitize_name(branch if branch else os.path.basename(requested))


def is_within(child: str, parent: str) -> bool:
    """Component-wise containment (``/x/repo-other`` is not inside ``/x/repo``)."""
    c = [p for p in child.split("/") if p]
    p = [q for q in parent.split("/") if q]
    return c[: len(p)] == p


# --- the test-harness guard (§2.9) ----------------------------------------------------------------

HARNESS_VARS = ("GENTLE_HERDR_SESSION_LIB_DIR", "GENTLE_WORKTREE_LIB_DIR")
ALLOW_LIVE_VAR = "GENTLE_HERDR_ALLOW_LIVE_HERDR"


def os_tmpdir(env: Mapping[str, str]) -> str:
    """Node's ``os.tmpdir()`` on POSIX, read from the explicit env (CHOICE)."""
    d = env.get("TMPDIR") or env.get("TMP") or env.get("TEMP") or "/tmp"
    return d.rstrip("/") or "/"


def harness_refuses(bin_path: str, env: Mapping[str, str]) -> bool:
    """True when an inherited ``HERDR_BIN_PATH`` must be refused, not spawned."""
    if not any(env.get(v) for v in HARNESS_VARS):
        return False
    if env.get(ALLOW_LIVE_VAR) == "1":
        return False
    try:
        st = os.stat(bin_path)
    except (OSError, ValueError):
        return False  # missing: honoured (it cannot reach a live herdr)
    if not _stat.S_ISREG(st.st_mode) or not os.access(bin_path, os.X_OK):
        return False  # not executable: honoured
    if is_within(os.path.realpath(bin_path), os.path.realpath(os_tmpdir(env))):
        return False  # a stub in the OS temp dir
    return True


# --- step 1: classify with git ---------------------------------------------------------------------

#: CHOICE: variables that would make git describe another repository than the path's own.
GIT_LOCATION_VARS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
)
REV_PARSE_ARGV = ("rev-parse", "--show-toplevel", "--git-common-dir", "--git-dir")
BRANCH_ARGV = ("symbolic-ref", "--quiet", "--short", "HEAD")  # PROPOSAL (see classify)


@dataclass(frozen=True)
class Classification:
    kind: str | None  # worktree | primary | generic; None = unproven (refuse)
    branch: str | None = None
    detail: str = ""


def git_env(env: Mapping[str, str]) -> dict[str, str]:
    out = {k: v for k, v in env.items() if k not in GIT_LOCATION_VARS and k != "LANGUAGE"}
    out["LC_ALL"] = "C"  # git's messages are matched below
    return out


async def _git(git_bin: str, args: Sequence[str], cwd: str, env: Mapping[str, str]) -> RunResult:
    return await run_process(
        git_bin,
        list(args),
        label=" ".join(["git", *args]),
        env=git_env(env),
        timeout_ms=GIT_KILL_MS,
        cwd=cwd,
    )


async def classify(canonical: str, env: Mapping[str, str], git_bin: str = "git") -> Classification:
    """§2.3: one ``git rev-parse --show-toplevel --git-common-dir --git-dir`` run in the
    canonical path (fixed argv, no shell).

    CHOICES: "not a git repository" and "must be run in a work tree" (the inside of ``.git``, a
    bare repository) mean generic; any other git failure, or output that is not three lines,
    is unproven. PROPOSAL: the branch of a Git checkout comes from one more fixed-argv call,
    ``git symbolic-ref --quiet --short HEAD`` (None when detached).
    """
    r = await _git(git_bin, REV_PARSE_ARGV, canonical, env)
    if r.status != 0:
        text = r.stderr.lower()
        if "not a git repository" in text:
            return Classification(KIND_GENERIC, detail="not a git repository")
        if "must be run in a work tree" in text:
            return Classification(KIND_GENERIC, detail="a repository without a work tree here")
        return Classification(None, detail=js_trim(r.stderr) or "git rev-parse failed")
    lines = r.stdout.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != 3 or not all(lines):
        return Classification(None, detail="git did not name its directories")
    toplevel, common_dir, git_dir = lines
    if os.path.realpath(toplevel) != canonical:
        return Classification(KIND_GENERIC, detail="not the checkout root")
    # rev-parse prints relative paths (".git") at the toplevel: resolve against the checkout.
    resolved = []
    for d in (common_dir, git_dir):
        absolute = d if d.startswith("/") else os.path.join(canonical, d)
        try:
            resolved.append(os.path.realpath(absolute, strict=True))
        except OSError:
            return Classification(None, detail="git named a directory that does not exist: %s" % d)
    kind = KIND_PRIMARY if resolved[0] == resolved[1] else KIND_WORKTREE
    b = await _git(git_bin, BRANCH_ARGV, canonical, env)
    branch = b.stdout.strip() if b.status == 0 and b.stdout.strip() else None
    return Classification(kind, branch=branch)


# --- replies ---------------------------------------------------------------------------------------


def _s(v: object) -> TypeGuard[str]:
    return nonempty(v)


def _result(stdout: str) -> dict | None:
    return result_of(stdout)


def _canonical_entry_path(p: str) -> str:
    return os.path.realpath(p) if p.startswith("/") else p


def worktree_claims(result: dict, canonical: str) -> list[str] | None:
    """The distinct ``open_workspace_id`` values of the entries that are ``canonical``;
    None when the reply is not a worktree list."""
    entries = result.get("worktrees")
    if not isinstance(entries, list):
        return None
    claims: list[str] = []
    for e in entries:
        if not isinstance(e, dict) or not _s(e.get("path")):
            continue
        if _canonical_entry_path(e["path"]) != canonical:
            continue
        w = e.get("open_workspace_id")
        if _s(w) and w not in claims:
            claims.append(w)
    return claims


# --- results ---------------------------------------------------------------------------------------

MESSAGES = {
    PATH_MISSING: "the path does not exist; nothing was opened",
    PATH_NOT_DIRECTORY: "the path is not a directory; nothing was opened",
    AGENT_NAME_INVALID: "the agent name must match ^[a-z][a-z0-9_-]{0,31}$; nothing was opened",
    KIND_UNPROVEN: "git reports a repository but cannot name its own directories; nothing was opened",
    HERDR_BIN_REFUSED: "HERDR_BIN_PATH looks like a live herdr inside a test harness; refused, not spawned",
    WORKTREE_CLAIMED_TWICE: "two herdr workspaces claim this worktree; nothing was opened",
    HERDR_FAILED: "a herdr call failed",
    HERDR_REPLY_UNPARSABLE: "herdr's reply could not be parsed",
    PANE_MISSING: "herdr's reply names no pane; nothing was started",
    PANE_WORKSPACE_MISMATCH: "the pane belongs to another workspace; nothing was started",
    PANE_CWD_OUTSIDE: "the pane's cwd is outside the path; nothing was started",
    AGENT_START_FAILED: "agent start failed",
}


class _Refusal(Exception):
    def __init__(
        self, code: str, *, herdr_code: str | None = None, panel: dict | None = None, note: str = ""
    ):
        super().__init__(code)
        self.code, self.herdr_code, self.panel, self.note = code, herdr_code, panel, note


def _refusal_dict(exc: _Refusal, path: str | None) -> dict:
    message = MESSAGES[exc.code]
    if exc.note:
        message += " (%s)" % exc.note
    if exc.panel:
        named = ", ".join(
            "%s %s" % (k, v)
            for k, v in (
                ("workspace", exc.panel.get("workspaceId")),
                ("pane", exc.panel.get("paneId")),
            )
            if v
        )
        message += "; the panel stays open: " + named
    out: dict = {"ok": False, "code": exc.code}
    if exc.herdr_code:
        out["herdrErrorCode"] = exc.herdr_code
    out["message"] = message
    if path is not None:
        out["path"] = path
    if exc.panel:
        out["panel"] = dict(exc.panel)
    return out


def _panel(workspace_id: str | None, pane_id: str | None = None) -> dict | None:
    if not workspace_id:
        return None
    out = {"workspaceId": workspace_id}
    if pane_id:
        out["paneId"] = pane_id
    return out


# --- step 3: verify the pane -----------------------------------------------------------------------


def pane_problem(pane: Any, workspace_id: str, canonical: str) -> str | None:
    """None when ``pane`` passes §2.5, else the refusal code."""
    if not isinstance(pane, dict) or not _s(pane.get("pane_id")):
        return PANE_MISSING
    pane_id = pane["pane_id"]
    if ":" not in pane_id or pane_id.split(":", 1)[0] != workspace_id:
        return PANE_WORKSPACE_MISMATCH
    if pane.get("workspace_id") is not None and pane.get("workspace_id") != workspace_id:
        return PANE_WORKSPACE_MISMATCH
    cwd = pane.get("cwd")
    # CHOICE: a pane without a cwd fails closed; the cwd herdr reports is canonicalized first.
    if not _s(cwd) or not cwd.startswith("/") or not is_within(os.path.realpath(cwd), canonical):
        return PANE_CWD_OUTSIDE
    return None


# --- the finish watcher (§2.10) ----------------------------------------------------------------------

FINISHED_CUSTOM_TYPE = "herdr-agent-sessions.finished"

OUTCOME_FINISHED = "finished"
OUTCOME_NEVER_STARTED = "never-started"
OUTCOME_VANISHED = "vanished"
OUTCOME_TIMED_OUT = "timed-out"
OUTCOME_FOREIGN = "foreign-session"  # PROPOSAL: the doc leaves this outcome's name UNKNOWN


@dataclass(frozen=True)
class WatchConfig:
    interval_ms: int = 2_000  # PROPOSAL: the poll interval is UNKNOWN
    grace_ms: int = 5_000  # PROPOSAL: the launch grace window is UNKNOWN
    max_wait_ms: int = 4 * 3600 * 1000  # the doc's default (4 hours)


def session_uuid(value: str | None) -> str | None:
    """The session id in an ``agent_session.value`` (pi: a path whose file name ends
    ``_<uuid>.jsonl``; claude: the id itself). Our own session id goes through the same
    function, so a resumed session given as a path compares too."""
    if not _s(value):
        return None
    tail = value.rsplit("/", 1)[-1]
    if tail.endswith(".jsonl"):
        tail = tail[: -len(".jsonl")]
    if "_" in tail:
        tail = tail.rsplit("_", 1)[-1]
    return tail or None


class FinishWatcher:
    """Polls ``herdr agent get <paneId>`` until one conclusive outcome, then delivers it once.

    - finished: idle (or done, PROPOSAL) after the same pane was seen ``working``;
    - never-started: idle without ever having been ``working``;
    - vanished: ``agent_not_found``;
    - timed-out: nothing conclusive within ``max_wait_ms``;
    - foreign-session (PROPOSAL): the pane reports another Pi session (or another agent kind).
    Idle/done inside the launch grace window is not conclusive; ``blocked`` never counts as
    working; other ``agent get`` failures keep polling (PROPOSAL).

    Delivery (PROPOSAL: every conclusive outcome is delivered, only ``finished`` says it
    finished): ``deliver(message)`` (sync or async) with customType
    ``herdr-agent-sessions.finished``; a send that raises is retried every interval; a send that
    never settles is abandoned at the max wait (always at least one attempt, bounded by one
    interval once the max wait has passed).
    """

    def __init__(
        self,
        *,
        pane_id: str,
        session_id: str,
        agent_name: str,
        details: dict,
        run: Callable[[Sequence[str]], Awaitable[RunResult]],
        deliver: Callable[[dict], Any],
        sleep: Callable[[float], Awaitable[None]],
        clock: Callable[[], float],
        config: WatchConfig = WatchConfig(),
    ):
        self.pane_id, self.session_id, self.agent_name = pane_id, session_id, agent_name
        self.details = dict(details)
        self.run, self.deliver, self.sleep, self.clock, self.config = (
            run,
            deliver,
            sleep,
            clock,
            config,
        )
        self.polls = 0
        self.seen_working = False

    async def observe(self) -> str:
        """Poll until a conclusive outcome."""
        cfg = self.config
        t0 = self.clock()
        self._t0 = t0
        ours = session_uuid(self.session_id)
        while True:
            if self.clock() - t0 >= cfg.max_wait_ms:
                return OUTCOME_TIMED_OUT
            r = await self.run(["agent", "get", self.pane_id])
            self.polls += 1
            if r.status != 0:
                if envelope_code(r.stderr) == "agent_not_found":
                    return OUTCOME_VANISHED
            else:
                result = _result(r.stdout)
                agent = result.get("agent") if result else None
                if isinstance(agent, dict):
                    kind = agent.get("agent")
                    if _s(kind) and kind != "pi":
                        return OUTCOME_FOREIGN
                    session = agent.get("agent_session")
                    theirs = (
                        session_uuid(session.get("value")) if isinstance(session, dict) else None
                    )
                    if theirs is not None and theirs != ours:
                        return OUTCOME_FOREIGN
                    status = agent.get("agent_status")
                    if status == "working":
                        self.seen_working = True
                    elif status in ("idle", "done") and self.clock() - t0 >= cfg.grace_ms:
                        return OUTCOME_FINISHED if self.seen_working else OUTCOME_NEVER_STARTED
            await self.sleep(cfg.interval_ms)

    def message(self, outcome: str) -> dict:
        texts = {
            OUTCOME_FINISHED: "finished: the Pi session in pane %s went idle after working",
            OUTCOME_NEVER_STARTED: "never started: the Pi session in pane %s went idle without ever working",
            OUTCOME_VANISHED: "vanished: herdr no longer finds an agent in pane %s",
            OUTCOME_TIMED_OUT: "timed out: no conclusive state for pane %s before the maximum wait",
            OUTCOME_FOREIGN: "not ours: pane %s now hosts a different session; no finish is claimed",
        }
        details = {
            **self.details,
            "outcome": outcome,
            "paneId": self.pane_id,
            "sessionId": self.session_id,
            "agentName": self.agent_name,
        }
        return {
            "customType": FINISHED_CUSTOM_TYPE,
            "display": True,
            "deliverAs": "followUp",
            "triggerTurn": True,
            "content": texts[outcome] % self.pane_id,
            "details": details,
        }

    async def _deliver_once(self, message: dict, budget_ms: float) -> bool:
        async def send():
            r = self.deliver(message)
            if inspect.isawaitable(r):
                await r

        try:
            await asyncio.wait_for(send(), budget_ms / 1000)
            return True
        except TimeoutError:
            raise
        except Exception:
            return False

    async def run_to_end(self) -> dict:
        outcome = await self.observe()
        message = self.message(outcome)
        cfg = self.config
        attempts = 0
        delivered = False
        while True:
            remaining = cfg.max_wait_ms - (self.clock() - self._t0)
            if attempts > 0 and remaining <= 0:
                break
            attempts += 1
            try:
                delivered = await self._deliver_once(
                    message, remaining if remaining > 0 else cfg.interval_ms
                )
            except TimeoutError:
                break  # never settled: stop at the max wait
            if delivered:
                break
            await self.sleep(cfg.interval_ms)
        return {
            "outcome": outcome,
            "delivered": delivered,
            "attempts": attempts,
            "polls": self.polls,
        }


class WatcherRegistry:
    """Exactly one watcher per opened pane. PROPOSAL: a new open of the same pane replaces
    (cancels) a watcher still running there: herdr started the new Pi only because the shell
    was free again, so the old session is gone."""

    def __init__(self):
        self._tasks: dict[str, asyncio.Task] = {}

    def start(self, pane_id: str, watcher: FinishWatcher) -> asyncio.Task:
        old = self._tasks.get(pane_id)
        if old is not None and not old.done():
            old.cancel()
        task = asyncio.ensure_future(watcher.run_to_end())
        self._tasks[pane_id] = task
        return task

    def get(self, pane_id: str) -> asyncio.Task | None:
        return self._tasks.get(pane_id)

    def active(self) -> list[str]:
        return [p for p, t in self._tasks.items() if not t.done()]

    async def cancel_all(self) -> None:
        tasks = [t for t in self._tasks.values() if not t.done()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


DEFAULT_WATCHERS = WatcherRegistry()


# --- the flow ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenRequest:
    path: str
    session: str | None = None  # resume this Pi session
    name: str | None = None  # explicit agent name (None: not given)
    notify: bool = True


Runner = Callable[[Sequence[str]], Awaitable[RunResult]]


def resolve_herdr_bin(env: Mapping[str, str], explicit: str | None) -> tuple[str, bool]:
    """(binary, inherited): an explicit parameter wins, then ``HERDR_BIN_PATH``, then ``herdr``
    on the env's PATH (CHOICE). Only the inherited one is subject to the harness guard."""
    if explicit:
        return explicit, False
    inherited = env.get("HERDR_BIN_PATH")
    if inherited:
        return inherited, True
    return "herdr", False


async def open_session(
    request: OpenRequest,
    *,
    cwd: str,
    env: Mapping[str, str],
    herdr_bin: str | None = None,
    runner: Runner | None = None,
    git_bin: str = "git",
    new_session_id: Callable[[], str] | None = None,
    deliver: Callable[[dict], Any] | None = None,
    watchers: WatcherRegistry | None = None,
    sleep: Callable[[float], Awaitable[None]] | None = None,
    clock: Callable[[], float] | None = None,
    watch: WatchConfig = WatchConfig(),
) -> dict:
    """Open (or reuse) a herdr panel at ``request.path`` and start Pi there (§2).

    ``cwd``: the session's own cwd (relative paths resolve against it). ``env``: the context,
    also the explicit environment of every child. A watcher is started only when
    ``request.notify`` is not False and a ``deliver`` channel is given.
    """
    env = dict(env)
    path_for_result: str | None = None
    try:
        # --- step 0 -------------------------------------------------------------------------
        requested = requested_spelling(request.path, cwd)
        try:
            st = os.stat(requested)
        except (OSError, ValueError):
            raise _Refusal(PATH_MISSING) from None
        if not _stat.S_ISDIR(st.st_mode):
            raise _Refusal(PATH_NOT_DIRECTORY)
        canonical = os.path.realpath(requested)
        path_for_result = canonical
        if request.name is not None:
            if AGENT_NAME_RE.fullmatch(request.name) is None:
                raise _Refusal(AGENT_NAME_INVALID)
            agent_name = request.name
        else:
            agent_name = None  # the default needs the panel kind (a worktree: its branch)

        # --- the harness guard (before any herdr spawn) --------------------------------------
        bin_path, inherited = resolve_herdr_bin(env, herdr_bin)
        if inherited and harness_refuses(bin_path, env):
            raise _Refusal(HERDR_BIN_REFUSED)
        base: Callable[[Sequence[str]], Awaitable[RunResult]]
        if runner is None:
            base = HerdrRunner(
                bin_path,
                env,
                start_timeout_ms=OPENER_START_KILL_MS,
                cli_timeout_ms=OPENER_CLI_KILL_MS,
            )
        else:
            base = runner

        async def herdr(argv: Sequence[str]) -> RunResult:
            return await base(checked_argv(argv))

        # --- step 1 -------------------------------------------------------------------------
        cls = await classify(canonical, env, git_bin)
        if cls.kind is None:
            raise _Refusal(KIND_UNPROVEN, note=cls.detail)
        if agent_name is None:
            agent_name = default_agent_name(
                requested, cls.branch if cls.kind == KIND_WORKTREE else None
            )
        # No `agent get` pre-check (issue 25): the source creates (or reuses) the panel and
        # runs `agent start`; herdr refuses a taken name (agent_name_taken, src/app/agents.rs
        # start_agent) and the refusal is agent-start-failed with that code, naming the panel.

        # --- step 2 -------------------------------------------------------------------------
        reused = False
        if cls.kind == KIND_WORKTREE:
            workspace_id, pane, reused = await _worktree_panel(herdr, canonical)
        else:
            r = await herdr(["workspace", "create", "--cwd", requested, "--no-focus"])
            if r.status != 0:
                raise _Refusal(
                    HERDR_FAILED, herdr_code=envelope_code(r.stderr), note="workspace create"
                )
            result = _result(r.stdout) or {}
            ws = result.get("workspace")
            if not isinstance(ws, dict) or not _s(ws.get("workspace_id")):
                raise _Refusal(HERDR_REPLY_UNPARSABLE, note="workspace create")
            workspace_id, pane = ws["workspace_id"], result.get("root_pane")

        # --- step 3 -------------------------------------------------------------------------
        pane_id = (
            pane.get("pane_id") if isinstance(pane, dict) and _s(pane.get("pane_id")) else None
        )
        if pane is None and reused:
            pane, pane_id = await _pick_reused_pane(herdr, workspace_id, canonical)
        problem = pane_problem(pane, workspace_id, canonical)
        if problem:
            raise _Refusal(problem, panel=_panel(workspace_id, pane_id))
        assert pane_id is not None  # the pane passed §2.5, so it has an id

        # --- step 4 -------------------------------------------------------------------------
        if request.session is not None:
            session_id, resumed = request.session, True
            session_args = ["--session", session_id]
        else:
            session_id = (new_session_id or (lambda: str(uuid.uuid4())))()
            resumed = False
            session_args = ["--session-id", session_id]
        r = await herdr(
            [
                "agent",
                "start",
                agent_name,
                "--kind",
                "pi",
                "--pane",
                pane_id,
                "--timeout",
                str(PI_START_READY_MS),
                "--",
                "--name",
                agent_name,
                *session_args,
            ]
        )
        if r.status != 0:
            raise _Refusal(
                AGENT_START_FAILED,
                herdr_code=envelope_code(r.stderr),
                panel=_panel(workspace_id, pane_id),
            )
        started = _result(r.stdout)
        if started is None or not isinstance(started.get("agent"), dict):
            raise _Refusal(
                HERDR_REPLY_UNPARSABLE, panel=_panel(workspace_id, pane_id), note="agent start"
            )
    except _Refusal as exc:
        return _refusal_dict(exc, path_for_result)

    git_checkout = cls.kind in (KIND_WORKTREE, KIND_PRIMARY)
    rows = [
        ["outcome", "reused" if reused else "opened"],
        ["path", canonical],
        ["panel", "worktree" if cls.kind == KIND_WORKTREE else "normal"],
    ]
    if git_checkout:
        rows.append(["branch", cls.branch or "(detached HEAD)"])
    rows += [
        ["session", session_id + (" (resumed)" if resumed else "")],
        ["workspace", workspace_id],
        ["pane", pane_id],
        ["agent", agent_name],
    ]
    details = {
        "path": canonical,
        "kind": cls.kind,
        "branch": cls.branch if git_checkout else None,
        "paneId": pane_id,
        "workspaceId": workspace_id,
        "sessionId": session_id,
        "resumed": resumed,
        "agentName": agent_name,
        "notify": request.notify is not False,
    }
    out = {
        "ok": True,
        "rows": rows,
        "content": "\n".join("%s: %s" % (k, v) for k, v in rows),
        "details": details,
    }

    if request.notify is not False and deliver is not None:
        watcher = FinishWatcher(
            pane_id=pane_id,
            session_id=session_id,
            agent_name=agent_name,
            details={"path": canonical, "workspaceId": workspace_id},
            run=herdr,
            deliver=deliver,
            sleep=sleep if sleep is not None else (lambda ms: asyncio.sleep(ms / 1000)),
            clock=clock if clock is not None else (lambda: time.monotonic() * 1000),
            config=watch,
        )
        (watchers if watchers is not None else DEFAULT_WATCHERS).start(pane_id, watcher)
    return out


async def _worktree_panel(herdr, canonical: str) -> tuple[str, dict | None, bool]:
    """§2.4 worktree panel: (workspace id, root pane or None when reused, reused?)."""
    r = await herdr(["worktree", "list", "--cwd", canonical])  # PROPOSAL: the canonical path
    if r.status != 0:
        raise _Refusal(HERDR_FAILED, herdr_code=envelope_code(r.stderr), note="worktree list")
    result = _result(r.stdout)
    claims = worktree_claims(result, canonical) if result else None
    if claims is None:
        raise _Refusal(HERDR_REPLY_UNPARSABLE, note="worktree list")
    if len(claims) > 1:
        raise _Refusal(WORKTREE_CLAIMED_TWICE, note=", ".join(claims))
    if len(claims) == 1:
        return claims[0], None, True
    r = await herdr(["worktree", "open", "--path", canonical, "--no-focus"])  # PROPOSAL: canonical
    if r.status == 0:
        result = _result(r.stdout) or {}
        ws = result.get("workspace")
        if not isinstance(ws, dict) or not _s(ws.get("workspace_id")):
            raise _Refusal(HERDR_REPLY_UNPARSABLE, note="worktree open")
        return ws["workspace_id"], result.get("root_pane"), bool(result.get("already_open") is True)
    # The open failed: never assume it did nothing, never open twice. ONE fresh list decides.
    open_code = envelope_code(r.stderr)
    again = await herdr(["worktree", "list", "--cwd", canonical])
    result = _result(again.stdout) if again.status == 0 else None
    claims = worktree_claims(result, canonical) if result else None
    if claims and len(claims) > 1:
        raise _Refusal(WORKTREE_CLAIMED_TWICE, note=", ".join(claims))
    if claims and len(claims) == 1:
        return claims[0], None, True
    raise _Refusal(HERDR_FAILED, herdr_code=open_code, note="worktree open")


async def _pick_reused_pane(
    herdr, workspace_id: str, canonical: str
) -> tuple[dict | None, str | None]:
    """PROPOSAL (UNKNOWN in the doc): ``herdr pane list --workspace W``, then the first pane that
    passes step 3 with no agent in it, else the first that passes (herdr then refuses a busy
    shell), else the first pane listed (step 3 names its problem)."""
    r = await herdr(["pane", "list", "--workspace", workspace_id])
    if r.status != 0:
        raise _Refusal(
            HERDR_FAILED,
            herdr_code=envelope_code(r.stderr),
            panel=_panel(workspace_id),
            note="pane list",
        )
    result = _result(r.stdout)
    panes = result.get("panes") if result else None
    if not isinstance(panes, list):
        raise _Refusal(HERDR_REPLY_UNPARSABLE, panel=_panel(workspace_id), note="pane list")
    panes = [p for p in panes if isinstance(p, dict)]
    passing = [p for p in panes if pane_problem(p, workspace_id, canonical) is None]
    free = [p for p in passing if not _s(p.get("agent"))]
    pick = (free or passing or panes or [None])[0]
    pid = pick.get("pane_id") if isinstance(pick, dict) and _s(pick.get("pane_id")) else None
    return pick, pid


def open_session_sync(request: OpenRequest, **kwargs) -> dict:
    """:func:`open_session` for threaded code (its own event loop; watchers end with it)."""

    async def main():
        out = await open_session(request, **kwargs)
        registry = kwargs.get("watchers") or DEFAULT_WATCHERS
        pane = out.get("details", {}).get("paneId") if out.get("ok") else None
        task = registry.get(pane) if pane else None
        if task is not None:
            out = {**out, "watch": await task}
        return out

    return asyncio.run(main())
