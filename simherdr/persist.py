"""Session persistence: herdr's ``session.json`` / ``session-history.json`` in herdr's data dir
(src/persist/io.rs, src/app/session.rs). The file I/O half; the data half is
simherdr.model.snapshot.

Off by default (``simherdr serve`` keeps its in-memory default, like ``herdr --no-session``);
``Config.persist`` / ``simherdr serve --persist`` turns it on. Then the server restores the
file when it starts; a change schedules a save SAVE_DEBOUNCE simulated seconds later, as
herdr's schedule_session_save does (src/app/session.rs:14-18, src/app/mod.rs:46); stopping,
closing or restarting the server saves at once (save_session_now). A snapshot equal to the
last one written is not rewritten. An
empty session deletes both files (SessionSaveJob::Clear). ``Config.pane_history`` is herdr's
``[experimental].pane_history``: also each pane's scrollback, replayed into the new terminal.
"""

from __future__ import annotations

import json
import os
import sys
import time
import weakref

from . import dirs, wire
from .handlers.common import auto_label
from .model import snapshot as S

SESSION_FILE = "session.json"
HISTORY_FILE = "session-history.json"
HISTORY_LINES = 1000  # CHOICE: the scrollback kept per pane (herdr keeps its whole history)
SAVE_DEBOUNCE = 5.0  # seconds: herdr's SESSION_SAVE_DEBOUNCE


def session_path(config) -> str:
    return os.path.join(dirs.data_dir(config), SESSION_FILE)


def history_path(config) -> str:
    return os.path.join(dirs.data_dir(config), HISTORY_FILE)


# sim -> {path: text}: what each server last wrote (an unchanged session is not rewritten)
_last_written: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_pending: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # sim -> when the save is due


def schedule_save(sim) -> None:
    """A change happened: save once SAVE_DEBOUNCE passes without another change, on the
    simulator's clock. Each change moves the deadline (schedule_session_save sets it to now +
    SESSION_SAVE_DEBOUNCE on every dirty loop: src/app/session.rs:14-25; [H093] the same)."""
    first = sim not in _pending
    _pending[sim] = sim.now() + SAVE_DEBOUNCE
    if first:
        sim.schedule(_pending[sim], lambda: _save_when_due(sim))


def _save_when_due(sim) -> None:
    due = _pending.get(sim)
    if due is None:
        return  # saved at once meanwhile
    if sim.now() < due:
        sim.schedule(due, lambda: _save_when_due(sim))  # a later change moved the deadline
        return
    save(sim)


# sim -> True while a session file this server did not load must be preserved before its first
# write (0.9.x SessionWriter protect_unloaded; profile row session_backups).
_protect_unloaded: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
BACKUP_DIR = "session-backups"
BACKUPS_KEPT = 3  # [H093] src/persist/writer.rs preserve_existing
SNAPSHOT_DIR = "session-snapshots"
SNAPSHOTS_KEPT = 48  # writer.rs SNAPSHOT_LIMIT
SNAPSHOTS_INTERVAL = 15 * 60  # writer.rs SNAPSHOT_INTERVAL (seconds)


def _preserve_unloaded(sim, path: str) -> None:
    """Copy the session file into session-backups/ before this server first replaces or clears
    it, when the server did not load it ([H093] src/persist/writer.rs preserve_existing).
    A server that loaded its session protects nothing."""
    if not _protect_unloaded.get(sim) or not os.path.isfile(path):
        return  # (a missing file is checked again at the next write)
    _copy_into(sim, path, BACKUP_DIR, BACKUPS_KEPT)
    _protect_unloaded[sim] = False


def _preserve_snapshot_history(sim, path: str) -> None:
    """session-snapshots/ ([H093] src/persist/writer.rs preserve_snapshot_history): at most one
    copy per SNAPSHOTS_INTERVAL (the newest copy's mtime against the wall clock, as herdr; an
    mtime in the future does not hold a copy back), only of a session with workspaces whose
    layout_fingerprint differs from the newest copy's, the newest SNAPSHOTS_KEPT kept."""
    directory = os.path.join(os.path.dirname(path), SNAPSHOT_DIR)
    names = _recovery_files(directory)
    latest = os.path.join(directory, names[-1]) if names else None
    if latest is not None and 0 <= time.time() - os.path.getmtime(latest) < SNAPSHOTS_INTERVAL:
        return
    current = _read_json(path) if os.path.isfile(path) else None
    if not isinstance(current, dict) or not current.get("workspaces"):
        return
    version = current.get("version")
    if isinstance(version, int) and version > S.SNAPSHOT_VERSION:
        return
    if latest is not None and _same_layout(current, _read_json(latest)):
        return
    _copy_into(sim, path, SNAPSHOT_DIR, SNAPSHOTS_KEPT)


def _same_layout(current: dict, previous: object) -> bool:
    """Both parse and their layout_fingerprints are equal (writer.rs preserve_snapshot_history:
    key order and formatting do not count)."""
    try:
        ours, theirs = (
            S.layout_fingerprint(S.parse(current)),
            S.layout_fingerprint(S.parse(previous)),
        )
    except S.SnapshotError:
        return False
    return ours is not None and ours == theirs


def _recovery_files(directory: str) -> list[str]:
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    return sorted(n for n in names if _backup_stamp(n) is not None)


def _copy_into(sim, path: str, dirname: str, keep: int) -> None:
    """preserve_existing_in: ``<dir>/session-<ns timestamp, 39 digits>-<pid>-<seq>.json``, in
    creation order even if the clock goes back, then the oldest pruned to ``keep``. CHOICE:
    the timestamp is the injected clock's."""
    directory = os.path.join(os.path.dirname(path), dirname)
    os.makedirs(directory, exist_ok=True)
    older = _recovery_files(directory)
    stamp = sim.now_us() * 1000
    if older:
        stamp = max(stamp, (_backup_stamp(older[-1]) or 0) + 1)
    with open(path, "rb") as f:
        data = f.read()
    for seq in range(128):
        target = os.path.join(directory, f"session-{stamp:039d}-{os.getpid()}-{seq}.json")
        try:
            with open(target, "xb") as out:
                out.write(data)
            break
        except FileExistsError:
            continue
    for name in older[: max(0, len(older) - (keep - 1))]:
        try:
            os.remove(os.path.join(directory, name))
        except OSError:
            pass


def _backup_stamp(name: str) -> int | None:
    fields = name.removeprefix("session-").removesuffix(".json").split("-")
    if not (name.startswith("session-") and name.endswith(".json")) or len(fields) != 3:
        return None
    if len(fields[0]) != 39 or not all(f.isdigit() and f.isascii() for f in fields):
        return None
    return int(fields[0])


def _write_json(sim, path: str, value: dict) -> None:
    """Atomic, through a symlink to its target (io.rs:14-65)."""
    try:
        text = json.dumps(value, indent=2)
    except RecursionError:  # a tab of many nested splits: serde_json writes any depth
        text = wire.dumps(value)
    target = os.path.realpath(path)
    written = _last_written.setdefault(sim, {})
    if written.get(target) == text and _file_text(target) == text:
        return  # herdr rewrites it; the same bytes are left in place (a file edited since is not)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    tmp = target.removesuffix(".json") + ".json.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, target)
    written[target] = text


def _file_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, ValueError):
        return None


def _remove(sim, path: str) -> None:
    _last_written.get(sim, {}).pop(os.path.realpath(path), None)
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def _read_json(path: str):
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if wire.too_deep(text):
            # herdr parses the file with serde_json's default 128-level limit
            # (src/persist/snapshot.rs:451): a deeper file is ignored like a broken one.
            raise ValueError("recursion limit exceeded")
        return json.loads(text)
    except (OSError, ValueError) as e:
        _warn(f"failed to read {path}, ignoring: {e}")
        return None


def _warn(message: str) -> None:
    print(f"simherdr: {message}", file=sys.stderr)


def read_history(pane) -> str | None:
    text, _ = pane.screen.read("recent_unwrapped", HISTORY_LINES, "ansi", True)
    return text or None


def capture(sim) -> tuple[dict, dict | None]:
    snap = S.capture(
        sim.session,
        agent_resume=sim.version.rows.report_resume_argv,
        sidebar=sim.version.rows.session_saves_sidebar,
    )
    history = None
    if sim.config.pane_history:
        fingerprint = (
            S.layout_fingerprint(snap) if sim.version.rows.history_layout_fingerprint else None
        )
        history = S.capture_history(sim.session, read_history, fingerprint)
    return snap, history


def save(sim) -> None:
    """Save now (a scheduled save then finds nothing due)."""
    _pending.pop(sim, None)
    cfg = sim.config
    try:
        target = os.path.realpath(session_path(cfg))
        _preserve_unloaded(sim, target)
        if sim.version.rows.session_backups:
            _preserve_snapshot_history(sim, target)
        if not sim.session.workspaces:
            _remove(sim, session_path(cfg))
            _remove(sim, history_path(cfg))
            return
        snap, history = capture(sim)
        _write_json(sim, session_path(cfg), snap)
        if history is not None:
            _write_json(sim, history_path(cfg), history)
        else:
            _remove(sim, history_path(cfg))
        _protect_unloaded[sim] = False  # a committed save: the file is this server's now
        if sim.version.rows.session_backups:
            _preserve_snapshot_history(sim, target)
    except OSError as e:  # herdr logs session_save_failed and keeps running
        _warn(f"failed to save session: {e}")


def load(config) -> tuple[dict | None, dict | None]:
    """The parsed session (None: none, or one herdr would ignore) and its history."""
    raw = _read_json(session_path(config))
    if raw is None:
        return None, None
    try:
        snap = S.parse(raw)
    except S.SnapshotError as e:
        _warn(f"{e}, ignoring")
        return None, None
    history = _read_json(history_path(config)) if config.pane_history else None
    if history is not None:
        try:
            history = S.parse_history(history)
        except S.SnapshotError as e:
            _warn(f"{e}, ignoring")
            history = None
    return snap, history


def restore(sim, snap: dict, history: dict | None) -> None:
    """Rebuild the session from ``snap`` (the file's, or an in-process restart's) on new
    terminals with fresh shells."""
    home = sim.config.home
    if (
        history is not None
        and sim.version.rows.history_layout_fingerprint
        and (
            history.get("layout_fingerprint") is None
            or history.get("layout_fingerprint") != S.layout_fingerprint(snap)
        )
    ):
        # [H093] src/persist/restore.rs restore_with_imports_and_failures
        _warn("Ignoring pane history without a matching session layout")
        history = None
    unavailable: str | None = None
    if sim.version.rows.restore_keeps_unavailable_panes:
        from .agents.layer import RESTORE_ERROR_NO_DIRECTORY as unavailable
    kept = _membership_kept_093 if sim.version.rows.restore_membership_unless_other_repo else None
    resume_valid = None
    if sim.version.rows.report_resume_argv:  # the saved agent_resume came with resume_argv (#4687)
        from .handlers.agent import resume_argv_problem

        def resume_valid(argv: list) -> bool:
            return resume_argv_problem(argv) is None

    sim.outbox.discard()  # the old process's unannounced changes die with it
    panes = S.restore(
        sim.session,
        snap,
        history,
        sim.now_us(),
        cwd_exists=os.path.isdir,
        home=home,
        auto_label=lambda cwd: auto_label(sim, cwd),
        hooks=sim.version.tables.hook_sources,
        unavailable_error=unavailable,
        membership_kept=kept or _membership_kept_082,
        resume_valid=resume_valid,
    )
    for pane in panes:
        sim.on_pane_created(pane)


def _membership_kept_082(m: dict) -> bool:
    """restored_worktree_space_membership (src/persist/restore.rs:436-444): the checkout exists
    and is a checkout of the saved repository (its key, the canonical common dir)."""
    from .git.discovery import space_keys

    if not os.path.exists(m["checkout_path"]):
        return False
    found = space_keys(m["checkout_path"])
    return found is not None and found[0] == m["key"]


def _membership_kept_093(m: dict) -> bool:
    """[H093] restored_worktree_space_membership: dropped only when the checkout path is the
    root of a checkout of another repository whose common dir has objects (a per-worktree
    git dir whose common directory is unreadable does not count)."""
    from .git.discovery import space_keys

    found = space_keys(m["checkout_path"])
    if found is None:
        return True
    repo_key, checkout_key = found
    return (
        checkout_key != os.path.realpath(m["checkout_path"])
        or repo_key == m["key"]
        or not os.path.isdir(os.path.join(repo_key, "objects"))
    )


def restore_from_disk(sim) -> bool:
    snap, history = load(sim.config)
    _protect_unloaded[sim] = snap is None and sim.version.rows.session_backups
    if snap is None:
        return False
    restore(sim, snap, history)
    for pane in list(sim.session.all_panes()):
        # A server started on a session file resumes its saved resume commands as the
        # in-process restart does (Simulator.restart). CHOICE: not for a pane restored
        # unavailable, which herdr gives no terminal to type into.
        argv = pane.agent.resume_argv
        if argv and pane.restore_error is None:
            sim.agents.resume_after_restart(pane, list(argv), pane.cwd)
    return True
