"""A tab's split tree (pure). SOCKET.md §3.5 PaneLayoutSnapshot, §4.3 pane.split / pane.close.

herdr's BSP layout (src/layout.rs): a split puts the new pane as the *second* child (right or
below) of a new split around the target (src/app/api/panes.rs handle_pane_split); rects are
computed on the server's view area with herdr's f32 rounding.

Every walk here is iterative: herdr has no limit on nested `pane.split`s, and a tab of a few
thousand nested splits must not exhaust Python's recursion limit (issue 14).
"""

from __future__ import annotations

import functools
import math
import struct
from collections.abc import Callable, Iterator
from typing import Any

from ..facts.record import record

# The area rects are computed on by default (a bare Session). The runtime lays panes out on
# herdr's view terminal area: the headless frame less the sidebar and the tab bar
# (model/geometry.py terminal_area; runtime/hooks.py new_session), or Config.layout_area.
DEFAULT_AREA = (0, 0, 120, 40)
MIN_RATIO, MAX_RATIO, DEFAULT_RATIO = 0.1, 0.9, 0.5
U16_MAX = 0xFFFF

DIRECTIONS = ("left", "right", "up", "down")


def f32(x: float) -> float:
    """The nearest IEEE single (Rust's ``as f32``: out of range becomes infinite); herdr keeps
    ratios in f32 (src/layout.rs Node::Split)."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def f32_value(x: float) -> float:
    """An f32 as serde_json writes it: the shortest decimal that reads back as the same f32
    (0.3, not 0.30000001192092896)."""
    v = f32(x)
    for digits in range(1, 10):
        short = float(f"{v:.{digits}g}")
        if f32(short) == v:
            return short
    return v


def valid_split_ratio(ratio: float | None) -> float:
    """src/layout.rs:619-625 (valid_split_ratio): clamp to [0.1,0.9], non-finite -> 0.5."""
    if ratio is None or not math.isfinite(ratio):
        return DEFAULT_RATIO
    return f32_value(min(MAX_RATIO, max(MIN_RATIO, float(ratio))))


clamp_ratio = valid_split_ratio  # the name the model used before


@record(slots=True)  # walked for every pane of every read (model/state.py Pane)
class Leaf:
    pane: str  # canonical pane id


@record(slots=True)  # walked for every pane of every read (model/state.py Pane)
class Split:
    direction: str  # "right" | "down"
    ratio: float
    first: Node
    second: Node


Node = Leaf | Split


# --- walks ------------------------------------------------------------------------------------


def leaves(node: Node) -> Iterator[Leaf]:
    """Leaves depth-first, first child before second: herdr's layout order."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Leaf):
            yield n
        else:
            stack.append(n.second)
            stack.append(n.first)


def panes_in_order(node: Node) -> list[str]:
    return [leaf.pane for leaf in leaves(node)]


def pane_count(node: Node) -> int:
    return sum(1 for _ in leaves(node))


def path_to(node: Node, pane: str) -> list[tuple[Split, bool]] | None:
    """[(split, went_second)] from the root to the pane's leaf, or None if absent.

    Depth-first, first child before second; a split's leaf children are looked at where the
    split is taken off the stack (a tree holds a pane once), and only split children are
    stacked, each with a link to its parent's entry (paths share prefixes)."""
    if isinstance(node, Leaf):
        return [] if node.pane == pane else None
    stack: list[tuple[Split, Any]] = [(node, None)]
    pop, push = stack.pop, stack.append
    while stack:
        n, link = pop()
        first, second = n.first, n.second
        if isinstance(second, Leaf):
            if second.pane == pane:
                return _unlink((link, n, True))
        else:
            push((second, (link, n, True)))
        if isinstance(first, Leaf):
            if first.pane == pane:
                return _unlink((link, n, False))
        else:
            push((first, (link, n, False)))
    return None


def _unlink(link: Any) -> list[tuple[Split, bool]]:
    out: list[tuple[Split, bool]] = []
    while link is not None:
        link, split, second = link
        out.append((split, second))
    out.reverse()
    return out


def contains(node: Node, pane: str) -> bool:
    stack = [node]  # (a plain loop: every split asks it of the whole tree)
    pop, push = stack.pop, stack.append
    while stack:
        n = pop()
        if isinstance(n, Leaf):
            if n.pane == pane:
                return True
        else:
            push(n.second)
            push(n.first)
    return False


# --- edits (each returns the new root; the tree is edited in place) ---------------------------


def split_leaf(
    node: Node,
    target: str,
    new_pane: str,
    direction: str,
    ratio: float,
    path: list[tuple[Split, bool]] | None = None,
) -> Node:
    """Replace the target's leaf by Split(target, new_pane) (src/layout.rs split_at).
    ``path``: the target's :func:`path_to` in this tree, when the caller has it."""
    if path is None:
        path = path_to(node, target)
    if path is None:
        return node
    fresh = Split(direction, ratio, Leaf(target), Leaf(new_pane))
    if not path:
        return fresh
    parent, second = path[-1]
    if second:
        parent.second = fresh
    else:
        parent.first = fresh
    return node


def remove_leaf(node: Node, pane: str) -> Node | None:
    """Remove a pane; its sibling takes the parent split's place (src/layout.rs remove_pane)."""
    path = path_to(node, pane)
    if path is None:
        return node
    if not path:
        return None
    parent, second = path[-1]
    sibling = parent.first if second else parent.second
    if len(path) == 1:
        return sibling
    grand, parent_second = path[-2]
    if parent_second:
        grand.second = sibling
    else:
        grand.first = sibling
    return node


def rename_leaf(node: Node, old: str, new: str) -> None:
    for leaf in leaves(node):
        if leaf.pane == old:
            leaf.pane = new


def swap_leaves(node: Node, a: str, b: str) -> bool:
    """Exchange two panes' places, keeping the split shape (src/layout.rs swap_panes)."""
    if a == b:
        return False
    la = lb = None
    for leaf in leaves(node):
        if leaf.pane == a:
            la = leaf
        elif leaf.pane == b:
            lb = leaf
    if la is None or lb is None:
        return False
    la.pane, lb.pane = b, a
    return True


def split_at(node: Node, path: list[bool]) -> Split | None:
    """The split at a path of booleans from the root (false = first, true = second)."""
    n = node
    for second in path:
        if not isinstance(n, Split):
            return None
        n = n.second if second else n.first
    return n if isinstance(n, Split) else None


def set_ratio_at(node: Node, path: list[bool], ratio: float) -> bool:
    """src/layout.rs set_ratio_at: clamped to [0.1, 0.9]; False when no split is there."""
    s = split_at(node, path)
    if s is None:
        return False
    s.ratio = f32_value(min(MAX_RATIO, max(MIN_RATIO, ratio)))
    return True


def split_ratios(node: Node) -> list[float]:
    return [s["ratio"] for s in _splits(node, DEFAULT_AREA)]


# --- geometry ---------------------------------------------------------------------------------

Rect = tuple[int, int, int, int]


def _u16(v: float) -> int:
    """Rust's saturating ``as u16`` of an f32 after ``round()`` (half away from zero)."""
    if math.isnan(v):
        return 0
    if math.isinf(v):
        return U16_MAX if v > 0 else 0
    r = math.floor(v + 0.5) if v >= 0 else math.ceil(v - 0.5)
    return max(0, min(U16_MAX, int(r)))


@functools.lru_cache(maxsize=1 << 16)
def _first_size(size: int, ratio: float) -> int:
    """The first child's size: ``((size as f32) * ratio).round() as u16`` (src/layout.rs
    split_rect), all in f32. Cached: a tab has few distinct (size, ratio) pairs."""
    return _u16(f32(size * f32(ratio)))


def split_rect(area: Rect, direction: str, ratio: float) -> tuple[Rect, Rect]:
    """src/layout.rs split_rect: the first child gets round(size * ratio) in f32."""
    x, y, w, h = area
    if direction == "right":
        w1 = _first_size(w, ratio)
        return (x, y, w1, h), (x + w1, y, max(0, w - w1), h)
    h1 = _first_size(h, ratio)
    return (x, y, w, h1), (x, y + h1, w, max(0, h - h1))


def _layout(node: Node, area: Rect) -> tuple[list[tuple[str, Rect]], list[dict]]:
    """One pre-order walk, first child before second: the panes with their rects, and the
    splits with their area, path ("0"/"1" per level) and divider position."""
    panes: list[tuple[str, Rect]] = []
    splits: list[dict] = []
    stack: list[tuple[Node, Rect, str]] = [(node, area, "")]
    pop, push = stack.pop, stack.append
    while stack:
        n, rect, path = pop()
        if isinstance(n, Leaf):
            panes.append((n.pane, rect))
            continue
        a, b = split_rect(rect, n.direction, n.ratio)
        pos = a[0] + a[2] if n.direction == "right" else a[1] + a[3]
        splits.append(
            {"direction": n.direction, "ratio": n.ratio, "rect": rect, "path": path, "pos": pos}
        )
        push((n.second, b, path + "1"))
        push((n.first, a, path + "0"))
    return panes, splits


def pane_rects(node: Node, area: Rect = DEFAULT_AREA) -> list[tuple[str, Rect]]:
    return _layout(node, area)[0]


def _splits(node: Node, area: Rect) -> list[dict]:
    return _layout(node, area)[1]


def first_pane_rect(node: Node, area: Rect = DEFAULT_AREA) -> Rect:
    """The rect of the first pane in layout order (``pane_rects(node, area)[0]``'s): down the
    first children only, O(depth) instead of a walk of the whole tree (every new pane's
    spawn size reads it: model/geometry.py spawn_size)."""
    rect = area
    while not isinstance(node, Leaf):
        rect = split_rect(rect, node.direction, node.ratio)[0]
        node = node.first
    return rect


def _rect(r: Rect) -> dict:
    return {"x": r[0], "y": r[1], "width": r[2], "height": r[3]}


def split_id(index: int, path: str) -> str:
    """src/app/api/panes.rs:1885-1895: ``split_<i>_root`` / ``split_<i>_<0/1 path>``, where
    ``<i>`` is the split's position in the snapshot's pre-order list."""
    return f"split_{index}_{path or 'root'}"


def snapshot(
    node: Node, area: Rect = DEFAULT_AREA, focused: str | None = None
) -> tuple[list[dict], list[dict]]:
    """(panes[{pane_id, rect}], splits[{id, direction, ratio, rect}]): the same walk as
    :func:`_layout`, building the wire dicts directly (it runs on every layout_updated, and
    a tab of n splits costs O(n) of them per change: issue 14's deep chain). With
    ``focused``, each pane entry is the view's ``{pane_id, focused, rect}``.

    The walk goes down first children in a loop and stacks only a second child whose
    sibling is a split, and builds a path only for a split (its id): the same pre-order
    as pushing both children, at a fraction of the work on a deep tree."""
    panes: list[dict] = []
    splits: list[dict] = []
    add_pane, add_split = panes.append, splits.append
    first_size = _first_size
    stack: list[tuple[Node, int, int, int, int, str]] = []
    pop, push = stack.pop, stack.append
    n = node
    x, y, w, h = area
    path = ""
    while True:
        if isinstance(n, Leaf):
            pane = n.pane
            rect = {"x": x, "y": y, "width": w, "height": h}
            if focused is None:
                add_pane({"pane_id": pane, "rect": rect})
            else:
                add_pane({"pane_id": pane, "focused": pane == focused, "rect": rect})
            if not stack:
                break
            n, x, y, w, h, path = pop()
            continue
        direction, ratio = n.direction, n.ratio
        add_split(
            {
                "id": f"split_{len(splits)}_{path or 'root'}",
                "direction": direction,
                "ratio": ratio,
                "rect": {"x": x, "y": y, "width": w, "height": h},
            }
        )
        # split_rect, inlined: the first child's (x, y, w, h) here, the second's below
        if direction == "right":
            w1 = first_size(w, ratio)
            sx, sy, sw, sh = x + w1, y, w - w1 if w > w1 else 0, h
            w = w1
        else:
            h1 = first_size(h, ratio)
            sx, sy, sw, sh = x, y + h1, w, h - h1 if h > h1 else 0
            h = h1
        first, second = n.first, n.second
        if isinstance(first, Leaf):
            # the first child is a pane: it comes next in pre-order, then the second child
            pane = first.pane
            rect = {"x": x, "y": y, "width": w, "height": h}
            if focused is None:
                add_pane({"pane_id": pane, "rect": rect})
            else:
                add_pane({"pane_id": pane, "focused": pane == focused, "rect": rect})
            n, x, y, w, h, path = second, sx, sy, sw, sh, path + "1"
        else:
            push((second, sx, sy, sw, sh, path + "1"))
            n, path = first, path + "0"
    return panes, splits


def _overlaps(a0: int, alen: int, b0: int, blen: int) -> bool:
    return a0 < b0 + blen and a0 + alen > b0


def _overlap_amount(a0: int, alen: int, b0: int, blen: int) -> int:
    return max(0, min(a0 + alen, b0 + blen) - max(a0, b0))


def _center_distance(a0: int, alen: int, b0: int, blen: int) -> int:
    return abs((2 * a0 + alen) - (2 * b0 + blen))


def find_in_direction(node: Node, source: str, direction: str, area: Rect = DEFAULT_AREA):
    """The nearest pane in a direction (src/layout.rs find_in_direction): panes wholly on that
    side that overlap the source's span; nearest edge, then larger overlap, then nearer center,
    then layout order."""
    return nearest_in_direction(pane_rects(node, area), source, direction)


def nearest_in_direction(rects: list[tuple[str, Rect]], source: str, direction: str) -> str | None:
    """:func:`find_in_direction` on given pane rects (in layout order)."""
    src = next((r for p, r in rects if p == source), None)
    if src is None:
        return None
    fx, fy, fw, fh = src
    best: tuple[tuple[int, int, int, int], str] | None = None
    for index, (pid, (x, y, w, h)) in enumerate(rects):
        if pid == source:
            continue
        if direction in ("left", "right"):
            ok = (x + w <= fx if direction == "left" else x >= fx + fw) and _overlaps(y, h, fy, fh)
            gap = fx - (x + w) if direction == "left" else x - (fx + fw)
            span = (y, h, fy, fh)
        else:
            ok = (y + h <= fy if direction == "up" else y >= fy + fh) and _overlaps(x, w, fx, fw)
            gap = fy - (y + h) if direction == "up" else y - (fy + fh)
            span = (x, w, fx, fw)
        # nearest edge, then larger overlap, then nearer centre, then layout order
        key = (max(0, gap), -_overlap_amount(*span), _center_distance(*span), index)
        if ok and (best is None or key < best[0]):
            best = (key, pid)
    return best[1] if best else None


def edges(node: Node, pane: str, area: Rect = DEFAULT_AREA) -> dict | None:
    """Which outer edges of the area the pane touches (src/app/api/panes.rs:288-338)."""
    rect = next((r for p, r in pane_rects(node, area) if p == pane), None)
    if rect is None:
        return None
    x, y, w, h = rect
    ax, ay, aw, ah = area
    return {"left": x <= ax, "right": x + w >= ax + aw, "up": y <= ay, "down": y + h >= ay + ah}


_OPPOSITE = {"left": "right", "right": "left", "up": "down", "down": "up"}


def _edge_distance(split: dict, rect: Rect, nav: str) -> int:
    x, y, w, h = rect
    edge = {"left": x, "right": x + w, "up": y, "down": y + h}[nav]
    return abs(split["pos"] - edge)


def _nearest_resize_split(splits: list[dict], direction: str, rect: Rect, nav: str):
    x, y, w, h = rect
    best = None
    for s in splits:
        if s["direction"] != direction:
            continue
        sx, sy, sw, sh = s["rect"]
        span = _overlaps(sy, sh, y, h) if nav in ("left", "right") else _overlaps(sx, sw, x, w)
        d = _edge_distance(s, rect, nav)
        if span and d <= 1 and (best is None or d < best[0]):  # first minimum wins
            best = (d, s)
    return best[1] if best else None


def resize_pane(node: Node, pane: str, nav: str, delta: float, area: Rect = DEFAULT_AREA) -> bool:
    """src/layout.rs resize_pane / resize_focused: move the nearest split on the pane's edge
    in that direction (else on the opposite edge); right/down grow the first child. True when
    a ratio changed."""
    rect = next((r for p, r in pane_rects(node, area) if p == pane), None)
    if rect is None:
        return False
    splits = _splits(node, area)
    direction = "right" if nav in ("left", "right") else "down"
    best = _nearest_resize_split(splits, direction, rect, nav) or _nearest_resize_split(
        splits, direction, rect, _OPPOSITE[nav]
    )
    if best is None:
        return False
    path = [c == "1" for c in best["path"]]
    s = split_at(node, path)
    assert s is not None  # the path came from this tree's own walk
    before = s.ratio
    adj = f32(delta) if nav in ("right", "down") else -f32(delta)
    set_ratio_at(node, path, f32(f32(before) + adj))
    return f32(s.ratio) != f32(before)


# --- portable forms ---------------------------------------------------------------------------


def to_saved(node: Node, pane_key: Callable[[str], Any]) -> Any:
    """herdr's persisted layout shape (src/persist/snapshot.rs:128-142, serde's external
    tagging): ``{"Pane": key}`` / ``{"Split": {"direction": "Horizontal"|"Vertical", "ratio",
    "first", "second"}}``; ``pane_key`` maps a pane id to what the file stores."""
    return _convert(
        node,
        lambda leaf: {"Pane": pane_key(leaf.pane)},
        lambda s, a, b: {
            "Split": {
                "direction": "Horizontal" if s.direction == "right" else "Vertical",
                "ratio": s.ratio,
                "first": a,
                "second": b,
            }
        },
    )


def from_saved(data: Any, pane_of: Callable[[Any], str]) -> Node:
    """Inverse of :func:`to_saved`; ``pane_of`` maps a stored key back to a pane id. Raises
    ValueError on a malformed tree."""

    def kids(d):
        if isinstance(d, dict) and "Split" in d and isinstance(d["Split"], dict):
            return d["Split"].get("first"), d["Split"].get("second")
        if isinstance(d, dict) and "Pane" in d:
            return None
        raise ValueError(f"not a layout node: {d!r}")

    def make(d, a, b):
        if a is None:
            return Leaf(pane_of(d["Pane"]))
        sp = d["Split"]
        direction = {"Horizontal": "right", "Vertical": "down"}.get(sp.get("direction"))
        if direction is None:
            raise ValueError(f"bad split direction: {sp.get('direction')!r}")
        ratio = sp.get("ratio")
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)):
            raise ValueError(f"bad split ratio: {ratio!r}")
        # restored as saved, not clamped (restore.rs remap_inner, src/layout.rs from_saved)
        return Split(direction, f32_value(ratio), a, b)

    return build(data, kids, make)


def _convert(node: Node, leaf_fn, split_fn):
    """Post-order fold without recursion."""
    out: list[Any] = []
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        n, done = stack.pop()
        if isinstance(n, Leaf):
            out.append(leaf_fn(n))
        elif done:
            b = out.pop()
            a = out.pop()
            out.append(split_fn(n, a, b))
        else:
            stack.append((n, True))
            stack.append((n.second, False))
            stack.append((n.first, False))
    return out[0]


def fold(node: Node, leaf_fn, split_fn):
    """Public post-order fold: ``leaf_fn(leaf)`` and ``split_fn(split, first, second)``."""
    return _convert(node, leaf_fn, split_fn)


def build(data: Any, children: Callable, make: Callable):
    """Build a tree from nested data without recursion: ``children(d)`` is None for a leaf or
    (first, second); ``make(d, a, b)`` makes the node (a and b None for a leaf)."""
    out: list[Any] = []
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        d, done = stack.pop()
        if done:
            b = out.pop()
            a = out.pop()
            out.append(make(d, a, b))
            continue
        kids = children(d)
        if kids is None:
            out.append(make(d, None, None))
        else:
            stack.append((d, True))
            stack.append((kids[1], False))
            stack.append((kids[0], False))
    return out[0]
