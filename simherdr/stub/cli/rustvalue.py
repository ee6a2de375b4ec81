"""serde_json's number text (``ryu``) and the values printed with it: an ``f32`` request field
(:class:`F32`, ``--ratio``), the exact serde writer :mod:`.wire` falls back to when a reply
holds a float Python's ``repr`` prints differently (or an F32), and the ``Debug`` form of a
``serde_json::Value`` (:func:`value_debug`, agent explain's text report).  Loaded on use only:
a reply without floats never loads it.
"""

from _json import encode_basestring as _quote


def format_f64(value: float) -> str:
    """``serde_json``/``ryu`` text for a finite f64 (e.g. ``1e16``, ``0.0001``, ``1.5e-7``)."""
    return _ryu(value, repr(value), 16, -5)


def _digits_exponent(text: str):
    """Split Python's shortest repr into (negative, digits, exponent) with value = digits*10^exp."""
    negative = text.startswith("-")
    if negative:
        text = text[1:]
    mantissa, _, exp = text.partition("e")
    exponent = int(exp) if exp else 0
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    exponent -= len(frac)
    if not digits:
        return negative, "0", 0
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    return negative, stripped, exponent


def _ryu(value: float, shortest: str, max_kk: int, min_kk_exclusive: int) -> str:
    negative, digits, k = _digits_exponent(shortest)
    sign = "-" if negative else ""
    if digits == "0":
        return sign + "0.0"
    length = len(digits)
    kk = length + k
    if k >= 0 and kk <= max_kk:
        return sign + digits + "0" * k + ".0"
    if 0 < kk <= max_kk:
        return sign + digits[:kk] + "." + digits[kk:]
    if min_kk_exclusive < kk <= 0:
        return sign + "0." + "0" * (-kk) + digits
    if length == 1:
        return sign + digits + "e" + str(kk - 1)
    return sign + digits[0] + "." + digits[1:] + "e" + str(kk - 1)


def _encode(value, out: list) -> None:
    """serde_json compact writer for a generic value (keys sorted when ``sort`` is set)."""
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_quote(value))
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(format_f64(value))
    elif isinstance(value, F32):
        out.append(value.text)
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for key in sorted(value):
            if not first:
                out.append(",")
            first = False
            out.append(_quote(key))
            out.append(":")
            _encode(value[key], out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _encode(item, out)
        out.append("]")
    else:  # pragma: no cover - only JSON values reach here
        raise TypeError(type(value).__name__)


def encode_exact(value) -> str:
    """``serde_json::to_string(&Value)`` in pure Python (keys sorted, serde's float text)."""
    out: list = []
    _encode(value, out)
    return "".join(out)


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
    from ...facts.rusttext import rust_debug_str

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
