"""bincode 2 (serde, ``bincode::config::standard()``) as herdr encodes its client-socket messages
(herdr 0.8.x Cargo.lock: bincode 2.0.1; ``bincode::serde::encode_to_vec`` /
``decode_from_slice``), driven by a protocol's table (:mod:`.schema`).

The wire: integers are variable-length (``< 251``: one byte; 251 + u16 LE; 252 + u32 LE;
253 + u64 LE; 254 + u128 LE), signed ones zigzagged first; ``u8`` and ``i8`` one raw byte;
``bool`` one byte (0/1); an enum's variant index a varint u32, then its fields; ``Option`` a
0/1 byte then the value; ``Vec``/``String`` a varint length then the items (bytes); ``char``
its UTF-8 bytes; tuples and structs their fields in order; f32/f64 little-endian.

Values are serde's externally tagged data model: unit variant ``"Name"``, newtype
``{"Name": value}``, tuple ``{"Name": [..]}``, struct variant ``{"Name": {"field": ..}}``, a struct
a dict, a tuple a list, ``None`` for ``Option::None``, ``bytes`` for ``Vec<u8>``.

Decoding hostile input never raises anything but :class:`BincodeError`, whose text is bincode's
own ``DecodeError`` as herdr prints it (``Display`` = ``Debug`` in bincode 2, error.rs; read at
bincode 2.0.0-rc.3, 8f65c60: herdr locks 2.0.1, whose DecodeError docs list the same variants
and fields): e.g.
``UnexpectedEnd { additional: 1 }``, ``InvalidBooleanValue(2)``, ``OtherString("invalid value:
integer `9`, expected variant index 0 <= i < 9")``. Nothing is allocated by a claimed length
before the bytes are there.
"""

from __future__ import annotations

import _thread
import struct as _struct
from collections.abc import Callable

from ..facts.rusttext import rust_debug_str
from .schema import Enum, Named, Prim, Seq, Struct, Table, Tuple, TypeRef

TYPE_CHECKING = False  # (not typing's: importing typing costs a stand-in call ~7 ms)
if TYPE_CHECKING:
    from typing import Any

    Encoder = Callable[[Any, bytearray], None]
    Decoder = Callable[[bytes, int], tuple[Any, int]]

__all__ = ["BincodeError", "Codec", "EncodeError"]

_SINGLE_MAX = 250
_U16, _U32, _U64, _U128 = 251, 252, 253, 254

_BITS = {"u16": 16, "u32": 32, "u64": 64, "u128": 128, "usize": 64}
_SIGNED = {"i16": "u16", "i32": "u32", "i64": "u64", "i128": "u128", "isize": "usize"}
# bincode's IntegerType names (error.rs): the width a varint discriminant announces
_FOUND = {_U16: "U16", _U32: "U32", _U64: "U64", _U128: "U128"}
_WIDTH = {"u16": 2, "u32": 4, "u64": 8, "u128": 16, "usize": 8}


class BincodeError(ValueError):
    """A payload bincode refuses; ``str()`` is bincode's ``DecodeError`` as herdr formats it."""


class EncodeError(ValueError):
    """A value that does not fit its type (our own check: herdr's types cannot hold it)."""


def _end(additional: int) -> BincodeError:
    return BincodeError(f"UnexpectedEnd {{ additional: {additional} }}")


# ---------------------------------------------------------------------------
# Primitive encoders and decoders (buf, pos) -> (value, pos)
# ---------------------------------------------------------------------------


def _enc_varint(n: int, out: bytearray) -> None:
    if n <= _SINGLE_MAX:
        out.append(n)
    elif n <= 0xFFFF:
        out.append(_U16)
        out += n.to_bytes(2, "little")
    elif n <= 0xFFFF_FFFF:
        out.append(_U32)
        out += n.to_bytes(4, "little")
    elif n <= 0xFFFF_FFFF_FFFF_FFFF:
        out.append(_U64)
        out += n.to_bytes(8, "little")
    else:
        out.append(_U128)
        out += n.to_bytes(16, "little")


def _dec_varint(buf: bytes, pos: int, kind: str) -> tuple[int, int]:
    """bincode's varint_decode_<kind> (src/varint/decode_unsigned.rs); ``kind`` u16..usize."""
    if pos >= len(buf):
        raise _end(1)
    d = buf[pos]
    if d <= _SINGLE_MAX:
        return d, pos + 1
    width = {_U16: 2, _U32: 4, _U64: 8, _U128: 16}.get(d)
    if width is None or width > _WIDTH[kind]:
        found = _FOUND.get(d, "Reserved")
        raise BincodeError(
            f"InvalidIntegerType {{ expected: {_integer_type(kind)}, found: {found} }}"
        )
    end = pos + 1 + width
    if end > len(buf):
        raise _end(end - len(buf))
    return int.from_bytes(buf[pos + 1 : end], "little"), end


def _integer_type(kind: str) -> str:
    return "Usize" if kind == "usize" else kind.upper()


def _signed_error(err: BincodeError) -> BincodeError:
    """DecodeError::change_integer_type_to_signed (error.rs): U32 -> I32 in both places."""
    text = str(err)
    if not text.startswith("InvalidIntegerType"):
        return err
    for u, i in (("U128", "I128"), ("U16", "I16"), ("U32", "I32"), ("U64", "I64")):
        text = text.replace(u, i)
    return BincodeError(text.replace("Usize", "Isize"))


def _int_codec(name: str) -> tuple[Encoder, Decoder, int]:
    if name in ("u8", "i8"):
        lo, hi = (0, 255) if name == "u8" else (-128, 127)

        def enc8(v: Any, out: bytearray) -> None:
            _check_int(v, lo, hi, name)
            out.append(v & 0xFF)

        def dec8(buf: bytes, pos: int) -> tuple[Any, int]:
            if pos >= len(buf):
                raise _end(1)
            b = buf[pos]
            return (b - 256 if name == "i8" and b > 127 else b), pos + 1

        return enc8, dec8, 1
    if name in _BITS:
        hi = (1 << _BITS[name]) - 1

        def enc_u(v: Any, out: bytearray) -> None:
            _check_int(v, 0, hi, name)
            _enc_varint(v, out)

        def dec_u(buf: bytes, pos: int) -> tuple[Any, int]:
            return _dec_varint(buf, pos, name)

        return enc_u, dec_u, 1
    unsigned = _SIGNED[name]
    bits = _BITS[unsigned]
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def enc_i(v: Any, out: bytearray) -> None:
        _check_int(v, lo, hi, name)
        _enc_varint((v << 1) if v >= 0 else ((-v) << 1) - 1, out)

    def dec_i(buf: bytes, pos: int) -> tuple[Any, int]:
        try:
            n, pos = _dec_varint(buf, pos, unsigned)
        except BincodeError as e:
            raise _signed_error(e) from None
        return ((n >> 1) if n % 2 == 0 else -((n + 1) >> 1)), pos

    return enc_i, dec_i, 1


def _check_int(v: Any, lo: int, hi: int, name: str) -> None:
    if type(v) is not int or not lo <= v <= hi:
        raise EncodeError(f"expected {name} ({lo}..={hi}), got {v!r}")


def _enc_bool(v: Any, out: bytearray) -> None:
    if type(v) is not bool:
        raise EncodeError(f"expected bool, got {v!r}")
    out.append(1 if v else 0)


def _dec_bool(buf: bytes, pos: int) -> tuple[Any, int]:
    if pos >= len(buf):
        raise _end(1)
    b = buf[pos]
    if b > 1:
        raise BincodeError(f"InvalidBooleanValue({b})")
    return b == 1, pos + 1


def _utf8_error(data: bytes) -> str:
    """Rust's ``Utf8Error`` Debug for invalid ``data``."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        valid_up_to = e.start
        error_len = "None" if e.reason == "unexpected end of data" else f"Some({e.end - e.start})"
        return (
            f"Utf8 {{ inner: Utf8Error {{ valid_up_to: {valid_up_to}, error_len: {error_len} }} }}"
        )
    return "Utf8"  # pragma: no cover - only called on invalid data


def _enc_string(v: Any, out: bytearray) -> None:
    if type(v) is not str:
        raise EncodeError(f"expected a string, got {v!r}")
    try:
        data = v.encode("utf-8")
    except UnicodeEncodeError:
        raise EncodeError(f"not valid UTF-8 (a lone surrogate): {v!r}") from None
    _enc_varint(len(data), out)
    out += data


def _dec_string(buf: bytes, pos: int) -> tuple[Any, int]:
    # String::decode -> Vec<u8>::decode (impl_alloc.rs): one read of the whole length.
    # CHOICE (issue 31): herdr allocates ``vec![0u8; len]`` before that read, so a claimed
    # length past isize::MAX panics its connection thread ("capacity overflow"); here every
    # claim beyond the payload is the UnexpectedEnd herdr reports for one that fits in memory.
    n, pos = _dec_varint(buf, pos, "usize")
    end = pos + n
    if end > len(buf):
        raise _end(end - len(buf))
    data = bytes(buf[pos:end])
    try:
        return data.decode("utf-8"), end
    except UnicodeDecodeError:
        raise BincodeError(_utf8_error(data)) from None


def _enc_bytes(v: Any, out: bytearray) -> None:
    if not isinstance(v, bytes | bytearray | memoryview):
        raise EncodeError(f"expected bytes, got {type(v).__name__}")
    _enc_varint(len(v), out)
    out += v


def _dec_bytes(buf: bytes, pos: int) -> tuple[Any, int]:
    # Vec<u8> through serde is a sequence of u8: a short one runs out one byte at a time
    n, pos = _dec_varint(buf, pos, "usize")
    end = pos + n
    if end > len(buf):
        raise _end(1)
    return bytes(buf[pos:end]), end


def _dec_bytebuf(buf: bytes, pos: int) -> tuple[Any, int]:
    # serialize_bytes / deserialize_bytes: Vec<u8>::decode reads the whole length at once
    n, pos = _dec_varint(buf, pos, "usize")
    end = pos + n
    if end > len(buf):
        raise _end(end - len(buf))
    return bytes(buf[pos:end]), end


def _enc_char(v: Any, out: bytearray) -> None:
    if type(v) is not str or len(v) != 1:
        raise EncodeError(f"expected one character, got {v!r}")
    try:
        out += v.encode("utf-8")
    except UnicodeEncodeError:
        raise EncodeError(f"not a Unicode scalar value: {v!r}") from None


def _utf8_width(b: int) -> int:
    """core::str::utf8_char_width: 0 for a byte no character starts with."""
    if b < 0x80:
        return 1
    if 0xC2 <= b <= 0xDF:
        return 2
    if 0xE0 <= b <= 0xEF:
        return 3
    if 0xF0 <= b <= 0xF4:
        return 4
    return 0


def _dec_char(buf: bytes, pos: int) -> tuple[Any, int]:
    # impl Decode for char (de/impls.rs)
    if pos >= len(buf):
        raise _end(1)
    width = _utf8_width(buf[pos])
    arr = [buf[pos], 0, 0, 0]
    if width == 0:
        raise BincodeError(f"InvalidCharEncoding({_arr(arr)})")
    end = pos + width
    if end > len(buf):
        raise _end(end - len(buf))
    arr[:width] = buf[pos:end]
    try:
        ch = bytes(buf[pos:end]).decode("utf-8")
    except UnicodeDecodeError:
        raise BincodeError(f"InvalidCharEncoding({_arr(arr)})") from None
    return ch, end


def _arr(arr: list[int]) -> str:
    return "[" + ", ".join(str(b) for b in arr) + "]"


def _float_codec(name: str) -> tuple[Encoder, Decoder, int]:
    fmt, size = ("<f", 4) if name == "f32" else ("<d", 8)

    def enc(v: Any, out: bytearray) -> None:
        if type(v) not in (int, float):
            raise EncodeError(f"expected {name}, got {v!r}")
        out += _struct.pack(fmt, v)

    def dec(buf: bytes, pos: int) -> tuple[Any, int]:
        end = pos + size
        if end > len(buf):
            raise _end(end - len(buf))
        return _struct.unpack_from(fmt, buf, pos)[0], end

    return enc, dec, size


def _enc_unit(v: Any, out: bytearray) -> None:
    if v is not None:
        raise EncodeError(f"expected (), got {v!r}")


def _dec_unit(buf: bytes, pos: int) -> tuple[Any, int]:
    return None, pos


_FIXED: dict[str, tuple[Encoder, Decoder, int]] = {
    "bool": (_enc_bool, _dec_bool, 1),
    "String": (_enc_string, _dec_string, 1),
    "bytes": (_enc_bytes, _dec_bytes, 1),
    "ByteBuf": (_enc_bytes, _dec_bytebuf, 1),
    "char": (_enc_char, _dec_char, 1),
    "()": (_enc_unit, _dec_unit, 0),
}


# ---------------------------------------------------------------------------
# Composite codecs, built from a table
# ---------------------------------------------------------------------------


class Codec:
    """Encoders and decoders for every type of one :class:`~.schema.Table`, built on first use."""

    def __init__(self, table: Table) -> None:
        self.table = table
        # only finished codecs: another thread may read these without the lock (a codec is
        # shared: wire_for; e.g. a verify's targets replay side by side in threads)
        self._enc: dict[str, Encoder] = {}
        self._dec: dict[str, Decoder] = {}
        self._lock = _thread.RLock()  # (a build recurses into encoder()/decoder())
        self._building: set[tuple[str, str]] = set()  # (a recursive type: a forwarder)

    def encode(self, type_name: str, value: Any) -> bytes:
        out = bytearray()
        self.encoder(type_name)(value, out)
        return bytes(out)

    def decode(self, type_name: str, payload: bytes) -> tuple[Any, int]:
        """(value, bytes consumed); raises :class:`BincodeError` only."""
        try:
            return self.decoder(type_name)(payload, 0)
        except RecursionError:  # pragma: no cover - the tables hold no recursive type
            raise BincodeError('Other("nesting too deep")') from None

    # -- named types -------------------------------------------------------

    def encoder(self, name: str) -> Encoder:
        enc = self._enc.get(name)
        if enc is None:
            with self._lock:  # a placeholder in _enc was seen by another thread mid-build:
                enc = self._enc.get(name)  # it called itself until RecursionError (a flake)
                if enc is None and ("enc", name) in self._building:
                    return lambda v, out: self.encoder(name)(v, out)
                if enc is None:
                    self._building.add(("enc", name))
                    try:
                        enc = self._enc[name] = self._build_encoder(name)
                    finally:
                        self._building.discard(("enc", name))
        return enc

    def decoder(self, name: str) -> Decoder:
        dec = self._dec.get(name)
        if dec is None:
            with self._lock:
                dec = self._dec.get(name)
                if dec is None and ("dec", name) in self._building:
                    return lambda buf, pos: self.decoder(name)(buf, pos)
                if dec is None:
                    self._building.add(("dec", name))
                    try:
                        dec = self._dec[name] = self._build_decoder(name)
                    finally:
                        self._building.discard(("dec", name))
        return dec

    def _build_encoder(self, name: str) -> Encoder:
        d = self.table.types[name]
        if isinstance(d, Struct):
            return _struct_encoder(name, [(f, self.type_encoder(t)) for f, t in d.fields])
        return self._enum_encoder(d)

    def _build_decoder(self, name: str) -> Decoder:
        d = self.table.types[name]
        if isinstance(d, Struct):
            return _struct_decoder([(f, self.type_decoder(t)) for f, t in d.fields])
        return self._enum_decoder(d)

    def _enum_encoder(self, d: Enum) -> Encoder:
        units: dict[str, int] = {}
        bodies: dict[str, tuple[int, Encoder]] = {}
        for v in d.variants:
            if v.shape == "unit":
                units[v.name] = v.index
            elif v.shape == "newtype":
                bodies[v.name] = (v.index, self.type_encoder(v.items[0]))
            elif v.shape == "tuple":
                bodies[v.name] = (v.index, _tuple_encoder([self.type_encoder(t) for t in v.items]))
            else:
                encs = [(f, self.type_encoder(t)) for f, t in v.fields]
                bodies[v.name] = (v.index, _struct_encoder(f"{d.name}::{v.name}", encs))
        tname = d.name

        def enc(value: Any, out: bytearray) -> None:
            if type(value) is str:
                index = units.get(value)
                if index is None:
                    raise EncodeError(f"{tname} has no unit variant {value!r}")
                _enc_varint(index, out)
                return
            if type(value) is not dict or len(value) != 1:
                raise EncodeError(
                    f"{tname}: expected a variant name or {{name: body}}, got {value!r}"
                )
            ((vname, body),) = value.items()
            entry = bodies.get(vname)
            if entry is None:
                raise EncodeError(f"{tname} has no variant {vname!r} with a body")
            _enc_varint(entry[0], out)
            entry[1](body, out)

        return enc

    def _enum_decoder(self, d: Enum) -> Decoder:
        table: list[Callable[[bytes, int], tuple[Any, int]]] = []
        for v in d.variants:
            table.append(self._variant_decoder(v.name, v.shape, v.items, v.fields))
        count = len(table)
        other = d.variant(d.other) if d.other else None

        def dec(buf: bytes, pos: int) -> tuple[Any, int]:
            index, pos = _dec_varint(buf, pos, "u32")
            if index >= count:
                if other is not None:
                    return other.name, pos
                # serde_derive's visit_u64 fallthrough (invalid_value), bincode OtherString
                text = f"invalid value: integer `{index}`, expected variant index 0 <= i < {count}"
                raise BincodeError(f"OtherString({rust_debug_str(text)})")
            return table[index](buf, pos)

        return dec

    def _variant_decoder(
        self,
        name: str,
        shape: str,
        items: tuple[TypeRef, ...],
        fields: tuple[tuple[str, TypeRef], ...],
    ) -> Decoder:
        if shape == "unit":
            return lambda buf, pos: (name, pos)
        if shape == "newtype":
            inner = self.type_decoder(items[0])

            def dec_newtype(buf: bytes, pos: int) -> tuple[Any, int]:
                v, pos = inner(buf, pos)
                return {name: v}, pos

            return dec_newtype
        if shape == "tuple":
            tdec = _tuple_decoder([self.type_decoder(t) for t in items])

            def dec_tuple(buf: bytes, pos: int) -> tuple[Any, int]:
                v, pos = tdec(buf, pos)
                return {name: v}, pos

            return dec_tuple
        sdec = _struct_decoder([(f, self.type_decoder(t)) for f, t in fields])

        def dec_struct(buf: bytes, pos: int) -> tuple[Any, int]:
            v, pos = sdec(buf, pos)
            return {name: v}, pos

        return dec_struct

    # -- type expressions --------------------------------------------------

    def type_encoder(self, ty: TypeRef) -> Encoder:
        if isinstance(ty, Named):
            name = ty.name
            return lambda v, out: self.encoder(name)(v, out)
        if isinstance(ty, Prim):
            return _prim(ty.name)[0]
        if isinstance(ty, Tuple):
            return _tuple_encoder([self.type_encoder(t) for t in ty.items])
        item = self.type_encoder(ty.item)
        if ty.kind == "option":

            def enc_opt(v: Any, out: bytearray) -> None:
                if v is None:
                    out.append(0)
                else:
                    out.append(1)
                    item(v, out)

            return enc_opt

        def enc_vec(v: Any, out: bytearray) -> None:
            if not isinstance(v, list | tuple):
                raise EncodeError(f"expected a list, got {type(v).__name__}")
            _enc_varint(len(v), out)
            for x in v:
                item(x, out)

        return enc_vec

    def type_decoder(self, ty: TypeRef) -> Decoder:
        if isinstance(ty, Named):
            name = ty.name
            return lambda buf, pos: self.decoder(name)(buf, pos)
        if isinstance(ty, Prim):
            return _prim(ty.name)[1]
        if isinstance(ty, Tuple):
            return _tuple_decoder([self.type_decoder(t) for t in ty.items])
        item = self.type_decoder(ty.item)
        if ty.kind == "option":

            def dec_opt(buf: bytes, pos: int) -> tuple[Any, int]:
                if pos >= len(buf):
                    raise _end(1)
                tag = buf[pos]
                if tag == 0:
                    return None, pos + 1
                if tag != 1:
                    # decode_option_variant(decoder, "Option<T>") (de/mod.rs, serde de_owned.rs)
                    raise BincodeError(
                        'UnexpectedVariant { type_name: "Option<T>", '
                        f"allowed: Range {{ min: 0, max: 1 }}, found: {tag} }}"
                    )
                return item(buf, pos + 1)

            return dec_opt
        if self.min_size(ty.item) == 0:
            raise TypeError(f"Vec of a zero-sized type {ty.item} is not supported")

        def dec_vec(buf: bytes, pos: int) -> tuple[Any, int]:
            n, pos = _dec_varint(buf, pos, "usize")
            out = []  # never preallocated from the claimed length
            for _ in range(n):
                v, pos = item(buf, pos)
                out.append(v)
            return out, pos

        return dec_vec

    def min_size(self, ty: TypeRef, _seen: frozenset[str] = frozenset()) -> int:
        """The fewest bytes a value of ``ty`` encodes to."""
        if isinstance(ty, Prim):
            return _prim(ty.name)[2]
        if isinstance(ty, Seq):
            return 1
        if isinstance(ty, Tuple):
            return sum(self.min_size(t, _seen) for t in ty.items)
        if ty.name in _seen:
            return 1
        d = self.table.types[ty.name]
        seen = _seen | {ty.name}
        if isinstance(d, Struct):
            return sum(self.min_size(t, seen) for _, t in d.fields)
        return 1


def _prim(name: str) -> tuple[Encoder, Decoder, int]:
    fixed = _FIXED.get(name)
    if fixed is not None:
        return fixed
    if name in ("f32", "f64"):
        return _float_codec(name)
    return _int_codec(name)


def _tuple_encoder(items: list[Encoder]) -> Encoder:
    n = len(items)

    def enc(v: Any, out: bytearray) -> None:
        if not isinstance(v, list | tuple) or len(v) != n:
            raise EncodeError(f"expected a list of {n}, got {v!r}")
        for e, x in zip(items, v, strict=True):
            e(x, out)

    return enc


def _tuple_decoder(items: list[Decoder]) -> Decoder:
    def dec(buf: bytes, pos: int) -> tuple[Any, int]:
        out = []
        for d in items:
            v, pos = d(buf, pos)
            out.append(v)
        return out, pos

    return dec


def _struct_encoder(name: str, fields: list[tuple[str, Encoder]]) -> Encoder:
    names = [f for f, _ in fields]

    def enc(v: Any, out: bytearray) -> None:
        if type(v) is not dict:
            raise EncodeError(f"{name}: expected a dict of {names}, got {v!r}")
        if len(v) != len(fields) or any(f not in v for f in names):
            missing = [f for f in names if f not in v]
            extra = [f for f in v if f not in names]
            raise EncodeError(f"{name}: missing fields {missing}, unknown fields {extra}")
        for f, e in fields:
            try:
                e(v[f], out)
            except EncodeError as err:
                raise EncodeError(f"{name}.{f}: {err}") from None

    return enc


def _struct_decoder(fields: list[tuple[str, Decoder]]) -> Decoder:
    def dec(buf: bytes, pos: int) -> tuple[Any, int]:
        out = {}
        for f, d in fields:
            out[f], pos = d(buf, pos)
        return out, pos

    return dec
