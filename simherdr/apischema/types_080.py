"""herdr 0.8.0's API type deltas under 0.8.2 (``types_082.json``), read in herdr's own diff
``git diff 346411fa 9eb52145 -- src/api/schema`` (tag v0.8.0 against v0.8.2; its published
schema: docs/next/api/herdr-api.schema.json at 346411fa):

* 10974c82 (#2504): no ``pane.input.set``, no ``PaneInputSetParams`` / ``PaneRightClickTarget``,
  no ``PaneSplitParams.right_click``;
* a4d52ab6 (#2743): no ``IntegrationTarget::Qwen``;
* 1777e9bb (#2523), b7dca4bb (#2680): pane graphics without layers (``layer_id``, ``z_index``),
  ``bgra``, ``pane_graphics_frame_ack``, and ``pane_graphics_info`` with the two cell sizes only.

``skip_fields`` / ``drop_wire``: fields and enum values the simulator's params specs carry
that 0.8.0's types lack (the generator leaves them out of this release's request schema). Read only by ``simherdr.apischema``.
"""

from __future__ import annotations

_GONE_FIELDS = {
    "PaneSplitParams": ("right_click",),
    "PaneGraphicsSetParams": ("layer_id", "z_index"),
    "PaneGraphicsClearParams": ("layer_id",),
    "PaneGraphicsStreamParams": ("layer_id", "z_index"),
}


def apply(types: dict) -> None:
    """Turn the 0.8.2 table into 0.8.0's (in place)."""
    method = dict(types["Method"])
    method["variants"] = [v for v in method["variants"] if v[0] != "PaneInputSet"]
    types["Method"] = method
    del types["PaneInputSetParams"], types["PaneRightClickTarget"]
    for name, gone in _GONE_FIELDS.items():
        t = dict(types[name])
        t["fields"] = [f for f in t["fields"] if f[0] not in gone]
        t["skip_fields"] = gone
        types[name] = t
    for name, variant in (("IntegrationTarget", "Qwen"), ("PaneGraphicsFormat", "Bgra")):
        t = dict(types[name])
        t["variants"] = [v for v in t["variants"] if v[0] != variant]
        t["drop_wire"] = (variant.lower(),)  # the simulator's enum carries it: left out
        types[name] = t
    result = dict(types["ResponseResult"])
    variants = []
    for v in result["variants"]:
        if v[0] == "PaneGraphicsFrameAck":
            continue
        if v[0] == "PaneGraphicsInfo":
            v = [v[0], v[1], [f for f in v[2] if f[0] in ("cell_width_px", "cell_height_px")], v[3]]
        variants.append(v)
    result["variants"] = variants
    types["ResponseResult"] = result
