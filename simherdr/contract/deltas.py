"""Known client-facing deltas between herdr releases, as data: what ``contract diff`` may
attribute a difference to. One row per delta of VERSIONS.md §5 (0.8.2 → 0.9.3), matched on
the call that shows it (``where``, an fnmatch glob over methods and ``herdr <group> <verb>``),
the JSON path and the category. A difference no row matches is *unexplained*: a delta
VERSIONS.md does not list, or a simulator bug.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Protocol

from ..facts.methods import NEW_0_9


@dataclass(frozen=True)
class Delta:
    row: str
    summary: str
    where: tuple[str, ...]
    paths: tuple[str, ...] = ("*",)
    categories: tuple[str, ...] = ()  # empty: any category


class _Diff(Protocol):
    category: str
    where: str
    path: str
    a: Any
    b: Any


_V = "VERSIONS.md §5 row "
# VERSIONS.md §5 row 16: the methods 0.9.3 adds (the one list: facts/methods.py).
NEW_093_METHODS = tuple(sorted(NEW_0_9))

V082_V093: tuple[Delta, ...] = (
    Delta(
        _V + "1",
        "protocol 22 and the build version (ping; the snapshot repeats them)",
        ("ping*", "session.snapshot*"),
        (
            "$.result.protocol",
            "$.result.version",
            "$.result.snapshot.protocol",
            "$.result.snapshot.version",
        ),
    ),
    Delta(
        _V + "1", "the binary reports its version", ("herdr --version", "herdr -V", "herdr version")
    ),
    Delta(
        _V + "2",
        "pong capabilities gain four keys",
        ("ping*",),
        ("$.result.capabilities.*",),
        ("fields added", "fields removed"),
    ),
    Delta(_V + "3", "herdr status: endpoint generation fields", ("herdr status*",)),
    Delta(
        _V + "5",
        "workspace.close: close_group, workspace_group_close_required",
        ("workspace.close*", "herdr workspace close*"),
    ),
    Delta(
        _V + "6",
        "worktree.*: trust_repository / --trust-repository",
        ("worktree.*", "herdr worktree *"),
    ),
    Delta(
        _V + "7",
        "new plain subscriptions start live (no replay)",
        ("events.subscribe*",),
        ("*",),
        ("event order", "steps"),
    ),
    Delta(_V + "8", "agent.prompt wait gate", ("agent.prompt*", "herdr agent prompt*")),
    Delta(
        _V + "9",
        "recent pane reads end at the cursor row",
        ("pane.read*", "agent.read*", "herdr pane read*", "herdr agent read*"),
        ("$.result.read.*", "stdout*"),
    ),
    Delta(
        _V + "10",
        "pane report-agent[-session]: options anywhere, --opt=value",
        ("herdr pane report-agent*",),
    ),
    Delta(_V + "11", "--no-session removed", ("herdr --no-session*",)),
    Delta(_V + "12", "herdr machine, global --machine", ("herdr machine*", "herdr --machine*")),
    Delta(
        _V + "13",
        "pane split without a target splits the calling pane",
        ("herdr pane split*", "pane.split (from cli*"),
    ),
    Delta(_V + "14", "a parse error keeps a string request id", ("*",), ("$.id",), ("values",)),
    Delta(_V + "15", "pane.graphics.* retired: unknown_method", ("pane.graphics.*",)),
    Delta(_V + "16", "new methods", NEW_093_METHODS + tuple(m + " *" for m in NEW_093_METHODS)),
    Delta(
        _V + "18",
        "AgentInfo.completion_seq",
        ("*",),
        ("*.completion_seq",),
        ("fields added", "fields removed"),
    ),
    Delta(
        _V + "19",
        "PaneInfo.restore_error",
        ("*",),
        ("*.restore_error",),
        ("fields added", "fields removed"),
    ),
    Delta(
        _V + "20",
        "workspace.create source_workspace_id",
        ("workspace.create*",),
        ("*source_workspace_id*",),
    ),
    Delta(_V + "21", "report_agent resume_argv", ("pane.report_agent*",), ("*resume_argv*",)),
    Delta(_V + "25", "agent kind muse", ("*",), ("*",), ("enum values",)),
)

_R = "releases/0.8.0.toml row "
# herdr 0.8.0 -> 0.8.2 (releases/0.8.0.toml, each row read in 346411fa..9eb52145): the rows a
# client-suite corpus shows. 0.8.1 differs from 0.8.2 in no row a corpus records.
V080_V082: tuple[Delta, ...] = (
    Delta(
        _R + "protocol",
        "protocol 19 and the build version (ping; the snapshot repeats them)",
        ("ping*", "session.snapshot*"),
        (
            "$.result.protocol",
            "$.result.version",
            "$.result.snapshot.protocol",
            "$.result.snapshot.version",
        ),
    ),
    Delta(
        _R + "cli_pane_input",
        "pane split sends right_click (#2504)",
        ("herdr pane split",),
        ("$.params.right_click",),
    ),
    Delta(
        _R + "headless_cols/headless_rows",
        "the headless view is 80x24 (#2828)",
        ("*",),
        ("*.area.width", "*.area.height", "*.rect.width", "*.rect.height", "*.rect.x", "*.rect.y"),
    ),
    Delta(
        _R + "cli_agent_start_pins_pane",
        "agent start: no pane.get pin, no busy-shell retry (#2774)",
        ("herdr agent start",),
    ),
    Delta(_R + "protocol", "the binary reports its version", ("herdr --version", "herdr -V")),
)

TABLES: dict[tuple[str, str], tuple[str, tuple[Delta, ...]]] = {
    ("0.8.2", "0.9.3"): ("VERSIONS.md §5 (herdr 0.8.2 → 0.9.3)", V082_V093),
    ("0.8.0", "0.8.2"): ("releases/0.8.0.toml (herdr 0.8.0 → 0.8.2)", V080_V082),
    ("0.8.0", "0.8.1"): ("releases/0.8.0.toml (herdr 0.8.0 → 0.8.1)", V080_V082),
}
# 0.9.0/0.9.1 share protocol 22 and, as far as any source shows, the 0.9.3 surface.
for _v in ("0.9.0", "0.9.1"):
    TABLES[("0.8.2", _v)] = TABLES[("0.8.2", "0.9.3")]


def for_versions(a: str | None, b: str | None) -> tuple[str, tuple[Delta, ...]] | None:
    """The deltas between two versions, either direction (None: none known)."""
    if a is None or b is None:
        return None
    return TABLES.get((a, b)) or TABLES.get((b, a))


def explain(known: tuple[str, tuple[Delta, ...]] | None, d: _Diff) -> str | None:
    if known is None:
        return None
    # "pane.split (from herdr pane split)": the call, and the CLI command that made it
    wheres = [d.where]
    if d.where.endswith(")") and " (from " in d.where:
        wheres.append(d.where.rsplit(" (from ", 1)[1][:-1])
    for row in known[1]:
        if row.categories and d.category not in row.categories:
            continue
        if row.row == _V + "25" and "muse" not in (d.a, d.b):
            continue
        if any(fnmatchcase(x, w) for x in wheres for w in row.where) and any(
            fnmatchcase(d.path, p) for p in row.paths
        ):
            return row.row
    return None
