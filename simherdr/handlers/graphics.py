"""pane.graphics.* on 0.8.2 (src/app/api/pane_graphics.rs; params src/api/schema/panes.rs:289-365).

Pane graphics are gated by ``[experimental].kitty_graphics`` (default false,
config-reference-0.8.2) before anything else: with the gate closed every call answers
``feature_disabled`` "pane graphics require experimental.kitty_graphics" (require_enabled,
pane_graphics.rs:541-552), the stream's open included (src/api/server/pane_graphics_stream.rs
writes the failed open reply and closes). CHOICE: simherdr is a headless herdr on herdr's
default config, so the gate is closed; graphics rendering is not simulated. 0.9.2 retired these
methods (VERSIONS.md §5 row 15): the 0.9.3 method set (facts/methods.py) keeps them out.
"""

from __future__ import annotations

from .. import params as P
from ..facts import errors as E
from .registry import method


def I32(v):  # named like the params module's value types
    if isinstance(v, bool) or not isinstance(v, int):
        raise P.ParamError(f"invalid type: {P._json_kind(v)}, expected i32")
    if not -(2**31) <= v <= 2**31 - 1:
        raise P.ParamError(f"invalid value: integer `{v}`, expected i32")
    return v


PLACEMENT = P.struct(
    viewport_col=P.dflt(I32, 0),
    viewport_row=P.dflt(I32, 0),
    grid_cols=P.dflt(P.U32, 0),
    grid_rows=P.dflt(P.U32, 0),
)


def _disabled():
    raise E.graphics_disabled()


@method("pane.graphics.info", pane_id=P.req(P.STR))
def info(sim, p):
    _disabled()


@method(
    "pane.graphics.set",
    pane_id=P.req(P.STR),
    layer_id=P.opt(P.STR),
    z_index=P.dflt(I32, 0),
    format=P.req(P.enum("png", "rgb", "rgba", "bgra")),
    image_width=P.req(P.U32),
    image_height=P.req(P.U32),
    data_base64=P.dflt(P.STR, ""),
    placement=P.dflt(PLACEMENT, dict),
)
def set_(sim, p):
    _disabled()


@method("pane.graphics.clear", pane_id=P.req(P.STR), layer_id=P.opt(P.STR))
def clear(sim, p):
    _disabled()


@method("pane.graphics.stream", pane_id=P.req(P.STR), layer_id=P.opt(P.STR), z_index=P.dflt(I32, 0))
def stream(sim, p):
    _disabled()
