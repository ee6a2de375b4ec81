"""Rust values the stand-in prints with serde_json's number rules (those of :mod:`.wire`): an
``f32`` request field (:class:`F32`, ``--ratio``) and the ``Debug`` form of a
``serde_json::Value`` (:func:`value_debug`, agent explain's text report).  Loaded on use only.
"""

from ...facts.rusttext import rust_debug_str
from .wire import _ryu, format_f64


class F32:
    """An ``f32`` request field (``--ratio``), printed the way serde_json prints an f32."""

    __slots__ = ("text", "value")

    def __init__(self, value: float):
        import struct

        rounded = struct.unpack("<f", struct.pack("<f", value))[0]
        shortest = None
        for precision in range(1, 10):
            candidate = "%.*e" % (precision - 1, rounded)
            if struct.unpack("<f", struct.pack("<f", float(candidate)))[0] == rounded:
                shortest = repr(float(candidate))
                break
        if shortest is None:  # pragma: no cover - 9 digits always round-trip an f32
            shortest = repr(rounded)
        self.value = rounded
        self.text = _ryu(rounded, shortest, 13, -6)


# ---------------------------------------------------------------------------------------------
# Rust Debug of serde_json::Value (agent explain's text report prints a few)
# ---------------------------------------------------------------------------------------------


def value_debug(value) -> str:
    if value is None:
        return "Null"
    if value is True:
        return "Bool(true)"
    if value is False:
        return "Bool(false)"
    if isinstance(value, str):
        return "String(%s)" % rust_debug_str(value)
    if isinstance(value, int):
        return "Number(%d)" % value
    if isinstance(value, float):
        return "Number(%s)" % format_f64(value)
    if isinstance(value, list):
        return "Array [" + ", ".join(value_debug(v) for v in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(
            "%s: %s" % (rust_debug_str(k), value_debug(value[k])) for k in sorted(value)
        )
        return "Object {" + items + "}"
    return repr(value)  # pragma: no cover
