"""Seeding a fresh simherdr with a recording's starting state (``record --snapshot-first``).

The cassette's first step holds the upstream's ``session.snapshot`` (normalized). A simherdr
target rebuilds it through herdr's own methods (``workspace.create``, ``tab.create``,
``pane.split``, ``*.rename``), in the snapshot's order, so the new ids come out in the same
order; the replay then binds the snapshot's references to the target's ids by matching the
two id lists (:func:`shape`). Layout geometry, agents and screens are not rebuilt (CHOICE: the
ids and names a client refers to; what else the suite reads of its starting state shows up
as a miss, named).
"""

from __future__ import annotations

import json
import os
from typing import Any


def _call(target, method: str, params: dict) -> dict:
    conn = target.connect(10.0)
    try:
        line = {"id": "simherdr-seed", "method": method, "params": params}
        conn.send(json.dumps(line).encode() + b"\n")
        got = conn.recv_line(10.0)
    finally:
        conn.close()
    reply = json.loads(got) if got else {}
    if "result" not in reply:
        raise ValueError(f"seeding: {method} failed: {reply.get('error')}")
    return reply["result"]


def shape(snapshot: dict) -> dict:
    """What seeding reproduces: the ids (in order) and the labels."""
    snap = snapshot.get("snapshot", snapshot)
    return {
        "workspaces": [
            {"workspace_id": w.get("workspace_id"), "label": w.get("label")}
            for w in snap.get("workspaces", [])
        ],
        "tabs": [
            {"tab_id": t.get("tab_id"), "label": t.get("label")} for t in snap.get("tabs", [])
        ],
        "panes": [{"pane_id": p.get("pane_id")} for p in snap.get("panes", [])],
    }


def seed_target(target, snapshot: dict) -> dict:
    """Rebuild ``snapshot`` (its references restored to values) on ``target``; returns the
    target's :func:`shape` (the seed step of the cassette is compared by shape too)."""
    snap = snapshot.get("snapshot", snapshot)
    panes_by_tab: dict[str, list[dict]] = {}
    for p in snap.get("panes", []):
        panes_by_tab.setdefault(p.get("tab_id"), []).append(p)

    def cwd_for(p: dict | None) -> str:
        cwd = (p or {}).get("cwd")
        if isinstance(cwd, str) and os.path.isdir(cwd):
            return cwd
        return target.fresh_dir(cwd if isinstance(cwd, str) else "seed")

    tabs_by_ws: dict[str, list[dict]] = {}
    for t in snap.get("tabs", []):
        tabs_by_ws.setdefault(t.get("workspace_id"), []).append(t)
    for w in snap.get("workspaces", []):
        tabs = tabs_by_ws.get(w.get("workspace_id"), [])
        first_panes = panes_by_tab.get(tabs[0]["tab_id"], []) if tabs else []
        made = _call(
            target,
            "workspace.create",
            {
                "cwd": cwd_for(first_panes[0] if first_panes else None),
                "label": w.get("label"),
                "focus": False,
            },
        )
        wid = made["workspace"]["workspace_id"]
        for n, t in enumerate(tabs):
            panes = panes_by_tab.get(t["tab_id"], [])
            if n == 0:
                root = made["root_pane"]["pane_id"]
                tab_id = made["tab"]["tab_id"] if "tab" in made else root.split(":")[0] + ":t1"
                if t.get("label") and t.get("label") != str(t.get("number")):
                    _call(target, "tab.rename", {"tab_id": tab_id, "label": t["label"]})
            else:
                tab = _call(
                    target,
                    "tab.create",
                    {
                        "workspace_id": wid,
                        "label": t.get("label"),
                        "cwd": cwd_for(panes[0] if panes else None),
                        "focus": False,
                    },
                )
                root = tab["root_pane"]["pane_id"]
            last = root
            for p in panes[1:]:
                split = _call(
                    target,
                    "pane.split",
                    {
                        "target_pane_id": last,
                        "direction": "right",
                        "cwd": cwd_for(p),
                        "focus": False,
                    },
                )
                last = split["pane"]["pane_id"]
    focused = snap.get("focused_pane_id")
    if isinstance(focused, str):
        try:
            _call(target, "pane.focus", {"pane_id": focused})
        except ValueError:
            pass
    return shape(_call(target, "session.snapshot", {}))


def seed_view(step_seed: Any) -> dict:
    return shape(step_seed) if isinstance(step_seed, dict) else {}
