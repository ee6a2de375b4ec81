"""A tab's split tree (pure). SOCKET.md §3.5 PaneLayoutSnapshot, §4.3 pane.split / pane.close.

A split puts the new pane as the *second* child (right or below) of a new split around the
target (src/app/api/panes.rs handle_pane_split). Rects are computed on a fixed area.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# CHOICE: a headless herdr has no client terminal; its area is unknown. 120x40 is a common
# TUI size; clients never depend on exact cells (named in the note).
DEFAULT_AREA = (0, 0, 120, 40)
MIN_RATIO, MAX_RATIO, DEFAULT_RATIO = 0.1, 0.9, 0.5


def clamp_ratio(ratio: float | None) -> float:
    """src/workspace/tab.rs:361, src/layout.rs:619-625: clamp to [0.1,0.9], non-finite -> 0.5."""
    if ratio is None or not math.isfinite(ratio):
        return DEFAULT_RATIO
    return min(MAX_RATIO, max(MIN_RATIO, float(ratio)))


@dataclass
class Leaf:
    pane: str  # canonical pane id


@dataclass
class Split:
    direction: str  # "right" | "down"
    ratio: float
    first: Node
    second: Node


Node = Leaf | Split


def panes_in_order(node: Node) -> list[str]:
    """Depth-first, first child before second: herdr's layout order."""
    if isinstance(node, Leaf):
        return [node.pane]
    return panes_in_order(node.first) + panes_in_order(node.second)


def split_leaf(node: Node, target: str, new_pane: str, direction: str, ratio: float) -> Node:
    if isinstance(node, Leaf):
        if node.pane == target:
            return Split(direction, ratio, Leaf(target), Leaf(new_pane))
        return node
    node.first = split_leaf(node.first, target, new_pane, direction, ratio)
    node.second = split_leaf(node.second, target, new_pane, direction, ratio)
    return node


def remove_leaf(node: Node, pane: str) -> Node | None:
    """Remove a pane; its sibling takes the parent split's place."""
    if isinstance(node, Leaf):
        return None if node.pane == pane else node
    first = remove_leaf(node.first, pane)
    second = remove_leaf(node.second, pane)
    if first is None:
        return second
    if second is None:
        return first
    node.first, node.second = first, second
    return node


def rename_leaf(node: Node, old: str, new: str) -> None:
    if isinstance(node, Leaf):
        if node.pane == old:
            node.pane = new
        return
    rename_leaf(node.first, old, new)
    rename_leaf(node.second, old, new)


def _rect(x: int, y: int, w: int, h: int) -> dict:
    return {"x": x, "y": y, "width": w, "height": h}


def snapshot(
    node: Node, area: tuple[int, int, int, int] = DEFAULT_AREA, split_index: int = 0
) -> tuple[list[dict], list[dict]]:
    """(panes[{pane_id, rect}], splits[{id, direction, ratio, rect}]).

    Split ids: ``split_<i>_root`` and ``split_<i>_<path of 0/1>`` (src/app/api/panes.rs:1885-1895).
    CHOICE: ``<i>`` is the tab's 0-based index in its workspace.
    """
    panes: list[dict] = []
    splits: list[dict] = []

    def walk(n: Node, x: int, y: int, w: int, h: int, path: str) -> None:
        if isinstance(n, Leaf):
            panes.append({"pane_id": n.pane, "rect": _rect(x, y, w, h)})
            return
        splits.append(
            {
                "id": f"split_{split_index}_{path or 'root'}",
                "direction": n.direction,
                "ratio": n.ratio,
                "rect": _rect(x, y, w, h),
            }
        )
        if n.direction == "right":
            w1 = int(w * n.ratio)
            walk(n.first, x, y, w1, h, path + "0")
            walk(n.second, x + w1, y, w - w1, h, path + "1")
        else:
            h1 = int(h * n.ratio)
            walk(n.first, x, y, w, h1, path + "0")
            walk(n.second, x, y + h1, w, h - h1, path + "1")

    walk(node, *area, "")
    return panes, splits
