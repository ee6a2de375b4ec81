"""Session persistence: herdr's ``session.json`` / ``session-history.json`` in herdr's data dir
(src/persist/io.rs, src/app/session.rs). The file I/O half; the data half is
simherdr.model.snapshot.

Off by default (``simherdr serve`` keeps its in-memory default, like ``herdr --no-session``);
``Config.persist`` / ``simherdr serve --persist`` turns it on. Then the server restores the
file when it starts and writes it after every committed batch (request or timer) whose
snapshot differs from the last one written, and when it stops (CHOICE: herdr debounces its
save; a simulator writes at once so a kill never loses a change). An
empty session deletes both files (SessionSaveJob::Clear). ``Config.pane_history`` is herdr's
``[experimental].pane_history``: also each pane's scrollback, replayed into the new terminal.
"""

from __future__ import annotations

import json
import os
import sys
import weakref

from . import dirs, wire
from .handlers.common import auto_label
from .model import snapshot as S

SESSION_FILE = "session.json"
HISTORY_FILE = "session-history.json"
HISTORY_LINES = 1000  # CHOICE: the scrollback kept per pane (herdr keeps its whole history)


def session_path(config) -> str:
    return os.path.join(dirs.data_dir(config), SESSION_FILE)


def history_path(config) -> str:
    return os.path.join(dirs.data_dir(config), HISTORY_FILE)


# sim -> {path: text}: what each server last wrote (an unchanged session is not rewritten)
_last_written: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _write_json(sim, path: str, value: dict) -> None:
    """Atomic, through a symlink to its target (io.rs:14-65)."""
    try:
        text = json.dumps(value, indent=2)
    except RecursionError:  # a tab of many nested splits: serde_json writes any depth
        text = wire.dumps(value)
    target = os.path.realpath(path)
    written = _last_written.setdefault(sim, {})
    if written.get(target) == text and os.path.exists(target):
        return
    os.makedirs(os.path.dirname(target), exist_ok=True)
    tmp = target.removesuffix(".json") + ".json.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, target)
    written[target] = text


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
    snap = S.capture(sim.session)
    history = S.capture_history(sim.session, read_history) if sim.config.pane_history else None
    return snap, history


def save(sim) -> None:
    cfg = sim.config
    try:
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
    return snap, history if isinstance(history, dict) else None


def restore(sim, snap: dict, history: dict | None) -> None:
    """Rebuild the session from ``snap`` (the file's, or an in-process restart's) on new
    terminals with fresh shells."""
    home = sim.config.home
    panes = S.restore(
        sim.session,
        snap,
        history,
        sim.now_us(),
        cwd_exists=os.path.isdir,
        home=home,
        auto_label=lambda cwd: auto_label(sim, cwd),
    )
    for pane in panes:
        sim.on_pane_created(pane)


def restore_from_disk(sim) -> bool:
    snap, history = load(sim.config)
    if snap is None:
        return False
    restore(sim, snap, history)
    return True
