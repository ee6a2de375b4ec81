"""What ``contract diff`` may attribute a difference to: the project's own version rows.

Whether a behaviour differs between two releases, and where that is known from, is the
version object's (``facts/versions.py``, one place for each fact): a row's value per release
and its source. This module only says *where a row shows to a client*: the call (``where``,
an fnmatch glob over methods and ``herdr <group> <verb>``), the JSON path and the category of
the difference (:data:`SHOWS`). A difference is explained by a row that differs between the
two releases and shows there; the explanation names the row and its source. A CLI run's copy
of a socket value (``herdr api snapshot``'s stdout, ``status --json``) is matched like the
socket value: by the methods the run called (the cassette records them) and the path without
its ``stdout:`` prefix. A difference no row explains is *unexplained*: a delta the rows do not
name, or a simulator bug.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Protocol

from ..facts.methods import NEW_0_9
from ..facts.versions import HerdrVersion, UnknownVersion, resolve


@dataclass(frozen=True)
class Shows:
    """Where the row ``row`` of the version object shows to a client."""

    row: str  # "protocol", "methods", "retired_methods", a Rows field or "tables.<key>"
    summary: str
    where: tuple[str, ...]
    paths: tuple[str, ...] = ("*",)
    categories: tuple[str, ...] = ()  # empty: any category
    values: tuple[Any, ...] = ()  # non-empty: one side's value must be one of these


@dataclass(frozen=True)
class Explanation:
    row: str
    summary: str
    source: str  # "<release>.toml: <source>" (or the profile table's)

    def __str__(self) -> str:
        return f"row {self.row} ({self.source})"


class _Diff(Protocol):
    category: str
    where: str
    path: str
    a: Any
    b: Any


NEW_METHODS = tuple(sorted(NEW_0_9))
_ADDED = ("fields added", "fields removed")

SHOWS: tuple[Shows, ...] = (
    Shows(
        "protocol",
        "the client protocol (ping; the snapshot repeats it)",
        ("ping*", "session.snapshot*", "herdr status*"),
        ("$.result.protocol", "$.result.snapshot.protocol", "$.protocol"),
    ),
    Shows(
        "name",
        "the build version (ping; the snapshot repeats it)",
        ("ping*", "session.snapshot*", "herdr status*"),
        ("$.result.version", "$.result.snapshot.version", "$.version"),
    ),
    Shows("name", "the binary reports its version", ("herdr --version", "herdr -V")),
    Shows("capabilities", "pong capabilities", ("ping*",), ("$.result.capabilities.*",), _ADDED),
    Shows(
        "cli_status_endpoint_generation",
        "herdr status: endpoint generation fields",
        ("herdr status*",),
    ),
    Shows(
        "close_group_required",
        "workspace.close: close_group, workspace_group_close_required",
        ("workspace.close*", "herdr workspace close*"),
    ),
    Shows(
        "trust_repository",
        "worktree.*: trust_repository / --trust-repository",
        ("worktree.*", "herdr worktree *"),
    ),
    Shows(
        "subscribe_replays_history",
        "new plain subscriptions start live (no replay)",
        ("events.subscribe*",),
        ("*",),
        ("event order", "steps"),
    ),
    Shows(
        "prompt_gate_needs_activity",
        "agent.prompt wait gate",
        ("agent.prompt*", "herdr agent prompt*"),
    ),
    Shows(
        "recent_includes_viewport",
        "recent pane reads end at the cursor row",
        ("pane.read*", "agent.read*", "herdr pane read*", "herdr agent read*"),
        ("$.result.read.*", "stdout*"),
    ),
    Shows(
        "report_agent_options_anywhere",
        "pane report-agent[-session]: options anywhere, --opt=value",
        ("herdr pane report-agent*",),
    ),
    Shows("cli_no_session_flag", "--no-session removed", ("herdr --no-session*",)),
    Shows("cli_machine", "herdr machine, global --machine", ("herdr machine*", "herdr --machine*")),
    Shows(
        "cli_split_targets_caller",
        "pane split without a target splits the calling pane",
        ("herdr pane split*", "pane.split (from herdr pane split*"),
    ),
    Shows(
        "invalid_request_keeps_id",
        "a parse error keeps a string request id",
        ("*",),
        ("$.id",),
        ("values",),
    ),
    Shows("retired_methods", "pane.graphics.* retired: unknown_method", ("pane.graphics.*",)),
    Shows("methods", "new methods", NEW_METHODS + tuple(m + " *" for m in NEW_METHODS)),
    Shows(
        "agent_completion_seq", "AgentInfo.completion_seq", ("*",), ("*.completion_seq",), _ADDED
    ),
    Shows(
        "restore_keeps_unavailable_panes",
        "PaneInfo.restore_error",
        ("*",),
        ("*.restore_error",),
        _ADDED,
    ),
    Shows(
        "workspace_create_source",
        "workspace.create source_workspace_id",
        ("workspace.create*",),
        ("*source_workspace_id*",),
    ),
    Shows(
        "report_resume_argv",
        "report_agent resume_argv",
        ("pane.report_agent*",),
        ("*resume_argv*",),
    ),
    Shows(
        "tables.agent_kinds",
        "agent kind muse",
        ("*",),
        ("*",),
        ("enum values",),
        ("muse",),
    ),
    # herdr 0.8.0 -> 0.8.1/0.8.2 (releases/0.8.0.toml): the rows a client-suite corpus shows.
    Shows(
        "cli_pane_input",
        "pane split sends right_click (#2504)",
        ("herdr pane split",),
        ("$.params.right_click",),
    ),
    Shows(
        "headless_cols",
        "the headless view size pane rects use (#2828)",
        ("*",),
        ("*.area.width", "*.area.x", "*.rect.width", "*.rect.x"),
    ),
    Shows(
        "headless_rows",
        "the headless view size pane rects use (#2828)",
        ("*",),
        ("*.area.height", "*.area.y", "*.rect.height", "*.rect.y", "*.scroll.viewport_rows"),
    ),
    # the panes' terminal size follows the headless frame (model/geometry.py)
    Shows(
        "headless_cols",
        "the headless frame the panes are sized in",
        ("*",),
        ("*.scroll.viewport_rows",),
    ),
    Shows(
        "pane_info_scroll_always",
        "PaneInfo.scroll on every pane (0.8.x) or once pane.scroll moved it (0.9)",
        ("*",),
        ("*.scroll",),
        _ADDED,
    ),
    Shows(
        "cli_agent_start_pins_pane",
        "agent start pins the pane's terminal first and retries a busy new shell (#2774)",
        ("herdr agent start",),
    ),
)


# --- the version object (one place for each fact) ------------------------------------------


def _resolve(name: str) -> HerdrVersion | None:
    """The release's version object; None for a name simherdr does not know."""
    try:
        return resolve(name)
    except UnknownVersion:
        return None


def _value(v: HerdrVersion, row: str) -> Any:
    if row == "name":  # each release reports its own name
        return v.name
    if row.startswith("tables."):
        return getattr(v.tables, row.split(".", 1)[1])
    if row in ("protocol", "methods", "retired_methods"):
        return getattr(v, row)
    return getattr(v.rows, row)


def _source(v: HerdrVersion, row: str) -> str:
    key = row.split(".", 1)[1] if row.startswith("tables.") else row
    if key == "name":
        return f"facts/releases/{v.name}.toml: the release's name"
    s = v.sources["methods" if key == "retired_methods" else key]  # one [methods] entry
    return f"facts/releases/{s.release}.toml: {s.source}"


@dataclass(frozen=True)
class Known:
    """The rows that differ between two releases, and where each shows."""

    a: str
    b: str
    shows: tuple[tuple[Shows, Explanation], ...]

    @property
    def title(self) -> str:
        return f"the version rows that differ between herdr {self.a} and {self.b}"


def for_versions(a: str | None, b: str | None) -> Known | None:
    """The rows that differ between two releases (either order; None: a release unknown)."""
    if a is None or b is None:
        return None
    va, vb = _resolve(a), _resolve(b)
    if va is None or vb is None:
        return None
    newer = max(va, vb)
    out = []
    for s in SHOWS:
        if _value(va, s.row) != _value(vb, s.row):
            out.append((s, Explanation(s.row, s.summary, _source(newer, s.row))))
    return Known(a, b, tuple(out))


def explain(known: Known | None, d: _Diff, calls: tuple[str, ...] = ()) -> Explanation | None:
    """The row explaining ``d``; ``calls``: the socket methods of the CLI run it came from."""
    if known is None:
        return None
    wheres = [d.where, *calls]
    # "pane.split (from herdr pane split)": the call, and the CLI command that made it
    if d.where.endswith(")") and " (from " in d.where:
        wheres.append(d.where.rsplit(" (from ", 1)[1][:-1])
    paths = [d.path]
    for prefix in ("stdout:", "stderr:"):
        if d.path.startswith(prefix):
            paths.append(d.path[len(prefix) :])  # a CLI copy of a reply
    for s, why in known.shows:
        if s.categories and d.category not in s.categories:
            continue
        if s.values and d.a not in s.values and d.b not in s.values:
            continue
        if any(fnmatchcase(x, w) for x in wheres for w in s.where) and any(
            fnmatchcase(p, pat) for p in paths for pat in s.paths
        ):
            return why
    return None
